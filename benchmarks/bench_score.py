"""Whole-process timing of `qrelkit score` against pytrec_eval and ranx on the same files.

    python benchmarks/bench_score.py [--sizes medium msmarco] [--repeat 5]

Generates the data with `benchmarks/gen.py` if missing, runs every tool `--repeat` times per size
(after one untimed warm-up, which also lets ranx's numba cache compile), and prints the medians of
wall time and of peak resident memory (each child's own ru_maxrss, from os.wait4) as a Markdown
table, with each qrelkit figure as a ratio to the fastest peer. The six measures are nDCG@10,
R@50, RR, P@5, AP and Rprec; qrelkit also computes judged coverage for each, and bounds unless
--no-bounds. Needs `pip install ranx` for the ranx column (skipped if it is not installed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import run_once  # noqa: E402
from gen import generate  # noqa: E402

METRICS = "nDCG@10,R@50,RR,P@5,AP,Rprec"


def tools(qrels: Path, run: Path) -> dict[str, list[str]]:
    py = sys.executable
    qrelkit = [
        py,
        "-m",
        "qrelkit",
        "score",
        str(run),
        "--qrels",
        str(qrels),
        "--format",
        "json",
        "--metrics",
        METRICS,
    ]
    found = {
        "qrelkit (coverage)": [*qrelkit, "--no-bounds"],
        "qrelkit (coverage + bounds)": qrelkit,
        "pytrec_eval": [py, str(HERE / "peers" / "pytrec_eval_score.py"), str(qrels), str(run)],
    }
    if importlib.util.find_spec("ranx"):
        found["ranx"] = [py, str(HERE / "peers" / "ranx_score.py"), str(qrels), str(run)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", default=["medium", "msmarco"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--json", type=Path, help="Also write the raw figures here.")
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, float]]] = {}
    for size in args.sizes:
        qrels, run = args.data / size / "qrels.trec", args.data / size / "run.trec"
        if not (qrels.exists() and run.exists()):
            generate(size, args.data)
        lines = sum(1 for _ in open(run, "rb"))
        results[size] = {}
        for name, cmd in tools(qrels, run).items():
            run_once(cmd)  # warm-up: file cache, numba cache
            samples = [run_once(cmd) for _ in range(args.repeat)]
            results[size][name] = {
                "wall_s": statistics.median(s[0] for s in samples),
                "peak_mib": statistics.median(s[1] for s in samples) / 1024,
                "run_lines": lines,
            }
            print(
                f"{size:8} {name:28} {results[size][name]['wall_s']:7.2f} s {results[size][name]['peak_mib']:7.0f} MiB",
                file=sys.stderr,
            )
    print(markdown(results, args.repeat))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def markdown(results: dict[str, dict[str, dict[str, float]]], repeat: int) -> str:
    rows = [
        "| size | tool | wall (median) | peak RSS (median) | time / fastest peer | memory / that peer |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for size, by_tool in results.items():
        peers = {k: v for k, v in by_tool.items() if not k.startswith("qrelkit")}
        fastest = min(peers, key=lambda k: peers[k]["wall_s"])
        for name, r in by_tool.items():
            ratio = r["wall_s"] / peers[fastest]["wall_s"]
            mem = r["peak_mib"] / peers[fastest]["peak_mib"]
            rows.append(
                f"| {size} ({int(r['run_lines']):,} run lines) | {name} | {r['wall_s']:.2f} s | "
                f"{r['peak_mib']:.0f} MiB | {ratio:.2f}x {fastest} | {mem:.2f}x |"
            )
    return "\n".join(rows) + f"\n\n{repeat} timed runs per cell after one warm-up; whole processes.\n"


if __name__ == "__main__":
    main()
