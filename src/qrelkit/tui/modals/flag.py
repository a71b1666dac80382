"""A modal asking why a query cannot be judged (`!`): one short line, for the query's owner."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...models import FLAG_REASON_MAX
from ...render.styles import data


class FlagScreen(ModalScreen[str | None]):
    """Returns the reason typed (None: cancelled, or left empty). enter saves; esc cancels."""

    CSS_PATH = "flag.tcss"
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, query_id: str, reason: str = "") -> None:
        super().__init__()
        self.query_id = query_id
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Flag ", "bold"), data(self.query_id, "bold"), " for its owner: why can it not be judged?\n",
                    ("It changes no vote and no label. ", "dim"), ("enter", "bold"), " saves, ",
                    ("esc", "bold"), " cancels.",
                )
            )  # fmt: skip
            yield Input(
                value=self.reason, placeholder="e.g. the query is ambiguous", max_length=FLAG_REASON_MAX, id="reason"
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
