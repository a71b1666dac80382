"""The judging queue of a large store computed in a process of its own, so that a keystroke
never waits for it.

Computing the queue of a big store takes seconds of CPU (6.3 s on the benchmark store of
1,000,000 events: resolving every pair's votes, then the impacts). In a thread of the judging
process it held the interpreter lock against the screen, and keystrokes typed in the first ten
seconds took up to 140 ms (`benchmarks/bench_tui.py`). In a process of its own, at a lower CPU
priority, it takes the screen nothing. The result is the same function's (`queue.ordered_queue`),
read from the same committed store: tests/tui/test_queue_process.py holds the two equal. A small
store (under `PROCESS_ABOVE` events) is computed in the thread as before: starting a process
costs more than it saves there. If the process cannot start or fails, the thread computes it.
The judging screen's settle line computes its verdicts in a process of its own the same way
(`QueueProcess.call`, `settle_watch`)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from ..models import QueueItem, QueueOrder
from ..storage import Store
from .queue import Comparisons, ordered_queue

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


def queue_rows(
    path: str,
    order: QueueOrder,
    seed: int,
    stratum: str | None,
    assessor: str | None,
    comparisons: Comparisons | None = None,
) -> list[Row]:
    """The queue of the store at `path`, as plain tuples (what crosses the process boundary)."""
    store = Store.open(path, create=False)
    try:
        items = ordered_queue(store, order, seed=seed, stratum=stratum, assessor=assessor, comparisons=comparisons)
    finally:
        store.close()
    return [(i.query_id, i.doc_id, i.priority, i.best_rank, i.source) for i in items]


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """The queue process: one computation per request read from `requests` (a module-level
    function of qrelkit's and its arguments: `queue_rows`, `settle_watch.verdicts_at`), each
    reply written to `replies` (pickled), until the session closes the pipe."""
    _lower_priority()
    while True:
        try:
            function, args = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: tuple[str, object] = ("ok", function(*args))
        except Exception as error:  # noqa: BLE001 - said to the session, which computes it itself
            reply = ("failed", repr(error))
        pickle.dump(reply, replies)
        replies.flush()


CHILD = "import sys; from qrelkit.workflows.queue_process import serve; serve(sys.stdin.buffer, sys.stdout.buffer)"


@dataclass
class QueueProcess:
    """One process, started on the first large computation and kept for the session's later ones;
    ended (killed, mid-computation or not) when the session closes, so quitting never waits."""

    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    closed: bool = False

    def compute(
        self,
        store: Store,
        order: QueueOrder,
        *,
        seed: int,
        stratum: str | None,
        assessor: str | None,
        comparisons: Comparisons | None = None,
    ) -> list[QueueItem] | None:
        """The queue of `store`'s file computed in the process; None when the store is small or in
        memory, or the process failed (the caller computes it in its thread); empty once the
        session is closed. `store` is the calling thread's own connection (a reader)."""
        if self.closed:
            return []
        path = store.path
        if path is None or store.log.size() <= PROCESS_ABOVE:
            return None
        status, rows = self.call(queue_rows, (path, order, seed, stratum, assessor, comparisons))
        if status == "closed":
            return []
        if status != "ok" or not isinstance(rows, list):
            return None
        return [
            QueueItem.model_construct(query_id=q, doc_id=d, priority=p, best_rank=r, source=s) for q, d, p, r, s in rows
        ]

    def call(self, function: Callable[..., object], args: tuple[object, ...]) -> tuple[str, object]:
        """`function(*args)` computed in the process (started on the first call): ("ok", its
        result); ("failed", None) when it raised or the process could not start or died (ended
        then: the next call starts another); ("closed", None) once the session is closed."""
        if self.closed:
            return "closed", None
        try:
            process = self._start()
            assert process.stdin is not None and process.stdout is not None  # both are pipes
            pickle.dump((function, args), process.stdin)
            process.stdin.flush()
            status, result = pickle.load(process.stdout)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):  # it could not start, or it died
            status, result = "failed", None
        if self.closed:
            return "closed", None
        if status != "ok":
            self.close(closed=False)
            return "failed", None
        return "ok", result

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        return self._process

    def close(self, *, closed: bool = True) -> None:
        """End the process at once (a computation under way is dropped)."""
        self.closed = self.closed or closed
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
