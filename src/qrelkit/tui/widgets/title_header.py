"""The screens' header: Textual's `Header`, whose title line is redrawn without laying out the
screen again.

Textual's header re-sets its title (`Static.update`, which lays out the whole screen by default)
a moment after the screen's sub-title changes (an async watcher), and the judging screen changes
its sub-title (the counts) on every keystroke: one more layout pass and one more frame per key,
drawn after the frame that shows the next document. Here the title is set at once, in the same
frame as the rest of what the key changed, and without a layout (it is one line, always: a new
text cannot move anything); Textual's own late update then finds nothing new to draw. The
screens' `sub_title` is declared without a repaint of the whole screen (`screen.py`'s note).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.reactive import Reactive
from textual.visual import VisualType
from textual.widgets import Header
from textual.widgets._header import HeaderClock, HeaderClockSpace, HeaderIcon, HeaderTitle


class _Title(HeaderTitle):
    """The header's title line: its text changes, its size does not."""

    _said: VisualType | None = None

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        del layout  # one line wide as the screen, whatever it says
        if isinstance(content, Content) and content == self._said:
            return  # Textual's late update of a title already drawn
        self._said = content
        super().update(content, layout=False)


class TitleHeader(Header):
    """`Header`, drawn as Textual draws it, with a title line that never asks for a layout."""

    def compose(self) -> ComposeResult:
        yield HeaderIcon().data_bind(Header.icon)
        yield _Title()
        yield HeaderClock().data_bind(Header.time_format) if self._show_clock else HeaderClockSpace()

    def on_mount(self, event: events.Mount) -> None:
        del event
        self.watch(self.screen, "sub_title", self._now)  # a plain function: called as the value changes
        self.watch(self.screen, "title", self._now)

    def _now(self) -> None:
        self.query_one(_Title).update(self.format_title())


def quiet_sub_title() -> Reactive[str | None]:
    """A screen's `sub_title` that redraws the header alone: Textual's own repaints every cell of
    the screen when it changes (declare it on a screen that changes it on every key)."""
    return Reactive(None, compute=False, repaint=False)
