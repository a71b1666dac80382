"""A document on screen: its id, title and text, the query's terms highlighted, in a scroll view."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...models import Document
from ...render.styles import data
from ..sight import Sight, Watched

STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it my of on or the to what when why with".split()
)


def query_terms(text: str) -> list[str]:
    """Words of the query worth highlighting in a document (any script: `\\w` is Unicode's)."""
    words = re.findall(r"\w+", text.lower())
    return [w for w in dict.fromkeys(words) if w not in STOPWORDS and len(w) > 1]


def terms_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """The terms as whole words, case-insensitive (`test` is not highlighted in `latest`)."""
    if not terms:
        return None
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def document_body(doc_id: str, doc: Document | None, query_text: str, *, highlight: bool = True) -> Text:
    """A document's id, title and text (as data: no markup, control characters visible), with the
    query's terms highlighted (unless `highlight` is off: `h`)."""
    body = Text()
    body.append_text(data(doc_id, "bold"))
    if doc is None:
        body.append("\n(document text not in the store)", style="dim italic")
    else:
        if doc.title:
            body.append_text(data(f"  {doc.title}", "bold cyan"))
        # CRLF line ends are line ends (they showed `\x0d` on every line); a lone CR stays visible
        body.append_text(data("\n\n" + doc.text.replace("\r\n", "\n")))
    pattern = terms_pattern(query_terms(query_text)) if highlight else None
    if pattern is not None:
        body.highlight_regex(pattern, style="bold yellow on grey23")
    return body


class DocumentText(Watched, Static):
    """The document's text; each frame it is drawn in marks the screen's `Sight` (`tui.sight`)."""


class DocumentView(VerticalScroll):
    """The document being judged, scrolled back to its top whenever another one is shown."""

    def __init__(self, *, sight: Sight | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sight = sight

    def compose(self) -> ComposeResult:
        text = DocumentText(id="text")
        text.sights = (self.sight,) if self.sight is not None else ()
        yield text

    def show(self, doc_id: str, doc: Document | None, query_text: str, *, highlight: bool = True) -> None:
        self.query_one("#text", Static).update(document_body(doc_id, doc, query_text, highlight=highlight))
        self.scroll_home(animate=False)

    def say(self, message: str) -> None:
        """A line of the app's own (markup) in place of a document."""
        self.query_one("#text", Static).update(message)
