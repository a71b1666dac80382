"""The judging screen: one query, its documents one at a time, one keystroke per judgment."""

from __future__ import annotations

import time
from functools import partial

from rich.text import Text
from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static

from ...errors import NothingToRetract, NotInGoldenSet, StoreBusy, UsageError
from ...models import Decision, DocState, JudgmentState, LabelState, Query, RunRank
from ...render.styles import data, visible
from ...workflows import flags, pooling
from ...workflows.judging import JudgingSession
from ...workflows.leasing import Judged
from ...workflows.pacing import Pace
from ..duplicate_key import duplicates_key
from ..grade_entry import GradeKeys
from ..messages import HeldSaved, QueueReady, QueueStale
from ..modals.decisions import DecisionsScreen
from ..modals.flag import FlagScreen
from ..modals.help import HelpScreen
from ..modals.next_query import NextQueryScreen
from ..modals.reading import grades, guidelines, notes, pair_notes
from ..palette import css
from ..reading_aids import aids, mark_evidence
from ..sight import Sight
from ..widgets.context_line import ContextLine
from ..widgets.document import DocumentView
from ..widgets.duplicates_line import DuplicateAid, DuplicatesLine
from ..widgets.evidence_line import EvidenceLine
from ..widgets.label_line import LabelLine
from ..widgets.note_panel import NotePanel
from ..widgets.query_header import QueryHeader, query_header
from ..widgets.scale_bar import ScaleBar
from ..widgets.session_panel import SessionPanel
from ..widgets.settle_line import settle_line
from ..widgets.title_header import TitleHeader, quiet_sub_title

KEYS = [
    ("s", "skip"),
    ("u", "retract"),
    ("z", "undo"),
    ("n/p", "move"),
    ("e", "note"),
    ("m", "evidence"),
    ("h", "highlight"),
    ("?", "keys"),
    ("esc", "back"),
]

POLL_SECONDS = 2.0
"""How often the screen looks for other assessors' new events on its query, and retries
judgments waiting for a busy store."""


class JudgingScreen(Screen[None]):
    """Judge one query's documents: 0-9 grade, s skip, u retract, z undo, n/p move, e note. A judgment
    moves to the next unlabeled document; when none is left, the next query is offered."""

    CSS_PATH = "judging.tcss"
    sub_title = quiet_sub_title()
    BINDINGS = [
        Binding("s", "skip", "skip"),
        Binding("u", "retract", "retract"),
        Binding("z,backspace", "undo", "undo"),
        Binding("n,right", "move(1)", "next", show=False),
        Binding("p,left", "move(-1)", "previous", show=False),
        # priority: `e` opens the note box before the keys typed after it are routed (they are the note's)
        Binding("e", "note", "note", priority=True),
        Binding("N", "notes", "notes", show=False),
        Binding("g", "guidelines", "guidelines", show=False),
        Binding("G", "grades", "grades", show=False),
        Binding("c", "context", "context", show=False),
        Binding("exclamation_mark", "flag", "flag the query", show=False),
        Binding("l", "last", "last five", show=False),
        Binding("m", "evidence", "evidence", show=False),
        Binding("h", "highlight", "highlight", show=False),
        Binding("D", "duplicates", "give the duplicates your grade", show=False),
        Binding("b", "dismiss_break", "dismiss the break reminder", show=False),
        Binding("X", "app.notify('X clears a pair for everyone on the adjudication screen')", show=False),
        Binding("up", "scroll_document('up')", show=False),
        Binding("down", "scroll_document('down')", show=False),
        Binding("pageup", "scroll_document('page_up')", show=False),
        Binding("pagedown", "scroll_document('page_down')", show=False),
        Binding("home", "scroll_document('home')", show=False),
        Binding("end", "scroll_document('end')", show=False),
        Binding("question_mark", "help", "keys"),
        Binding("escape", "back", "back"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession, query_id: str, *, pace: Pace | None = None) -> None:
        super().__init__()
        self.session = session
        self.query_id = query_id
        self.pace = pace or Pace()
        """The session's pace: the active clock of the document shown, the median, breaks."""
        self.grade_keys = GradeKeys(
            self, session.scale.max_grade, self.grade, show=self.show_typed, target=self.current_pair
        )
        """Digits are grades (several digits make one on a scale above 9: `grade_entry`)."""
        self.query_model: Query | None = None
        self.docs: list[DocState] = []
        self.position = 0
        self.shown_at = time.monotonic()
        """When the document on screen was shown (a redraw does not move it)."""
        self._clock_on: tuple[str, str] | None = None
        """The pair the pace's document clock runs for."""
        self.context_on = False
        """`c`: the pooled runs' ranks of the document are shown (off: blind to systems)."""
        self._ranks: dict[str, list[RunRank]] | None = None
        self.touched = False
        """Judged or moved since the query was loaded."""
        self.held: tuple[str, str] | None = None
        """The document this screen holds a lease on (taken the moment it is shown)."""
        self.fresh: str | None = None
        """The document whose state was read with the judgment just saved (no need to read it again)."""
        self.drawn_doc: tuple[str, str] | None = ("", "")
        """The document the screen last showed (None: none; at first a pair no document has):
        another one shown refuses keys until it is drawn."""
        self.sight = Sight(self.refused_keys)
        """Keys typed before the document they would act on was drawn are refused (`tui.sight`)."""
        self.was_waiting = False
        """Judgments were held for a busy store at the last poll (say when they are saved)."""
        self.dupes = DuplicateAid(session)  # the query's duplicates, this assessor's votes there (`D`)

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield QueryHeader(id="query", classes="bar")
        yield DocumentView(id="document", sight=self.sight)
        yield LabelLine(self.session.scale, self.session.label_policy, id="label", classes="bar")
        yield EvidenceLine(id="evidence", classes="bar")
        yield DuplicatesLine(self.dupes, self.current_pair, id="duplicates", classes="bar")
        yield ContextLine(id="context", classes="bar")
        yield Static(id="saved", classes="bar")
        self.settle = settle_line(self.app)  # `judge --for`: whether each comparison is settled yet
        yield from self.settle.widgets()
        yield SessionPanel(self.session, self.pace, self.on_document, id="session", classes="bar")
        yield NotePanel(id="note-panel")
        yield ScaleBar(self.session.scale, KEYS)

    def on_mount(self) -> None:
        self.title = self.app.title
        self.load()
        self.set_interval(POLL_SECONDS, self.poll)

    def load(self) -> None:
        """Read the query and its documents (others' labels included); start at the first unlabeled
        document no one else has open, leased at once (`JudgingSession.take`)."""
        self.query_model = self.session.query(self.query_id)
        self.docs = self.session.documents(self.query_id)
        taken = self.session.take(self.query_id, self.docs, range(len(self.docs)))
        if taken is None:  # nothing open left here for this assessor: the first document no one has open
            taken = next((i for i, d in enumerate(self.docs) if d.held_by is None), 0)
            if any(d.state is LabelState.UNLABELED for d in self.docs):
                self.say(Text("every unlabeled document here is open on another assessor's screen", css("yellow")))
        else:
            self.held = (self.query_id, self.docs[taken].doc_id)
        self.position = taken
        self.touched = False
        self._ranks = None
        self.query_one(DuplicatesLine).load(self.query_id, [d.doc_id for d in self.docs])
        self.refresh_view()

    def reload(self) -> None:
        """Read the query's documents again, as the store holds them now, staying on the same one."""
        current = self.docs[self.position].doc_id if self.docs else None
        self.docs = self.session.documents(self.query_id)
        self.position = next((i for i, d in enumerate(self.docs) if d.doc_id == current), self.position)
        self.position = min(self.position, max(len(self.docs) - 1, 0))
        self.dupes.reread()  # a clear (or another screen of this assessor's) may have changed them
        self.refresh_view()

    @on(QueueReady)
    def queue_ready(self, message: QueueReady) -> None:
        """The first queue arrived: put the documents in its order, unless the assessor has
        already judged or moved here."""
        if message.first and not self.touched:
            self.load()

    # -- drawing ----------------------------------------------------------------------------

    def refresh_view(self) -> None:
        self.settle.committed()  # a judgment committed: the verdicts shown are stale (no read: an int compared)
        q = self.query_model
        if q is None:
            self.query_one("#query", Static).update(data(f"query {self.query_id} is not in the golden set", css("red")))
            self._shown(None)
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
            self.query_one(EvidenceLine).show(None, None)
            self._shown(None)
            return
        doc_state = self.docs[self.position]
        if not doc_state.waiting and self.fresh != doc_state.doc_id:  # another assessor may have judged it
            doc_state = self.docs[self.position] = self.session.doc_state(self.query_id, doc_state.doc_id)
        self.fresh = None
        document.show(
            doc_state.doc_id, self.session.document(doc_state.doc_id), q.text, highlight=aids(self.app).highlight
        )
        label.show(doc_state)
        self.query_one(EvidenceLine).show(doc_state, aids(self.app).pending.get((self.query_id, doc_state.doc_id)))
        self.query_one(DuplicatesLine).show(self.dupes.line(doc_state.doc_id))
        self.show_context()
        if self._clock_on != (self.query_id, doc_state.doc_id):  # shown now: a redraw restarts no clock
            self._clock_on = (self.query_id, doc_state.doc_id)
            self.shown_at = time.monotonic()
            self.pace.shown()
        self._shown((self.query_id, doc_state.doc_id))

    def _shown(self, pair: tuple[str, str] | None) -> None:
        """The document `pair` (None: none) is on screen: leased now (unless the judgment that led
        here leased it already), and no key acts on it before it is drawn."""
        if pair is not None and self.held != pair:
            self.held = pair
            self.session.hold(*pair)  # best effort, never waiting for a busy store
        if self.drawn_doc != pair:
            self.drawn_doc = pair
            self.sight.changed()

    def sight_for(self, event: events.Key) -> Sight | None:
        """What a key acts on: the document drawn; none for a key typed in the note box."""
        return None if self.query_one(NotePanel).is_open else self.sight

    def refused_keys(self, keys: list[str]) -> None:
        """`Sight` refused keys typed before the document on screen was drawn."""
        typed = " ".join(keys)
        self.say(Text.assemble(("not applied: ", css("bold yellow")), data(typed, "bold"),
                               " (typed before this document was on screen; type it again)"))  # fmt: skip

    def say(self, message: Text) -> None:
        """What the last key did, on the line under the label ("saved 2 (relevant) for d1"); said
        before the screen is composed (a key refused that early), it is shown once it is."""
        try:
            self.query_one("#saved", Static).update(message)
        except NoMatches:
            self.call_after_refresh(self.say, message)

    def poll(self) -> None:
        """Every few seconds: commit judgments a busy store held back, and re-read the query's
        documents if someone else judged it (the position stays on the same document)."""
        if self.session.waiting or self.was_waiting:  # the app's timer may have saved them already
            left = self.session.flush()
            free = Text("the store is free again: every judgment is saved", css("green"))
            self.say(waiting_line(left) if left else free)
            self.was_waiting = left > 0
            if not left:  # every count, label and state on screen as the store holds them now
                self.recount()
        for error in self.session.take_refused():  # removed while it waited for the store
            self.refused(error)
        if self.docs and self.session.changed(self.query_id):
            self.reload()
        self.settle.polled()

    @on(HeldSaved)
    def held_saved(self, message: HeldSaved) -> None:
        """The app's timer committed the judgments held for a busy store."""
        self.was_waiting = False
        self.say(Text("the store is free again: every judgment is saved", css("green")))
        self.recount()

    def recount(self) -> None:
        """Re-read the documents (their states, the header's counts) and the session panel from
        the store, once the judgments held for it are committed."""
        if self.query_model is not None:
            self.reload()
        self.query_one(SessionPanel).tick()

    # -- judging ----------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """A key typed before the document on screen was drawn acts on nothing (`tui.sight`: the
        app asks too, as a key arrives; here it is asked again as the screen handles it, after the
        keys before it had their effect); digits are grades (`grade_entry`). Keys typed in the
        note box are the note's."""
        if self.query_one(NotePanel).is_open:
            return
        if self.sight.refuses(event):
            event.stop()
            event.prevent_default()
            return
        self.grade_keys.key(event)

    def judge(
        self, state: JudgmentState, grade: int | None = None, note: str | None = None, advance: bool = True
    ) -> None:
        """Append one event (committed on return), show what the pair resolves to now, then move
        on. Nothing on screen runs ahead of disk."""
        if not self.docs:
            return
        self.touched = True
        d = self.docs[self.position]
        spent = self.pace.on_document()  # active seconds, idle stretches left out (`workflows.pacing`)
        then = self.session.after(self.docs, self.position) if advance else []
        evidence = aids(self.app).take((self.query_id, d.doc_id), state)  # marked before the vote: saved with it
        try:
            result = self.session.judge_next(self.query_id, d.doc_id, state, grade, note=note, seconds=round(spent, 3),
                                             then=[x.doc_id for x in then], evidence=evidence)  # fmt: skip
        except NotInGoldenSet as error:
            self.refused(error)
            return
        except NothingToRetract as error:  # `u` with no vote of one's own: nothing written, nothing counted
            self.say(data(error.message))
            return
        self.pace.record(spent, counted=state is not JudgmentState.RETRACTED)
        self.dupes.voted(d.doc_id, state, grade)
        done = self.docs[self.position] = result.state
        self.was_waiting = self.was_waiting or done.waiting
        self.say(waiting_line(self.session.waiting) if done.waiting else saved_line(done, state, grade, self.session))
        if advance:
            nxt = self._next(result)
            if nxt is None:
                self.refresh_view()
                self.offer_next_query()
                return
            self.position = nxt
        self.refresh_view()

    def _next(self, result: Judged) -> int | None:
        """Where a judgment moves to: the document it leased (read with it), none when the store
        found none free, or, when the store could not choose (busy), the next one open as last
        read (leased once the store lets)."""
        taken = result.taken
        if taken is not None:
            nxt = next(i for i, x in enumerate(self.docs) if x.doc_id == taken.doc_id)
            self.docs[nxt], self.fresh, self.held = taken, taken.doc_id, (self.query_id, taken.doc_id)
            return nxt
        return None if result.chose else self.session.next_open(self.docs, self.position)

    def refused(self, error: NotInGoldenSet) -> None:
        """The store refused an event: its query or document left the golden set (`queries|docs
        remove`) while the screen showed it. Say so and move on: read the query again (a removed
        document is no longer listed; a removed query shows it is gone)."""
        self.say(Text(f"not saved: {error.message}", css("red")))
        self.load()

    def action_skip(self) -> None:
        self.timed(JudgmentState.SKIPPED)

    def action_retract(self) -> None:
        """Take back this assessor's own vote on the pair (stay: to judge it again); the other
        assessors' votes stand. Clearing a pair for everyone is `judge --adjudicate`'s."""
        self.judge(JudgmentState.RETRACTED, advance=False)

    def action_undo(self) -> None:
        """Undo this session's last judgment and go back to that document."""
        try:
            pair = self.session.undo()
        except NotInGoldenSet as error:
            self.refused(error)
            return
        if pair is None:
            self.say(Text("nothing to undo in this session", css("yellow")))
            return
        query_id, doc_id = pair
        self.go_to(query_id, doc_id)
        back = state_words(self.docs[self.position], self.session)
        self.say(Text.assemble("undone: ", data(doc_id, "bold"), " is back to ", back))

    def go_to(self, query_id: str, doc_id: str) -> None:
        """Show the document (of another query, if need be), read again."""
        if query_id != self.query_id:
            self.query_id = query_id
            self.load()
        else:
            self.docs = self.session.documents(self.query_id)
            self.dupes.reread()
        self.position = next((i for i, d in enumerate(self.docs) if d.doc_id == doc_id), self.position)
        self.touched = True
        self.refresh_view()

    def action_move(self, step: int) -> None:
        self.touched = True
        if self.docs:
            self.position = max(0, min(len(self.docs) - 1, self.position + step))
            self.refresh_view()

    def action_note(self) -> None:
        """e: this assessor's own note on the document, in the box under it (prefilled: saving
        edits it, saving it empty withdraws it). An `e` typed in the box is the note's."""
        panel = self.query_one(NotePanel)
        if panel.is_open or not self.docs:
            raise SkipAction()
        self.grade_keys.cancel()
        doc_id = self.docs[self.position].doc_id
        panel.open(doc_id, self.session.my_note(self.query_id, doc_id), partial(self.note_done, doc_id))

    def note_done(self, doc_id: str, text: str | None) -> None:
        """The note box closed: save what it holds (None: cancelled), a new event of this assessor's."""
        if text is None:
            return
        try:
            change, state = self.session.set_note(self.query_id, doc_id, text)
        except NotInGoldenSet as error:
            self.refused(error)
            return
        self.say(Text.assemble(change.value, " for ", data(doc_id, "bold")))
        if state is not None:
            at = next((i for i, d in enumerate(self.docs) if d.doc_id == doc_id), None)
            if at is not None:
                self.docs[at] = state
            self.refresh_view()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_highlight(self) -> None:
        """`h`: the query's terms highlighted in the document, or not, for the rest of the session."""
        reading = aids(self.app)
        reading.highlight = not reading.highlight
        self.refresh_view()
        self.say(Text("query terms highlighted" if reading.highlight else "highlighting off (h: on again)", "dim"))

    def action_evidence(self) -> None:
        """`m`: mark the passage that is the evidence for the grade (`tui.reading_aids`)."""
        if self.docs:
            pair = (self.query_id, self.docs[self.position].doc_id)
            mark_evidence(self.app, self.session, pair, self.evidence_marked, self.refused)

    def evidence_marked(self, said: Text, state: DocState | None) -> None:
        self.say(said)
        self.docs = [state if state is not None and d.doc_id == state.doc_id else d for d in self.docs]
        self.refresh_view()

    # -- reading, typing a grade, timing: the assessor's comforts ---------------------------

    def action_guidelines(self) -> None:
        """The query's whole guidelines (the bar above the document shows their first lines)."""
        if self.query_model is not None:
            self.app.push_screen(guidelines(self.query_model))

    def action_notes(self) -> None:
        """Every note on the document, with its author and time."""
        if self.docs:
            d = self.docs[self.position]
            self.app.push_screen(notes(d.doc_id, pair_notes(d)))

    def action_grades(self) -> None:
        self.app.push_screen(grades(self.session.scale))

    def action_scroll_document(self, how: str) -> None:
        """up/down/pgup/pgdn/home/end scroll the document, whatever has the focus."""
        document = self.query_one(DocumentView)
        scroll = {
            "up": document.scroll_up,
            "down": document.scroll_down,
            "page_up": document.scroll_page_up,
            "page_down": document.scroll_page_down,
            "home": document.scroll_home,
            "end": document.scroll_end,
        }[how]
        scroll(animate=False)

    def on_document(self) -> float | None:
        """Active seconds on the document on screen (None: no document), for the session panel."""
        return self.pace.on_document() if self.docs else None

    def grade(self, grade: int) -> None:
        self.timed(JudgmentState.GRADED, grade)

    def timed(self, state: JudgmentState, grade: int | None = None) -> None:
        """`judge` (which records the active seconds on the document, and adds them to the
        median), then the session panel at once."""
        if self.docs:
            self.judge(state, grade)
        self.query_one(SessionPanel).tick()

    # -- context, flags, the last decisions, breaks -------------------------------------------

    def action_context(self) -> None:
        """`c`: show or hide where the pooled runs ranked the document (off by default)."""
        self.context_on = not self.context_on
        self.show_context()
        self.say(Text("context shown: the pooled runs' ranks" if self.context_on else "context hidden", "dim"))

    def show_context(self) -> None:
        line = self.query_one(ContextLine)
        if not (self.context_on and self.docs):
            line.show(None)
            return
        if self._ranks is None:  # one read per query, once asked for
            self._ranks = pooling.document_ranks(self.session, self.query_id)
        line.show(self._ranks.get(self.docs[self.position].doc_id, []))

    def action_flag(self, reason: str = "") -> None:
        """`!`: flag the query for its owner ("cannot judge", "bad query"), with a short reason."""
        doc_id = self.docs[self.position].doc_id if self.docs else None
        query_id = self.query_id

        def save(given: str | None) -> None:
            if given is None:
                return
            try:
                flags.flag_query(self.session, query_id, doc_id, given)
            except (UsageError, StoreBusy) as error:  # the reason is kept: the box opens again with it
                self.say(Text(f"not flagged: {error.message}", css("red")))
                self.call_after_refresh(self.action_flag, given)
                return
            except NotInGoldenSet as error:
                self.refused(error)
                return
            self.say(Text.assemble("flagged ", data(query_id, "bold"), " for its owner: ", data(given)))

        self.app.push_screen(FlagScreen(query_id, reason), save)

    def action_last(self) -> None:
        """`l`: the last five decisions of this session; picking one goes back to it."""

        def back(picked: Decision | None) -> None:
            if picked is not None:
                self.go_to(picked.query_id, picked.doc_id)
                self.say(Text.assemble("back to ", data(picked.doc_id, "bold")))

        self.app.push_screen(DecisionsScreen(self.session.last_decisions(), self.session.scale), back)

    def action_duplicates(self) -> None:
        duplicates_key(self)  # `D`: the duplicates given this assessor's grade (`tui.duplicate_key`)

    def action_dismiss_break(self) -> None:
        """`b`: dismiss the break reminder (a new stretch of work starts)."""
        if not self.pace.break_due:
            self.say(Text("no break reminder to dismiss", "dim"))
            return
        self.pace.dismiss_break()
        self.app.clear_notifications()
        self.query_one(SessionPanel).tick()
        self.say(Text("break reminder dismissed", "dim"))

    def current_pair(self) -> tuple[str, str | None]:
        """What a grade typed now would grade (digits typed are saved only on that pair)."""
        return self.query_id, self.docs[self.position].doc_id if self.docs else None

    def show_typed(self, typed: str) -> None:
        self.query_one(SessionPanel).show_typed(typed)

    def action_back(self) -> None:
        self.session.hold(self.query_id, None)
        self.held = None
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


def state_words(d: DocState, session: JudgingSession) -> Text:
    """A pair's state in a few words: `2 (relevant)`, `skipped`, `unlabeled`."""
    if d.state is LabelState.GRADED and d.grade is not None:
        return data(f"{d.grade} ({session.scale.name_of(d.grade)})", "bold")
    return Text(d.state.value, style="bold")


def saved_line(d: DocState, state: JudgmentState, grade: int | None, session: JudgingSession) -> Text:
    """What was saved, in words: `saved 2 (relevant) for doc-17` (and what the pair resolves to,
    when other assessors' votes make it something else)."""
    doc = data(d.doc_id, "bold")
    if state is JudgmentState.RETRACTED:
        return Text.assemble("retracted your vote on ", doc, "; it is now ", state_words(d, session))
    if state is JudgmentState.SKIPPED or grade is None:
        return Text.assemble("saved skip (unsure) for ", doc)
    line = Text.assemble("saved ", data(f"{grade} ({session.scale.name_of(grade)})", "bold"), " for ", doc)
    if d.state is not LabelState.GRADED or d.grade != grade:
        line.append_text(Text.assemble("; with the other votes it is ", state_words(d, session)))
    return line


def waiting_line(left: int) -> Text:
    return Text(
        f"store busy, retrying: {left} judgment(s) held in memory, saved in order once it is free", css("bold yellow")
    )
