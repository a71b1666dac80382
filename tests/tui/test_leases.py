"""No duplicate work (issue 25): a document is leased the moment it is shown, opening a query and
the next-unlabeled choice read the leases as they are when they choose, and two assessors judging
one store as fast as they can never judge the same unassigned document."""

from __future__ import annotations

import sqlite3
import time
from datetime import timedelta
from pathlib import Path

from textual.pilot import Pilot

from qrelkit.models import LabelState, PoolEntry, Query, utcnow
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.judging import JudgingSession

from .conftest import make_store, until

DOCS = 24


def _store(path: Path) -> None:
    """One query with `DOCS` pooled documents, none judged."""
    with Store.open(path) as store:
        store.imports.queries([(1, Query(id="q", text="many documents"))], source="t")
        store.imports.pool_entries([PoolEntry(query_id="q", doc_id=f"d{n:02d}", best_rank=n + 1) for n in range(DOCS)])


def _app(db: Path, assessor: str, query: str = "q") -> JudgeApp:
    return JudgeApp(JudgingSession(Store.open(db), assessor, lock_wait_ms=50), query=query)


def _shown(app: JudgeApp) -> str | None:
    screen = app.screen
    if not isinstance(screen, JudgingScreen) or not screen.docs:
        return None
    return screen.docs[screen.position].doc_id


def _leases(db: Path) -> dict[str, tuple[str, str]]:
    """assessor -> (query, document) of each live lease, read on a connection of its own."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT assessor, query_id, doc_id FROM leases WHERE expires > ?", [utcnow().isoformat()])
        return {a: (q, d) for a, q, d in rows}
    finally:
        conn.close()


def _voters(db: Path) -> dict[str, set[str]]:
    """document -> the assessors who graded or skipped it."""
    conn = sqlite3.connect(db)
    try:
        found: dict[str, set[str]] = {}
        for d, a in conn.execute("SELECT doc_id, assessor FROM judgments WHERE state IN ('graded', 'skipped')"):
            found.setdefault(d, set()).add(a)
        return found
    finally:
        conn.close()


def _lease(db: Path, assessor: str, query_id: str, doc_id: str) -> None:
    """Another assessor's screen has `doc_id` open (their lease, written as their screen does)."""
    with Store.open(db) as other:
        other.leases.hold(query_id, doc_id, assessor)


async def test_the_document_shown_is_leased_at_once(tmp_path: Path) -> None:
    """It was leased after 1 s on screen, in a worker: two assessors judging fast never saw each
    other's leases."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _leases(db) == {"ann": ("q1", "d1")}  # as soon as it is on screen, no second later
        await pilot.press("n")
        assert _leases(db) == {"ann": ("q1", "d2")}  # moving leases the document moved to, ending the last
        await pilot.press("escape")
        assert _leases(db) == {}


async def test_opening_a_query_starts_on_a_document_no_one_else_has_open(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    _lease(db, "bob", "q1", "d1")  # bob reads d1, the first unlabeled one
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _shown(app) == "d3"  # not d1 (bob's), not d2 (labeled)
        assert _leases(db) == {"bob": ("q1", "d1"), "ann": ("q1", "d3")}


async def test_the_next_document_is_chosen_by_the_leases_as_they_are_at_the_key(tmp_path: Path) -> None:
    """bob opens d3 after ann's screen read the query: ann's grade on d1 moves her past it."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _shown(app) == "d1"
        _lease(db, "bob", "q1", "d3")  # no poll has run: ann's screen still shows d3 as free
        await pilot.press("2")
        assert _shown(app) == "d4"
        assert _leases(db)["ann"] == ("q1", "d4")


async def test_a_lease_that_ended_does_not_hold_a_document(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    with Store.open(db) as other:
        other.leases.hold("q1", "d1", "bob", seconds=-1)  # bob left it long ago
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _shown(app) == "d1"


async def test_a_pair_assigned_to_both_is_judged_by_both_whoever_has_it_open(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    with Store.open(db) as store:
        store.log.assign([("q1", "d1", "ann"), ("q1", "d1", "bob")])
    _lease(db, "bob", "q1", "d1")
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _shown(app) == "d1"


async def _judge_one(pilot: Pilot[None], app: JudgeApp, key: str) -> bool:
    """Press `key` on `app`'s judging screen the moment its document is drawn; False (nothing pressed)
    when the screen has nothing unlabeled left to show (it stays on the last one judged)."""
    screen = app.screen
    if not isinstance(screen, JudgingScreen) or not screen.docs:
        return False
    if screen.docs[screen.position].state is not LabelState.UNLABELED:
        return False
    await until(pilot, screen.sight.drawn)
    await pilot.press(key)
    return True


async def test_two_assessors_judging_as_fast_as_they_can_never_judge_the_same_document(tmp_path: Path) -> None:
    """The acceptance test of issue 25's item 5: two apps (two assessors) on one store file, each
    pressing a grade the moment its screen has drawn the next document, interleaved. They judged
    6 of 6 documents in lockstep before (the lease came 1 s after a document was shown)."""
    db = tmp_path / "s.db"
    _store(db)
    ann, bob = _app(db, "ann"), _app(db, "bob")
    async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
        await pa.pause()
        await pb.pause()
        assert _shown(ann) != _shown(bob)  # both opened the query at once: each on a document of its own
        deadline = time.monotonic() + 120
        going = [True, True]
        while any(going):
            assert time.monotonic() < deadline
            for n, (pilot, app, key) in enumerate(((pa, ann, "1"), (pb, bob, "2"))):
                if going[n]:
                    going[n] = await _judge_one(pilot, app, key)
    voters = _voters(db)
    assert len(voters) == DOCS  # every document judged ...
    assert all(len(who) == 1 for who in voters.values()), voters  # ... by one of them
    assert {a for who in voters.values() for a in who} == {"ann", "bob"}  # both worked


async def test_a_key_never_waits_for_a_lease_on_a_busy_store(tmp_path: Path) -> None:
    """Another process holds the write lock: moving (which leases) goes on at once (the lease is
    written on a connection that does not wait for the lock), a grade is held in memory as
    before, and the leases follow once the store is free."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    app = _app(db, "ann", "q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        await pilot.press("n", "n")
        assert _shown(app) == "d3"
        await pilot.press("2")  # held for the busy store; moves on as the documents were read
        assert app.session.waiting == 1 and _shown(app) == "d4"
        leaser = app.session._lease_store()
        assert leaser is not None and leaser.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 0
        blocker.execute("COMMIT")
        blocker.close()
        await pilot.press("p")
        assert _leases(db) == {"ann": ("q1", "d3")}


def test_the_expiry_a_lease_gets(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    session = JudgingSession(Store.open(db), "ann")
    session.hold("q1", "d1")
    conn = sqlite3.connect(db)
    (expires,) = conn.execute("SELECT expires FROM leases").fetchone()
    conn.close()
    from datetime import datetime

    left = datetime.fromisoformat(expires) - utcnow()
    assert timedelta(minutes=4) < left <= timedelta(minutes=5)
    session.close()
    assert _leases(db) == {}  # closing ends it
