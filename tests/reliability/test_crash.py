"""Kill a judging process with SIGKILL at random points: the store stays sound and keeps every
judgment the process acknowledged (10 kills in `make test`, 150 in `make stress`)."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import time
from pathlib import Path

from .common import STRESS, acks, log, make_store, start_writer

KILLS = 150 if STRESS else 10


def test_sigkill_at_random_points_loses_no_acknowledged_judgment(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(db)
    rnd = random.Random(20261130)
    acknowledged: list[tuple[int, str, str, int]] = []
    mid_run = 0
    for kill in range(KILLS):
        writer = start_writer(db, f"a{kill}", 100_000, merge_stderr=True)
        assert writer.stdout is not None
        # wait for the first acknowledgment, then let it run a random while and kill it mid-stream;
        # its output is read through one file object only, to its end (the pipe closes when the
        # process dies): every line it wrote is read, however busy the machine
        first = writer.stdout.readline()
        time.sleep(rnd.uniform(0, 0.05))
        os.kill(writer.pid, signal.SIGKILL)
        rest = writer.stdout.read()
        writer.stdout.close()
        assert writer.wait(timeout=30) == -signal.SIGKILL, first + rest
        got = acks(first + rest)
        assert got, f"the writer acknowledged nothing before the kill: {first + rest}"
        mid_run += "done" not in rest
        acknowledged += got
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored = {
                r[0]: (r[1], r[2], r[3])
                for r in conn.execute(
                    "SELECT seq, query_id, doc_id, grade FROM judgments WHERE assessor = ?", [f"a{kill}"]
                )
            }
        finally:
            conn.close()
        for seq, q, d, g in got:
            assert stored.get(seq) == (q, d, g), f"kill {kill}: acknowledged judgment {seq} is missing"
        # at most one unacknowledged event can be on disk: committed, killed before the ack was written
        assert len(stored) - len(got) in (0, 1), f"kill {kill}: {len(stored)} stored, {len(got)} acknowledged"
    assert mid_run == KILLS
    log(f"crash: {KILLS} SIGKILLs mid-stream, {len(acknowledged)} acknowledged judgments, all on disk, integrity ok")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM judgments").fetchone()[0] >= len(acknowledged)
    conn.close()
