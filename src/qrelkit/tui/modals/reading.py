"""Modals to read at leisure, each scrolling (up/down, pgup/pgdn, home/end) and closed by esc:
a query's whole guidelines (`g`), every note on a pair with its author and time (`N`), the grade
scale's grades and what counts as relevant (`G`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...models import DocState, GradeScale, PairNote, Query
from ...render.styles import data


class ReadingScreen(ModalScreen[None]):
    """A title over a scrolling text (all of it data, as `rich.text.Text`)."""

    CSS_PATH = "reading.tcss"
    BINDINGS = [Binding("escape,q,g,G,N", "close", "close")]

    def __init__(self, title: Text, body: Text) -> None:
        super().__init__()
        self.heading = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.heading, id="heading")
            with VerticalScroll(id="body"):
                yield Static(self.body, id="text")
            yield Static(Text("↑ ↓ pgup pgdn home end: scroll · esc: close", "dim"), id="hint")

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """The text's scroll area gets what the box has left once the heading, the hint and the
        border are drawn: sized by the content alone, it ran past the box on a small terminal and
        its last lines could never be scrolled into view."""
        box = self.query_one(Vertical)
        used = sum(self.query_one(f"#{name}").outer_size.height for name in ("heading", "hint"))
        room = int(self.size.height * 0.9) - used - box.styles.gutter.height
        self.query_one("#body").styles.max_height = max(room, 3)

    def action_close(self) -> None:
        self.dismiss(None)


def guidelines(q: Query) -> ReadingScreen:
    """The query's whole description (its guidelines for assessors)."""
    title = Text.assemble(("Guidelines · ", "bold"), data(q.id, "bold"), " ", data(f"({q.stratum})", "dim"))
    body = Text.assemble(data(q.text, "bold"), "\n\n")
    body.append_text(data(q.description) if q.description else Text("This query has no guidelines.", "dim italic"))
    return ReadingScreen(title, body)


def pair_notes(d: DocState) -> list[PairNote]:
    """Every note on the pair, oldest first (`DocState.notes`; else its latest, `note`)."""
    if d.notes or not d.note:
        return list(d.notes)
    return [PairNote(assessor=d.assessor or "unknown", text=d.note, timestamp=d.timestamp)]


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M") if at else "time not recorded"


def notes(doc_id: str, found: Sequence[PairNote]) -> ReadingScreen:
    """Every note on the pair, a conversation in the order they were last written: each with its
    author and time, and the versions an edit replaced (dim, oldest first)."""
    title = Text.assemble(("Notes · ", "bold"), data(doc_id, "bold"), (f" · {len(found)}", "dim"))
    body = Text()
    for n, note in enumerate(found):
        edited = f" · edited (first written {_when(note.earlier[0].timestamp)})" if note.earlier else ""
        body.append("\n\n" if n else "")
        head = Text.assemble(data(note.assessor, "bold"), (f" · {_when(note.timestamp)}{edited}", "dim"))
        body.append_text(Text.assemble(head, "\n", data(note.text)))
        for old in note.earlier:
            body.append_text(Text.assemble("\n", (f"  before, {_when(old.timestamp)}: ", "dim"), data(old.text, "dim")))
    if not found:
        body.append("No note on this document yet (e: add one).", style="dim italic")
    return ReadingScreen(title, body)


def grades(scale: GradeScale) -> ReadingScreen:
    """Each grade's key, name and definition (the rubric, when the scale has one), and which grades
    binary metrics count as relevant."""
    body = Text()
    levels = scale.every_level()
    width = max(data(level.name).cell_len for level in levels)
    for level in levels:
        relevant = level.grade >= scale.relevance_threshold
        body.append(f"{level.grade:>3}  ", style="bold")
        body.append_text(data(level.name, "bold" if relevant else ""))
        body.append(" " * (width - data(level.name).cell_len))
        body.append("   counts as relevant\n" if relevant else "   not relevant\n", style="dim")
        if level.definition:
            body.append("     ")
            body.append_text(data(level.definition, "italic"))
            body.append("\n")
    body.append(
        f"\nBinary metrics (P, R, RR, AP, ...) count grade {scale.relevance_threshold} and above as relevant."
        "\ns: skip when unsure (recorded, neither relevant nor irrelevant).",
        style="dim",
    )
    if scale.max_grade > 9:
        body.append("\nGrades above 9: type the digits (1 then 2 for 12); enter saves what is typed.", style="dim")
    return ReadingScreen(Text("Grades", "bold"), body)
