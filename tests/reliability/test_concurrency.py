"""Four processes judging one store at once: 10,000 events, no lock error, nothing lost, the
derived labels what the log says (`make stress`: 40,000)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from qrelkit.storage import Store

from .common import STRESS, acks, log, make_store, start_writer

PROCESSES = 4
EVENTS = 40_000 if STRESS else 10_000


def test_four_processes_write_ten_thousand_events(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(db)
    each = EVENTS // PROCESSES
    start = time.perf_counter()
    writers = [start_writer(db, f"p{k}", each) for k in range(PROCESSES)]
    outputs = []
    for w in writers:
        out, err = w.communicate(timeout=600)
        assert w.returncode == 0, err
        assert "locked" not in err and "Traceback" not in err
        outputs.append(out)
    elapsed = time.perf_counter() - start
    got = [a for out in outputs for a in acks(out)]
    assert len(got) == EVENTS and len({seq for seq, *_ in got}) == EVENTS
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {r[0]: (r[1], r[2], r[3]) for r in conn.execute("SELECT seq, query_id, doc_id, grade FROM judgments")}
    finally:
        conn.close()
    assert all(stored[seq] == (q, d, g) for seq, q, d, g in got)
    # the derived labels: for each pair, the grade of its highest acknowledged sequence number
    expected: dict[tuple[str, str], tuple[int, int]] = {}
    for seq, q, d, g in got:
        if (q, d) not in expected or expected[(q, d)][0] < seq:
            expected[(q, d)] = (seq, g)
    with Store.open(db) as store:
        labels = {(lab.query_id, lab.doc_id): lab.grade for lab in store.reads.labels()}
    assert labels == {pair: g for pair, (_, g) in expected.items()}
    log(f"concurrency: {PROCESSES} processes, {EVENTS} events in {elapsed:.1f} s, none lost, labels as expected")
