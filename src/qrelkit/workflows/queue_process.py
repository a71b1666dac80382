"""The judging queue of a large store computed in a process of its own, so that a keystroke
never waits for it.

Computing the queue of a big store takes seconds of CPU (6.3 s on the benchmark store of
1,000,000 events: resolving every pair's votes, then the impacts). In a thread of the judging
process it held the interpreter lock against the screen, and keystrokes typed in the first ten
seconds took up to 140 ms (`benchmarks/bench_tui.py`). In a process of its own, at a lower CPU
priority, it takes the screen nothing. The result is the same function's (`queue.ordered_queue`),
read from the same committed store: tests/tui/test_queue_process.py holds the two equal. A small
store (under `PROCESS_ABOVE` events) is computed in the thread as before: starting a process
costs more than it saves there. If the process cannot start or fails, the thread computes it."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..models import QueueItem, QueueOrder
from ..storage import Store
from .queue import ordered_queue

PROCESS_ABOVE = 50_000
"""Stores whose log holds more events than this compute their queue in a process of its own."""

NICENESS = 10
"""How much lower the queue process's CPU priority is than the judging screen's."""

Row = tuple[str, str, float, int | None, str]


def _lower_priority() -> None:
    try:
        os.nice(NICENESS)
    except OSError:  # not allowed here: the same priority, still off the screen's interpreter lock
        pass


def queue_rows(path: str, order: QueueOrder, seed: int, stratum: str | None, assessor: str | None) -> list[Row]:
    """The queue of the store at `path`, as plain tuples (what crosses the process boundary)."""
    store = Store.open(path, create=False)
    try:
        items = ordered_queue(store, order, seed=seed, stratum=stratum, assessor=assessor)
    finally:
        store.close()
    return [(i.query_id, i.doc_id, i.priority, i.best_rank, i.source) for i in items]


@dataclass
class QueueProcess:
    """One process, started on the first large computation and kept for the session's later ones."""

    _pool: ProcessPoolExecutor | None = field(default=None, repr=False)

    def compute(
        self, store: Store, order: QueueOrder, *, seed: int, stratum: str | None, assessor: str | None
    ) -> list[QueueItem] | None:
        """The queue of `store`'s file computed in the process; None when the store is small or in
        memory, or the process failed (the caller computes it in its thread). `store` is the
        calling thread's own connection (a reader)."""
        path = store.path
        if path is None or store.log.size() <= PROCESS_ABOVE:
            return None
        try:
            if self._pool is None:
                context = multiprocessing.get_context("spawn")  # a fresh interpreter: no threads copied
                self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_lower_priority)
            rows = self._pool.submit(queue_rows, path, order, seed, stratum, assessor).result()
        except Exception:  # noqa: BLE001 - a broken or refused process: the thread computes the same
            self.close()
            return None
        return [
            QueueItem.model_construct(query_id=q, doc_id=d, priority=p, best_rank=r, source=s) for q, d, p, r, s in rows
        ]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
