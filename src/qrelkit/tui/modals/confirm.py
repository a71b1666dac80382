"""A modal asking to confirm an action that changes other assessors' work."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    """True only when the assessor types `y`; anything else (esc, n) cancels."""

    CSS_PATH = "confirm.tcss"
    BINDINGS = [Binding("y", "answer(True)", "yes"), Binding("escape,n,q", "answer(False)", "no")]

    def __init__(self, message: Text) -> None:
        super().__init__()
        self.message = Text.assemble(message, "\n\n", ("y", "bold"), " yes   ", ("esc", "bold"), " no")

    def compose(self) -> ComposeResult:
        yield Static(self.message)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
