"""Scoring the same labels from a qrels file, from the store, and from a frozen version.

    python benchmarks/bench_sources.py [--repeat 5]

Data: `benchmarks/gen.py --size medium` (10,000 queries, 261,301 qrels lines, 980,377 run
lines). The qrels are imported into a fresh store (its queries made from the qrels' query ids)
and frozen; `qrelkit score` with six measures, coverage and bounds then runs as its own process
against each source. Medians of wall time and peak RSS (os.wait4) after one warm-up; the ratio
is to the qrels file.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import run_once  # noqa: E402
from gen import generate  # noqa: E402

METRICS = "nDCG@10,R@50,RR,P@5,AP,Rprec"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--size", default="medium", help="benchmarks/gen.py size")
    ap.add_argument("--data", type=Path, default=HERE / "data" / "sources")
    args = ap.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    qrels, run = generate(args.size, args.data)
    qk = [sys.executable, "-m", "qrelkit"]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "s.db"
        ids = sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})
        (Path(tmp) / "q.tsv").write_text("".join(f"{q}\tquery {q}\ts\n" for q in ids))
        steps = [
            ["init"],
            ["import", "queries", "--create-strata", str(Path(tmp) / "q.tsv")],
            ["import", "qrels", str(qrels)],
            ["freeze", "bench", "1", "--out", str(Path(tmp) / "sets")],
        ]
        for step in steps:
            subprocess.run([*qk, "--db", str(db), *step], check=True, capture_output=True)
        out = ["--metrics", METRICS, "--format", "json", "--out", str(Path(tmp) / "r.json")]
        sources = {
            "`--qrels FILE`": [*qk, "score", str(run), "--qrels", str(qrels), *out],
            "the store (`--db`)": [*qk, "--db", str(db), "score", str(run), *out],
            "a frozen version (`--golden DIR`)": [
                *qk, "score", str(run), "--golden", str(Path(tmp) / "sets" / "bench" / "1"), *out,
            ],
        }  # fmt: skip
        figures = {}
        for name, cmd in sources.items():
            runs = [run_once(cmd) for _ in range(args.repeat + 1)][1:]
            figures[name] = (statistics.median(t for t, _ in runs), statistics.median(m for _, m in runs) / 1024)
    base_t, base_m = figures["`--qrels FILE`"]
    rows = [f"| labels from (`gen.py --size {args.size}`) | wall | ratio | peak RSS | ratio | target (1.5x) |",
            "|---|---:|---:|---:|---:|---|"]  # fmt: skip
    for name, (t, m) in figures.items():
        met = "met" if t / base_t <= 1.5 and m / base_m <= 1.5 else "missed"
        rows.append(f"| {name} | {t:.2f} s | {t / base_t:.2f}x | {m:.0f} MiB | {m / base_m:.2f}x | {met} |")
    text = "\n".join(rows) + f"\n\nMedians of {args.repeat} runs after a warm-up; whole processes.\n"
    print(text)
    return text


if __name__ == "__main__":
    main()
