"""What the screens share: the store, the assessor, the scale, the session's count."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import DocState, GradeScale, Judgment, JudgmentState, QueryProgress, QueueItem
from ..storage import Store


@dataclass
class Session:
    """One assessor's judging session on one store."""

    store: Store
    assessor: str
    scale: GradeScale = field(init=False)
    _reader: Store | None = field(init=False, default=None, repr=False)
    judged: int = 0
    """Events this session committed (what the header shows is already on disk)."""
    stratum: str | None = None
    order: str = "impact"
    """The judging queue's order (`qrelkit queue --order`): documents and next queries follow it."""
    seed: int = 0
    _queue: list[QueueItem] | None = field(init=False, default=None, repr=False)
    _positions: dict[str, dict[str, int]] = field(init=False, default_factory=dict, repr=False)
    _done: set[tuple[str, str]] = field(init=False, default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self.scale = self.store.scale

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

    # -- the judging queue ------------------------------------------------------------------

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
        items = store.ordered_queue(self.order, seed=self.seed, stratum=self.stratum)
        # this assessor's own assignments first (in queue order where the queue has them)
        mine = store.pending_assignments(self.assessor)
        if mine:
            rank = {(i.query_id, i.doc_id): n for n, i in enumerate(items)}
            own = set(mine)
            first = sorted(mine, key=lambda p: (rank.get(p, len(rank)), p))
            items = [QueueItem(query_id=q, doc_id=d, priority=0.0, source="assigned") for q, d in first] + [
                i for i in items if (i.query_id, i.doc_id) not in own
            ]
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

    def reader(self) -> Store:
        """A second connection for worker threads (created on first use)."""
        if self._reader is None:
            self._reader = self.store.reader()
        return self._reader

    def progress(self) -> list[QueryProgress]:
        """Counts for every query, read on a connection of its own (called from a worker thread,
        so that a long read never holds the connection the judgments are written on)."""
        return self.reader().progress()
