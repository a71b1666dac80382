"""Adjudication (`qrelkit judge --adjudicate`): the pairs whose assessors disagree, most urgent
first; every assessor's grade and note side by side; a grade key records the adjudicated label
(an `adjudicated` event that names the votes it settles), and the next disagreement comes up."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from ...models import Disagreement, GradeScale
from ...render.styles import data
from ...workflows.judging import JudgingSession
from ..modals.help import HelpScreen
from ..widgets.document import DocumentView
from ..widgets.scale_bar import ScaleBar

KEYS = [("n/p", "move"), ("q", "quit")]


def votes_text(item: Disagreement, scale: GradeScale) -> Text:
    """Every assessor's grade (and note) side by side, then the distance and the priority."""
    text = Text()
    for n, (who, grade) in enumerate(sorted(item.votes.items())):
        text.append("  ·  " if n else "")
        text.append_text(data(who, "bold"))
        text.append(": ")
        text.append_text(data(f"{grade} ({scale.name_of(grade)})"))
        if who in item.notes:
            text.append("  ")
            text.append_text(data(f"“{item.notes[who]}”", "italic"))
    text.append(f"\ndistance {item.distance} · priority {item.priority:.4g}", style="dim")
    return text


class AdjudicationScreen(Screen[None]):
    """One disagreement at a time."""

    CSS_PATH = "adjudication.tcss"
    BINDINGS = [
        Binding("n,right", "move(1)", "next", show=False),
        Binding("p,left", "move(-1)", "previous", show=False),
        Binding("question_mark", "help", "keys"),
        Binding("escape,q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session
        self.items: list[Disagreement] = []
        self.position = 0
        self.settled = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="query", classes="bar")
        yield DocumentView(id="document")
        yield Static(id="votes")
        yield ScaleBar(self.session.scale, KEYS)

    def on_mount(self) -> None:
        self.title = self.app.title
        self.items = self.session.disagreements()
        self.refresh_view()

    def refresh_view(self) -> None:
        query, document, votes = (
            self.query_one("#query", Static),
            self.query_one(DocumentView),
            self.query_one("#votes", Static),
        )
        if not self.items:
            self.sub_title = f"adjudication · {self.settled} settled"
            query.update("[b]No disagreement left to adjudicate.[/b]")
            document.say("")
            votes.update("[dim]q quits[/dim]")
            return
        item = self.items[self.position]
        self.sub_title = f"adjudication · {self.position + 1}/{len(self.items)} · {self.settled} settled"
        q = self.session.query(item.query_id)
        text = q.text if q else item.query_id
        query.update(Text.assemble(data(item.query_id, "bold"), "  ", data(text)))
        document.show(item.doc_id, self.session.document(item.doc_id), text)
        votes.update(votes_text(item, self.session.scale))

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if character and character.isdigit() and len(character) == 1 and self.items:
            grade = int(character)
            if grade <= self.session.scale.max_grade:
                event.stop()
                self.settle(grade)

    def settle(self, grade: int) -> None:
        """Record the adjudicated grade (committed on return), then show the next disagreement."""
        self.session.settle(self.items[self.position], grade)
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
