"""`qrelkit score` of two source trees on the same files, taking turns: is a change slower?

    git worktree add /tmp/before <commit>
    python benchmarks/bench_before_after.py --before /tmp/before/src [--after src] [--sizes medium msmarco]

Both trees run with this interpreter (PYTHONPATH set to each `src`), six measures (as
bench_score.py) with and without bounds, after one untimed round each; `--repeat` timed rounds,
the trees alternating which goes first, 1.5 s apart. Prints the median wall time and peak RSS of
each tree and the ratio after / before. Data: `benchmarks/gen.py`'s or the acceptance generator's
files under `--data` (as bench_score.py makes them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = "nDCG@10,R@50,RR,P@5,AP,Rprec"


def once(src: Path, qrels: Path, run: Path, bounds: bool) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one `qrelkit score` of `src`."""
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, "-m", "qrelkit", "score", "--qrels", str(qrels), str(run), "--metrics", METRICS]
    cmd += ["--format", "json"] + ([] if bounds else ["--no-bounds"])
    start = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the older tree's src folder")
    parser.add_argument("--after", type=Path, default=HERE.parent / "src")
    parser.add_argument("--sizes", nargs="+", default=["medium", "msmarco"])
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("RETRIEVAL_BENCH_DATA", "/tmp/retrieval-bench-data"))
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    trees = {"before": args.before, "after": args.after}
    print("| data | bounds | before | after | after / before |\n|---|---|---:|---:|---:|")
    for size in args.sizes:
        qrels, run = args.data / size / "qrels.trec", args.data / size / "run.trec"
        for bounds in (True, False):
            for src in trees.values():
                once(src, qrels, run, bounds)
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for i in range(args.repeat):
                for name in list(trees)[:: 1 if i % 2 == 0 else -1]:
                    time.sleep(1.5)
                    times[name].append(once(trees[name], qrels, run, bounds))
            med = {
                n: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v)) for n, v in times.items()
            }
            (tb, mb), (ta, ma) = med["before"], med["after"]
            yes = "yes" if bounds else "no"
            print(
                f"| {size} | {yes} | {tb:.2f} s, {mb:.0f} MiB | {ta:.2f} s, {ma:.0f} MiB | {ta / tb:.2f} |", flush=True
            )


if __name__ == "__main__":
    main()
