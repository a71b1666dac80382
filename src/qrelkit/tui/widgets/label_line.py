"""The label line under a document: its resolved state as this assessor sees it (blind, unlabeled,
skipped, graded; adjudicated; several assessors' votes and the policy that resolved them)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ...models import DocState, GradeScale, LabelPolicy, LabelState
from ...render.styles import data
from ..palette import css

BLIND = "· assigned to you and others: their grades stay hidden until you judge"


def label_line(d: DocState, scale: GradeScale, policy: LabelPolicy) -> Text:
    """One line: the state, who set it and when, the note; data as data (no markup)."""
    if d.blind:
        return Text.assemble(("unlabeled", "bold"), " ", (BLIND, "dim"))
    if d.state is LabelState.UNLABELED:
        return Text.assemble(("unlabeled", "bold"))
    when = d.timestamp.strftime("%Y-%m-%d %H:%M") if d.timestamp else ""
    note = Text.assemble("  ", data(f"“{d.note}”", "italic")) if d.note else Text()
    if d.state is LabelState.SKIPPED:
        return Text.assemble(("skipped", css("bold yellow")), " by ", data(d.assessor), f" at {when}", note)
    grade = data(f"grade {d.grade} ({scale.name_of(d.grade or 0)})", css("bold green"))
    if d.adjudicated:
        return Text.assemble(grade, " adjudicated", note)
    if d.votes:
        votes = ", ".join(f"{a} {g}" for a, g in sorted(d.votes.items()))
        return Text.assemble(
            grade, " ", data(f"votes {votes}", css("yellow")), " ", (f"(resolved by {policy})", "dim"), note
        )
    return Text.assemble(grade, " by ", data(d.assessor), f" at {when}", note)


class LabelLine(Static):
    """The label line of the document shown (`label_line`)."""

    def __init__(self, scale: GradeScale, policy: LabelPolicy, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = scale
        self.policy = policy

    def show(self, d: DocState | None) -> None:
        """`d`'s label line; nothing without a document."""
        self.update("" if d is None else label_line(d, self.scale, self.policy))
