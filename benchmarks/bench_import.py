"""`import qrels` of a large file: wall time and peak memory of the whole process.

    python benchmarks/bench_import.py [--lines 10000000] [--repeat 5]

The qrels (100 judged documents per query, grades 0-3) and their queries are generated as
`bench_large.py` makes them; the queries are imported once into a template store, and each timed
run imports the qrels into a fresh copy of it (one warm-up first). Medians of wall time and of
peak RSS (the child's own ru_maxrss, from os.wait4). The issue's targets: under 30 s and under
200 MiB for 10,000,000 lines.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import run_once  # noqa: E402
from bench_large import DATA, QRELKIT, generate  # noqa: E402


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    queries, qrels = generate(args.lines)
    template, db = DATA / f"template-{args.lines}.db", DATA / "import.db"
    if not template.exists():
        subprocess.run([*QRELKIT, "--db", str(template), "import", "queries", str(queries), "--create-strata"],
                       check=True, capture_output=True)  # fmt: skip
    samples = []
    for _ in range(args.repeat + 1):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(template, db)
        samples.append(run_once([*QRELKIT, "--db", str(db), "import", "qrels", str(qrels)]))
    samples = samples[1:]
    wall = statistics.median(t for t, _ in samples)
    peak = statistics.median(m for _, m in samples) / 1024
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    verdict = ("met" if wall < 30 and peak < 200 else "missed") if args.lines >= 10_000_000 else "(at 10M lines)"
    text = (
        f"| command | wall | peak RSS | target (10M lines) |\n|---|---:|---:|---|\n"
        f"| `import qrels`, {args.lines:,} lines ({args.lines // 100:,} queries x 100) | {wall:.1f} s | "
        f"{peak:.0f} MiB | under 30 s and 200 MiB: {verdict} |\n\n"
        f"Medians of {args.repeat} runs after a warm-up, each into a fresh copy of a store holding the queries.\n"
    )
    print(text)
    return text


if __name__ == "__main__":
    main()
