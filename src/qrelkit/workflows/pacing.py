"""An assessor's pace through a day: the seconds a judgment records, the median per document, the
documents left and the time they would take, the documents judged today, the break reminder.

**Active time.** The seconds a judgment records (its `seconds`) are the time the assessor was at
work on the document: from the moment it was shown (or the last judgment on it), each gap between
two inputs (a key, a scroll, a click, in any box opened over the screen, such as the note box)
counts up to `IDLE_AFTER` seconds, and no more: the rest of a longer gap is idle and left out. A
redraw (a note saved, another assessor's judgment arriving, the store freeing) restarts nothing.

**Breaks.** Active time adds up across documents and queries into a stretch of work; when it
reaches the break interval (`judge --break-after`, default `BREAK_AFTER`, `0` for never) the screen
reminds the assessor once, without stopping any key. Dismissing it (`b`) or an idle gap of
`BREAK_TAKEN` seconds or more (a break taken) starts a new stretch.

**Judged today** counts the documents this assessor graded or skipped since local midnight: read
from the store (every session, every tool), plus this session's own as they come.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as day_time

from ..errors import UsageError
from .judging import JudgingSession

IDLE_AFTER = 60.0
"""A gap between two inputs counts this many seconds of work at most; the rest is idle."""
BREAK_AFTER = 50 * 60.0
"""The default stretch of active work (seconds) after which a break is suggested."""
BREAK_TAKEN = 5 * 60.0
"""An idle gap this long (seconds) is a break: the stretch of work starts again."""
SEED_SECONDS = 200
"""The median starts from this assessor's latest recorded seconds in the store, at most this many."""

_DURATION = re.compile(r"^(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?$")


def parse_duration(text: str, option: str = "--break-after") -> float:
    """`50m`, `1h30m`, `90s`, `45` (minutes) -> seconds; `0` or `off` -> 0 (never)."""
    given = text.strip().lower()
    if given in ("0", "off", "never"):
        return 0.0
    if given.isdigit():
        return int(given) * 60.0
    found = _DURATION.match(given)
    if not given or found is None:
        raise UsageError(f"{option} {text!r} is not a duration", f"give e.g. {option} 50m, 1h30m, 90s, or 0 for never")
    h, m, s = (int(found.group(k) or 0) for k in "hms")
    return h * 3600.0 + m * 60.0 + s


@dataclass
class ActiveClock:
    """Active seconds since `restart`: each gap between inputs counts up to `idle_after`."""

    idle_after: float = IDLE_AFTER
    last: float = 0.0
    """The monotonic time of the latest input (or restart)."""
    active: float = 0.0
    """Active seconds up to `last`."""

    def restart(self, now: float) -> None:
        self.last, self.active = now, 0.0

    def touch(self, now: float) -> None:
        """An input at `now`."""
        self.active += self._gap(now)
        self.last = max(self.last, now)

    def seconds(self, now: float) -> float:
        """Active seconds up to `now` (the gap since the latest input counted as `touch` would)."""
        return self.active + self._gap(now)

    def _gap(self, now: float) -> float:
        return min(max(now - self.last, 0.0), self.idle_after)


@dataclass
class Pace:
    """The session's pace, shared by the judging screens of one app: the active clock of the
    document on screen, the seconds of each document graded or skipped (the median), the stretch
    of work since the last break. `now` is the clock (tests drive their own)."""

    break_after: float = BREAK_AFTER
    idle_after: float = IDLE_AFTER
    now: Callable[[], float] = time.monotonic
    seconds: list[float] = field(default_factory=list)
    """Seconds per document: this assessor's latest from the store (`seed`), then this session's."""
    break_due: bool = False
    """The reminder was shown and neither dismissed nor followed by a break."""
    document: ActiveClock = field(init=False)
    stretch: ActiveClock = field(init=False)

    def __post_init__(self) -> None:
        self.document = ActiveClock(self.idle_after)
        self.stretch = ActiveClock(self.idle_after)
        start = self.now()
        self.document.restart(start)
        self.stretch.restart(start)

    def touch(self) -> None:
        """An input (key, scroll, click) on any screen."""
        now = self.now()
        if now - self.stretch.last >= BREAK_TAKEN:  # a break was taken: a new stretch of work
            self.stretch.restart(now)
            self.break_due = False
        else:
            self.stretch.touch(now)
        self.document.touch(now)

    def shown(self) -> None:
        """Another document is on screen: its clock starts."""
        self.document.restart(self.now())

    def on_document(self) -> float:
        """Active seconds on the document on screen so far."""
        return self.document.seconds(self.now())

    def judged(self, *, counted: bool = True) -> float:
        """A judgment on the document: the active seconds it records; the clock starts again for
        the next judgment. `counted`: a grade or a skip (a document judged), added to the median."""
        spent = self.on_document()
        self.record(spent, counted=counted)
        return spent

    def record(self, spent: float, *, counted: bool = True) -> None:
        """A judgment recorded `spent` seconds (`on_document` just before): `judged`."""
        self.document.restart(self.now())
        if counted:
            self.seconds.append(spent)

    def add(self, seconds: float) -> None:
        self.seconds.append(seconds)

    def seed(self, earlier: Sequence[float]) -> None:
        """This assessor's recorded seconds from before the session (oldest first)."""
        self.seconds[:0] = list(earlier)

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def estimate(self, left: int | None) -> float | None:
        """Seconds `left` documents would take at the median (None: unknown)."""
        median = self.median
        return None if left is None or median is None else left * median

    def check_break(self) -> bool:
        """Whether to remind the assessor of a break now (True once per stretch)."""
        if self.break_after <= 0 or self.break_due:
            return False
        self.break_due = self.stretch.seconds(self.now()) >= self.break_after
        return self.break_due

    def worked(self) -> float:
        """Active seconds in the stretch since the last break."""
        return self.stretch.seconds(self.now())

    def dismiss_break(self) -> None:
        """The reminder dismissed: a new stretch starts."""
        self.break_due = False
        self.stretch.restart(self.now())


def local_midnight(now: datetime | None = None) -> datetime:
    """The start of today on this machine's clock, as an aware time."""
    here = (now or datetime.now().astimezone()).astimezone()
    return datetime.combine(here.date(), day_time(0), tzinfo=here.tzinfo)


@dataclass
class Today:
    """The documents this assessor graded or skipped since local midnight: the store's, read once a
    day, and the session's own (`count`)."""

    session: JudgingSession
    day: date | None = None
    pairs: set[tuple[str, str]] = field(default_factory=set)
    """What the store held for today when it was read."""
    before: frozenset[tuple[str, str]] = frozenset()
    """The session's pairs at that read (in the store already, or from an earlier day)."""

    def count(self, now: datetime | None = None) -> int:
        midnight = local_midnight(now)
        if self.day != midnight.date():
            self.day = midnight.date()
            self.before = self.session.judged_pairs
            self.pairs = self.session.store.log.votes_since(self.session.assessor, midnight)
        return len(self.pairs | (self.session.judged_pairs - self.before))


def recent_seconds(session: JudgingSession, limit: int = SEED_SECONDS) -> list[float]:
    """The seconds of this assessor's latest graded or skipped events in the store, oldest first,
    read on a connection of its own (call it from a worker thread: on a log of a million events
    without recorded seconds it scans the assessor's events, 0.14 s)."""
    reader = session.store.reader()
    try:
        return reader.log.recent_seconds(session.assessor, limit)
    finally:
        if reader is not session.store:  # an in-memory store is its own reader
            reader.close()


def duration(seconds: float) -> str:
    """`45s`, `12m`, `3h 05m`: a time left, to the minute."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    minutes = round(s / 60)
    return f"{minutes}m" if minutes < 60 else f"{minutes // 60}h {minutes % 60:02d}m"
