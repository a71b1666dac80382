"""An assessor's pace (issue 25, item 6): the seconds a judgment records leave idle time out, the
median starts from the assessor's own recorded seconds, the estimate of the time left, judged
today since local midnight, the break reminder after a stretch of active work."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from qrelkit.errors import UsageError
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.workflows import pacing
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.pacing import BREAK_TAKEN, IDLE_AFTER, ActiveClock, Pace, Today


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def go(self, seconds: float) -> None:
        self.t += seconds


def test_a_gap_between_inputs_counts_up_to_idle_after() -> None:
    clock = ActiveClock(idle_after=60.0)
    clock.restart(0.0)
    clock.touch(10.0)  # ten seconds of reading
    clock.touch(400.0)  # a 390 s gap: 60 s count, the rest is idle
    assert clock.seconds(400.0) == 70.0
    assert clock.seconds(405.0) == 75.0  # the gap since the last input counts too, capped alike
    assert clock.seconds(9_999.0) == 70.0 + 60.0


def test_the_recorded_seconds_leave_the_idle_stretch_out_and_restart_per_judgment() -> None:
    now = Clock()
    pace = Pace(now=now)
    pace.shown()
    now.go(5)
    pace.touch()  # a scroll
    now.go(IDLE_AFTER + 600)  # away from the desk
    pace.touch()
    now.go(3)
    assert pace.judged() == pytest.approx(5 + IDLE_AFTER + 3)
    now.go(2)
    assert pace.judged(counted=False) == pytest.approx(2)  # a retraction: not a document judged
    assert pace.seconds == [pytest.approx(5 + IDLE_AFTER + 3)]


def test_the_median_starts_from_the_seed_and_estimates_the_time_left() -> None:
    pace = Pace(now=Clock())
    assert pace.median is None and pace.estimate(10) is None
    pace.seed([4.0, 6.0, 100.0])
    pace.add(8.0)
    assert pace.median == 7.0 and pace.estimate(30) == 210.0 and pace.estimate(None) is None
    assert [pacing.duration(s) for s in (0.4, 45, 210, 3600 + 300)] == ["0s", "45s", "4m", "1h 05m"]


def test_a_break_is_suggested_once_per_stretch_of_active_work() -> None:
    now = Clock()
    pace = Pace(break_after=600.0, now=now)
    for _ in range(19):  # 570 s of work, a key every 30 s
        now.go(30)
        pace.touch()
    assert not pace.check_break()
    now.go(30)
    pace.touch()
    assert pace.check_break() and pace.break_due
    assert not pace.check_break()  # once
    pace.dismiss_break()
    assert not pace.break_due and pace.worked() == 0.0
    now.go(30)
    pace.touch()
    assert pace.worked() == 30.0


def test_idle_time_is_no_work_and_a_long_pause_is_a_break() -> None:
    now = Clock()
    pace = Pace(break_after=600.0, now=now)
    now.go(200)  # no key for 200 s (no break yet): IDLE_AFTER of it counts
    pace.touch()
    assert pace.worked() == IDLE_AFTER
    for _ in range(18):
        now.go(30)
        pace.touch()
    assert pace.check_break()
    now.go(BREAK_TAKEN)  # a real break
    pace.touch()
    assert not pace.break_due and pace.worked() == 0.0
    assert not Pace(break_after=0.0, now=now).check_break()  # 0: never


@pytest.mark.parametrize(
    ("text", "seconds"), [("50m", 3000), ("1h30m", 5400), ("90s", 90), ("45", 2700), ("0", 0), ("off", 0)]
)
def test_durations(text: str, seconds: float) -> None:
    assert pacing.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "fifty", "5x", "-5m", "1m1h"])
def test_a_bad_duration_says_how_to_write_one(text: str) -> None:
    with pytest.raises(UsageError, match="is not a duration") as caught:
        pacing.parse_duration(text)
    assert "50m" in (caught.value.hint or "")


def _event(
    q: str,
    d: str,
    who: str,
    at: datetime,
    state: JudgmentState = JudgmentState.GRADED,
    note: str | None = None,
    seconds: float | None = None,
) -> Judgment:
    grade = 1 if state is JudgmentState.GRADED else None
    return Judgment(
        query_id=q, doc_id=d, state=state, grade=grade, assessor=who, timestamp=at, note=note, seconds=seconds
    )


@pytest.fixture
def tiny_store() -> Store:
    from tui.conftest import make_store

    return make_store()


def test_judged_today_counts_my_documents_since_local_midnight(tiny_store: Store) -> None:
    midnight = pacing.local_midnight()
    events = [
        _event("q1", "d1", "ann", midnight - timedelta(minutes=1)),  # yesterday
        _event("q1", "d3", "ann", midnight + timedelta(minutes=1)),
        _event("q1", "d3", "ann", midnight + timedelta(minutes=2)),  # the same document again
        _event("q1", "d4", "ann", midnight + timedelta(minutes=3), JudgmentState.SKIPPED),
        _event("q2", "d5", "ann", midnight + timedelta(minutes=4), JudgmentState.NOTED, note="n"),  # no vote
        _event("q2", "d5", "bob", midnight + timedelta(minutes=5)),  # someone else
        # times stored with other zones' offsets: compared as times, not as text
        _event("q2", "d3", "ann", (midnight + timedelta(minutes=6)).astimezone(timezone(timedelta(hours=-12)))),
        _event("q2", "d5", "ann", (midnight - timedelta(minutes=6)).astimezone(timezone(timedelta(hours=14)))),
    ]
    tiny_store.imports.judgments(enumerate(events, 1), source="t")
    session = JudgingSession(tiny_store, "ann")
    today = Today(session)
    assert today.count() == 3  # d3, d4 of q1 and d3 of q2
    session.judge("q1", "d1", JudgmentState.GRADED, 2)
    session.judge("q1", "d3", JudgmentState.GRADED, 2)  # already counted today
    assert today.count() == 4
    assert today.count(datetime.now().astimezone() + timedelta(days=2)) == 0  # a new day starts at 0


def test_recent_seconds_are_the_assessors_latest_oldest_first(tiny_store: Store) -> None:
    base = datetime(2026, 5, 1, tzinfo=UTC)
    events = [_event("q1", "d1", "ann", base + timedelta(seconds=n), seconds=float(n)) for n in range(1, 6)]
    events.append(_event("q1", "d1", "bob", base, seconds=99.0))
    events.append(_event("q1", "d1", "ann", base + timedelta(seconds=9), JudgmentState.NOTED, note="x", seconds=50.0))
    tiny_store.imports.judgments(enumerate(events, 1), source="t", keep_repeats=True)
    session = JudgingSession(tiny_store, "ann")
    assert pacing.recent_seconds(session, 3) == [3.0, 4.0, 5.0]
