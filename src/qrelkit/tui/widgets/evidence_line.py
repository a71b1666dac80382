"""The evidence line under the label line: the passages marked as the evidence for the votes on
the document shown (`m`; a blind pair: one's own alone), or the one kept for the vote to come."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

from ...models import DocState
from ...render.styles import data


def evidence_text(d: DocState | None, pending: str | None, width: int | None = None) -> Text:
    """`evidence · ann: “…” · bob: “…”` (`passages`); the passage kept for the vote to come says
    so. Empty: none."""
    if pending is not None:
        line = Text.assemble(("evidence (saved with your grade): ", "dim"), data(f"“{_first(pending)}”", "italic"))
        if width is not None:
            line.truncate(width, overflow="ellipsis")
        return line
    return passages(d.evidence if d is not None else {}, width)


def passages(evidence: dict[str, str], width: int | None = None) -> Text:
    """`evidence · ann: “…” · bob: “…”`: each assessor's passage, its first line, the whole cut
    to `width`, as data (no markup, control characters visible). Empty: none."""
    line = Text()
    if evidence:
        line.append("evidence", style="dim")
    for who, passage in sorted(evidence.items()):
        line.append_text(Text.assemble((" · ", "dim"), data(who, "bold"), ": "))
        line.append_text(data(f"“{_first(passage)}”", "italic"))
    if width is not None:
        line.truncate(width, overflow="ellipsis")
    return line


def _first(passage: str) -> str:
    first, *more = passage.split("\n")
    return f"{first} …" if more else first


class EvidenceLine(Static):
    """The evidence line of the document shown (`evidence_text`), hidden when there is none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shown: tuple[DocState | None, str | None] = (None, None)

    def show(self, d: DocState | None, pending: str | None) -> None:
        self.shown = (d, pending)
        line = evidence_text(d, pending, self.content_size.width or None)
        if line.plain or self.display:  # hidden and staying hidden: no update, no layout (each keystroke)
            self.update(line, layout=False)  # one line: showing or hiding it lays out, not its text
        self.display = bool(line.plain)

    def on_resize(self, event: events.Resize) -> None:
        self.show(*self.shown)
