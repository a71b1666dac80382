"""The judging screen's reading aids at 80x24 and 120x36 (pytest-textual-snapshot; update with
--snapshot-update): the duplicates line and the evidence line under the label, and the evidence
dialog open (`m`). The passage is hostile text: drawn as it is, never as markup."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.tui.screens.judging import JudgingScreen
from test_duplicates import dup_store

from .conftest import judge_app
from .test_snapshots import SIZES, _settle

PASSAGE = "[bold red]x[/] the assert statement"


def graded_d6() -> Store:
    """ann graded d6 2 with a passage as its evidence; d7 is the same text, d8 near it."""
    store = dup_store()
    at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    vote = Judgment(query_id="q1", doc_id="d6", state=JudgmentState.GRADED, grade=2, assessor="ann",
                    timestamp=at, evidence=PASSAGE)  # fmt: skip
    store.log.record(vote)
    return store


async def _on_d6(pilot: Pilot[Any]) -> None:
    await _settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, JudgingScreen) and screen.dupes.ready
    screen.go_to("q1", "d6")
    await _settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_the_duplicates_and_evidence_lines(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(judge_app(graded_d6(), "ann", query="q1"), terminal_size=size, run_before=_on_d6)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_the_evidence_dialog_open(snap_compare: Any, size: tuple[int, int]) -> None:
    async def open_dialog(pilot: Pilot[Any]) -> None:
        await _on_d6(pilot)
        await pilot.press("m")
        pilot.app.screen.query_one(TextArea).cursor_blink = False  # drawn always: the same at any moment
        await _settle(pilot)

    assert snap_compare(judge_app(graded_d6(), "ann", query="q1"), terminal_size=size, run_before=open_dialog)
