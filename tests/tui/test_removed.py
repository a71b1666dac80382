"""The judging screen when its query or document leaves the golden set under it (issue 30):
it says so and moves on, and nothing is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qrelkit.storage import Store
from qrelkit.tui.screens import judging as judging_screen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.removing import remove_documents, remove_queries

from .conftest import judge_app, make_store, until


@pytest.fixture(autouse=True)
def _no_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key must meet the screen as it was drawn: the 2 s poll would re-read the query first
    on a busy machine (then the key lands on the document shown after it, rightly, and the
    refusal these tests check never happens)."""
    monkeypatch.setattr(judging_screen, "POLL_SECONDS", 3600.0)


async def _queue_drawn(pilot: Any, app: Any) -> None:
    """The judging queue computed and its arrival handled: its arrival re-reads the query once
    (`QueueReady`), which would drop the removed document before the key reaches it."""
    await until(pilot, lambda: app._queue_ready)
    await pilot.pause()


def _saved(screen: JudgingScreen) -> str:
    return str(screen.query_one("#saved").render())


async def test_a_key_on_a_removed_query_says_so_and_records_nothing(tmp_path: Path) -> None:
    store = make_store(str(tmp_path / "s.db"))
    other = Store.open(tmp_path / "s.db")  # the owner, in another process
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await _queue_drawn(pilot, app)
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
        assert isinstance(screen, JudgingScreen)
        await _queue_drawn(pilot, app)
        assert screen.docs[screen.position].doc_id == "d1"
        remove_documents(other, ["d1"], with_labels=True, assessor="owner")
        await pilot.press("2")
        assert "not saved: document 'd1' was removed from the golden set" in _saved(screen)
        assert [d.doc_id for d in screen.docs] == ["d2", "d3", "d4"]  # d1 is no longer listed
        await pilot.press("1")  # the screen moved on to the first unlabeled document left
        assert [(e.doc_id, e.grade) for _, e in store.log.query_events("q1") if e.assessor == "ann"] == [("d3", 1)]
    other.close()
    store.close()
