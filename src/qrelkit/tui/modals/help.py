"""A modal listing every key, screen by screen (it scrolls when the terminal is short)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Judging a query",
        [
            ("0 1 2 3 …", "give that grade, save, go to the next document"),
            ("1 2  → 12", "scales above 9: digits add up; enter saves (a pending digit waits)"),
            ("s", "skip / unsure (recorded; stays unlabeled for scoring)"),
            ("u", "retract your own vote (the others' votes stand)"),
            ("z  backspace", "undo this session's last judgment, go back to it"),
            ("n  →  p  ←", "next / previous document without judging"),
            ("↑ ↓", "scroll the document a line"),
            ("pgup pgdn", "scroll the document a page"),
            ("home end", "the document's top / bottom"),
            (
                "e",
                "your note on the document, in a box under it: ctrl+s saves, an edit when you had one"
                " (prefilled); saved empty, it is withdrawn; esc cancels",
            ),
            ("N", "read every note on the document, with author and time"),
            (
                "m",
                "mark the evidence for your grade: select it in the document (shift+arrows) or type /"
                " paste it (tab); saved with your vote; ctrl+s saves, empty withdraws",
            ),
            ("h", "query-term highlighting off / on (for the rest of the session)"),
            ("g", "the query's full guidelines"),
            ("G", "the grades: names, definitions, which count as relevant"),
            ("c", "context: the pooled runs' rank and score of the document (off: blind)"),
            ("!", "flag the query for its owner: cannot judge / bad query (no vote)"),
            ("l", "your last five decisions; enter goes back to one"),
            ("D", "give the document's duplicates (same or near-same text) your grade on it"),
            ("b", "dismiss the break reminder (a new stretch of work starts)"),
            ("esc", "back to the query list"),
        ],
    ),
    (
        "The query list",
        [
            ("enter", "open the query"),
            ("/", "search query ids and text as you type (esc clears)"),
            ("a", "only queries with your pending assignments (marked ●)"),
            ("f", "filter by stratum (cycles)"),
            ("h", "only queries with unlabeled documents"),
            ("d", "the dashboard (latest saved comparison)"),
            ("A", "adjudication (adjudicators only: a local judge, or an adjudicator token)"),
        ],
    ),
    (
        "Adjudication (judge --adjudicate, or A)",
        [
            ("0 1 2 3 …", "settle the disagreement shown with that grade"),
            ("n  →  p  ←", "next / previous disagreement (once settled: n goes on)"),
            ("s", "skip: the next disagreement, this one left unsettled"),
            ("e", "your note on the pair (no vote, no label); edit it, or save it empty"),
            ("N", "every assessor's note on the pair, with author, time and edits"),
            ("X", "clear the pair for everyone: no vote counts (asks first, naming every vote)"),
            ("g  G", "the query's full guidelines / the grades"),
            ("esc", "back (quits when adjudication is all there is)"),
        ],
    ),
    (
        "Everywhere",
        [
            ("?", "this list (esc closes it)"),
            ("q", "quit (every judgment is already saved)"),
        ],
    ),
]

KEY_WIDTH = 12
"""The keys' column (its descriptions start one space after it)."""

KEYS = [pair for _, keys in SECTIONS for pair in keys]
"""Every (key, what it does), in the order shown."""


def help_text() -> Group:
    """Every section's keys, each description wrapping under itself, beside its key."""
    parts: list[RenderableType] = [Text("Keys", style="bold")]
    for title, keys in SECTIONS:
        parts.append(Text(f"\n{title}", style="bold underline"))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=KEY_WIDTH, no_wrap=True, style="bold")
        grid.add_column(ratio=1)
        for key, what in keys:
            grid.add_row(Text(key), Text(what))
        parts.append(grid)
    parts.append(Text("\nesc closes", style="dim"))
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """Every key, in one place."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_text())
