"""After a busy store frees (judgments held back, then committed), every count on screen is read
again from the store (issue 25, item 1): the judging screen's header and session panel, and the
query list's rows. The header kept the counts it had computed while the judgments waited, and
missed the events the busy store's writer committed meanwhile."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textual.widgets import DataTable

from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen
from qrelkit.tui.widgets.session_panel import SessionPanel
from qrelkit.workflows.judging import JudgingSession

from .conftest import make_store, until


def _blocker(db: Path) -> sqlite3.Connection:
    """Another process's write transaction, holding the store's write lock (bob's grade of d4 in
    it, committed when it ends)."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute(
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, source) "
        "VALUES ('q1', 'd4', 'graded', 2, 'bob', '2026-01-05T00:00:00+00:00', 'other')"
    )
    return other


def _store_counts(db: Path) -> dict[str, tuple[int, int, int]]:
    """query -> (labeled, skipped, unlabeled), as the store holds them, on a fresh connection."""
    with Store.open(db) as store:
        return {p.query_id: (p.labeled, p.skipped, p.unlabeled) for p in store.counts.progress()}


async def test_the_judging_screen_counts_what_the_store_holds_once_it_frees(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    app = JudgeApp(JudgingSession(Store.open(db), "ann", lock_wait_ms=50), query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        other = _blocker(db)
        await pilot.press("2")  # ann's grade of d1: held in memory
        assert app.session.waiting == 1
        other.execute("COMMIT")  # the store frees, bob's grade of d4 in it
        other.close()
        screen.poll()
        labeled, _, unlabeled = _store_counts(db)["q1"]
        assert (labeled, unlabeled) == (3, 1)  # d1 ann's, d2 and d4 bob's
        assert f"{labeled}/4 labeled" in str(screen.sub_title) and "judged 1" in str(screen.sub_title)
        assert "judged 1 this session" in str(screen.query_one(SessionPanel).render())
        assert {d.doc_id: d.grade for d in screen.docs if d.grade is not None} == {"d1": 2, "d2": 1, "d4": 2}


async def test_the_query_list_counts_what_the_store_holds_once_it_frees(tmp_path: Path) -> None:
    """The app's timer commits the held judgment while the list is shown: its rows are read again."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    app = JudgeApp(JudgingSession(Store.open(db), "ann", lock_wait_ms=50), query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        other = _blocker(db)
        await pilot.press("2")
        await pilot.press("escape")
        listing = app.screen
        assert isinstance(listing, QueryListScreen)
        await until(pilot, lambda: bool(listing.rows))  # read while the judgment still waits
        table = listing.query_one(DataTable)
        assert [str(c) for c in table.get_row("q1")[3:6]] == ["1", "0", "3"]
        other.execute("COMMIT")
        other.close()
        await until(pilot, lambda: app.session.waiting == 0)
        expected = [str(n) for n in _store_counts(db)["q1"]]
        assert expected == ["3", "0", "1"]
        await until(pilot, lambda: "q1" in table.rows and [str(c) for c in table.get_row("q1")[3:6]] == expected)
        assert "judged 1 this session" in str(listing.sub_title)
