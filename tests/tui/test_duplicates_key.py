"""Duplicates on the judging screen (issue 25, item 6): the duplicates line names the document's
duplicates in the query with the viewing assessor's own vote on each (never anyone else's, blind
or not), and `D` gives them the assessor's grade on the document: one vote per document, each its
own event, by that assessor only, after a confirmation naming them; in one keystroke's budget of
statements."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from qrelkit.models import Document, Judgment, JudgmentState, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.confirm import ConfirmScreen
from qrelkit.tui.screens import judging as judging_screen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.duplicates_line import DuplicatesLine
from qrelkit.workflows.duplicates import document_text, normalise, shingles
from test_duplicates import dup_store

from .conftest import judge_app, until
from .test_keystroke_statements import KEYSTROKE_STATEMENTS, _trace
from .test_snapshots import SIZES


def _screen(app: JudgeApp) -> JudgingScreen:
    screen = app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


def _line(app: JudgeApp) -> str:
    line = _screen(app).query_one(DuplicatesLine)
    return str(line.render()) if line.display else ""


async def _show(app: JudgeApp, pilot: object, doc_id: str) -> None:
    screen = _screen(app)
    screen.go_to("q1", doc_id)
    await pilot.pause()  # type: ignore[attr-defined]


async def _found(app: JudgeApp, pilot: Pilot[Any]) -> None:
    """Wait until the query's duplicates are found (in a worker, off the UI thread)."""
    await until(pilot, lambda: app.session.left() is not None and _screen(app).dupes.ready)


def big_store(n: int) -> Store:
    """One query of `n` pooled documents of 300 words (seeded), every tenth the same text as the
    one before it."""
    rng = random.Random(6)
    words = [f"w{i}" for i in range(5_000)]
    store = Store.memory()
    store.imports.queries([(1, Query(id="q1", text="w1 w2"))], source="t")
    texts = [" ".join(rng.choices(words, k=300)) for _ in range(n)]
    texts = [texts[i - 1] if i % 10 == 1 else t for i, t in enumerate(texts)]
    store.imports.documents([Document(id=f"d{i}", text=t) for i, t in enumerate(texts)])
    store.imports.pool_entries([PoolEntry(query_id="q1", doc_id=f"d{i}", best_rank=i + 1) for i in range(n)])
    return store


async def test_duplicates_are_looked_for_off_the_ui_thread_and_keys_never_wait() -> None:
    """Opening a query draws its first document at once and takes keys while the duplicates are
    still being looked for; `D` says so; the line appears once they are found. The search (the
    real one) is held until the keys are pressed, so the test does not race the machine's speed."""
    store = big_store(400)
    app = judge_app(store, "ann", query="q1", order="depth")
    held = threading.Event()
    search = app.session.duplicates_apart

    def held_search(doc_ids: Any) -> Any:
        if not held.wait(timeout=60):
            raise TimeoutError("the test never let the search go")
        return search(doc_ids)

    app.session.duplicates_apart = held_search  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JudgingScreen) and _screen(app).drawn_doc == ("q1", "d0"))
        await pilot.pause()
        assert not _screen(app).dupes.ready
        assert _line(app) == ""
        await pilot.press("D")
        assert "still looking for duplicates" in str(_screen(app).query_one("#saved").render())
        await pilot.press("2")  # a grade while they are looked for: saved at once, the next document shown
        assert [(e.doc_id, e.grade) for e in store.log.events("q1")] == [("d0", 2)]
        held.set()
        await _found(app, pilot)
        await until(pilot, lambda: _line(app) != "")  # d1 is shown: the same text as d0
        assert _line(app) == "same text as d0, which you graded 2 (relevant)"
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.message).startswith("Give 1 document your grade 2 (relevant) on d0?")


def _percent(store: Store, a: str, b: str) -> int:
    """The two documents' shingle Jaccard similarity in whole percent, rounded down."""
    sa, sb = (shingles(normalise(document_text(*store.reads.document_texts([d])[d]))) for d in (a, b))
    return len(sa & sb) * 100 // len(sa | sb)


def _votes(store: Store, doc_id: str) -> list[tuple[str, str, int | None]]:
    return [(e.assessor, e.state.value, e.grade) for e in store.log.events("q1") if e.doc_id == doc_id]


@pytest.mark.parametrize("size", SIZES)
async def test_d_gives_the_duplicates_my_grade_one_event_each_after_asking(size: tuple[int, int]) -> None:
    store = dup_store()
    store.log.record(Judgment(query_id="q1", doc_id="d8", state=JudgmentState.GRADED, grade=0, assessor="bob"))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=size) as pilot:
        await _found(app, pilot)
        await _show(app, pilot, "d6")
        near = _percent(store, "d6", "d8")
        assert _line(app) == (
            f"same text as d7, you have not judged it · near-duplicate of d8 ({near}%), you have not judged it"
        )  # bob's 0 on d8 is not mine: not shown
        await pilot.press("D")  # no grade of mine on d6 yet: nothing to give
        assert "grade d6 first" in str(_screen(app).query_one("#saved").render())
        assert not isinstance(app.screen, ConfirmScreen)
        await pilot.press("2")
        await _show(app, pilot, "d6")
        assert _line(app).startswith("D gives your grade to: same text as d7")
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmScreen)
        asked = str(app.screen.message)
        assert asked.startswith("Give 2 documents your grade 2 (relevant) on d6?")
        assert "d7  same text as d6, you have not judged it" in asked
        assert f"d8  near-duplicate of d6 ({near}%), you have not judged it" in asked
        before = len(store.log.events("q1"))
        await pilot.press("y")
        await pilot.pause()
        new = store.log.events("q1")[before:]
        assert [(e.doc_id, e.assessor, e.state, e.grade) for e in new] == [
            ("d7", "ann", JudgmentState.GRADED, 2),
            ("d8", "ann", JudgmentState.GRADED, 2),
        ]
        assert _votes(store, "d8") == [("bob", "graded", 0), ("ann", "graded", 2)]  # bob's vote stands
        said = str(_screen(app).query_one("#saved").render())
        assert said == "gave 2 duplicates of d6 your grade 2: d7, d8"
        assert _line(app) == (
            "same text as d7, which you graded 2 (relevant) · "
            f"near-duplicate of d8 ({near}%), which you graded 2 (relevant)"
        )
        await pilot.press("D")  # nothing left to give
        assert not isinstance(app.screen, ConfirmScreen)
        assert "already has your grade 2" in str(_screen(app).query_one("#saved").render())


async def test_esc_in_the_confirmation_writes_nothing() -> None:
    store = dup_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await _found(app, pilot)
        await _show(app, pilot, "d6")
        await pilot.press("1")
        await _show(app, pilot, "d6")
        before = len(store.log.events("q1"))
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert len(store.log.events("q1")) == before
        assert str(_screen(app).query_one("#saved").render()) == "D cancelled: nothing given to d6's duplicates"


async def test_the_line_never_shows_another_assessor_s_grade_on_a_blind_pair() -> None:
    """d7 is assigned to ann and bob; bob graded it and d6. ann's line shows only her own votes:
    on d6 (her duplicate of d7, blind) and on d7 itself, before and after she votes."""
    store = dup_store()
    store.log.assign([("q1", "d7", "ann"), ("q1", "d7", "bob")])
    for doc_id, grade in (("d7", 2), ("d6", 1), ("d8", 1)):
        store.log.record(
            Judgment(query_id="q1", doc_id=doc_id, state=JudgmentState.GRADED, grade=grade, assessor="bob")
        )
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(120, 36)) as pilot:
        await _found(app, pilot)
        for doc_id in ("d6", "d7", "d8"):
            await _show(app, pilot, doc_id)
            line = _line(app)
            assert line and "bob" not in line and "graded" not in line, line
        await _show(app, pilot, "d7")
        assert _screen(app).docs[_screen(app).position].blind
        await pilot.press("s")  # a skip of mine: mine alone is shown
        await _show(app, pilot, "d6")
        assert "same text as d7, which you skipped" in _line(app)
        assert "bob" not in _line(app) and "2" not in _line(app).split("·")[0]


async def test_confirming_d_costs_at_most_a_keystroke_s_statements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judging_screen, "POLL_SECONDS", 3600.0)
    store = dup_store()  # in memory: the budget counts the statements on the session's connection
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.session._queue is not None)
        await _found(app, pilot)
        await _show(app, pilot, "d6")
        await pilot.press("2")
        await _show(app, pilot, "d6")
        seen = _trace(store)
        await pilot.press("D")
        assert seen == []  # the duplicates and my votes were read with the query
        await pilot.press("y")
        await pilot.pause()
        store.conn.set_trace_callback(None)
        assert len(seen) <= KEYSTROKE_STATEMENTS, [s.split()[:4] for s in seen]
        assert [e.doc_id for e in store.log.events("q1")[-2:]] == ["d7", "d8"]
        assert _line(app).count("which you graded 2") == 2
