"""The screens' header (`widgets.title_header`): drawn as Textual's, but a keystroke's new counts
reach it in the key's own frame and no line of the judging screen that is one line tall asks the
whole screen for a layout (each such pass was a few ms of every keystroke)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Header

from qrelkit.storage import Store
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.title_header import TitleHeader, _Title

from .conftest import drawn, judge_app, until


def title_text(app: Any) -> str:
    return str(app.screen.query_one(_Title).render())


async def test_the_counts_are_in_the_header_as_the_key_is_handled(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JudgingScreen))
        await drawn(pilot, app)
        header = app.screen.query_one(Header)
        assert isinstance(header, TitleHeader)
        assert "judged 0" in title_text(app)
        app.screen.sub_title = "q1 · judged 41"  # no await: the header has it already
        assert "judged 41" in title_text(app)
        await pilot.press("2")
        await until(pilot, lambda: "judged 1" in title_text(app))
        assert str(app.screen.sub_title) in title_text(app)


async def test_a_grade_key_asks_one_layout_and_no_repaint_of_the_whole_screen(
    tiny_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    asked: list[tuple[str, bool]] = []
    real = Widget.refresh

    def refresh(self: Widget, *regions: Any, repaint: bool = True, layout: bool = False, **rest: Any) -> Any:
        if watching and (layout or self is app.screen):
            asked.append((type(self).__name__, layout))
        return real(self, *regions, repaint=repaint, layout=layout, **rest)

    watching = False
    monkeypatch.setattr(Widget, "refresh", refresh)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JudgingScreen))
        await drawn(pilot, app)
        watching = True
        await pilot.press("2")
        await until(pilot, lambda: "judged 1" in title_text(app))
        watching = False
    whole_screen = [name for name, layout in asked if not layout]
    assert not whole_screen, asked  # a sub-title that repaints the screen redraws every cell
    lines = {"LabelLine", "EvidenceLine", "DuplicatesLine", "SessionPanel", "_Title", "HeaderTitle"}
    assert not lines & {name for name, _ in asked}, asked  # one-line widgets: text only
    assert ("DocumentText", True) in asked  # the document may change height: it alone lays out
