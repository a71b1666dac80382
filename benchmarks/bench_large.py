"""Large inputs stay streamed: import a 10-million-line qrels file and score a 7-million-line run,
each as a whole `qrelkit` process, reporting wall time and peak resident memory (limit: 2 GiB).

    python benchmarks/bench_large.py [--lines 10000000] [--run benchmarks/data/msmarco/run.trec]

The qrels file (100,000 queries x 100 judged documents, grades 0-3) and its queries are generated
here, deterministically; the run is `gen.py --size msmarco` (generated if missing).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "large"
QRELKIT = [sys.executable, "-m", "qrelkit"]
LIMIT_MIB = 2048


def generate(lines: int) -> tuple[Path, Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    per_query = 100
    n_queries = lines // per_query
    queries, qrels = DATA / f"queries-{lines}.tsv", DATA / f"qrels-{lines}.trec"
    if not queries.exists() or not qrels.exists():
        rng = np.random.default_rng(20261130)
        with open(queries, "w") as fh:
            fh.writelines(f"Q{i}\tquery number {i}\tgeneral\n" for i in range(n_queries))
        with open(qrels, "w") as fh:
            for start in range(0, n_queries, 1000):
                block = []
                for i in range(start, min(start + 1000, n_queries)):
                    docs = rng.choice(50_000_000, size=per_query, replace=False)
                    grades = rng.choice(4, size=per_query, p=[0.7, 0.17, 0.09, 0.04])
                    block.extend(f"Q{i} 0 D{d} {g}\n" for d, g in zip(docs.tolist(), grades.tolist(), strict=True))
                fh.writelines(block)
    return queries, qrels


def measure(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) and exit status of one child process (`os.wait4` gives that
    child's own resource usage)."""
    start = time.perf_counter()
    with open(DATA / "stderr.txt", "w") as errors:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print((DATA / "stderr.txt").read_text(), file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--run", type=Path, default=HERE / "data" / "msmarco" / "run.trec")
    parser.add_argument("--json", type=Path, help="Write the figures here.")
    args = parser.parse_args()
    queries, qrels = generate(args.lines)
    db = DATA / "large.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    results = {}
    wall, rss, code = measure([*QRELKIT, "--db", str(db), "import", "queries", str(queries), "--create-strata"])
    print(f"import queries ({args.lines // 100:,}): {wall:.1f} s, {rss:.0f} MiB, exit {code}")
    wall, rss, code = measure([*QRELKIT, "--db", str(db), "import", "qrels", str(qrels)])
    results["import_qrels"] = {"lines": args.lines, "seconds": wall, "peak_mib": rss, "exit": code}
    print(f"import qrels ({args.lines:,} lines): {wall:.1f} s, peak {rss:.0f} MiB, exit {code}")
    if not args.run.exists():
        subprocess.run([sys.executable, str(HERE / "gen.py"), "--size", "msmarco"], check=True)
    run_lines = sum(1 for _ in open(args.run, "rb"))
    gen_qrels = args.run.with_name("qrels.trec")
    wall, rss, code = measure(
        [
            *QRELKIT,
            "score",
            str(args.run),
            "--qrels",
            str(gen_qrels),
            "--format",
            "json",
            "--out",
            str(DATA / "report.json"),
        ]
    )
    results["score_run"] = {"lines": run_lines, "seconds": wall, "peak_mib": rss, "exit": code}
    print(f"score ({run_lines:,} run lines, with bounds): {wall:.1f} s, peak {rss:.0f} MiB, exit {code}")
    ok = all(r["peak_mib"] <= LIMIT_MIB and r["exit"] == 0 for r in results.values())
    print("within 2 GiB" if ok else "OVER 2 GiB OR FAILED")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
