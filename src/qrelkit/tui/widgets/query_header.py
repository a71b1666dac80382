"""The query bar over a document: the query and its guidelines, cut to a few lines; a cut says
so, and which key shows the guidelines whole."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text
from textual import events
from textual.visual import VisualType
from textual.widgets import Static

from ...models import Query
from ...render.styles import data

LINES = 5
"""Lines the bar shows at most (the query's line and its guidelines' first ones)."""
CUT = "… g: full guidelines"


def clipped(text: Text, width: int, lines: int = LINES, console: Console | None = None) -> Text:
    """`text` wrapped to `width`; when that takes more than `lines` lines, its first `lines - 1`
    lines and a last one saying it was cut (`CUT`)."""
    wrapped = text.wrap(console or Console(width=max(width, 1)), max(width, 1))
    if len(wrapped) <= lines:
        return text
    shown = Text("\n").join(line.copy() for line in wrapped[: lines - 1])
    shown.append("\n")
    shown.append(CUT, style="bold italic")
    return shown


def query_header(q: Query) -> Text:
    """The query's id, stratum and text, and its guidelines under them (all data)."""
    header = Text.assemble(data(q.id, "bold"), " ", data(f"({q.stratum})", "dim"), "  ", data(q.text))
    if q.description:
        header.append_text(data(f"\n{q.description}", "dim"))
    return header


class QueryHeader(Static):
    """A Static whose Text content is `clipped` to its width (recut on resize); `full` keeps what
    was given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full: VisualType = ""

    @property
    def cut(self) -> bool:
        """Whether the bar shows less than it was given."""
        return isinstance(self.full, Text) and self.content is not self.full

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        if isinstance(content, Text) and isinstance(self.full, Text) and content == self.full:
            return  # the same query as before (every keystroke redraws the screen): nothing to cut again
        self.full = content
        super().update(self._fit(content), layout=layout)

    def _fit(self, content: VisualType) -> VisualType:
        width = self.content_size.width
        if not isinstance(content, Text) or width <= 0:
            return content
        return clipped(content, width, console=self.app.console)

    def on_resize(self, event: events.Resize) -> None:
        super().update(self._fit(self.full))
