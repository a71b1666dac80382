"""What one keystroke costs the store: a grade typed on the judging screen saves the judgment and
shows the next document, leased in the same transaction, in at most `KEYSTROKE_STATEMENTS` SQL
statements on the session's connection, BEGIN and COMMIT counted, every statement SQLite runs
counted (the trace callback sees them all, the PRAGMAs too). The judgment is committed before the
screen moves on."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from qrelkit.models import utcnow
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens import judging as judging_screen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.queue import Comparisons

from .conftest import judge_app, make_store, until

KEYSTROKE_STATEMENTS = 6


@pytest.fixture
def shared_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The tiny store on disk (WAL, synchronous=FULL), with what a pair's state reads in it: an
    overlap assignment, another assessor's lease. The screen's poll is left out of the count (it
    runs every few seconds, not on a key)."""
    monkeypatch.setattr(judging_screen, "POLL_SECONDS", 3600.0)
    store = make_store(str(tmp_path / "s.db"))
    store.log.assign([("q1", "d3", "ann"), ("q1", "d3", "bob")])
    expires = (utcnow() + timedelta(minutes=5)).isoformat()
    with store.transaction():
        store.conn.execute("INSERT INTO leases VALUES ('q1', 'd2', 'cy', ?)", [expires])
    yield store
    store.close()


def _trace(store: Store) -> list[str]:
    """Every statement the UI thread runs on the store's connection from now on (a worker thread's
    path lookup for a checkpoint is not the keystroke's)."""
    ui = threading.get_ident()
    seen: list[str] = []
    store.conn.set_trace_callback(lambda sql: seen.append(sql) if threading.get_ident() == ui else None)
    return seen


def _committed(store: Store) -> list[tuple[str, str, int]]:
    """The judgments another connection sees (committed, on disk)."""
    path = store.path
    assert path is not None
    other = sqlite3.connect(path)
    try:
        return other.execute("SELECT query_id, doc_id, grade FROM judgments WHERE assessor = 'ann'").fetchall()
    finally:
        other.close()


def _with_settle_line(store: Store, folder: Path) -> JudgeApp:
    """`judge --for A.run,B.run --metric P@1`: the settle line, checked after every judgment."""
    runs = [folder / "A.run", folder / "B.run"]
    for run, docs in zip(runs, (["d1", "d2", "d3", "d4"], ["d4", "d3", "d2", "d1"]), strict=True):
        run.write_text("".join(f"q1 Q0 {d} {n} {9 - n} X\n" for n, d in enumerate(docs, 1)))
    session = JudgingSession(store, "ann")
    session.comparisons = Comparisons.parse([f"{runs[0]},{runs[1]}"], "P@1")
    return JudgeApp(session, query="q1")


@pytest.mark.parametrize("settle_line", [False, True], ids=["alone", "with-the-settle-line"])
async def test_a_grade_that_shows_the_next_document_costs_at_most_six_statements(
    shared_store: Store, settle_line: bool, tmp_path: Path
) -> None:
    """With the settle line (`--for`) too: its check reads on a connection of its own, in a
    worker thread (and a process), never on the keystroke's."""
    app = _with_settle_line(shared_store, tmp_path) if settle_line else judge_app(shared_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await until(pilot, lambda: app.session._queue is not None)  # the queue worker is done
        if settle_line:  # its first verdicts are in
            await until(pilot, lambda: app.settle_watch is not None and app.settle_watch.latest is not None)
        await pilot.pause()
        shown = []
        other = shared_store.reader()  # another connection commits between the keys: no cost
        for grade in (1, 2):
            if grade == 2:
                other.settings.configure(label_policy="latest")
            doc = screen.docs[screen.position].doc_id
            seen = _trace(shared_store)
            await pilot.press(str(grade))
            shared_store.conn.set_trace_callback(None)
            shown.append(screen.docs[screen.position].doc_id)
            assert shown[-1] != doc  # the next document is on screen
            assert ("q1", doc, grade) in _committed(shared_store)
            assert len(seen) <= KEYSTROKE_STATEMENTS, seen
            writes = [s.split()[:3] for s in seen if s.split()[0] in ("BEGIN", "INSERT", "COMMIT")]
            # one transaction: the next document's lease (chosen in that statement), the judgment
            assert writes == [["BEGIN", "IMMEDIATE"], ["INSERT", "INTO", "leases(query_id,"],
                              ["INSERT", "INTO", "judgments(query_id,"], ["COMMIT"]], seen  # fmt: skip
            held = shared_store.conn.execute("SELECT doc_id FROM leases WHERE assessor = 'ann'").fetchall()
            assert held == [(shown[-1],)]
        other.close()
        # ann's assignment first (d3, shared with bob: the state saved shows it), then d1, d4
        assert shown == ["d1", "d4"]
        assert next(d for d in screen.docs if d.doc_id == "d3").shared
        if settle_line:  # each judgment was checked, off the key path
            watch = app.settle_watch
            assert watch is not None
            await until(pilot, lambda: not watch.view().stale)
            assert watch.latest is not None and watch.latest.seq == shared_store.log.size()
