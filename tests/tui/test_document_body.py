"""The document on the judging screen (issue 25): query terms highlighted as whole words in any
script, case-insensitive; CRLF line ends read as line ends (a lone CR stays visible)."""

from __future__ import annotations

from qrelkit.models import Document
from qrelkit.tui.widgets.document import document_body, query_terms


def _highlighted(text: str, query: str) -> list[str]:
    body = document_body("d", Document(id="d", text=text), query)
    return [body.plain[s.start : s.end] for s in body.spans if s.style == "bold yellow on grey23"]


def test_terms_are_whole_words_in_any_script() -> None:
    assert _highlighted("latest test Test contest", "test") == ["test", "Test"]
    assert _highlighted("über Über Überall Straße", "über straße") == ["über", "Über", "Straße"]
    assert _highlighted("東京 タワー", "東京") == ["東京"]
    assert query_terms("How do I use the Café?") == ["use", "café"]


def test_crlf_line_ends_are_line_ends_and_a_lone_cr_stays_visible() -> None:
    body = document_body("d", Document(id="d", text="one\r\ntwo\rthree"), "")
    assert body.plain == "d\n\none\ntwo\\x0dthree"


def test_a_term_with_regex_characters_is_plain_text() -> None:
    assert _highlighted("a c++ b (x) c", "c++ (x)") == []  # \\w+ words only: c, x are too short
    assert _highlighted("node.js is nodejs", "node.js") == ["node", "js"]  # not inside nodejs
