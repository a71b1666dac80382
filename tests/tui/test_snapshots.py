"""The screens at 80x24 and 120x36 (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from qrelkit.models import Judgment, JudgmentState
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.session_panel import SessionPanel

from .conftest import judge_app, make_store
from .test_comforts import long_store

SIZES = [(80, 24), (120, 36)]


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    if isinstance(screen, JudgingScreen):  # the time on the document: always 0s in a snapshot
        panel = screen.query_one(SessionPanel)
        start = screen.pace.document.last
        screen.pace.document.active = 0.0
        screen.pace.now = lambda: start
        panel.tick()
        await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_query_list(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(judge_app(make_store(), "ann"), terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(judge_app(make_store(), "ann", query="q1"), terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_on_a_labeled_document(snap_compare: Any, size: tuple[int, int]) -> None:
    async def to_d2(pilot: Pilot[Any]) -> None:
        await pilot.press("n")
        await _settle(pilot)

    assert snap_compare(judge_app(make_store(), "ann", query="q1"), terminal_size=size, run_before=to_d2)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_cut_guidelines_a_long_note_and_a_grade_typed(
    snap_compare: Any, size: tuple[int, int]
) -> None:
    """The guidelines bar says it is cut (g), the label line that the note is (N), and the
    digits typed towards a grade on a 0-12 scale are shown."""
    from qrelkit.models import GradeScale

    store = long_store()
    store.settings.configure(scale=GradeScale.from_max(12))
    note = "Mentions the topic once.\nSecond line of the note."
    store.log.record(Judgment(query_id="q3", doc_id="long", state=JudgmentState.NOTED, assessor="bob", note=note))

    async def type_one(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, JudgingScreen)
        await pilot.press("1")
        await _settle(pilot)

    assert snap_compare(judge_app(store, "ann", query="q3"), terminal_size=size, run_before=type_one)


@pytest.mark.parametrize("size", SIZES)
def test_query_list_searching_with_an_assignment(snap_compare: Any, size: tuple[int, int]) -> None:
    store = make_store()
    store.log.assign([("q1", "d3", "ann")])

    async def search(pilot: Pilot[Any]) -> None:
        await _settle(pilot)
        # the search's cursor drawn always, not blinking: a snapshot taken at any moment shows it
        pilot.app.screen.query_one("#search", Input).cursor_blink = False
        await pilot.press("slash", *"ASS")
        await _settle(pilot)

    assert snap_compare(judge_app(store, "ann"), terminal_size=size, run_before=search)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_the_note_box_open(snap_compare: Any, size: tuple[int, int]) -> None:
    """`e` on a document ann noted: the box under it, prefilled with her note, the document and
    the label line (bob's grade, her note) still in view (issue 25)."""
    from datetime import UTC, datetime

    from textual.widgets import TextArea

    store = make_store()
    at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    note = Judgment(
        query_id="q1", doc_id="d2", state=JudgmentState.NOTED, assessor="ann", note="lists keywords only", timestamp=at
    )
    store.log.record(note)

    async def open_box(pilot: Pilot[Any]) -> None:
        await _settle(pilot)
        await pilot.press("n", "e")
        pilot.app.screen.query_one(TextArea).cursor_blink = False  # drawn always: the same at any moment
        await _settle(pilot)

    assert snap_compare(judge_app(store, "ann", query="q1"), terminal_size=size, run_before=open_box)
