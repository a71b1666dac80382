"""The real `qrelkit judge` in a pseudo-terminal, killed with SIGKILL: nothing shown is lost."""

from __future__ import annotations

import os
import sqlite3
import sys
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
