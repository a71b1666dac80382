"""Adjudication (`qrelkit judge --adjudicate`): the pairs whose assessors disagree, most urgent
first; every assessor's grade and note side by side; a grade key records the adjudicated label
(an `adjudicated` event that names the votes it settles), and the next disagreement comes up."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from ..models import Disagreement, Judgment, JudgmentState
from .help import HelpScreen
from .judging import document_body
from .state import Session


class AdjudicationScreen(Screen[None]):
    """One disagreement at a time."""

    CSS_PATH = "adjudication.tcss"
    BINDINGS = [
        Binding("n,right", "move(1)", "next", show=False),
        Binding("p,left", "move(-1)", "previous", show=False),
        Binding("question_mark", "help", "keys"),
        Binding("escape,q", "app.quit", "quit"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.items: list[Disagreement] = []
        self.position = 0
        self.settled = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="query")
        with VerticalScroll(id="document"):
            yield Static(id="text")
        yield Static(id="votes")
        scale = "  ".join(f"[b]{lv.grade}[/b] {lv.name}" for lv in self.session.scale.levels)
        yield Static(f"{scale}  [b]n/p[/b] move  [b]q[/b] quit", id="keys")

    def on_mount(self) -> None:
        self.title = self.app.title
        self.items = self.session.store.disagreements()
        self.refresh_view()

    def refresh_view(self) -> None:
        store = self.session.store
        if not self.items:
            self.sub_title = f"adjudication · {self.settled} settled"
            self.query_one("#query", Static).update("[b]No disagreement left to adjudicate.[/b]")
            self.query_one("#text", Static).update("")
            self.query_one("#votes", Static).update("[dim]q quits[/dim]")
            return
        item = self.items[self.position]
        self.sub_title = f"adjudication · {self.position + 1}/{len(self.items)} · {self.settled} settled"
        query = store.query(item.query_id)
        text = query.text if query else item.query_id
        self.query_one("#query", Static).update(f"[b]{item.query_id}[/b]  {text}")
        self.query_one("#text", Static).update(document_body(item.doc_id, store.document(item.doc_id), text))
        lines = []
        for who, grade in sorted(item.votes.items()):
            note = f"  [i]“{item.notes[who]}”[/i]" if who in item.notes else ""
            lines.append(f"[b]{who}[/b]: {grade} ({self.session.scale.name_of(grade)}){note}")
        self.query_one("#votes", Static).update(
            "  ·  ".join(lines) + f"\n[dim]distance {item.distance} · priority {item.priority:.4g}[/dim]"
        )

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if character and character.isdigit() and len(character) == 1 and self.items:
            grade = int(character)
            if grade <= self.session.scale.max_grade:
                event.stop()
                self.settle(grade)

    def settle(self, grade: int) -> None:
        """Record the adjudicated grade (committed on return), then show the next disagreement."""
        item = self.items[self.position]
        votes = ", ".join(f"{who} {g}" for who, g in sorted(item.votes.items()))
        self.session.record(
            Judgment(
                query_id=item.query_id,
                doc_id=item.doc_id,
                state=JudgmentState.ADJUDICATED,
                grade=grade,
                assessor=self.session.assessor,
                note=f"adjudicated over {votes}",
            )
        )
        self.settled += 1
        del self.items[self.position]
        self.position = min(self.position, max(len(self.items) - 1, 0))
        self.refresh_view()

    def action_move(self, step: int) -> None:
        if self.items:
            self.position = max(0, min(len(self.items) - 1, self.position + step))
            self.refresh_view()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
