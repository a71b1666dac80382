"""The judging screen's settle line (`judge --for A.run,B.run`): for each named comparison,
whether it is settled for the metric, by the function `qrelkit settled` runs (`settling.settled`),
computed off the key path and never shown as current when it is not.

What it reads: the store's labels as `settled` scores them (the humans'), without the pairs that
are blind to the judging assessor (`pairs.blind_pairs`: assigned to them and to others, not
adjudicated, not graded by them yet), and the run files they named. So what the line says is a
function of what the judging screen itself shows and of the named runs: run names, a sign, and
an estimate of the judgments to go; never a grade, and no vote on a blind pair moves it.

When: `SettleWatch.committed` after every event the session commits (the screen asks as it
draws: an int compared), `polled` after every poll of the screen (other assessors' events); a
worker thread takes them one at a time (`step`): first the verdicts of the newest state wanted,
then, while a comparison is open and no newer event waits, the estimate of the judgments until
it is settled (the slow part: seconds to a minute on 1,000 queries). Until the verdicts of the
latest commit are in, the ones shown are said to be of the time they were read. A store on disk
is computed in a process of its own (`queue_process.QueueProcess.call`, at a lower priority, a
process apart from the queue's), so that the screen's process never spends its interpreter lock
on it; an in-memory store (tests) is computed in the worker thread.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import QrelkitError
from ..storage import Store
from .queue_process import QueueProcess

if TYPE_CHECKING:
    from ..formats.trec import RunFormat
    from .judging import JudgingSession
    from .queue import Comparisons
    from .sources import ScoringSource

Named = tuple[tuple[tuple[Path, Path], ...], tuple[str, ...], "RunFormat"]
"""What the line checks: the run pairs (A, B), the metrics (none: the headline), the runs' format."""


def named(comparisons: Comparisons) -> Named:
    """The one place the line reads `Comparisons` (`judge --for`, `--metric`)."""
    metrics = tuple(comparisons.metrics)
    return tuple(comparisons.pairs), metrics, comparisons.run_format


@dataclass(frozen=True)
class Verdict:
    """One comparison on one metric, as `qrelkit settled` says it."""

    baseline: str
    candidate: str
    metric: str
    sign: str
    significance: str
    to_settle: int | None = None
    """Judgments in the settle order until both verdicts are settled (an estimate); None: not
    estimated (or not within the open pairs)."""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.baseline, self.candidate, self.metric

    @property
    def settled(self) -> bool:
        """The sign and the t-test's verdict are settled (no labeling could change them)."""
        return self.sign != "open" and self.significance != "open"

    @property
    def ahead(self) -> str | None:
        """The run ahead under every labeling (None: a settled tie, or the sign is open)."""
        return {"settled B>A": self.candidate, "settled A>B": self.baseline}.get(self.sign)


@dataclass(frozen=True)
class Verdicts:
    """Every named comparison's verdict, read from one state of the store."""

    rows: tuple[Verdict, ...]
    seq: int
    """The log's latest event when they were read (`Log.size`)."""
    at: float
    """When they were read (seconds since the epoch)."""
    estimated: bool
    failed: str | None = None
    """Why they could not be computed (a run file gone, a measure the rule does not cover)."""

    @property
    def settled(self) -> bool:
        return self.failed is None and bool(self.rows) and all(r.settled for r in self.rows)


def seen_by(store: Store, assessor: str) -> ScoringSource:
    """The labels `settled` scores the store's runs against (the humans': `label_sets.HUMAN`),
    without the pairs blind to `assessor`; queries, strata and scale the store's. No fingerprint:
    the verdicts are a screen's, never a report."""
    from ..formats.columns import Columns
    from .label_sets import HUMAN, label_rows
    from .pairs import blind_pairs
    from .sources import ScoringSource, SourceScale

    hidden = blind_pairs(store, assessor)
    rows = [r for r in label_rows(store, HUMAN) if (r[0], r[1]) not in hidden]
    info = store.settings.info()
    queries = store.reads.queries()
    return ScoringSource(
        labels=Columns.from_rows(rows, integer=True), labels_hash=None, queries=[q.id for q in queries],
        strata={q.id: q.stratum for q in queries}, info=info, golden=None, qrels=None, scale_of=info.name,
        scale=SourceScale(info.scale.max_grade, info.scale.relevance_threshold),
    )  # fmt: skip


def verdicts(store: Store, given: Named, assessor: str, *, estimate: bool, snapshot: bool = True) -> Verdicts:
    """The verdicts of every named comparison against what `assessor` sees of `store` now (read in
    one snapshot, unless `snapshot` is False: a connection the screen writes on too); `estimate`:
    with the judgments until settled. A refusal (`QrelkitError`) is said in `failed`."""
    from . import settling

    pairs, metrics, run_format = given
    at, seq = time.time(), 0
    try:
        with store.read_transaction() if snapshot else contextlib.nullcontext():
            seq = store.log.size()
            source = seen_by(store, assessor)
        found = settling.settled_all(
            list(pairs), metrics, lambda: store, source=source, estimate=estimate, run_format=run_format
        )
        rows = [
            Verdict(report.baseline, report.candidate, r.metric, r.sign, r.significance, r.to_settle)
            for report in found.reports
            for r in report.rows
        ]
    except QrelkitError as error:
        return Verdicts(
            (), seq, at, estimate, failed=f"{error.message} ({error.hint})" if error.hint else error.message
        )
    return Verdicts(tuple(rows), seq, at, estimate)


def verdicts_at(path: str, given: Named, assessor: str, estimate: bool) -> Verdicts:
    """`verdicts` of the store at `path`, opened for them (what the settle process computes)."""
    store = Store.open(path, create=False)
    try:
        return verdicts(store, given, assessor, estimate=estimate)
    finally:
        store.close()


@dataclass(frozen=True)
class Estimate:
    """The latest estimate of one comparison's judgments to go, and the state it was read at."""

    to_settle: int | None
    seq: int
    at: float


@dataclass(frozen=True)
class SettleView:
    """What the line shows: the latest verdicts, whether an event committed since is not in them
    yet (`stale`), and each open comparison's latest estimate."""

    verdicts: Verdicts | None
    stale: bool
    estimates: dict[tuple[str, str, str], Estimate]
    can_stop: bool
    """The session's queue is there to settle them (`--order settle`): once all are, judging may stop."""

    def estimate(self, v: Verdict) -> Estimate | None:
        return self.estimates.get(v.key)


@dataclass
class SettleWatch:
    """The settle line's verdicts for one judging session (see the module): the screen calls
    `committed` and `polled`, a worker thread calls `step` until it returns None."""

    session: JudgingSession
    given: Named
    latest: Verdicts | None = None
    listener: Callable[[], None] | None = None
    """Told (from the worker thread) when `latest` changed or the verdicts shown went stale:
    the settle line on screen now."""
    estimates: dict[tuple[str, str, str], Estimate] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _events: int = 0
    """The session's committed events as last seen (`JudgingSession.events`)."""
    _wanted: int = 0
    """Bumped by each event committed: the state the verdicts must catch up with."""
    _computed: int = -1
    """The `_wanted` the latest verdicts were read for (-1: none yet)."""
    _poll: bool = True
    _looked: int = 0
    """The `_wanted` the latest `step` looked at."""
    _rechecking: bool = False
    """Verdicts are read again for another assessor's events (those shown are stale)."""
    _running: bool = False
    """A worker thread is in `run` (one at a time)."""
    _reader: Store | None = field(default=None, repr=False)
    _process: QueueProcess = field(default_factory=QueueProcess, repr=False)

    @classmethod
    def of(cls, session: JudgingSession) -> SettleWatch | None:
        """The session's watch (None: no comparison named, and nothing to watch)."""
        return None if session.comparisons is None else cls(session, named(session.comparisons))

    def committed(self) -> bool:
        """Whether the session committed an event since the last call (then the verdicts shown
        are stale until `step` reads them again). On the key path: no read, no lock when not."""
        if self.session.events == self._events:
            return False
        with self._lock:
            self._events = self.session.events
            self._wanted += 1
        return True

    def polled(self) -> None:
        """The screen polled: `step` looks whether anyone else's event arrived meanwhile."""
        with self._lock:
            self._poll = True

    def start(self) -> bool:
        """Whether the caller is to start a worker thread on `run` (none is running)."""
        with self._lock:
            start, self._running = not self._running, True
        return start

    def run(self) -> None:
        """The worker thread: `step` until nothing is left to compute, the `listener` told of
        each result; ends once nothing was wanted since the last step looked (then `start` says
        to start another). An unexpected error ends it too, said as the verdicts' failure."""
        try:
            while True:
                if self.step() is not None:
                    self._tell()
                    continue
                with self._lock:
                    if self._wanted == self._looked and not self._poll:
                        self._running = False
                        return
        except Exception as error:  # noqa: BLE001 - the line says it; judging goes on
            self.latest = Verdicts((), 0, time.time(), False, failed=f"the check stopped: {error!r}")
            with self._lock:
                self._running = False
            self._tell()

    def _tell(self) -> None:
        listener = self.listener
        if listener is not None:
            listener()

    def view(self) -> SettleView:
        stale = self.latest is not None and (self._computed < self._wanted or self._rechecking)
        can_stop = self.session.order == "settle"
        return SettleView(self.latest, stale, dict(self.estimates), can_stop)

    def step(self) -> Verdicts | None:
        """In the worker thread: one computation, the most wanted now (new verdicts when the
        session or anyone else committed since the latest; else their estimate when one is open
        and not estimated), and it kept; None: nothing to compute. Another assessor's events
        found make the verdicts shown stale first (the `listener` told)."""
        with self._lock:
            wanted, poll, self._poll = self._wanted, self._poll, False
            self._looked = wanted
        latest = self.latest
        current = latest is not None and self._computed == wanted
        if latest is not None and current and poll and self.reader().log.size() != latest.seq:
            current, self._rechecking = False, True
            self._tell()
        if latest is not None and current and (latest.estimated or latest.settled or latest.failed):
            return None
        try:
            got = self._compute(estimate=current)
        finally:
            self._rechecking = False
        if got is None:  # closed meanwhile
            return None
        self.latest, self._computed = got, wanted
        if got.estimated:  # a new dict: the screen's thread may be reading the one before
            self.estimates = {**self.estimates, **{r.key: Estimate(r.to_settle, got.seq, got.at) for r in got.rows}}
        return got

    def reader(self) -> Store:
        """The watch's own connection (the worker thread's; an in-memory store is its own)."""
        if self._reader is None:
            self._reader = self.session.store.reader()
        return self._reader

    def _compute(self, *, estimate: bool) -> Verdicts | None:
        reader = self.reader()
        path = reader.path
        if path is not None:
            status, got = self._process.call(verdicts_at, (path, self.given, self.session.assessor, estimate))
            if status == "closed":
                return None
            if status == "ok" and isinstance(got, Verdicts):
                return got
        own = reader is not self.session.store  # else the screen writes on it: no transaction of ours
        return verdicts(reader, self.given, self.session.assessor, estimate=estimate, snapshot=own)

    def close(self) -> None:
        """End the process (a computation under way is dropped) and the connection."""
        self._process.close()
        reader, self._reader = self._reader, None
        if reader is not None and reader is not self.session.store:
            reader.close()


def longest_to_go(rows: Sequence[Verdict], estimates: dict[tuple[str, str, str], Estimate]) -> int | None:
    """The most judgments any open comparison is estimated to need (None: none estimated)."""
    found = [e.to_settle for r in rows if not r.settled and (e := estimates.get(r.key)) and e.to_settle is not None]
    return max(found, default=None)
