"""Pacing on the judging screen (issue 25, item 6): the seconds a judgment records run from the
moment the document was shown, whatever redraws the screen meanwhile (a note saved recorded 0.4 s
for 7.5 s of work), idle stretches left out; the session panel shows the documents left in my
queue with the time they would take at my median, what I judged today, and a break reminder that
blocks no key."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest

from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.session_panel import SessionPanel
from qrelkit.workflows.pacing import IDLE_AFTER, Pace, local_midnight

from .conftest import judge_app, make_store, until


class Clock:
    def __init__(self) -> None:
        self.t = 5000.0

    def __call__(self) -> float:
        return self.t

    def go(self, seconds: float) -> None:
        self.t += seconds


def _screen(app: JudgeApp) -> JudgingScreen:
    screen = app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


def _panel(app: JudgeApp) -> str:
    return str(_screen(app).query_one(SessionPanel).render())


def _seconds(store: Store, who: str = "ann") -> list[float]:
    return [e.seconds or 0.0 for e in store.log.events() if e.assessor == who and e.state is not JudgmentState.NOTED]


async def test_a_note_saved_does_not_restart_the_seconds_of_the_judgment() -> None:
    """Real time: the seconds on the document before the note count in the grade that follows."""
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = time.monotonic()
        await until(pilot, lambda: time.monotonic() - shown > 0.6)  # time on the document, before the note
        await pilot.press("e", *"see the title", "ctrl+s")
        await until(pilot, lambda: store.log.events()[-1].state is JudgmentState.NOTED)
        await pilot.press("2")
        await until(pilot, lambda: len(_seconds(store)) == 1)
    assert _seconds(store)[0] >= 0.6


async def test_redraws_do_not_restart_the_clock_and_idle_time_is_left_out() -> None:
    store = make_store()
    now = Clock()
    app = judge_app(store, "ann", query="q1")
    app.pace = Pace(now=now)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        now.go(3)
        await pilot.press("down")  # a scroll: at work
        now.go(4)
        screen.refresh_view()  # a redraw (another assessor's judgment, the store freeing)
        screen.poll()
        now.go(IDLE_AFTER + 1000)  # away: only IDLE_AFTER of the gap since the scroll counts
        await pilot.press("up")
        now.go(2)
        await pilot.press("2")
        await pilot.pause()
        assert _seconds(store) == [pytest.approx(3 + IDLE_AFTER + 2)]  # a restart at the redraw: 62 at most
        now.go(5)  # the next document's clock started at the judgment
        await pilot.press("s")
        await pilot.pause()
        assert _seconds(store)[1] == pytest.approx(5)
        assert "35.0 s/doc" in _panel(app)  # (65 + 5) / 2, in the panel's short form at 80 columns


async def test_the_panel_counts_left_and_today_and_estimates_the_time_left() -> None:
    store = make_store()
    midnight = local_midnight()
    earlier = [
        Judgment(query_id="q2", doc_id="d5", state=JudgmentState.GRADED, grade=1, assessor="ann",
                 timestamp=midnight + timedelta(minutes=1), seconds=20.0),
        Judgment(query_id="q2", doc_id="d3", state=JudgmentState.GRADED, grade=0, assessor="ann",
                 timestamp=midnight - timedelta(minutes=1), seconds=40.0),
    ]  # fmt: skip
    store.imports.judgments(enumerate(earlier, 1), source="t")
    now = Clock()
    app = judge_app(store, "ann", query="q1")
    app.pace = Pace(now=now)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.session.left() is not None)  # the queue worker is done
        await pilot.pause()
        screen = _screen(app)
        screen.query_one(SessionPanel).tick()
        left = app.session.left()
        assert left == 3  # q1's d1, d3, d4 (bob graded d2; ann's two on q2)
        shown = _panel(app)
        assert "3 left, about 2m" in shown  # my median from the store: 30 s a document, 90 s
        assert "1 today" in shown  # since local midnight: d5 only
        now.go(10)
        await pilot.press("1")
        await pilot.pause()
        screen.query_one(SessionPanel).tick()
        shown = _panel(app)
        assert "judged 1 this session" in shown and "2 left" in shown and "2 today" in shown
        assert "median 20.0 s/doc" in shown  # 20, 40 and 10


async def test_the_panel_fits_80_columns() -> None:
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.session.left() is not None)
        await pilot.press("2")
        await pilot.pause()
        panel = _screen(app).query_one(SessionPanel)
        panel.tick()
        shown = str(panel.render())
        assert "\n" not in shown and len(shown) <= panel.content_size.width, shown
        assert "judged 1 this session" in shown and "left" in shown and "today" in shown


async def test_a_break_is_suggested_after_the_stretch_and_blocks_no_key() -> None:
    store = make_store()
    now = Clock()
    app = judge_app(store, "ann", query="q1")
    app.pace = Pace(now=now, break_after=120.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(5):  # 150 s of work, a key every 30 s
            now.go(30)
            await pilot.press("down")
        panel = _screen(app).query_one(SessionPanel)
        panel.tick()
        await pilot.pause()
        assert app.pace.break_due and "break" in str(panel.render())
        assert any("break" in str(n.message) for n in app._notifications)
        await pilot.press("2")  # keys still judge
        await until(pilot, lambda: len(_seconds(store)) == 1)
        assert isinstance(app.screen, JudgingScreen)
        await pilot.press("b")  # dismissed: a new stretch
        await pilot.pause()
        assert not app.pace.break_due and app.pace.worked() < 1
        assert "break" not in str(panel.render())
        assert not any("break" in str(n.message) for n in app._notifications)


@pytest.mark.parametrize("given", ["30m", "0"])
def test_judge_takes_break_after(given: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from click.testing import CliRunner

    from qrelkit.cli import cli
    from qrelkit.tui import app as app_module

    seen: list[float] = []

    def fake_run(self: JudgeApp, *args: object, **kwargs: object) -> None:
        seen.append(self.pace.break_after)

    monkeypatch.setattr(app_module.JudgeApp, "run", fake_run)
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    done = CliRunner().invoke(cli, ["--db", str(db), "judge", "--break-after", given, "--assessor", "ann"])
    assert done.exit_code == 0, done.output
    assert seen == [30 * 60.0 if given == "30m" else 0.0]
    bad = CliRunner().invoke(cli, ["--db", str(db), "judge", "--break-after", "soon"])
    assert bad.exit_code == 2 and "is not a duration" in bad.output
