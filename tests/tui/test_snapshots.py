"""Both screens at 80x24 and 120x36 (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from .conftest import judge_app, make_store

SIZES = [(80, 24), (120, 36)]


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
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
        await _settle(pilot)
        await pilot.press("n")

    assert snap_compare(judge_app(make_store(), "ann", query="q1"), terminal_size=size, run_before=to_d2)
