"""Whole-process memory and time of walking a large judgment log: `freeze` and `export judgments`
of a store with 2,000,000 events (10,000 queries x 100 documents x 2 assessors; 1,000,000 labels).

    python benchmarks/bench_streaming.py [--repeat 5] [--keep DIR]

The store is built by direct inserts into a fresh qrelkit store (the log's schema), then each
command runs as its own process; wall time and peak RSS (the child's ru_maxrss from os.wait4)
are medians over --repeat runs after one warm-up. The limit the issue sets is 300 MiB for both.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_store, run_once  # noqa: E402

QUERIES, DOCS, ASSESSORS = 10_000, 100, ("ann", "bob")


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--queries", type=int, default=QUERIES, help="queries in the store (x 100 docs x 2 assessors)")
    ap.add_argument("--keep", type=Path, help="build the store here (and keep it) instead of a temporary folder")
    args = ap.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="qrelkit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "log.db"
    if not db.exists():
        build_store(db, args.queries, DOCS, assessors=ASSESSORS)
    qk = [sys.executable, "-m", "qrelkit", "--db", str(db)]
    jobs = {
        "freeze": lambda i: [*qk, "freeze", "g", f"v{i}", "--out", str(folder / "sets")],
        "export judgments": lambda i: [*qk, "export", "judgments", "--out", str(folder / f"events{i}.jsonl")],
    }
    events = args.queries * DOCS * len(ASSESSORS)
    rows = [f"| command ({events:,} events, {events // 2:,} labels) | wall | peak RSS | target |",
            "|---|---:|---:|---|"]  # fmt: skip
    for name, cmd in jobs.items():
        runs = [run_once(cmd(i)) for i in range(args.repeat + 1)][1:]
        wall = statistics.median(t for t, _ in runs)
        rss = statistics.median(m for _, m in runs) / 1024
        verdict = ("met" if rss < 300 else "missed") if events >= 2_000_000 else "(at 2M events)"
        rows.append(f"| `{name}` | {wall:.1f} s | {rss:.0f} MiB | under 300 MiB: {verdict} |")
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    text = "\n".join(rows) + f"\n\nMedians of {args.repeat} runs after a warm-up; whole processes.\n"
    print(text)
    return text


if __name__ == "__main__":
    main()
