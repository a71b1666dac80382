"""The query list's per-query counts (`Store.progress()`) on 10,000 queries and 1,000,000 events.

    python benchmarks/bench_counts.py [--repeat 5]

Builds a store (10,000 queries x 50 documents x 2 assessors, 10,000 pooled pairs), then times,
each in a fresh process that opens the store as `qrelkit judge` does: the first read after the
upgrade (every query resolved once and kept), a read with nothing new, and a read after one
judgment was recorded (that query alone is recomputed). Medians over --repeat.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

QUERIES, DOCS = 10_000, 50

PROBE = r"""
import sys, time
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
store = Store.open(sys.argv[1])
if sys.argv[2] == "judge":
    store.record(Judgment(query_id="q00042", doc_id="doc-new", state=JudgmentState.GRADED, grade=2, assessor="ann"))
if sys.argv[2] == "cold":
    store.conn.execute("DELETE FROM meta WHERE key = 'query_counts_seq'")
start = time.perf_counter()
rows = store.progress()
print(time.perf_counter() - start, len(rows))
"""


def build(db: Path) -> None:
    subprocess.run([sys.executable, "-m", "qrelkit", "--db", str(db), "init"], check=True, capture_output=True)
    conn = sqlite3.connect(db)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO strata(name, weight) VALUES ('s', 1.0)")
    conn.executemany(
        "INSERT INTO queries(id, text, stratum) VALUES (?, 'x', 's')", ((f"q{i:05d}",) for i in range(QUERIES))
    )
    ts = "2026-12-01T00:00:00+00:00"
    conn.executemany(
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) VALUES (?, ?, 'graded', ?, ?, ?)",
        ((f"q{q:05d}", f"doc-{d:03d}", (q + d + k) % 4, a, ts) for q in range(QUERIES) for d in range(DOCS)
         for k, a in enumerate(("ann", "bob"))),
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO pool(query_id, doc_id, source) VALUES (?, 'pooled', 'r')", ((f"q{q:05d}",) for q in range(QUERIES))
    )
    conn.commit()


def probe(db: Path, mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", PROBE, str(db), mode], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "counts.db"
        build(db)
        print("| read of the counts (10,000 queries, 1,000,000 events) | median |\n|---|---:|")
        for mode, what in (("cold", "first read (everything resolved, then kept)"), ("warm", "nothing new"),
                           ("judge", "after one judgment")):  # fmt: skip
            times = [probe(db, mode) for _ in range(args.repeat)]
            print(f"| {what} | {statistics.median(times):.3f} s |")


if __name__ == "__main__":
    main()
