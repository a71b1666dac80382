"""The real `qrelkit judge` in a pseudo-terminal, killed with SIGKILL or hung up: nothing shown is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

from .conftest import make_store
from .pty import Terminal


def test_sigkill_loses_nothing_that_was_shown(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    env = {**os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "pty", "COLUMNS": "80", "LINES": "24"}
    term = Terminal([sys.executable, "-m", "qrelkit", "--db", str(db), "judge", "--query", "q1"], env)
    try:
        assert term.read_until("judged 0"), term.output[-2000:]
        shown = 0
        for key, expect in ((b"3", 1), (b"s", 2)):
            term.send(key)
            assert term.read_until(f"judged {expect}"), term.output[-2000:]
            shown = expect
        term.send(b"2")  # killed right after, whether or not the screen got to show it
    finally:
        term.close()  # SIGKILL, if it still runs
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    mine = conn.execute("SELECT doc_id, state, grade FROM judgments WHERE assessor = 'pty' ORDER BY seq").fetchall()
    assert len(mine) >= shown
    assert mine[:2] == [("d1", "graded", 3), ("d3", "skipped", None)]


def _judge_with_the_store_busy(tmp_path: Path) -> tuple[Path, Terminal, sqlite3.Connection]:
    """`qrelkit judge` on a pty, its first grade held in memory because another process holds
    the store's write lock."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    env = {
        **os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "pty", "COLUMNS": "80", "LINES": "24",
        "TMPDIR": str(tmp_path),
    }  # fmt: skip
    term = Terminal([sys.executable, "-m", "qrelkit", "--db", str(db), "judge", "--query", "q1"], env)
    assert term.read_until("judged 0"), term.output[-2000:]
    blocker = sqlite3.connect(db, isolation_level=None, timeout=0)
    blocker.execute("BEGIN IMMEDIATE")
    mark = len(term.output)
    term.send(b"3")
    assert term.read_until("held in memory", since=mark), term.output[-2000:]
    return db, term, blocker


def _mine(db: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT doc_id, state, grade FROM judgments WHERE assessor = 'pty'").fetchall()


def test_a_judgment_held_for_a_busy_store_survives_the_terminal_closing(tmp_path: Path) -> None:
    """SIGHUP (the terminal closed) used to end the process at once, losing what it held."""
    db, term, blocker = _judge_with_the_store_busy(tmp_path)
    try:
        os.killpg(term.proc.pid, signal.SIGHUP)
        time.sleep(0.5)
        blocker.execute("ROLLBACK")  # the store frees while the app waits for it
        assert term.wait(60) is not None
    finally:
        blocker.close()
        term.close()
    assert _mine(db) == [("d1", "graded", 3)]


def test_a_judgment_held_past_the_hangup_wait_is_written_to_a_file(tmp_path: Path) -> None:
    db, term, blocker = _judge_with_the_store_busy(tmp_path)
    try:
        os.killpg(term.proc.pid, signal.SIGHUP)
        assert term.wait(60) is not None  # the store stays busy: the app gives up waiting
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        term.close()
    assert _mine(db) == []
    (kept,) = tmp_path.glob("qrelkit-waiting-pty-*.jsonl")
    (line,) = kept.read_text(encoding="utf-8").splitlines()
    event = json.loads(line)
    assert (event["query_id"], event["doc_id"], event["grade"], event["assessor"]) == ("q1", "d1", 3, "pty")
