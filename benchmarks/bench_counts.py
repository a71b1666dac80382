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
    store.log.record(Judgment(query_id="q00042", doc_id="doc-new", state=JudgmentState.GRADED, grade=2, assessor="ann"))
if sys.argv[2] == "cold":
    store.conn.execute("DELETE FROM meta WHERE key = 'query_counts_seq'")
start = time.perf_counter()
rows = store.counts.progress()
print(time.perf_counter() - start, len(rows))
"""


def probe(db: Path, mode: str) -> float:
    out = subprocess.run([sys.executable, "-c", PROBE, str(db), mode], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--queries", type=int, default=QUERIES, help="queries in the store (x 50 docs x 2 assessors)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "counts.db"
        build_store(db, args.queries, DOCS, pooled=True)
        events = args.queries * DOCS * 2
        rows = [f"| read of the counts ({args.queries:,} queries, {events:,} events) | median | target |",
                "|---|---:|---|"]  # fmt: skip
        for mode, what in (("cold", "first read (everything resolved, then kept)"), ("warm", "nothing new"),
                           ("judge", "after one judgment")):  # fmt: skip
            median = statistics.median(probe(db, mode) for _ in range(args.repeat))
            target = "" if mode == "cold" else f"under 1 s: {'met' if median < 1 else 'missed'}"
            rows.append(f"| {what} | {median:.3f} s | {target} |")
    text = "\n".join(rows) + f"\n\nMedians of {args.repeat} reads, each in a fresh process.\n"
    print(text)
    return text


if __name__ == "__main__":
    main()
