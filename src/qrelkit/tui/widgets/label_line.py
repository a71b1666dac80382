"""The label line under a document: its resolved state as this assessor sees it (blind, unlabeled,
skipped, graded; adjudicated; several assessors' votes and the policy that resolved them)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Static

from ...models import DocState, GradeScale, LabelPolicy, LabelState
from ...render.styles import data
from ..palette import css

BLIND = "· assigned to you and others: their grades stay hidden until you judge"
BLIND_SKIPPED = "· assigned to you and others: their grades stay hidden until you grade it"


def label_line(d: DocState, scale: GradeScale, policy: LabelPolicy, width: int | None = None) -> Text:
    """One line: the state, who set it and when, the latest note; data as data (no markup). A
    note that does not fit in `width` cells (or has several lines, or others before it) is cut,
    and the line says how to read every note (`N`)."""
    if d.blind and d.state is LabelState.SKIPPED:
        return Text.assemble(("skipped", css("bold yellow")), " by you ", (BLIND_SKIPPED, "dim"))
    if d.blind:
        return Text.assemble(("unlabeled", "bold"), " ", (BLIND, "dim"))
    return with_notes(state_text(d, scale, policy), d, width)


def state_text(d: DocState, scale: GradeScale, policy: LabelPolicy) -> Text:
    """The state part of the label line: who set it and when, or the votes and the policy."""
    if d.state is LabelState.UNLABELED:
        return Text.assemble(("unlabeled", "bold"))
    when = d.timestamp.strftime("%Y-%m-%d %H:%M") if d.timestamp else ""
    if d.state is LabelState.SKIPPED:
        return Text.assemble(("skipped", css("bold yellow")), " by ", data(d.assessor), f" at {when}")
    grade = data(f"grade {d.grade} ({scale.name_of(d.grade or 0)})", css("bold green"))
    if d.adjudicated:
        return Text.assemble(grade, " adjudicated")
    if d.votes:
        votes = ", ".join(f"{a} {g}" for a, g in sorted(d.votes.items()))
        return Text.assemble(grade, " ", data(f"votes {votes}", css("yellow")), " ", (f"(resolved by {policy})", "dim"))
    return Text.assemble(grade, " by ", data(d.assessor), f" at {when}")


def note_texts(d: DocState) -> list[str]:
    """Every note on the pair, oldest first (`DocState.notes`; else the latest, `note`)."""
    return [n.text for n in d.notes] or ([d.note] if d.note else [])


def _latest_author(d: DocState) -> str | None:
    return d.notes[-1].assessor if d.notes else None


def with_notes(head: Text, d: DocState, width: int | None) -> Text:
    """`head` and the pair's latest note, its first line only and cut to fit `width`; anything
    left out (more lines, a cut, earlier notes) ends the line with how to read it all."""
    notes = note_texts(d)
    if not notes:
        return head
    first, *more_lines = notes[-1].split("\n")
    note = data(f"“{first}”" if not more_lines else f"“{first}", "italic")
    author = _latest_author(d)
    if author is not None:  # whose note it is: after "by bob" a note of ann's read as bob's
        note = Text.assemble(data(f"{author}: ", "dim"), note)
    line = Text.assemble(head, "  ", note)
    whole = not more_lines and len(notes) == 1
    if whole and (width is None or line.cell_len <= width):
        return line
    hint = Text(f" … +{len(notes) - 1} more · N: notes" if len(notes) > 1 else " … N: notes", "dim")
    if width is not None:
        room = width - head.cell_len - 2 - hint.cell_len
        if room < 4:
            return Text.assemble(head, hint)
        note.truncate(room)  # the hint's `…` marks the cut
    return Text.assemble(head, "  ", note, hint)


class LabelLine(Static):
    """The label line of the document shown (`label_line`)."""

    def __init__(self, scale: GradeScale, policy: LabelPolicy, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale
        self.policy = policy
        self.shown: DocState | None = None

    def show(self, d: DocState | None) -> None:
        """`d`'s label line, its note cut to the line's width; nothing without a document."""
        self.shown = d
        width = self.content_size.width or None
        # one line (height 1 on the judging screen): a new text asks for no layout of the screen
        self.update("" if d is None else label_line(d, self.scale, self.policy, width), layout=False)

    def on_resize(self, event: events.Resize) -> None:
        self.show(self.shown)
