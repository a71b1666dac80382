"""Whole-process memory and time of reading a large run: `score` through the fast parser, `score`
of the same run with one irregular line (a comment in the middle, so the exact reader reads it),
`pool` of the run at depth 100, and `pool --depth 20` of it against a store of `LABELS` labels.

    python benchmarks/bench_memory.py [--lines 5000000] [--repeat 5] [--keep DIR]

The run has --lines lines, `qid Q0 doc rank score tag`, over queries of 1,000 documents each
(scores rounded to two decimals, so ties are common); the qrels judge 20 documents per query.
Each command runs as its own process; wall time and peak RSS (the child's ru_maxrss from
os.wait4) are medians over --repeat runs.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import build_store, run_once  # noqa: E402

DOCS = 1_000
"""Documents per query in the run."""
LABELS = 2_000_000
"""Labels in the store the `pool-store` case pools into (one assessor, the run's queries)."""


def write_data(folder: Path, lines: int) -> tuple[Path, Path, Path, int]:
    """The run, the same run with a comment line in the middle, the qrels; and the query count."""
    queries = max(1, lines // DOCS)
    rng = random.Random(7)
    run, irregular, qrels = folder / "run.txt", folder / "irregular.txt", folder / "qrels.txt"
    middle = queries // 2
    with run.open("w") as out, irregular.open("w") as odd, qrels.open("w") as judged:
        for q in range(queries):
            qid = f"q{q:05d}"
            rows = [
                f"{qid} Q0 d{(q * 7919 + d * 104729) % 8_000_000} {d + 1} {rng.random():.2f} bench\n"
                for d in range(DOCS)
            ]
            block = "".join(rows)
            out.write(block)
            if q == middle:
                odd.write("# a comment line: the fast parser gives up, the exact reader skips it\n")
            odd.write(block)
            judged.writelines(f"{qid} 0 {row.split()[2]} {rng.randrange(3)}\n" for row in rows[::50])
    return run, irregular, qrels, queries


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=5_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="write the data here (and keep it) instead of a temporary folder")
    ap.add_argument("--only", choices=("fast", "fallback", "pool", "pool-store"), action="append", help="only these")
    args = ap.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="qrelkit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    run, irregular, qrels, queries = write_data(folder, args.lines)
    db = folder / f"pool-{queries}.db"
    qk = [sys.executable, "-m", "qrelkit", "--db", str(db)]
    score = ["score", "--qrels", str(qrels), "--metrics", "nDCG@10,AP"]
    jobs = {
        "fast": lambda: [*qk, *score, str(run)],
        "fallback": lambda: [*qk, *score, str(irregular)],
        "pool": lambda: [*qk, "pool", str(run), "--depth", "100"],
        "pool-store": lambda: [*qk, "pool", str(run), "--depth", "20"],
    }
    labelled = folder / f"labels-{queries}.db"  # built once, copied for each run
    figures: dict[str, tuple[float, float]] = {}
    for name in args.only or list(jobs):
        walls, peaks = [], []
        for i in range(args.repeat + 1):  # the first is a warm-up
            if name == "pool":  # a fresh store each time: pooling again would add nothing
                db.unlink(missing_ok=True)
                build_store(db, queries, 10)
            elif name == "pool-store":
                if not labelled.exists():
                    build_store(labelled, queries, max(1, LABELS // queries), assessors=("ann",))
                shutil.copyfile(labelled, db)
            wall, peak = run_once(jobs[name]())
            if i:
                walls.append(wall)
                peaks.append(peak)
        print(
            f"{name:9s} {args.lines:>10,} lines  wall {statistics.median(walls):6.1f} s  "
            f"peak RSS {statistics.median(peaks) / 1024:7.0f} MiB  (runs: {', '.join(f'{p >> 10}' for p in peaks)})",
            flush=True,
            file=sys.stderr,
        )
        figures[name] = (statistics.median(walls), statistics.median(peaks) / 1024)
    if args.keep is None:
        shutil.rmtree(folder)
    text = markdown(figures, args.lines, args.repeat)
    print(text)
    return text


def markdown(figures: dict[str, tuple[float, float]], lines: int, repeat: int) -> str:
    what = {
        "fast": "`score` (fast path)",
        "fallback": "`score`, one irregular line (exact reader)",
        "pool": "`pool --depth 100`",
        "pool-store": f"`pool --depth 20`, a store of {LABELS:,} labels",
    }
    rows = [f"| command ({lines:,}-line run) | wall | peak RSS | target |", "|---|---:|---:|---|"]
    for name, (wall, peak) in figures.items():
        target = ""
        if name == "fallback" and "fast" in figures:
            ratio = peak / figures["fast"][1]
            target = f"within 1.5x the fast path's memory: {'met' if ratio <= 1.5 else 'missed'} ({ratio:.2f}x)"
        elif name == "pool":
            target = f"under 800 MiB: {('met' if peak < 800 else 'missed') if lines >= 5_000_000 else '(at 5M lines)'}"
        elif name == "pool-store":
            target = f"under 500 MiB: {('met' if peak < 500 else 'missed') if lines >= 5_000_000 else '(at 5M lines)'}"
        rows.append(f"| {what[name]} | {wall:.1f} s | {peak:.0f} MiB | {target} |")
    return "\n".join(rows) + f"\n\nMedians of {repeat} runs after a warm-up; whole processes.\n"


if __name__ == "__main__":
    main()
