"""A modal offering the next query that still has unlabeled documents."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from ...render.styles import data


class NextQueryScreen(ModalScreen[bool]):
    """True: open the offered query; False: stay."""

    CSS_PATH = "next_query.tcss"
    BINDINGS = [Binding("enter,y", "answer(True)", "open"), Binding("escape,n", "answer(False)", "stay")]

    def __init__(self, done: str, offered: str, text: str) -> None:
        super().__init__()
        self.message = Text.assemble(
            data(done, "bold"),
            " has no unlabeled document left.\n\nNext with unlabeled documents: ",
            data(offered, "bold"),
            "  ",
            data(text),
            "\n\n",
            ("enter", "bold"),
            " open it   ",
            ("esc", "bold"),
            " stay here",
        )

    def compose(self) -> ComposeResult:
        yield Static(self.message)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
