"""The grades' definitions beside their keys (issue 25, item 6): shown in the key bar of the
judging screen when the terminal has room (120x36), names only at 80x24; always as data."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from hostile import MARKUP
from qrelkit.models import GradeLevel, GradeScale
from qrelkit.render.styles import visible
from qrelkit.storage import Store
from qrelkit.tui.widgets.scale_bar import ScaleBar, rubric

from .conftest import judge_app, make_store
from .test_snapshots import SIZES, _settle

DEFINED = GradeScale(
    levels=[
        GradeLevel(grade=0, name="irrelevant", definition="not about what the query asks"),
        GradeLevel(grade=1, name="related", definition="on its topic, but does not answer it"),
        GradeLevel(grade=2, name="relevant", definition="answers it in part, or among other things"),
        GradeLevel(grade=3, name="perfect", definition="answers it fully; the passage to read"),
    ]
)


def defined_store() -> Store:
    store = make_store()
    store.settings.configure(scale=DEFINED)
    return store


def _bar(app: Any) -> str:
    return str(app.screen.query_one(ScaleBar).render())


async def test_the_definitions_stand_beside_the_keys_when_there_is_room() -> None:
    app = judge_app(defined_store(), "ann", query="q1")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        shown = _bar(app)
        assert app.screen.query_one(ScaleBar).with_rubric
        for level in DEFINED.levels:
            assert f"{level.grade} {level.name}: {level.definition}" in shown
        assert "s skip" in shown.splitlines()[-1]  # the other keys under the grades
        assert len(shown.splitlines()) == 3


async def test_names_only_at_80_columns_and_after_shrinking() -> None:
    app = judge_app(defined_store(), "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = _bar(app)
        assert "0 irrelevant  1 related  2 relevant  3 perfect" in shown and "answers" not in shown
    app = judge_app(defined_store(), "ann", query="q1")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "answers it fully" in _bar(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert "answers" not in _bar(app) and "3 perfect" in _bar(app)


def test_long_definitions_are_cut_to_fit_and_a_scale_without_them_shows_names() -> None:
    long = GradeScale(levels=[GradeLevel(grade=g, name=f"g{g}", definition="word " * 40) for g in range(4)])
    grades = rubric(long, 118)
    assert grades is not None and all(line.cell_len <= 118 for line in grades.split())
    assert "…" in grades.plain and len(grades.plain.splitlines()) <= 2
    assert rubric(GradeScale(), 200) is None  # no definition: the names, as before
    assert rubric(GradeScale.from_max(12), 200) is None  # above 9: digits are typed, G lists them


async def test_definitions_are_data() -> None:
    hostile = [*MARKUP.values(), "abc\u202edcba"]
    scale = GradeScale(
        levels=[GradeLevel(grade=g, name=f"g{g}", definition=hostile[g][:30]) for g in range(len(hostile))]
    )
    store = make_store()
    store.settings.configure(scale=scale)
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        shown = _bar(app)
        for g, text in enumerate(hostile):
            assert visible(text[:30]) in shown, (g, text)


@pytest.mark.parametrize("size", SIZES)
def test_judging_screen_with_a_rubric(snap_compare: Any, size: tuple[int, int]) -> None:
    async def settle(pilot: Pilot[Any]) -> None:
        await _settle(pilot)

    assert snap_compare(judge_app(defined_store(), "ann", query="q1"), terminal_size=size, run_before=settle)
