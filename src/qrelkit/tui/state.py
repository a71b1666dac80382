"""What the screens share: the store, the assessor, the scale, the session's count."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import GradeScale, Judgment, QueryProgress
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

    def __post_init__(self) -> None:
        self.scale = self.store.scale

    def record(self, event: Judgment) -> None:
        self.store.record(event)
        self.judged += 1

    def next_query(self, after: str | None = None) -> str | None:
        """The next query (in list order, after `after`) that still has unlabeled documents."""
        queries = [p for p in self.store.progress() if self.stratum is None or p.stratum == self.stratum]
        ids = [p.query_id for p in queries]
        start = ids.index(after) + 1 if after in ids else 0
        for p in queries[start:] + queries[:start]:
            if p.unlabeled and p.query_id != after:
                return p.query_id
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
