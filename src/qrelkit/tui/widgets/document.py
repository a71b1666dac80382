"""A document on screen: its id, title and text, the query's terms highlighted, in a scroll view."""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...models import Document
from ...render.styles import data

STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it my of on or the to what when why with".split()
)


def query_terms(text: str) -> list[str]:
    """Words of the query worth highlighting in a document."""
    return [w for w in dict.fromkeys(re.findall(r"[A-Za-z0-9_]+", text.lower())) if w not in STOPWORDS and len(w) > 1]


def document_body(doc_id: str, doc: Document | None, query_text: str) -> Text:
    """A document's id, title and text (as data: no markup, control characters visible), with the
    query's terms highlighted."""
    body = Text()
    body.append_text(data(doc_id, "bold"))
    if doc is None:
        body.append("\n(document text not in the store)", style="dim italic")
    else:
        if doc.title:
            body.append_text(data(f"  {doc.title}", "bold cyan"))
        body.append_text(data("\n\n" + doc.text))
    body.highlight_words(query_terms(query_text), style="bold yellow on grey23", case_sensitive=False)
    return body


class DocumentView(VerticalScroll):
    """The document being judged, scrolled back to its top whenever another one is shown."""

    def compose(self) -> ComposeResult:
        yield Static(id="text")

    def show(self, doc_id: str, doc: Document | None, query_text: str) -> None:
        self.query_one("#text", Static).update(document_body(doc_id, doc, query_text))
        self.scroll_home(animate=False)

    def say(self, message: str) -> None:
        """A line of the app's own (markup) in place of a document."""
        self.query_one("#text", Static).update(message)
