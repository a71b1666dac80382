"""Whole-process timing of a leaderboard: `qrelkit compare BASELINE RUN x 9` over 10,000 queries.

    python benchmarks/bench_leaderboard.py [--size medium] [--runs 10] [--resamples 10000] [--repeat 3]

The qrels and the baseline run come from `benchmarks/gen.py` (10,000 queries, 100 documents
each); the nine candidates are the baseline with its scores perturbed by seeded noise of growing
strength (so some are indistinguishable from it and some clearly worse, as a batch of rerankers
is). Every metric of the default set (nDCG@10, R@50, RR, P@10, AP, Success@3, Judged@10) is
compared, with coverage and bounds, 10,000 bootstrap and randomization resamples, and the
sensitivity report (its discriminative power tests all 45 pairs). Each correction is timed after
one untimed warm-up; wall time and peak RSS (the child's ru_maxrss, from os.wait4) are medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import run_once  # noqa: E402
from gen import generate  # noqa: E402


def candidates(base: Path, out: Path, count: int) -> list[Path]:
    """`count` runs: the baseline's scores plus noise of strength 0.05 * k (k = 1..count)."""
    lines = base.read_text().splitlines()
    fields = [line.split() for line in lines]
    scores = np.array([float(f[4]) for f in fields])
    spread = float(scores.std()) or 1.0
    paths = []
    for k in range(1, count + 1):
        rng = np.random.default_rng(k)
        noisy = scores + rng.normal(0, 0.05 * k * spread, size=len(scores))
        path = out / f"cand{k:02d}.run"
        with open(path, "w") as fh:
            for f, s in zip(fields, noisy, strict=True):
                fh.write(f"{f[0]} Q0 {f[2]} {f[3]} {s:.6f} cand{k:02d}\n")
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="medium")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corrections", nargs="+", default=["holm", "tukey"])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    args = ap.parse_args()
    folder = args.data / args.size
    folder.mkdir(parents=True, exist_ok=True)
    qrels, base = folder / "qrels.txt", folder / "run.txt"
    if not qrels.exists() or not base.exists():
        qrels, base = generate(args.size, folder)
    cands = candidates(base, folder, args.runs - 1)
    results = {}
    for correction in args.corrections:
        cmd = [
            sys.executable, "-m", "qrelkit", "compare", str(base), *map(str, cands), "--qrels", str(qrels),
            "--resamples", str(args.resamples), "--correction", correction, "--format", "json",
            "--out", str(folder / f"leaderboard-{correction}.json"),
        ]  # fmt: skip
        run_once(cmd)  # warm-up
        times = [run_once(cmd) for _ in range(args.repeat)]
        wall = statistics.median(t for t, _ in times)
        rss = statistics.median(m for _, m in times) / 1024
        board = json.loads((folder / f"leaderboard-{correction}.json").read_text())
        results[correction] = {"wall_s": round(wall, 2), "peak_rss_mib": round(rss), "queries": board["queries"]}
        shape = f"{args.runs} runs x {board['queries']:,} queries x {args.resamples:,} resamples"
        print(f"| {shape}, {len(board['metrics'])} metrics, --correction {correction} | {wall:.1f} s | {rss:.0f} MiB |")
    figures = HERE / "leaderboard.json"
    kept = json.loads(figures.read_text()) if figures.exists() else {}
    figures.write_text(json.dumps({**kept, **results}, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
