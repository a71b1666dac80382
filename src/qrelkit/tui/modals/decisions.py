"""A modal listing this session's last five decisions (`l`): document, grade, time; enter (or the
digit of its line) goes back to one."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

from ...models import Decision, GradeScale, JudgmentState
from ...render.styles import data


def decision_line(n: int, d: Decision, scale: GradeScale) -> Text:
    """`1  14:03:12  d17  2 relevant  (nav-01)`: the time is this machine's."""
    if d.state is JudgmentState.GRADED and d.grade is not None:
        what = data(f"{d.grade} {scale.name_of(d.grade)}", "bold")
    else:
        what = Text("skipped" if d.state is JudgmentState.SKIPPED else "retracted", "bold")
    return Text.assemble(
        (f"{n}  ", "bold"), (d.at.astimezone().strftime("%H:%M:%S"), "dim"), "  ", data(d.doc_id, "bold"), "  ",
        what, "  ", data(f"({d.query_id})", "dim"),
    )  # fmt: skip


class DecisionsScreen(ModalScreen[Decision | None]):
    """Returns the decision picked (None: esc)."""

    CSS_PATH = "decisions.tcss"
    BINDINGS = [Binding("escape,l,q", "cancel", "close")]

    def __init__(self, decisions: Sequence[Decision], scale: GradeScale) -> None:
        super().__init__()
        self.decisions = list(decisions)
        self.scale = scale

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text.assemble(("Your last decisions", "bold"), (" in this session, newest first", "dim")))
            if self.decisions:
                lines = [decision_line(n, d, self.scale) for n, d in enumerate(self.decisions, 1)]
                yield OptionList(*lines, id="decisions")
                hint = "↑ ↓ or its digit, enter: go back to it · esc: close"
            else:
                hint = "Nothing judged in this session yet. esc: close"
            yield Static(Text(hint, "dim"), id="hint")

    def on_mount(self) -> None:
        if self.decisions:
            self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        char = event.character
        if char is not None and char.isdigit() and 1 <= int(char) <= len(self.decisions):
            event.stop()
            self.dismiss(self.decisions[int(char) - 1])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.decisions[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
