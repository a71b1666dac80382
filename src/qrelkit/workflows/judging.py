"""A judging session: what the judging screens do, with no screen in it. The terminal UI (and
anything else) calls this; it calls the store. One assessor, one store.

A query's documents come in pool order (best rank, then insertion), then the documents judged
but never pooled; each with its state resolved from every assessor's votes (`resolution`). Pairs
assigned to this assessor and to others are *blind*: shown unlabeled, the others' grades hidden,
until this assessor has voted (`qrelkit assign --overlap`).
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import resolution
from ..errors import NotAdjudicator, NothingToRetract, NotInGoldenSet, StoreBusy, StoreError, UsageError
from ..models import (
    Decision,
    Disagreement,
    DocState,
    Document,
    GradeScale,
    Judgment,
    JudgmentState,
    LabelPolicy,
    LabelState,
    PairNote,
    Query,
    QueryProgress,
    QueueItem,
    QueueOrder,
    Role,
    SavedReport,
    check_assessor,
    default_assessor,
    utcnow,
)
from ..storage import BUSY_TIMEOUT_MS, CLAIM_WINDOW, Claim, Store
from .disagreements import disagreement_on
from .disagreements import disagreements as disagreements  # re-exported: where callers found it
from .duplicates import DuplicateVotes
from .leasing import Judged, Leasing
from .pairs import (
    UNDO_TEXT,
    NoteChange,
    document_state,
    documents,
    note_change,
    notes_by_pair,
    own_note,
    own_vote,
    states,
)
from .queue import Comparisons, ordered_queue
from .queue_process import QueueProcess


def current_assessor() -> str:
    """Who is judging here: `$QRELKIT_ASSESSOR`, else the login name, else `unknown`; a name
    that is no assessor name (`models.check_assessor`) is a `UsageError` saying where it came from."""
    try:
        login: str | None = getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        login = None
    given_as = "$QRELKIT_ASSESSOR" if os.environ.get("QRELKIT_ASSESSOR") else "the login name"
    return check_assessor(default_assessor(dict(os.environ), login), given_as)


def assessor_or_current(name: str | None, given_as: str = "--assessor") -> str:
    """`name`, checked (`models.check_assessor`); None: `current_assessor()`."""
    return current_assessor() if name is None else check_assessor(name, given_as)


VOTED = {
    JudgmentState.GRADED: LabelState.GRADED,
    JudgmentState.SKIPPED: LabelState.SKIPPED,
    JudgmentState.RETRACTED: LabelState.UNLABELED,
}
"""What a pair shows, as far as this assessor's vote goes, while that vote waits for a busy store."""


@dataclass
class JudgingSession(Leasing, DuplicateVotes):
    """One assessor's judging session on one store: the queue, a query's documents, judging."""

    store: Store
    assessor: str
    stratum: str | None = None
    order: QueueOrder = "impact"
    """The judging queue's order (`qrelkit queue --order`): documents and next queries follow it."""
    seed: int = 0
    comparisons: Comparisons | None = None  # what the `settle` order settles (`judge --for`, `--leaderboard`)
    role: Role = "adjudicator"
    """What the session may do: an `assessor` judges; an `adjudicator` also settles and clears
    pairs (`settle`, `clear`). `qrelkit serve` starts each session in its token's role."""
    scale: GradeScale = field(init=False)
    events: int = 0
    """Events this session committed (what the screen shows is already on disk)."""
    _reader: Store | None = field(init=False, default=None, repr=False)
    _queue: list[QueueItem] | None = field(init=False, default=None, repr=False)
    _positions: dict[str, dict[str, int]] = field(init=False, default_factory=dict, repr=False)
    _done: set[tuple[str, str]] = field(init=False, default_factory=set, repr=False)
    lock_wait_ms: int = 30_000
    """How long a judgment waits for another process's write lock before it is held in memory
    (the judging screen passes a fraction of a second, so that a key never freezes the screen)."""
    _waiting: list[Judgment] = field(init=False, default_factory=list, repr=False)
    refused: list[tuple[Judgment, NotInGoldenSet]] = field(init=False, default_factory=list, repr=False)
    """Held events the store refused once free (their query or document was removed meanwhile):
    the screen says so (`take_refused`); nothing else can record them."""
    _history: list[tuple[str, str, resolution.Vote | None]] = field(init=False, default_factory=list, repr=False)
    _decisions: list[Decision] = field(init=False, default_factory=list, repr=False)
    _seen: dict[str, int] = field(init=False, default_factory=dict, repr=False)
    _leaser: Store | None = field(init=False, default=None, repr=False)
    _process: QueueProcess = field(init=False, default_factory=QueueProcess, repr=False)
    """Where a large store's queue is computed (`queue_process`): never in the screen's process."""

    @property
    def judged(self) -> int:
        """Documents this session holds a vote on (a regrade or a note is no new document; a
        retraction takes one off): what "judged N" on the screens counts."""
        return len(self._done)

    def __post_init__(self) -> None:
        self.scale = self.store.settings.scale
        self.store.wait_for_lock(self.lock_wait_ms)

    # -- reading ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.store.settings.name

    @property
    def label_policy(self) -> LabelPolicy:
        return self.store.settings.label_policy

    def query(self, query_id: str) -> Query | None:
        return self.store.reads.query(query_id)

    def document(self, doc_id: str) -> Document | None:
        return self.store.reads.document(doc_id)

    def documents(self, query_id: str) -> list[DocState]:
        """The query's documents for this assessor (blind on shared pairs), the queued ones in
        queue order; the others keep their places. `changed` then reports news since this read."""
        self._seen[query_id] = self.store.log.last_seq(query_id, besides=self.assessor)
        return self.order_docs(query_id, documents(self.store, query_id, assessor=self.assessor, blind=True))

    def doc_state(self, query_id: str, doc_id: str) -> DocState:
        """One document's state as this assessor sees it now."""
        return document_state(self.store, query_id, doc_id, assessor=self.assessor, blind=True)

    def progress(self) -> list[QueryProgress]:
        """Counts for every query, read on a connection of its own (called from a worker thread,
        so that a long read never holds the connection the judgments are written on)."""
        return self.reader().counts.progress()

    def latest_report(self) -> SavedReport | None:
        """The latest saved comparison, else the latest saved score report (for the dashboard)."""
        return self.store.reports.latest("comparison") or self.store.reports.latest("score")

    def reader(self) -> Store:
        """A second connection for worker threads (created on first use)."""
        if self._reader is None:
            self._reader = self.store.reader()
        return self._reader

    # -- judging ----------------------------------------------------------------------------

    def record(self, event: Judgment) -> int:
        """Append the event (committed on return); its sequence number in the log. A busy store
        raises `StoreBusy` (the judging screen holds judgments with `judge` instead)."""
        seq = self.store.log.record(event)
        self._recorded(event, seq)
        return seq

    def _recorded(self, event: Judgment, seq: int) -> None:
        """`event` is committed as `seq`: the session's counts. (Its own events are no news to
        `changed`, which reads the others' alone: marking `seq` seen would hide another
        assessor's event committed just before it.)"""
        self.events += 1
        pair = (event.query_id, event.doc_id)
        if event.state in (JudgmentState.CLEARED, JudgmentState.RETRACTED):
            self._done.discard(pair)
        elif event.state is not JudgmentState.NOTED:
            self._done.add(pair)

    def judge(
        self,
        query_id: str,
        doc_id: str,
        state: JudgmentState,
        grade: int | None = None,
        *,
        note: str | None = None,
        seconds: float | None = None,
    ) -> DocState:
        """Record this assessor's vote (graded, skipped or retracted), committed on return, and
        what the pair resolves to now. When another process holds the store's lock, the vote is
        held in memory (`waiting`) and committed, in order, by `flush`; the state says so."""
        return self.judge_next(query_id, doc_id, state, grade, note=note, seconds=seconds).state

    def judge_next(
        self,
        query_id: str,
        doc_id: str,
        state: JudgmentState,
        grade: int | None = None,
        *,
        note: str | None = None,
        seconds: float | None = None,
        then: Sequence[str] = (),
        evidence: str | None = None,
    ) -> Judged:
        """`judge`, and the document to go to next: the first of `then` (the documents after this
        one, in the order wanted) that no one else has open or voted on since this session read the
        query, leased to this assessor in the judgment's own transaction (`Log.record_pair`), so
        that two assessors judging at once never go to the same document.

        A keystroke's cost: BEGIN IMMEDIATE, the lease, the two pairs read in one statement, the
        INSERT, COMMIT. The read gives the vote this one replaces (for `undo`) and both pairs'
        states after it, exactly (no one else could write in between). A busy store takes no
        lease: the vote is held, and nothing is chosen (`chose` is False). `evidence`: the passage
        marked as the evidence for the vote (`workflows.evidence`)."""
        event = self._vote(query_id, doc_id, state, grade, note, seconds, evidence)
        if self._waiting:  # earlier judgments wait for the busy store: this one goes after them
            previous = self.own_vote(query_id, doc_id)
            saved = self.submit(event)  # a refusal (NotInGoldenSet) leaves nothing to undo
            self._remember(event, previous)
            if not saved:
                return Judged(self._held_back(event))
            return Judged(self.doc_state(query_id, doc_id), *self._claim_rest(query_id, then))
        claim = Claim(list(then), self._seen.get(query_id, 0)) if then else None
        try:
            seq, before, taken = self.store.log.record_pair(event, besides=self.assessor, claim=claim)
        except StoreBusy:  # held in memory (the lock was waited for once, not again)
            self._remember(event, self.own_vote(query_id, doc_id))
            self._waiting.append(event)
            return Judged(self._held_back(event))
        self._remember(event, own_vote(before.events, query_id, doc_id, self.assessor))
        self._recorded(event, seq)
        shown = states(before.after(seq, event), query_id, [doc_id, *([taken] if taken else [])],
                       assessor=self.assessor, blind=True)  # fmt: skip
        if taken is None and len(then) > CLAIM_WINDOW:  # the first ones were all taken: the rest
            return Judged(shown[0], *self._claim_rest(query_id, then[CLAIM_WINDOW:]))
        return Judged(shown[0], shown[1] if taken else None, chose=bool(then))

    def _vote(
        self,
        query_id: str,
        doc_id: str,
        state: JudgmentState,
        grade: int | None,
        note: str | None,
        seconds: float | None,
        evidence: str | None = None,
    ) -> Judgment:
        """The vote event `judge` records; a note or a clear (not votes), or a retraction without a
        vote of this assessor's to take back, is refused."""
        if state not in (JudgmentState.GRADED, JudgmentState.SKIPPED, JudgmentState.RETRACTED):
            raise UsageError(
                f"a judgment is a vote, not {state.value!r}", "notes go through note(), clears through clear()"
            )
        if state is JudgmentState.RETRACTED and not self._holds_vote(query_id, doc_id):
            raise NothingToRetract(f"you have no vote on {doc_id} to retract", "u takes back your own vote only")
        return Judgment(query_id=query_id, doc_id=doc_id, state=state, grade=grade, assessor=self.assessor,
                        note=note, seconds=seconds, evidence=evidence)  # fmt: skip

    def _remember(self, event: Judgment, previous: resolution.Vote | None) -> None:
        """A judgment keyed: what `undo` restores, and a decision `last_decisions` lists."""
        self._history.append((event.query_id, event.doc_id, previous))
        self._decisions.append(
            Decision(query_id=event.query_id, doc_id=event.doc_id, state=event.state, grade=event.grade, at=utcnow())
        )

    def last_decisions(self, n: int = 5) -> list[Decision]:
        """This session's latest `n` judgments still standing (an undone one is gone), newest first."""
        return self._decisions[::-1][:n]

    @property
    def judged_pairs(self) -> frozenset[tuple[str, str]]:
        """The (query, document) pairs this session holds a vote on (`judged`)."""
        return frozenset(self._done)

    def left(self) -> int | None:
        """Documents left in this assessor's queue: the queue as last computed less what this
        session judged since (None until the queue is first computed)."""
        if self._queue is None:
            return None
        judged = sum(1 for q, d in self._done if d in self._positions.get(q, ()))
        return len(self._queue) - judged

    def _held_back(self, vote: Judgment) -> DocState:
        """What the pair shows while this vote waits for the busy store."""
        return DocState(
            doc_id=vote.doc_id, state=VOTED[vote.state], grade=vote.grade, assessor=self.assessor, waiting=True
        )

    def note(self, query_id: str, doc_id: str, text: str) -> DocState:
        """A `noted` event on the pair, by this assessor: no vote, no label changes (it is now
        their note there: `set_note` edits and withdraws it)."""
        self.submit(
            Judgment(query_id=query_id, doc_id=doc_id, state=JudgmentState.NOTED, assessor=self.assessor, note=text)
        )
        return self.doc_state(query_id, doc_id)

    def my_note(self, query_id: str, doc_id: str) -> str | None:
        """This assessor's note on the pair (None: none), blind or not: theirs alone, including a
        note still held for the busy store."""
        events = self.store.log.query_events(query_id, doc_id)
        held = [(0, e) for e in self._waiting if (e.query_id, e.doc_id) == (query_id, doc_id)]
        return own_note([*events, *held], query_id, doc_id, self.assessor)

    def set_note(self, query_id: str, doc_id: str, text: str) -> tuple[NoteChange, DocState | None]:
        """Save `text` as this assessor's note on the pair: a first note, an edit, or (empty) a
        withdrawal, each a new `noted` event of theirs (`pairs.note_change`); nothing is written
        when nothing changes. No other assessor's note is touched. What it did, and the pair's
        state after it (None when nothing was written)."""
        change, written = note_change(self.my_note(query_id, doc_id), text)
        return change, None if written is None else self.note(query_id, doc_id, written)

    def _holds_vote(self, query_id: str, doc_id: str) -> bool:
        """Whether this assessor has a vote on the pair: in the store, or held for the busy store
        (then the held events decide: the latest of them on the pair)."""
        held = [
            e
            for e in self._waiting
            if (e.query_id, e.doc_id) == (query_id, doc_id) and e.state is not JudgmentState.NOTED
        ]
        if held:
            return held[-1].state in (JudgmentState.GRADED, JudgmentState.SKIPPED)
        return self.own_vote(query_id, doc_id) is not None

    def votes_on(self, query_id: str, doc_id: str) -> list[str]:
        """Every assessor's current vote on the pair, from the store and never blind ("bob 2",
        "ann skipped"), and the adjudicated grade: what a clear would reset."""
        pair = resolution.votes_of(self.store.log.query_events(query_id, doc_id)).get((query_id, doc_id))
        if pair is None:
            return []
        found = [
            f"{v.assessor} {v.grade if v.grade is not None else v.state}"
            for v in sorted(pair.votes, key=lambda v: v.assessor)
        ]
        return found + ([f"adjudicated {pair.adjudicated}"] if pair.adjudicated is not None else [])

    @property
    def may_adjudicate(self) -> bool:
        """Whether this session holds the adjudicator role (the adjudication screen, `X`)."""
        return self.role == "adjudicator"

    def check_adjudicator(self) -> None:
        """Refuse (`NotAdjudicator`) an adjudication action of a session that may not take one."""
        if not self.may_adjudicate:
            raise NotAdjudicator(
                f"{self.assessor} judges as an assessor: settling and clearing pairs is an adjudicator's",
                "ask for an adjudicator token (`qrelkit serve token add NAME --role adjudicator`)",
            )

    def notes_on(self, query_id: str, doc_id: str) -> list[PairNote]:
        """Every assessor's note on the pair, in order, from the store and never blind (for the
        adjudicator: `pairs.notes_by_pair`)."""
        return notes_by_pair(self.store.log.query_events(query_id, doc_id)).get((query_id, doc_id), [])

    def clear(self, query_id: str, doc_id: str) -> DocState:
        """Reset the pair for everyone (every vote and adjudication before it stops counting): an
        adjudication action, recorded with who did it. A busy store holds it, as `judge` does."""
        self.check_adjudicator()
        self.submit(
            Judgment(
                query_id=query_id, doc_id=doc_id, state=JudgmentState.CLEARED, assessor=self.assessor,
                note=f"cleared for everyone by {self.assessor}",
            )
        )  # fmt: skip
        return self.doc_state(query_id, doc_id)

    def own_vote(self, query_id: str, doc_id: str) -> resolution.Vote | None:
        """This assessor's current vote on the pair (None: none)."""
        return own_vote(self.store.log.query_events(query_id, doc_id), query_id, doc_id, self.assessor)

    def undo(self) -> tuple[str, str] | None:
        """Take back this session's last judgment: the assessor's vote on that pair goes back to
        what it was before (or is retracted if there was none), as a new event. The pair, or None
        when nothing is left to undo."""
        if not self._history:
            return None
        query_id, doc_id, previous = self._history.pop()
        self._decisions.pop()
        state, grade, evidence = JudgmentState.RETRACTED, None, None
        if previous is not None:  # the vote comes back with the evidence it had
            state, grade, evidence = JudgmentState(previous.state), previous.grade, previous.evidence
        self.submit(
            Judgment(query_id=query_id, doc_id=doc_id, state=state, grade=grade, assessor=self.assessor,
                     note=UNDO_TEXT, evidence=evidence)
        )  # fmt: skip
        return query_id, doc_id

    # -- a busy store -----------------------------------------------------------------------

    def submit(self, event: Judgment) -> bool:
        """Commit the event after every one still waiting; False when the store is busy (then it
        waits in memory, in order, for `flush`)."""
        self._waiting.append(event)
        left = self.flush()
        refused = next((error for e, error in self.refused if e is event), None)
        if refused is not None:
            self.refused = [(e, error) for e, error in self.refused if e is not event]
            raise refused
        return left == 0

    def flush(self, wait_ms: int | None = None) -> int:
        """Commit the waiting events in order, as far as the store lets; how many still wait.
        `wait_ms`: how long each may wait for the lock (default: the session's short wait)."""
        if wait_ms is not None:
            self.store.wait_for_lock(wait_ms)
        try:
            while self._waiting:
                try:
                    seq = self.store.log.record(self._waiting[0])
                except NotInGoldenSet as error:  # removed while it waited: it cannot be recorded
                    self.refused.append((self._waiting.pop(0), error))
                    continue
                self._recorded(self._waiting.pop(0), seq)
        except StoreBusy:
            pass
        finally:
            if wait_ms is not None:
                self.store.wait_for_lock(self.lock_wait_ms)
        return len(self._waiting)

    def take_refused(self) -> list[NotInGoldenSet]:
        """The refusals of held events since the last call (see `refused`)."""
        taken, self.refused = [error for _, error in self.refused], []
        return taken

    def save_waiting(self) -> Path:
        """Write the judgments still waiting for the store to a JSONL file (the format `import
        judgments` reads) and return its path: the last resort when the store stays busy."""
        import tempfile

        from ..formats import jsonl

        fd, name = tempfile.mkstemp(prefix=f"qrelkit-waiting-{self.assessor}-", suffix=".jsonl")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            jsonl.write_models(self._waiting, out)
        return Path(name)

    def set_aside_waiting(self) -> Path:
        """`save_waiting`, and the judgments written there are no longer held (so that closing
        does not wait for the store again: the process is ending)."""
        kept = self.save_waiting()
        self._waiting.clear()
        return kept

    @property
    def waiting(self) -> int:
        """Judgments held in memory until the busy store takes them."""
        return len(self._waiting)

    # -- several assessors live -------------------------------------------------------------

    def disagreements(self) -> list[Disagreement]:
        return disagreements(self.store)

    def disagreement_now(self, item: Disagreement) -> Disagreement | None:
        return disagreement_on(self.store, item)

    def settle(self, item: Disagreement, grade: int) -> bool:
        """Adjudicate a disagreement: an `adjudicated` event that names the votes it settles.
        False when the store is busy: the event waits in memory, in order, as a judgment does."""
        self.check_adjudicator()
        votes = ", ".join(f"{who} {g}" for who, g in sorted(item.votes.items()))
        return self.submit(
            Judgment(
                query_id=item.query_id,
                doc_id=item.doc_id,
                state=JudgmentState.ADJUDICATED,
                grade=grade,
                assessor=self.assessor,
                note=f"adjudicated over {votes}",
            )
        )

    # -- the queue ----------------------------------------------------------------------------

    def queue(self) -> list[QueueItem]:
        """The queue as last computed (computed now if no worker has yet)."""
        if self._queue is None:
            self.refresh_queue(self.store)
        return self._queue or []

    def refresh_queue(self, store: Store | None = None) -> None:
        """Recompute the queue (impact moves as labels arrive). Workers pass nothing: a
        connection of their own is opened; the new queue replaces the old one in one assignment."""
        if store is None:
            reader = self.store.reader()
            try:
                items = self._process.compute(reader, self.order, **self._queue_of)
                return self._set_queue(items) if items is not None else self.refresh_queue(reader)
            finally:
                if reader is not self.store:  # an in-memory store is its own reader
                    reader.close()
        self._set_queue(ordered_queue(store, self.order, **self._queue_of))

    @property
    def _queue_of(self) -> dict[str, Any]:
        return {"seed": self.seed, "stratum": self.stratum, "assessor": self.assessor, "comparisons": self.comparisons}

    def _set_queue(self, items: list[QueueItem]) -> None:
        positions: dict[str, dict[str, int]] = {}
        for n, item in enumerate(items):
            positions.setdefault(item.query_id, {})[item.doc_id] = n
        self._queue, self._positions = items, positions

    def stop_queue(self) -> None:
        """Drop a queue computation under way (the screen is closing): its process ends now, so
        quitting never waits for it; the queue is not computed again in this session."""
        self._process.close()

    def order_docs(self, query_id: str, docs: list[DocState]) -> list[DocState]:
        """A query's documents with its queued (unlabeled) ones in queue order; the others keep
        their places, so with the depth order nothing moves. Before the queue is computed (in a
        worker at start), the documents stay in pool order."""
        where = self._positions.get(query_id, {})
        slots = [i for i, d in enumerate(docs) if d.doc_id in where]
        ordered = list(docs)
        for i, d in zip(slots, sorted((docs[i] for i in slots), key=lambda d: where[d.doc_id]), strict=True):
            ordered[i] = d
        return ordered

    def next_query(self, after: str | None = None) -> str | None:
        """The query of the first queue entry not judged yet (outside `after`)."""
        for item in self.queue():
            if item.query_id != after and (item.query_id, item.doc_id) not in self._done:
                return item.query_id
        return None

    # -- the connection ----------------------------------------------------------------------

    def defer_checkpoints(self) -> None:
        """Stop commits from checkpointing the WAL inside themselves (keystroke latency): the
        caller then calls `checkpoint()` every few seconds, off the UI thread."""
        self.store.defer_checkpoints()

    def checkpoint(self) -> bool:
        """Copy committed WAL pages into the database file (`Store.checkpoint`); False when it
        could not run now."""
        return self.store.checkpoint()

    def close(self) -> None:
        """Commit the judgments still waiting (each waiting as long as a command would), end this
        assessor's lease and close the connections. If judgments still wait, `StoreBusy` is
        raised and nothing is closed: they are not lost, the caller may try again."""
        if self._waiting and self.flush(wait_ms=BUSY_TIMEOUT_MS):
            raise StoreBusy(
                f"{len(self._waiting)} judgments are still waiting for the busy store",
                "wait for the other writer to finish, then quit again",
            )
        if self._leaser is not None:
            self.hold("", None)
            if self._leaser is not self.store:
                self._leaser.close()
        for conn in (self._reader,):
            if conn is not None and conn is not self.store:
                conn.close()
        self._reader = self._leaser = None
        self._process.close()
        self.store.close()


def open_session(
    db: Path,
    assessor: str | None,
    *,
    stratum: str | None = None,
    query: str | None = None,
    order: QueueOrder = "impact",
    seed: int = 0,
    lock_wait_ms: int = 250,
    role: Role = "adjudicator",
) -> JudgingSession:
    """A judging session on the store at `db`, for `assessor` (default: `current_assessor()`).
    Refuses a name that is no assessor name and a missing store (UsageError), a query not in the
    golden set and an unknown stratum (StoreError), closing the store again."""
    who = assessor_or_current(assessor)
    if not db.exists():
        raise UsageError(f"no store at {db}", "create one with `qrelkit init`, or `qrelkit demo --keep PATH`")
    store = Store.open(db)
    try:
        if query is not None and store.reads.query(query) is None:
            raise StoreError(f"query {query!r} is not in the golden set", "see `qrelkit status`")
        store.settings.check_stratum(stratum)
    except BaseException:
        store.close()
        raise
    return JudgingSession(store, who, stratum=stratum, order=order, seed=seed, lock_wait_ms=lock_wait_ms, role=role)
