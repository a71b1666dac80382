"""Where an assessor goes next, and the leases that keep two assessors off one document.

A lease (`storage.leases`) says which document an assessor has open. The choice of the next
document and its lease are one statement in the store (`Leases.claim`): on a keystroke inside the
judgment's own transaction (`JudgingSession.judge_next`), on opening a query alone (`take`). What
is written elsewhere (`hold`: moving with n/p, a busy store's fallback) is best effort, on a
connection that never waits for a busy store: a key never waits for a lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import StoreBusy
from ..models import DocState, LabelState
from ..storage import CLAIM_WINDOW, Store
from .pairs import document_state


@dataclass(frozen=True)
class Judged:
    """What a judgment did (`JudgingSession.judge_next`)."""

    state: DocState
    """What the judged pair resolves to now (held for a busy store: `waiting`)."""
    taken: DocState | None = None
    """The document to go to next, leased to the assessor with the judgment (None: none)."""
    chose: bool = False
    """Whether the store made the choice (`taken` None: no document asked for is free); False when
    it could not (a busy store, an in-memory one): the caller chooses from what it read."""


class Leasing:
    """The leasing half of a judging session (`JudgingSession` is one): its store, its assessor,
    the log position it has read of each query (`_seen`) and its lease connection."""

    store: Store
    assessor: str
    _seen: dict[str, int]
    _leaser: Store | None

    def changed(self, query_id: str) -> bool:
        """Whether someone else judged the query since this session last read it (a cheap read;
        this assessor's own events are no news)."""
        last = self.store.log.last_seq(query_id, besides=self.assessor)
        seen = self._seen.get(query_id)
        self._seen[query_id] = last
        return seen is not None and last != seen

    def _lease_store(self) -> Store | None:
        """The connection leases are written on: one of its own that waits neither for the disk
        nor for a busy store (`Store.lease_writer`), opened on first use. None for an in-memory
        store: one screen, nobody to tell (and its one connection is the workers' too)."""
        if self._leaser is None:
            self._leaser = self.store.lease_writer()
        return None if self._leaser is self.store else self._leaser

    def hold(self, query_id: str, doc_id: str | None) -> None:
        """This assessor has the document open (None: none); the others' next-unlabeled choice
        skips it while the lease lasts. Best effort: a busy store leaves it unwritten at once (the
        next document shown renews it), so a key never waits for a lease."""
        leaser = self._lease_store()
        if leaser is None:
            return
        try:
            if doc_id is None:
                leaser.leases.release(self.assessor)
            else:
                leaser.leases.hold(query_id, doc_id, self.assessor)
        except StoreBusy:
            pass

    def take(self, query_id: str, docs: list[DocState], order: Sequence[int]) -> int | None:
        """Of the positions `order` in `docs` (a query's documents as this session read them), the
        first unlabeled document that no one else has open or voted on since: leased to this
        assessor in the same statement that chooses it (`leases.claim`, so that two assessors
        opening a query at once start on different documents). None: no such document. A busy
        store (or an in-memory one): the first one not open elsewhere as `docs` were read."""
        open_ = [i for i in order if docs[i].state is LabelState.UNLABELED]
        ids = [docs[i].doc_id for i in open_]
        leaser = self._lease_store()
        if leaser is not None:
            try:
                taken = self._claim(leaser, query_id, ids)
            except StoreBusy:
                pass
            else:
                return None if taken is None else open_[ids.index(taken)]
        return next((i for i in open_ if docs[i].held_by is None), None)  # the choice as the documents were read

    def _claim(self, leaser: Store, query_id: str, ids: Sequence[str]) -> str | None:
        """The first free document of `ids`, leased to this assessor (`leases.claim`), a window at
        a time (all of one taken: the next); None when none is free. A busy store: `StoreBusy`."""
        for start in range(0, len(ids), CLAIM_WINDOW):
            taken = leaser.leases.claim(query_id, ids[start:], self.assessor, seen=self._seen.get(query_id, 0))
            if taken is not None:
                return taken
        return None

    @staticmethod
    def after(docs: list[DocState], position: int) -> list[DocState]:
        """The unlabeled documents after `position`, wrapping around, as `docs` were read: what to
        offer `judge_next` as the documents to go to next, in order."""
        order = [*range(position + 1, len(docs)), *range(position)]
        return [docs[i] for i in order if docs[i].state is LabelState.UNLABELED]

    def next_open(self, docs: list[DocState], position: int) -> int | None:
        """The next document to judge after `position` (wrapping around) as `docs` were read:
        unlabeled and not open on another assessor's screen (unless assigned to both); None when
        there is none. (`take` and `judge_next` choose from the store as it is now.)"""
        order = [*range(position + 1, len(docs)), *range(position)]
        return next((i for i in order if docs[i].state is LabelState.UNLABELED and docs[i].held_by is None), None)

    def _claim_rest(self, query_id: str, candidates: Sequence[str]) -> tuple[DocState | None, bool]:
        """`judge_next`'s choice where its own transaction could not make it (the held judgments
        before it were committed first; or all of the documents it could offer were taken), in
        claims of their own: the document taken (None: none free), and whether the store could
        choose at all (not busy, not in memory)."""
        leaser = self._lease_store()
        if leaser is None or not candidates:
            return None, bool(candidates) and leaser is not None
        try:
            taken = self._claim(leaser, query_id, candidates)
        except StoreBusy:
            return None, False
        if taken is None:
            return None, True
        return document_state(self.store, query_id, taken, assessor=self.assessor, blind=True), True
