"""A modal marking the passage of a document that is the evidence for the grade (`m`): the
document's text to select it in (keyboard first: move with the arrows, hold shift to select,
whole lines with shift+up/down), or a line to type or paste it into (a paste of several lines
kept whole, its lines joined by a space); ctrl+s saves."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TextArea

from ...models import Document
from ...render.styles import data, visible


def passage_source(doc: Document | None) -> str:
    """The text a passage is selected in: the document's, its control characters made visible
    (a TextArea writes them to the terminal as they are) and CRLF line ends as line ends."""
    return visible(doc.text.replace("\r\n", "\n")) if doc is not None else ""


class PassageInput(Input):
    """The line a passage is typed or pasted into. A paste of several lines (a passage copied
    from a document spans line ends) keeps every line, joined by a space; Textual's `Input` keeps
    the first alone."""

    def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # not `Input`'s paste as well
        event.stop()
        joined = " ".join(line.strip() for line in event.text.splitlines() if line.strip())
        if joined and self.selection.is_empty:
            self.insert_text_at_cursor(joined)
        elif joined:
            self.replace(joined, *self.selection)


class EvidenceScreen(ModalScreen[str | None]):
    """Returns the passage marked: the text selected in the document, else the line typed or
    pasted (prefilled with the evidence marked before; empty: withdrawn). None: cancelled."""

    CSS_PATH = "evidence.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "save"),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, doc_id: str, doc: Document | None, current: str | None) -> None:
        super().__init__()
        self.doc_id = doc_id
        self.doc = doc
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Evidence for your grade on ", "bold"), data(self.doc_id, "bold"), "\n",
                    ("shift+arrows", "bold"), " select a passage · ", ("tab", "bold"),
                    " type or paste it below instead · ", ("ctrl+s", "bold"), " save · ",
                    ("esc", "bold"), " cancel",
                    ("\nnothing selected and the line empty: the evidence is withdrawn", "dim"),
                )
            )  # fmt: skip
            yield TextArea(passage_source(self.doc), id="passage-text", read_only=True, soft_wrap=True)
            prefilled = visible(self.current or "")
            yield PassageInput(value=prefilled, placeholder="or type / paste the passage", id="passage")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def chosen(self) -> str:
        """The selection in the document, else the line's text."""
        return self.query_one(TextArea).selected_text or self.query_one(Input).value

    def action_save(self) -> None:
        text = self.chosen()
        # the evidence as it was when left as shown (its control characters were shown visible)
        self.dismiss(self.current if self.current is not None and text == visible(self.current) else text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_cancel(self) -> None:
        self.dismiss(None)
