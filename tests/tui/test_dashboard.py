"""The dashboard screen (`d` from the query list): the two tiles of the latest saved comparison."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from qrelkit.models import Comparison, FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate, paired
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.dashboard import DashboardScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen

from .conftest import drawn, judge_app, make_store

QRELS = {f"q{i}": {"r": 2, "s": 1, "n": 0} for i in range(12)}
BASE = {q: {"r": 3.0, "n": 2.0, "s": 1.0} for q in QRELS}
WORSE = {q: {"n": 3.0, "x": 2.5, "r": 2.0, "s": 1.0} for q in QRELS}  # same documents, worse order


def _report(name: str, run: dict[str, dict[str, float]]) -> Any:
    ev = evaluate(QRELS, run, "nDCG@10,R@50,P@1")
    fp = Fingerprint(
        run=FileFingerprint(name=name, sha256="sha256:0"),
        metrics=[m.name for m in ev.measures],
        relevance_threshold=1,
        max_grade=2,
        qrelkit_version="t",
    )
    return ev.report(fp, per_query=True)


def save_comparison(store: Store) -> Comparison:
    c = paired.compare(_report("base.run", BASE), _report("worse.run", WORSE), resamples=500)
    store.reports.save(c, "base.run vs worse.run")
    store.conn.execute("UPDATE reports SET created = '2026-01-02T03:04:05+00:00'")
    return c


def _text(app: JudgeApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_d_opens_the_dashboard_with_the_latest_comparison() -> None:
    store = make_store()
    c = save_comparison(store)
    assert c.diagnosis == "ordering"
    app = judge_app(store, "ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await drawn(pilot, app)
        await pilot.press("d")
        assert isinstance(app.screen, DashboardScreen)
        assert "ORDERING" in _text(app, "#diagnosis") and "reranker" in _text(app, "#diagnosis")
        headline = _text(app, "#headline")
        assert "nDCG@10 falls" in headline and f"{c.metrics['nDCG@10'].delta:+.4f}" in headline
        assert "R@50 holds" in _text(app, "#recall")
        assert "base.run" in _text(app, "#source") and "worse.run" in _text(app, "#source")
        await pilot.press("escape")
        assert isinstance(app.screen, QueryListScreen)


async def test_dashboard_without_reports_says_how_to_save_one() -> None:
    app = judge_app(make_store(), "ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await drawn(pilot, app)
        await pilot.press("d")
        assert "compare A B --save" in _text(app, "#diagnosis")


async def test_dashboard_falls_back_to_the_latest_score_report() -> None:
    store = make_store()
    report = _report("base.run", BASE)
    store.reports.save(report, "base.run")
    app = judge_app(store, "ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await drawn(pilot, app)
        await pilot.press("d")
        assert "no saved comparison" in _text(app, "#diagnosis")
        headline = _text(app, "#headline")
        assert "nDCG@10" in headline and f"{report.metrics['nDCG@10'].mean:.4f}" in headline


async def _open(pilot: Pilot[None]) -> None:
    await pilot.press("d")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_dashboard_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    store = make_store()
    save_comparison(store)
    assert snap_compare(judge_app(store, "ann"), terminal_size=size, run_before=_open)


async def test_a_screen_s_css_stays_on_that_screen() -> None:
    """The dashboard docks its one-line key bar at the bottom; the judging screen's key bar, which
    takes two lines at 80 columns, keeps them after the dashboard was shown."""
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, JudgingScreen)
        before = app.screen.query_one("#keys").size.height
        await pilot.press("escape", "d")
        assert isinstance(app.screen, DashboardScreen) and app.screen.query_one("#keys").size.height == 1
        await pilot.press("escape", "enter")
        await pilot.pause()
        assert isinstance(app.screen, JudgingScreen)
        assert before == 2 and app.screen.query_one("#keys").size.height == before
