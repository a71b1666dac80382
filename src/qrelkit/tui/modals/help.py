"""A modal listing every key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("0 1 2 3 …", "give that grade, save, go to the next document"),
    ("s", "skip / unsure (recorded; stays unlabeled for scoring)"),
    ("u", "clear the label: back to unlabeled (recorded)"),
    ("n  →  p  ←", "next / previous document without judging"),
    ("e", "add a note to the current document's judgment"),
    ("enter", "in the query list: open the query"),
    ("f", "in the query list: filter by stratum (cycles)"),
    ("h", "in the query list: only queries with unlabeled documents"),
    ("d", "in the query list: the dashboard (latest saved comparison)"),
    ("esc", "back to the query list / close this"),
    ("", "judge --adjudicate: 0 1 2 3 … settles the disagreement shown"),
    ("q", "quit (every judgment is already saved)"),
]


class HelpScreen(ModalScreen[None]):
    """Every key, in one place."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "close")]

    def compose(self) -> ComposeResult:
        rows = "\n".join(f"[b]{key:<12}[/b] {what}" for key, what in KEYS)
        yield Static(f"[b]Keys[/b]\n\n{rows}\n\n[dim]esc closes[/dim]")
