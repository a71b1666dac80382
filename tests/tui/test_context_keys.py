"""Context on the judging screen (issue 25, item 6): `c` shows where the pooled runs ranked the
document (off by default: judging is blind to systems), `!` flags the query for its owner with a
short reason (no vote, no label), `l` lists my last five decisions and goes back to one. At 80x24
and at 120x36."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from hostile import MARKUP
from qrelkit.models import Decision, GradeScale, JudgmentState
from qrelkit.render.styles import visible
from qrelkit.scoring.arrays import RunLists
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.decisions import DecisionsScreen
from qrelkit.tui.modals.flag import FlagScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.context_line import ContextLine

from .conftest import drawn, judge_app, make_store, until
from .test_snapshots import SIZES, _settle


def pooled_store(run_name: str = "bm25") -> Store:
    """`make_store` with two runs pooled, with their scores."""
    store = make_store()
    runs = [
        RunLists(run_name, {"q1": ["d3", "d1", "d2"], "q2": ["d5"]}, {"q1": [12.5, 9.25, 3.0], "q2": [7.0]}),
        RunLists("dense", {"q1": ["d1", "d4"]}, {"q1": [0.875, 0.5]}),
    ]
    store.pool.add_runs(runs, depth=10, paths=["a.run", "b.run"])
    return store


def _screen(app: JudgeApp) -> JudgingScreen:
    screen = app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


def _context(app: JudgeApp) -> ContextLine:
    return _screen(app).query_one(ContextLine)


@pytest.mark.parametrize("size", SIZES)
async def test_c_shows_the_pooled_runs_ranks_and_scores_and_is_off_by_default(size: tuple[int, int]) -> None:
    expected = {
        "d1": "pooled runs: dense #1 (0.875) · bm25 #2 (9.25)",
        "d2": "pooled runs: bm25 #3 (3)",
        "d3": "pooled runs: bm25 #1 (12.5)",
        "d4": "pooled runs: dense #2 (0.5)",
    }
    app = judge_app(pooled_store(), "ann", query="q1")
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.session.left() is not None)  # the documents in queue order
        await pilot.pause()
        screen = _screen(app)

        def shown() -> str:
            return expected[screen.docs[screen.position].doc_id]

        assert not _context(app).display  # blind to systems unless asked
        await pilot.press("c")
        assert _context(app).display and str(_context(app).render()) == shown()
        await pilot.press("n")
        assert str(_context(app).render()) == shown()
        await pilot.press("c")
        assert not _context(app).display
        first = screen.docs[screen.position].doc_id
        await pilot.press("c", "1")  # graded: the next document's context shows at once
        assert screen.docs[screen.position].doc_id != first
        assert str(_context(app).render()) == shown()


async def test_a_document_no_run_pooled_says_so_and_run_names_are_data() -> None:
    name = MARKUP["close_all"] + "x"
    app = judge_app(pooled_store(name), "ann", query="q2")
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        await pilot.press("c")
        assert str(_context(app).render()) == f"pooled runs: {visible(name)} #1 (7)"
        await pilot.press("n")  # d3: pooled for q2 by hand, in no run's list for q2
        assert "in none of their pooled top ranks" in str(_context(app).render())


@pytest.mark.parametrize("size", SIZES)
async def test_bang_flags_the_query_for_its_owner_and_changes_no_vote(size: tuple[int, int]) -> None:
    store = pooled_store()
    before = store.log.events()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("exclamation_mark")
        assert isinstance(app.screen, FlagScreen)
        await pilot.press(*"two readings of [b]assert[/b]", "enter")
        await until(pilot, lambda: bool(store.flags.listed()))
        assert isinstance(app.screen, JudgingScreen)
        said = str(app.screen.query_one("#saved", Static).render())
        assert said == "flagged q1 for its owner: two readings of [b]assert[/b]"
        await pilot.press("exclamation_mark", "escape")  # cancelled: nothing more
        await pilot.press("exclamation_mark", "enter")  # empty: nothing
        await pilot.pause()
    flags = store.flags.listed()
    assert [(f.query_id, f.doc_id, f.assessor, f.reason) for f in flags] == [
        ("q1", "d1", "ann", "two readings of [b]assert[/b]")
    ]
    assert store.log.events() == before  # no vote, no event


async def test_a_refused_reason_keeps_the_text_in_the_box(monkeypatch: pytest.MonkeyPatch) -> None:
    from qrelkit.errors import StoreBusy
    from qrelkit.workflows import flags

    store = pooled_store()
    calls: list[str] = []

    def busy(*args: object) -> None:
        calls.append("x")
        raise StoreBusy("the store is busy", "try again")

    monkeypatch.setattr(flags, "flag_query", busy)
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        await pilot.press("exclamation_mark", *"vague", "enter")
        await until(pilot, lambda: isinstance(app.screen, FlagScreen))
        assert app.screen.query_one(Input).value == "vague" and calls == ["x"]
        assert store.flags.listed() == []


async def _grade(pilot: Pilot[Any], key: str) -> None:
    """Press a grade key; when no unlabeled document is left the next query is offered: stay."""
    app = pilot.app
    assert isinstance(app, JudgeApp)
    before = len(app.session.last_decisions(99))
    await pilot.press(key)
    await until(pilot, lambda: len(app.session.last_decisions(99)) == before + 1)
    await pilot.pause()
    if not isinstance(app.screen, JudgingScreen):
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, JudgingScreen))


@pytest.mark.parametrize("size", SIZES)
async def test_l_lists_the_last_five_decisions_and_goes_back_to_one(size: tuple[int, int]) -> None:
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("l")  # nothing yet
        assert isinstance(app.screen, DecisionsScreen)
        assert "Nothing judged" in str(app.screen.query_one("#hint", Static).render())
        await pilot.press("escape")
        for key in ("2", "1", "s"):  # d1, d3, d4 (then the next query is offered: stay)
            await _grade(pilot, key)
        for key in ("0", "3", "1"):  # back over d3, d2, d1
            await pilot.press("p")
            await _grade(pilot, key)
        await pilot.press("l")
        modal = app.screen
        assert isinstance(modal, DecisionsScreen)
        options = modal.query_one(OptionList)
        lines = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert [line.split()[2:4] for line in lines] == [
            ["d1", "1"], ["d2", "3"], ["d3", "0"], ["d4", "skipped"], ["d3", "1"]
        ]  # fmt: skip
        assert all(line.endswith("(q1)") for line in lines) and lines[0].startswith("1  ")
        await pilot.press("4")  # the fourth: d4
        await pilot.pause()
        assert isinstance(app.screen, JudgingScreen)
        assert (screen.query_id, screen.docs[screen.position].doc_id) == ("q1", "d4")
        assert "back to d4" in str(screen.query_one("#saved", Static).render())
        await pilot.press("l", "down", "enter")  # or with the arrows and enter: the second, d2
        await pilot.pause()
        assert screen.docs[screen.position].doc_id == "d2"


async def test_an_undone_decision_leaves_the_list() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        await pilot.press("2", "1")
        await pilot.pause()
        assert [(d.doc_id, d.grade) for d in app.session.last_decisions()] == [("d3", 1), ("d1", 2)]
        await pilot.press("z")
        await pilot.pause()
        assert [(d.doc_id, d.grade) for d in app.session.last_decisions()] == [("d1", 2)]
        assert [e.state for e in store.log.events() if e.assessor == "ann"][-1] is JudgmentState.RETRACTED


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_context_shown(snap_compare: Any, size: tuple[int, int]) -> None:
    async def context(pilot: Pilot[Any]) -> None:
        await pilot.press("c")
        await _settle(pilot)

    assert snap_compare(judge_app(pooled_store(), "ann", query="q1"), terminal_size=size, run_before=context)


@pytest.mark.parametrize("size", SIZES)
def test_the_flag_box(snap_compare: Any, size: tuple[int, int]) -> None:
    async def flag(pilot: Pilot[Any]) -> None:
        await _settle(pilot)
        await pilot.press("exclamation_mark", *"ambiguous")
        app = pilot.app
        app.screen.query_one(Input).cursor_blink = False
        await pilot.pause()

    assert snap_compare(judge_app(pooled_store(), "ann", query="q1"), terminal_size=size, run_before=flag)


@pytest.mark.parametrize("size", SIZES)
def test_the_last_decisions_box(snap_compare: Any, size: tuple[int, int]) -> None:
    at = datetime(2026, 1, 2, 14, 3, 12).astimezone()  # this machine's time zone: shown as 14:03:12
    decided = [
        Decision(query_id="q1", doc_id="d3", state=JudgmentState.GRADED, grade=1, at=at),
        Decision(query_id="q1", doc_id="d1", state=JudgmentState.SKIPPED, at=at - timedelta(seconds=9)),
    ]

    async def last(pilot: Pilot[Any]) -> None:
        await _settle(pilot)
        pilot.app.push_screen(DecisionsScreen(decided, GradeScale()))
        await pilot.pause()

    assert snap_compare(judge_app(make_store(), "ann", query="q1"), terminal_size=size, run_before=last)
