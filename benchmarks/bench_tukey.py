"""The statistics of many runs on the issue-17 size: 10 runs x 10,000 queries x 10,000 resamples x
7 metrics (the default set), in one process.

    python benchmarks/bench_tukey.py [--runs 10] [--queries 10000] [--resamples 10000] [--workers 2] [--pairs] [--power]

Prints the wall time of `randomized_tukey_hsd` and how many of its resamples were rechecked in
float64; with --pairs, of `pairwise_randomization_p` (the input of discriminative power); with
--power, of the power computations of a sensitivity report; and the process's peak RSS
(resource.getrusage). Values are generated, deterministic and shaped like metrics:
per-query difficulty shared by the runs plus run noise, continuous (nDCG, AP), quantised to tenths
(P@10) or reciprocal ranks (RR), so exact ties occur.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.scoring import multiple, power  # noqa: E402


def values(metrics: int, queries: int, runs: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 2, size=(1, queries, 1))
    run_skill = np.linspace(-0.03, 0.03, runs)[None, None, :]
    v = np.clip(difficulty + run_skill + rng.normal(0, 0.2, size=(metrics, queries, runs)), 0, 1)
    v[1] = np.round(v[1] * 10) / 10  # P@10-like
    v[2] = 1.0 / np.ceil(1.0 / np.maximum(v[2], 0.05))  # RR-like
    return v


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=7)
    parser.add_argument("--workers", type=int, default=multiple._WORKERS, help="threads of the Tukey test")
    parser.add_argument("--pairs", action="store_true", help="also time the paired tests of every pair")
    parser.add_argument("--power", action="store_true", help="also time MDE and queries needed per metric x 6 groups")
    args = parser.parse_args()
    v = values(args.metrics, args.queries, args.runs)
    multiple._WORKERS = args.workers
    samplers: list[multiple._Sampler] = []

    class Counted(multiple._Sampler):
        def __init__(self, *a: object) -> None:
            super().__init__(*a)  # type: ignore[arg-type]
            samplers.append(self)

    multiple._Sampler = Counted  # type: ignore[misc]
    start = time.perf_counter()
    p, exact = multiple.randomized_tukey_hsd(v, args.resamples, np.random.default_rng(0))
    tukey = time.perf_counter() - start
    rechecked = sum(x.rechecked for x in samplers)
    print(
        f"randomized_tukey_hsd {args.runs} runs x {args.queries} queries x {args.resamples} resamples "
        f"x {args.metrics} metrics, {args.workers} thread(s): {tukey:.2f} s "
        f"(exact={exact}, rechecked in float64: {rechecked})"
    )
    if args.pairs:
        start = time.perf_counter()
        multiple.pairwise_randomization_p(v, args.resamples, np.random.default_rng(1))
        print(
            f"pairwise_randomization_p ({args.runs * (args.runs - 1) // 2} pairs): {time.perf_counter() - start:.2f} s"
        )
    if args.power:
        start = time.perf_counter()
        for j in range(args.metrics):
            for group in range(6):
                n = args.queries // (group + 1)
                sd = float((v[j, :n, 1:] - v[j, :n, :1]).std(ddof=1))
                power.min_detectable_effect(sd, n)
                power.queries_needed(0.01, sd)
        print(f"min_detectable_effect + queries_needed, {args.metrics * 6} rows: {time.perf_counter() - start:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MiB")
    print(f"smallest Tukey p of the headline metric: {p[0][np.triu_indices(args.runs, 1)].min():.4f}")


if __name__ == "__main__":
    main()
