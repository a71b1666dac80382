"""The judging screen when its query or document leaves the golden set under it (issue 30):
it says so and moves on, and nothing is recorded."""

from __future__ import annotations

from pathlib import Path

from qrelkit.storage import Store
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.removing import remove_documents, remove_queries

from .conftest import judge_app, make_store


def _saved(screen: JudgingScreen) -> str:
    return str(screen.query_one("#saved").render())


async def test_a_key_on_a_removed_query_says_so_and_records_nothing(tmp_path: Path) -> None:
    store = make_store(str(tmp_path / "s.db"))
    other = Store.open(tmp_path / "s.db")  # the owner, in another process
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        remove_queries(other, ["q1"], with_labels=True, assessor="owner")
        before = len(other.log.events())
        await pilot.press("3")
        assert "not saved: query 'q1' is not in the golden set" in _saved(screen)
        assert "q1 is not in the golden set" in str(screen.query_one("#query").render())
        await pilot.press("s", "e")
        assert len(other.log.events()) == before
        assert not [e for e in store.log.query_events("q1") if e[1].assessor == "ann"]
    other.close()
    store.close()


async def test_a_key_on_a_removed_document_says_so_and_moves_on(tmp_path: Path) -> None:
    store = make_store(str(tmp_path / "s.db"))
    other = Store.open(tmp_path / "s.db")
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.docs[screen.position].doc_id == "d1"
        remove_documents(other, ["d1"], with_labels=True, assessor="owner")
        await pilot.press("2")
        assert "not saved: document 'd1' was removed from the golden set" in _saved(screen)
        assert [d.doc_id for d in screen.docs] == ["d2", "d3", "d4"]  # d1 is no longer listed
        await pilot.press("1")  # the screen moved on to the first unlabeled document left
        assert [(e.doc_id, e.grade) for _, e in store.log.query_events("q1") if e.assessor == "ann"] == [("d3", 1)]
    other.close()
    store.close()
