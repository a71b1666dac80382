"""The query list's per-query counts (`Store.progress()`) on 10,000 queries and 1,000,000 events.

    python benchmarks/bench_counts.py [--repeat 5]

Builds a store (10,000 queries x 50 documents x 2 assessors, 10,000 pooled pairs), then times,
each in a fresh process that opens the store as `qrelkit judge` does: the first read after the
upgrade (every query resolved once and kept), a read with nothing new, and a read after one
judgment was recorded (that query alone is recomputed). Medians over --repeat.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_store  # noqa: E402

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


def probe(db: Path, mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", PROBE, str(db), mode], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "counts.db"
        build_store(db, QUERIES, DOCS, pooled=True)
        print("| read of the counts (10,000 queries, 1,000,000 events) | median |\n|---|---:|")
        for mode, what in (("cold", "first read (everything resolved, then kept)"), ("warm", "nothing new"),
                           ("judge", "after one judgment")):  # fmt: skip
            times = [probe(db, mode) for _ in range(args.repeat)]
            print(f"| {what} | {statistics.median(times):.3f} s |")


if __name__ == "__main__":
    main()
