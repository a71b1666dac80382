"""A modal offering the next query that still has unlabeled documents."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static


class NextQueryScreen(ModalScreen[bool]):
    """True: open the offered query; False: stay."""

    DEFAULT_CSS = """
    NextQueryScreen { align: center middle; }
    NextQueryScreen > Static { width: 64; height: auto; border: round $success; padding: 1 2; background: $surface; }
    """
    BINDINGS = [Binding("enter,y", "answer(True)", "open"), Binding("escape,n", "answer(False)", "stay")]

    def __init__(self, done: str, offered: str, text: str) -> None:
        super().__init__()
        self.message = (
            f"[b]{done}[/b] has no unlabeled document left.\n\n"
            f"Next with unlabeled documents: [b]{offered}[/b]  {text}\n\n"
            "[b]enter[/b] open it   [b]esc[/b] stay here"
        )

    def compose(self) -> ComposeResult:
        yield Static(self.message)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
