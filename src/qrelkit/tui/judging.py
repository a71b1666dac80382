"""The judging screen: one query, its documents one at a time, one keystroke per judgment."""

from __future__ import annotations

import re
import time

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from ..models import DocState, Document, Judgment, JudgmentState, LabelState, Query
from .help import HelpScreen
from .next_query import NextQueryScreen
from .note import NoteScreen
from .state import Session

STOPWORDS = frozenset(
    "a an and are as at be by do does for from how i in is it my of on or the to what when why with".split()
)


def query_terms(text: str) -> list[str]:
    """Words of the query worth highlighting in a document."""
    return [w for w in dict.fromkeys(re.findall(r"[A-Za-z0-9_]+", text.lower())) if w not in STOPWORDS and len(w) > 1]


def document_body(doc_id: str, doc: Document | None, query_text: str) -> Text:
    """A document's id, title and text, with the query's terms highlighted."""
    body = Text()
    body.append(doc_id, style="bold")
    if doc is None:
        body.append("\n(document text not in the store)", style="dim italic")
    else:
        if doc.title:
            body.append(f"  {doc.title}", style="bold cyan")
        body.append("\n\n" + doc.text)
    body.highlight_words(query_terms(query_text), style="bold yellow on grey23", case_sensitive=False)
    return body


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

    def __init__(self, session: Session, query_id: str) -> None:
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
        yield Static(id="query")
        with VerticalScroll(id="document"):
            yield Static(id="text")
        yield Static(id="label")
        yield Static(self._scale_bar(), id="keys")

    def on_mount(self) -> None:
        self.title = self.app.title
        self.load()

    def load(self) -> None:
        """Read the query and its queue (others' labels included); start at the first unlabeled."""
        store = self.session.store
        self.query_model = store.query(self.query_id)
        docs = store.queue(self.query_id, assessor=self.session.assessor, blind=True)
        self.docs = self.session.order_docs(self.query_id, docs)
        first = next((i for i, d in enumerate(self.docs) if d.state is LabelState.UNLABELED), 0)
        self.position = first
        self.touched = False
        self.refresh_view()

    # -- drawing ----------------------------------------------------------------------------

    def _scale_bar(self) -> str:
        grades = "  ".join(f"[b]{lv.grade}[/b] {lv.name}" for lv in self.session.scale.levels)
        return (
            f"{grades}  [b]s[/b] skip  [b]u[/b] clear  [b]n/p[/b] move  [b]e[/b] note  [b]?[/b] keys  [b]esc[/b] back"
        )

    def refresh_view(self) -> None:
        q = self.query_model
        query = self.query_one("#query", Static)
        if q is None:
            query.update(f"[red]query {self.query_id} is not in the golden set[/red]")
            return
        guide = f"\n[dim]{q.description}[/dim]" if q.description else ""
        query.update(f"[b]{q.id}[/b] [dim]({q.stratum})[/dim]  {q.text}{guide}")
        labeled = sum(d.state is LabelState.GRADED for d in self.docs)
        total = len(self.docs)
        self.sub_title = (
            f"{q.id} · doc {min(self.position + 1, total)}/{total} · {labeled}/{total} labeled"
            f" · judged {self.session.judged}"
        )
        text = self.query_one("#text", Static)
        label = self.query_one("#label", Static)
        if not self.docs:
            text.update("[dim]no documents to judge for this query (nothing pooled or labeled)[/dim]")
            label.update("")
            return
        doc_state = self.docs[self.position]
        doc = self.session.store.document(doc_state.doc_id)
        text.update(document_body(doc_state.doc_id, doc, q.text))
        self.query_one("#document", VerticalScroll).scroll_home(animate=False)
        label.update(self._label_line(doc_state))
        self.shown_at = time.monotonic()

    def _label_line(self, d: DocState) -> str:
        if d.blind:
            return "[b]unlabeled[/b] [dim]· assigned to you and others: their grades stay hidden until you judge[/dim]"
        if d.state is LabelState.UNLABELED:
            return "[b]unlabeled[/b]"
        when = (d.timestamp or "")[:16].replace("T", " ")
        note = f"  [i]“{d.note}”[/i]" if d.note else ""
        if d.state is LabelState.SKIPPED:
            return f"[b yellow]skipped[/b yellow] by {d.assessor} at {when}{note}"
        name = self.session.scale.name_of(d.grade or 0)
        if d.adjudicated:
            return f"[b green]grade {d.grade} ({name})[/b green] adjudicated{note}"
        if d.votes:
            votes = ", ".join(f"{a} {g}" for a, g in sorted(d.votes.items()))
            return (
                f"[b green]grade {d.grade} ({name})[/b green] [yellow]votes {votes}[/yellow] "
                f"[dim](resolved by {self.session.store.label_policy})[/dim]{note}"
            )
        return f"[b green]grade {d.grade} ({name})[/b green] by {d.assessor} at {when}{note}"

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
        """Append one event (committed on return), then move on. Nothing on screen runs ahead of disk."""
        if not self.docs:
            return
        self.touched = True
        d = self.docs[self.position]
        event = Judgment(
            query_id=self.query_id,
            doc_id=d.doc_id,
            state=state,
            grade=grade,
            assessor=self.session.assessor,
            note=note,
            seconds=round(time.monotonic() - self.shown_at, 3),
        )
        self.session.record(event)  # one transaction, WAL, synchronous=FULL
        label = {JudgmentState.GRADED: LabelState.GRADED, JudgmentState.SKIPPED: LabelState.SKIPPED}
        others = d.assessor not in (None, self.session.assessor)
        if d.votes or d.blind or d.adjudicated or others:  # other assessors' votes: show what it resolves to
            fresh = {x.doc_id: x for x in self.session.store.queue(self.query_id, assessor=self.session.assessor)}
            self.docs[self.position] = fresh.get(d.doc_id, d)
        else:
            self.docs[self.position] = DocState(
                doc_id=d.doc_id,
                state=label.get(state, LabelState.UNLABELED),
                grade=grade,
                assessor=self.session.assessor if state is not JudgmentState.CLEARED else None,
                timestamp=event.timestamp.isoformat() if state is not JudgmentState.CLEARED else None,
                note=note,
            )
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

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def refresh_queue(self) -> None:
        """Recompute the judging queue on a connection of its own, off the UI thread."""
        self.session.refresh_queue()

    def queue_ready(self) -> None:
        """The first queue arrived: put the documents in its order, unless the assessor has
        already judged or moved here."""
        if not self.touched:
            self.load()

    def action_skip(self) -> None:
        self.judge(JudgmentState.SKIPPED)

    def action_clear(self) -> None:
        """Clear the pair back to unlabeled (stay: a label is cleared to judge it again). A clear
        resets every assessor's vote, so on a pair assigned to several assessors it is refused."""
        if self.docs:
            d = self.docs[self.position]
            if d.shared:
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
            if note is None:
                return
            # a note is appended as a new event carrying the current state, grade and the note
            state = {LabelState.GRADED: JudgmentState.GRADED, LabelState.SKIPPED: JudgmentState.SKIPPED}
            self.judge(
                state.get(d.state, JudgmentState.CLEARED),
                d.grade if d.state is LabelState.GRADED else None,
                note=note,
                advance=False,
            )

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
        offered = self.session.store.query(nxt)

        def answer(go: bool | None) -> None:
            if go:
                self.query_id = nxt
                self.load()
            self.refresh_queue()  # this query's labels moved the impacts

        self.app.push_screen(NextQueryScreen(self.query_id, nxt, offered.text if offered else ""), answer)
