"""A modal asking for a note."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NoteScreen(ModalScreen[str | None]):
    """Returns the note typed (None when cancelled)."""

    CSS_PATH = "note.tcss"
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Note for this judgment ([b]enter[/b] saves, [b]esc[/b] cancels)")
            yield Input(value=self.current, placeholder="why this grade?", id="note")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
