"""The real `qrelkit judge` in a pseudo-terminal, killed with SIGKILL: nothing shown is lost."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from .conftest import make_store


class Terminal:
    """A child process on a pty of 80x24, with its output collected."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.output = b""

    def read_until(self, pattern: bytes, timeout: float = 20.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.output):
                return True
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    return bool(re.search(pattern, self.output))
        return False

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        os.close(self.master)


def test_sigkill_loses_nothing_that_was_shown(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    env = {**os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "pty", "COLUMNS": "80", "LINES": "24"}
    term = Terminal([sys.executable, "-m", "qrelkit", "--db", str(db), "judge", "--query", "q1"], env)
    try:
        assert term.read_until(rb"judged 0"), term.output[-2000:]
        shown = 0
        for key, expect in ((b"3", 1), (b"s", 2)):
            term.send(key)
            assert term.read_until(rb"judged %d" % expect), term.output[-2000:]
            shown = expect
        term.send(b"2")  # killed right after, whether or not the screen got to show it
    finally:
        term.kill()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    mine = conn.execute("SELECT doc_id, state, grade FROM judgments WHERE assessor = 'pty' ORDER BY seq").fetchall()
    assert len(mine) >= shown
    assert mine[:2] == [("d1", "graded", 3), ("d3", "skipped", None)]
