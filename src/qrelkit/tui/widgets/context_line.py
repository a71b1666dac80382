"""The context line under the label line (`c`, off by default: judging stays blind to systems
unless the assessor asks): where each pooled run ranked the document, with the run's score."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from ...models import RunRank
from ...render.styles import data


def context_text(ranks: Sequence[RunRank]) -> Text:
    """`pooled runs: bm25 #1 (11.796) · bm25-title #3 (9.120)`, best rank first."""
    if not ranks:
        return Text("pooled runs: in none of their pooled top ranks (judged from elsewhere)", "dim")
    line = Text("pooled runs: ", "dim")
    for n, r in enumerate(ranks):
        line.append(" · " if n else "", "dim")
        line.append_text(data(r.run, "bold"))
        line.append(f" #{r.rank}")
        if r.score is not None:
            line.append(f" ({r.score:.5g})", "dim")
    return line


class ContextLine(Static):
    """`context_text` for the document shown; hidden until `c`."""

    def on_mount(self) -> None:
        self.display = False

    def show(self, ranks: Sequence[RunRank] | None) -> None:
        """Show these ranks (None: hide the line)."""
        self.display = ranks is not None
        if ranks is not None:
            self.update(context_text(ranks))
