"""The judging screen: one query, its documents one at a time, one keystroke per judgment."""

from __future__ import annotations

import time

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from ...models import DocState, JudgmentState, LabelState, Query
from ...render.styles import data, visible
from ...workflows.judging import JudgingSession
from ..messages import QueueReady, QueueStale
from ..modals.help import HelpScreen
from ..modals.next_query import NextQueryScreen
from ..modals.note import NoteScreen
from ..palette import css
from ..widgets.document import DocumentView
from ..widgets.label_line import LabelLine
from ..widgets.scale_bar import ScaleBar

KEYS = [("s", "skip"), ("u", "clear"), ("n/p", "move"), ("e", "note"), ("?", "keys"), ("esc", "back")]

KEEP: dict[LabelState, JudgmentState] = {
    LabelState.GRADED: JudgmentState.GRADED,
    LabelState.SKIPPED: JudgmentState.SKIPPED,
}
"""The event that keeps a document's state (a note is appended with it); an unlabeled one: `cleared`."""


def query_header(q: Query) -> Text:
    """The query's id, stratum and text, and its guidelines under them (all data)."""
    header = Text.assemble(data(q.id, "bold"), " ", data(f"({q.stratum})", "dim"), "  ", data(q.text))
    if q.description:
        header.append_text(data(f"\n{q.description}", "dim"))
    return header


class JudgingScreen(Screen[None]):
    """Judge one query's documents: 0-9 grade, s skip, u clear, n/p move, e note. A judgment
    moves to the next unlabeled document; when none is left, the next query is offered."""

    CSS_PATH = "judging.tcss"
    BINDINGS = [
        Binding("s", "skip", "skip"),
        Binding("u", "clear", "clear"),
        Binding("n,right", "move(1)", "next", show=False),
        Binding("p,left", "move(-1)", "previous", show=False),
        Binding("e", "note", "note"),
        Binding("question_mark", "help", "keys"),
        Binding("escape", "back", "back"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession, query_id: str) -> None:
        super().__init__()
        self.session = session
        self.query_id = query_id
        self.query_model: Query | None = None
        self.docs: list[DocState] = []
        self.position = 0
        self.shown_at = time.monotonic()
        self.touched = False
        """Judged or moved since the query was loaded."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="query", classes="bar")
        yield DocumentView(id="document")
        yield LabelLine(self.session.scale, self.session.label_policy, id="label", classes="bar")
        yield ScaleBar(self.session.scale, KEYS)

    def on_mount(self) -> None:
        self.title = self.app.title
        self.load()

    def load(self) -> None:
        """Read the query and its documents (others' labels included); start at the first unlabeled."""
        self.query_model = self.session.query(self.query_id)
        self.docs = self.session.documents(self.query_id)
        self.position = next((i for i, d in enumerate(self.docs) if d.state is LabelState.UNLABELED), 0)
        self.touched = False
        self.refresh_view()

    @on(QueueReady)
    def queue_ready(self, message: QueueReady) -> None:
        """The first queue arrived: put the documents in its order, unless the assessor has
        already judged or moved here."""
        if message.first and not self.touched:
            self.load()

    # -- drawing ----------------------------------------------------------------------------

    def refresh_view(self) -> None:
        q = self.query_model
        if q is None:
            self.query_one("#query", Static).update(data(f"query {self.query_id} is not in the golden set", css("red")))
            return
        self.query_one("#query", Static).update(query_header(q))
        labeled = sum(d.state is LabelState.GRADED for d in self.docs)
        total = len(self.docs)
        self.sub_title = (
            f"{visible(q.id)} · doc {min(self.position + 1, total)}/{total} · {labeled}/{total} labeled"
            f" · judged {self.session.judged}"
        )
        document = self.query_one(DocumentView)
        label = self.query_one(LabelLine)
        if not self.docs:
            document.say("[dim]no documents to judge for this query (nothing pooled or labeled)[/dim]")
            label.show(None)
            return
        doc_state = self.docs[self.position]
        document.show(doc_state.doc_id, self.session.document(doc_state.doc_id), q.text)
        label.show(doc_state)
        self.shown_at = time.monotonic()

    # -- judging ----------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit() and len(event.character) == 1:
            grade = int(event.character)
            if grade <= self.session.scale.max_grade:
                event.stop()
                self.judge(JudgmentState.GRADED, grade)

    def judge(
        self, state: JudgmentState, grade: int | None = None, note: str | None = None, advance: bool = True
    ) -> None:
        """Append one event (committed on return), show what the pair resolves to now, then move
        on. Nothing on screen runs ahead of disk."""
        if not self.docs:
            return
        self.touched = True
        d = self.docs[self.position]
        seconds = round(time.monotonic() - self.shown_at, 3)
        self.docs[self.position] = self.session.judge(self.query_id, d.doc_id, state, grade, note=note, seconds=seconds)
        if advance:
            after = [i for i in range(self.position + 1, len(self.docs)) if self.docs[i].state is LabelState.UNLABELED]
            before = [i for i in range(self.position) if self.docs[i].state is LabelState.UNLABELED]
            if after or before:
                self.position = (after or before)[0]
            else:
                self.refresh_view()
                self.offer_next_query()
                return
        self.refresh_view()

    def action_skip(self) -> None:
        self.judge(JudgmentState.SKIPPED)

    def action_clear(self) -> None:
        """Clear the pair back to unlabeled (stay: a label is cleared to judge it again). A clear
        resets every assessor's vote, so on a pair assigned to several assessors it is refused."""
        if self.docs and self.docs[self.position].shared:
            self.notify(
                "Several assessors judge this pair: a clear would erase their votes too. "
                "Press a grade to change yours; disagreements are settled with judge --adjudicate.",
                title="not cleared",
                severity="warning",
                timeout=6,
            )
            return
        self.judge(JudgmentState.CLEARED, advance=False)

    def action_move(self, step: int) -> None:
        self.touched = True
        if self.docs:
            self.position = max(0, min(len(self.docs) - 1, self.position + step))
            self.refresh_view()

    def action_note(self) -> None:
        if not self.docs:
            return
        d = self.docs[self.position]

        def save(note: str | None) -> None:
            if note is not None:  # a new event carrying the current state, grade and the note
                grade = d.grade if d.state is LabelState.GRADED else None
                self.judge(KEEP.get(d.state, JudgmentState.CLEARED), grade, note=note, advance=False)

        self.app.push_screen(NoteScreen(d.note), save)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_back(self) -> None:
        self.dismiss(None)

    def offer_next_query(self) -> None:
        nxt = self.session.next_query(after=self.query_id)
        if nxt is None:
            self.notify("Every query is judged. esc: back to the list", title="done", timeout=6)
            return
        offered = self.session.query(nxt)

        def answer(go: bool | None) -> None:
            if go:
                self.query_id = nxt
                self.load()
            self.post_message(QueueStale())  # this query's labels moved the impacts

        self.app.push_screen(NextQueryScreen(self.query_id, nxt, offered.text if offered else ""), answer)
