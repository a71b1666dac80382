"""A long text in a reading box (`g` guidelines, `G` grades, `N` notes) scrolls to its last line at
80x24 and 120x36 (issue 25: the box ran past the screen and the end could never be read)."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App
from textual.containers import Vertical, VerticalScroll

from qrelkit.tui.modals.reading import ReadingScreen


class _Reader(App[None]):
    def on_mount(self) -> None:
        self.push_screen(ReadingScreen(Text("Guidelines"), Text("\n".join(f"line {i}" for i in range(200)))))


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (60, 14)])
async def test_the_last_line_of_a_long_text_can_be_read(size: tuple[int, int]) -> None:
    app = _Reader()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        screen = app.screen
        body, box = screen.query_one("#body", VerticalScroll), screen.query_one(Vertical)
        assert body.scroll_y == body.max_scroll_y > 0
        inside = box.region.shrink(box.styles.gutter)
        assert body.region.y + body.region.height <= inside.y + inside.height  # the whole scroll area shows
        assert screen.query_one("#hint").region.y + 1 <= size[1]
