"""A modal asking for a note: several lines if need be."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from ...render.styles import visible


class NoteScreen(ModalScreen[str | None]):
    """Returns the note typed (None when cancelled, or left empty). enter starts a new line;
    ctrl+s saves; esc cancels."""

    CSS_PATH = "note.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "save", priority=True),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text.assemble(
                    "Note for this document (",
                    ("ctrl+s", "bold"),
                    " saves, ",
                    ("enter", "bold"),
                    " a new line, ",
                    ("esc", "bold"),
                    " cancels)",
                )
            )
            # a TextArea never reads markup, but writes control characters to the terminal as
            # they are: a note from the store comes in with them made visible
            yield TextArea(visible(self.current), id="note", soft_wrap=True, show_line_numbers=False)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
