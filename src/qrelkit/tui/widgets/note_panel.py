"""The note box: a panel at the bottom of the judging and adjudication screens (the document stays
in view above it), hidden until `e` opens it on the assessor's own note, prefilled.

No key typed is lost:
- the panel is always mounted, and `open` shows it and moves the focus to its text at once (not
  after a refresh): the keys typed right after `e`, in the same burst, are routed to the note
  (the screen's `e` is a priority binding, so that it runs before those keys are routed);
- `ctrl+s` and `esc` are the panel's own bindings, not priority ones: they run once the key has
  passed through the text area's queue, behind every key typed before them (a priority `ctrl+s`
  read the text while the last keys still waited there, and cut the note's tail)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static, TextArea

from ...render.styles import data, visible

Done = Callable[[str | None], None]
"""Called when the panel closes: the text saved (ctrl+s), or None (esc)."""


class NotePanel(Vertical):
    """A note being written: a line saying whose note and the keys, and the text."""

    BINDINGS = [
        Binding("ctrl+s", "save", "save"),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.display = False
        self._done: Done | None = None
        self._back_to: Widget | None = None
        self._current: str | None = None

    def compose(self) -> Any:
        yield Static(id="note-hint")
        # a TextArea never reads markup, but writes control characters to the terminal as they
        # are: a note from the store comes in with them made visible
        yield TextArea(id="note", soft_wrap=True, show_line_numbers=False)

    @property
    def is_open(self) -> bool:
        return bool(self.display)

    def open(self, doc_id: str, current: str | None, done: Done) -> None:
        """Show the panel on `current` (the assessor's note now, None: none) and take the keys."""
        area = self.query_one(TextArea)
        area.load_text(visible(current or ""))
        area.move_cursor(area.document.end)
        hint = Text.assemble(
            "Your note on ", data(doc_id, "bold"), " · ", ("ctrl+s", "bold"), " save (empty: withdraw)"
        )
        hint.append_text(Text.assemble(" · ", ("enter", "bold"), " new line · ", ("esc", "bold"), " cancel"))
        self.query_one("#note-hint", Static).update(hint)
        self._done, self._back_to, self._current = done, self.screen.focused, current
        self.display = True
        self.screen.set_focus(area)  # now: the keys typed next are the note's

    def action_save(self) -> None:
        """ctrl+s: the text typed; the note as it was when left as shown (its control characters
        were shown made visible: that is no edit)."""
        text = self.query_one(TextArea).text
        self._close(self._current if self._current is not None and text == visible(self._current) else text)

    def action_cancel(self) -> None:
        self._close(None)

    def _close(self, text: str | None) -> None:
        done, self._done = self._done, None
        self.display = False
        self.screen.set_focus(self._back_to if self._back_to is not None and self._back_to.is_attached else None)
        if done is not None:
            done(text)
