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
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .. import resolution
from ..errors import StoreError, UsageError
from ..models import (
    Disagreement,
    DocState,
    Document,
    GradeScale,
    Judgment,
    JudgmentState,
    LabelPolicy,
    LabelState,
    Query,
    QueryProgress,
    QueueItem,
    QueueOrder,
    SavedReport,
    default_assessor,
)
from ..storage import Store
from .queue import impacts, labels_by_query, ordered_queue


def current_assessor() -> str:
    """Who is judging here: `$QRELKIT_ASSESSOR`, else the login name, else `unknown`."""
    try:
        login: str | None = getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        login = None
    return default_assessor(dict(os.environ), login)


def documents(store: Store, query_id: str, *, assessor: str | None = None, blind: bool = False) -> list[DocState]:
    """A query's documents in judging order, each with its resolved state (see the module)."""
    pooled = store.pooled_documents(query_id)
    events = store.query_events(query_id)
    seen = set(pooled)
    order = pooled + [d for d in dict.fromkeys(e.doc_id for _, e in events) if d not in seen]
    return _states(store, query_id, order, events, store.shared_pairs(query_id), assessor=assessor, blind=blind)


def document_state(
    store: Store, query_id: str, doc_id: str, *, assessor: str | None = None, blind: bool = False
) -> DocState:
    """One document's state, as `documents` gives it, reading that pair's events only (the
    judging screen calls this after every keystroke)."""
    events = store.query_events(query_id, doc_id)
    return _states(
        store, query_id, [doc_id], events, store.shared_pairs(query_id, doc_id), assessor=assessor, blind=blind
    )[0]


def _states(
    store: Store,
    query_id: str,
    order: list[str],
    events: list[tuple[int, Judgment]],
    shared: dict[str, set[str]],
    *,
    assessor: str | None,
    blind: bool,
) -> list[DocState]:
    """Each document's resolved state from its events; blind where it is assigned to `assessor`
    and others and `assessor` has not voted."""
    votes = resolution.votes_of(events)
    times = {seq: e.timestamp for seq, e in events}
    hidden = {d for d, who in shared.items() if assessor in who} if blind and assessor is not None else set()
    policy = store.label_policy
    states = []
    for d in order:
        v, adjudicated = votes.get((query_id, d), ([], None))
        if d in hidden and adjudicated is None and not any(x.assessor == assessor for x in v):
            states.append(DocState(doc_id=d, state=LabelState.UNLABELED, blind=True, shared=True))
            continue
        states.append(_state(d, v, adjudicated, policy, times, shared=d in shared))
    return states


def _state(
    doc_id: str,
    votes: list[resolution.Vote],
    adjudicated: int | None,
    policy: LabelPolicy,
    times: dict[int, datetime],
    *,
    shared: bool,
) -> DocState:
    state, grade = resolution.resolve(votes, adjudicated, policy)
    if state is LabelState.UNLABELED:
        return DocState(doc_id=doc_id, state=state, shared=shared)
    last = max(votes, key=lambda x: x.seq) if votes else None
    graders = resolution.graded_votes(votes)
    return DocState(
        doc_id=doc_id,
        state=state,
        grade=grade,
        assessor=last.assessor if last else None,
        timestamp=times.get(last.seq) if last else None,
        note=last.note if last else None,
        votes=graders if len(graders) > 1 else {},
        adjudicated=adjudicated is not None,
        shared=shared,
    )


def disagreements(store: Store) -> list[Disagreement]:
    """Pairs whose assessors disagree and that no one adjudicated, most urgent first: grade
    distance times queue impact (the impact the pair would have were it unlabeled)."""
    found = []
    for (q, d), (votes, adjudicated) in store.votes().items():
        graded = resolution.graded_votes(votes)
        if adjudicated is None and len(set(graded.values())) > 1:
            notes = {v.assessor: v.note for v in votes if v.note}
            found.append((q, d, graded, notes))
    if not found:
        return []
    pairs = [(q, d) for q, d, _, _ in found]
    weights = impacts(store, pairs, labels_by_query(store.label_rows(), leave_out=set(pairs)))
    items = [
        Disagreement(
            query_id=q,
            doc_id=d,
            votes=graded,
            notes=notes,
            distance=max(graded.values()) - min(graded.values()),
            priority=(max(graded.values()) - min(graded.values())) * impact,
        )
        for (q, d, graded, notes), impact in zip(found, weights, strict=True)
    ]
    return sorted(items, key=lambda x: (-x.priority, -x.distance, x.query_id, x.doc_id))


@dataclass
class JudgingSession:
    """One assessor's judging session on one store: the queue, a query's documents, judging."""

    store: Store
    assessor: str
    stratum: str | None = None
    order: QueueOrder = "impact"
    """The judging queue's order (`qrelkit queue --order`): documents and next queries follow it."""
    seed: int = 0
    scale: GradeScale = field(init=False)
    judged: int = 0
    """Events this session committed (what the screen shows is already on disk)."""
    _reader: Store | None = field(init=False, default=None, repr=False)
    _queue: list[QueueItem] | None = field(init=False, default=None, repr=False)
    _positions: dict[str, dict[str, int]] = field(init=False, default_factory=dict, repr=False)
    _done: set[tuple[str, str]] = field(init=False, default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self.scale = self.store.scale

    # -- reading ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.store.name

    @property
    def label_policy(self) -> LabelPolicy:
        return self.store.label_policy

    def query(self, query_id: str) -> Query | None:
        return self.store.query(query_id)

    def document(self, doc_id: str) -> Document | None:
        return self.store.document(doc_id)

    def documents(self, query_id: str) -> list[DocState]:
        """The query's documents for this assessor (blind on shared pairs), the queued ones in
        queue order; the others keep their places."""
        return self.order_docs(query_id, documents(self.store, query_id, assessor=self.assessor, blind=True))

    def doc_state(self, query_id: str, doc_id: str) -> DocState:
        """One document's state as this assessor sees it now."""
        return document_state(self.store, query_id, doc_id, assessor=self.assessor, blind=True)

    def progress(self) -> list[QueryProgress]:
        """Counts for every query, read on a connection of its own (called from a worker thread,
        so that a long read never holds the connection the judgments are written on)."""
        return self.reader().progress()

    def latest_report(self) -> SavedReport | None:
        """The latest saved comparison, else the latest saved score report (for the dashboard)."""
        return self.store.latest_report("comparison") or self.store.latest_report("score")

    def reader(self) -> Store:
        """A second connection for worker threads (created on first use)."""
        if self._reader is None:
            self._reader = self.store.reader()
        return self._reader

    # -- judging ----------------------------------------------------------------------------

    def record(self, event: Judgment) -> int:
        """Append the event (committed on return); its sequence number in the log."""
        seq = self.store.record(event)
        self.judged += 1
        pair = (event.query_id, event.doc_id)
        if event.state is JudgmentState.CLEARED:
            self._done.discard(pair)
        else:
            self._done.add(pair)
        return seq

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
        """Record this assessor's judgment (committed on return) and what the pair resolves to now."""
        self.record(
            Judgment(
                query_id=query_id,
                doc_id=doc_id,
                state=state,
                grade=grade,
                assessor=self.assessor,
                note=note,
                seconds=seconds,
            )
        )
        return self.doc_state(query_id, doc_id)

    def disagreements(self) -> list[Disagreement]:
        return disagreements(self.store)

    def settle(self, item: Disagreement, grade: int) -> int:
        """Adjudicate a disagreement: an `adjudicated` event that names the votes it settles."""
        votes = ", ".join(f"{who} {g}" for who, g in sorted(item.votes.items()))
        return self.record(
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
                return self.refresh_queue(reader)
            finally:
                if reader is not self.store:  # an in-memory store is its own reader
                    reader.close()
        items = ordered_queue(store, self.order, seed=self.seed, stratum=self.stratum, assessor=self.assessor)
        positions: dict[str, dict[str, int]] = {}
        for n, item in enumerate(items):
            positions.setdefault(item.query_id, {})[item.doc_id] = n
        self._queue, self._positions = items, positions

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
        """Close the workers' reader connection (if one was opened) and the store."""
        if self._reader is not None and self._reader is not self.store:
            self._reader.close()
        self._reader = None
        self.store.close()


def open_session(
    db: Path,
    assessor: str | None,
    *,
    stratum: str | None = None,
    query: str | None = None,
    order: QueueOrder = "impact",
    seed: int = 0,
) -> JudgingSession:
    """A judging session on the store at `db`, for `assessor` (default: `current_assessor()`).
    Refuses a missing store (UsageError), a query not in the golden set and an unknown stratum
    (StoreError), closing the store again."""
    if not db.exists():
        raise UsageError(f"no store at {db}", "create one with `qrelkit init`, or `qrelkit demo --keep PATH`")
    store = Store.open(db)
    try:
        if query is not None and store.query(query) is None:
            raise StoreError(f"query {query!r} is not in the golden set", "see `qrelkit status`")
        store.check_stratum(stratum)
    except BaseException:
        store.close()
        raise
    return JudgingSession(store, assessor or current_assessor(), stratum=stratum, order=order, seed=seed)
