"""Whole-process memory and time of walking a large judgment log: `freeze` and `export judgments`
of a store with 2,000,000 events (10,000 queries x 100 documents x 2 assessors; 1,000,000 labels).

    python benchmarks/bench_streaming.py [--repeat 3] [--keep DIR]

The store is built by direct inserts into a fresh qrelkit store (the log's schema), then each
command runs as its own process; wall time and peak RSS (the child's ru_maxrss from os.wait4)
are medians over --repeat runs after one warm-up. The limit the issue sets is 300 MiB for both.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERIES, DOCS, ASSESSORS = 10_000, 100, ("ann", "bob")


def build(db: Path) -> None:
    subprocess.run([sys.executable, "-m", "qrelkit", "--db", str(db), "init"], check=True, capture_output=True)
    conn = sqlite3.connect(db)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO strata(name, weight) VALUES ('s', 1.0)")
    conn.executemany(
        "INSERT INTO queries(id, text, stratum) VALUES (?, ?, 's')",
        ((f"q{i:05d}", f"query {i}") for i in range(QUERIES)),
    )
    ts = "2026-12-01T00:00:00+00:00"
    conn.executemany(
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) VALUES (?, ?, 'graded', ?, ?, ?)",
        (
            (f"q{q:05d}", f"doc-{q:05d}-{d:03d}", (q + d + k) % 4, a, ts)
            for q in range(QUERIES)
            for d in range(DOCS)
            for k, a in enumerate(ASSESSORS)
        ),
    )
    conn.commit()
    conn.close()


def run_once(cmd: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return time.perf_counter() - start, int(usage.ru_maxrss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="build the store here (and keep it) instead of a temporary folder")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="qrelkit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "log.db"
    if not db.exists():
        build(db)
    qk = [sys.executable, "-m", "qrelkit", "--db", str(db)]
    jobs = {
        "freeze": lambda i: [*qk, "freeze", "g", f"v{i}", "--out", str(folder / "sets")],
        "export judgments": lambda i: [*qk, "export", "judgments", "--out", str(folder / f"events{i}.jsonl")],
    }
    print("| command (2,000,000 events, 1,000,000 labels) | wall | peak RSS |\n|---|---:|---:|")
    for name, cmd in jobs.items():
        runs = [run_once(cmd(i)) for i in range(args.repeat + 1)][1:]
        wall = statistics.median(t for t, _ in runs)
        rss = statistics.median(m for _, m in runs) / 1024
        print(f"| `{name}` | {wall:.1f} s | {rss:.0f} MiB |")
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
