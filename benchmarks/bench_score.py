"""Whole-process timing of `qrelkit score` against pytrec_eval and ranx on the same files.

    python benchmarks/bench_score.py [--sizes medium msmarco] [--repeat 5] [--no-ranx] [--shared-only] [--load 2]

Generates the data with `benchmarks/gen.py` if missing, and with the acceptance data's generator
(`../shared/bench/gen.py`, or `--shared-gen PATH`) when it is there; runs every tool `--repeat`
times per data set, the tools taking turns (after two untimed rounds, which also let ranx's numba
cache compile), and prints the medians of wall time, of CPU time (user + system) and of peak
resident memory (GNU time's, `_common.run_timed`) as a Markdown table, with each qrelkit figure
as a ratio to the fastest peer, and the machine's load (`os.getloadavg`) before and after. The six measures are nDCG@10,
R@50, RR, P@5, AP and Rprec; qrelkit also computes judged coverage for each, and bounds unless
--no-bounds. Needs `pip install ranx` for the ranx column (skipped if it is not installed). C
trec_eval (`-c`, the same six measures) is measured when `TREC_EVAL=PATH` names its binary or a
`trec_eval` is on PATH, and skipped with a note otherwise. `--load 2` runs two CPU-bound processes
beside every tool the whole time (a busy CI machine: issue 31 asks for both figures).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import cpu_load, run_timed  # noqa: E402
from gen import generate  # noqa: E402

METRICS = "nDCG@10,R@50,RR,P@5,AP,Rprec"
TREC_EVAL_MEASURES = ["ndcg_cut.10", "recall.50", "recip_rank", "P.5", "map", "Rprec"]
"""The same six measures as trec_eval names them."""


def trec_eval_binary() -> str | None:
    """C trec_eval: `TREC_EVAL=PATH`, else a `trec_eval` on PATH; None (skipped) without either."""
    given = os.environ.get("TREC_EVAL")
    if given:
        if not os.access(given, os.X_OK):
            raise SystemExit(f"TREC_EVAL={given} is not an executable file")
        return given
    return shutil.which("trec_eval")


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
    binary = trec_eval_binary()
    if binary is not None:
        measures = [arg for m in TREC_EVAL_MEASURES for arg in ("-m", m)]
        found["trec_eval (C)"] = [binary, "-c", *measures, str(qrels), str(run)]
    return found


SHARED_GEN = HERE.parent.parent / "shared" / "bench" / "gen.py"
"""The acceptance data's generator, beside the project's folder when it is there (optional)."""


SETTLE = 1.5
"""Seconds between two timed runs: the kernel is still freeing the previous process's memory for
a moment after it exits (ranx peaks at 2.4 GiB), and the process started then pays for it in
system time (0.7-1.9 s for the same qrelkit command right after pytrec_eval, 0.7-0.8 s after a
pause of 2 s: 2.64-2.96 s against 2.04-2.23 s on the shared msmarco run)."""


def datasets(
    sizes: list[str], data: Path, shared_gen: Path | None, *, shared_only: bool = False
) -> dict[str, tuple[Path, Path]]:
    """Label -> (qrels, run): the project's generator for each size (unless `shared_only`) and,
    when `shared_gen` exists, the acceptance data's generator for the same sizes (labelled
    `shared <size>`, under `data/shared/<size>/`)."""
    found = {}
    for size in sizes:
        if shared_gen is not None and shared_gen.exists():
            folder = data / "shared"
            if not (folder / size / "run.trec").exists():
                subprocess.run(
                    [sys.executable, str(shared_gen), "--sizes", size, "--data-dir", str(folder)],
                    check=True,
                    capture_output=True,
                )
            found[f"shared {size}"] = (folder / size / "qrels.trec", folder / size / "run.trec")
        if shared_only:
            continue
        qrels, run = data / size / "qrels.trec", data / size / "run.trec"
        if not (qrels.exists() and run.exists()):
            generate(size, data)
        found[size] = (qrels, run)
    return found


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", default=["medium", "msmarco"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--shared-gen", type=Path, default=SHARED_GEN, help="the acceptance data's gen.py, if any")
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out (it takes 10-20x as long)")
    parser.add_argument("--json", type=Path, help="Also write the raw figures here.")
    parser.add_argument("--shared-only", action="store_true", help="only the acceptance generator's data")
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes beside it (issue 31: 2)")
    args = parser.parse_args(argv)
    with cpu_load(args.load):
        text = _measure(args)
    if args.load:
        text = f"With {args.load} CPU-bound processes beside every tool (`--load {args.load}`).\n\n" + text
    print(text)
    return text


def _measure(args: argparse.Namespace) -> str:
    results: dict[str, dict[str, dict[str, float]]] = {}
    load_before = os.getloadavg()
    for label, (qrels, run) in datasets(args.sizes, args.data, args.shared_gen, shared_only=args.shared_only).items():
        lines = sum(1 for _ in open(run, "rb"))
        results[label] = {}
        found = tools(qrels, run)
        if args.no_ranx:
            found.pop("ranx", None)
        for _ in range(2):  # warm-up: file cache, numba cache
            for cmd in found.values():
                run_timed(cmd)
        samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in found}
        for _ in range(args.repeat):  # the tools take turns, so a slow moment hits them alike
            for name, cmd in found.items():
                time.sleep(SETTLE)
                samples[name].append(run_timed(cmd))
        for name in found:
            results[label][name] = {
                "wall_s": statistics.median(s[0] for s in samples[name]),
                "cpu_s": statistics.median(s[1] for s in samples[name]),
                "peak_mib": statistics.median(s[2] for s in samples[name]) / 1024,
                "run_lines": lines,
            }
            print(f"{label:15} {name:28} {results[label][name]['wall_s']:7.2f} s "
                  f"{results[label][name]['cpu_s']:7.2f} s CPU "
                  f"{results[label][name]['peak_mib']:7.0f} MiB", file=sys.stderr)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    load = ", ".join(f"{a:.1f} -> {b:.1f}" for a, b in zip(load_before, os.getloadavg(), strict=True))
    text = markdown(results, args.repeat) + f"\nLoad (1, 5, 15 min) before -> after: {load}.\n\n" + targets(results)
    if trec_eval_binary() is None:
        text += "\nC trec_eval not measured: give TREC_EVAL=PATH or put a trec_eval on PATH.\n"
    return text


def markdown(results: dict[str, dict[str, dict[str, float]]], repeat: int) -> str:
    rows = [
        "| size | tool | wall (median) | CPU, user + sys (median) | peak RSS (median) | time / fastest peer "
        "| CPU / pytrec_eval | memory / fastest peer |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for size, by_tool in results.items():
        peers = {k: v for k, v in by_tool.items() if not k.startswith("qrelkit")}
        fastest = min(peers, key=lambda k: peers[k]["wall_s"])
        pytrec = by_tool.get("pytrec_eval")
        for name, r in by_tool.items():
            ratio = r["wall_s"] / peers[fastest]["wall_s"]
            mem = r["peak_mib"] / peers[fastest]["peak_mib"]
            cpu = f"{r['cpu_s'] / pytrec['cpu_s']:.2f}x" if pytrec else "-"
            rows.append(
                f"| {size} ({int(r['run_lines']):,} run lines) | {name} | {r['wall_s']:.2f} s | {r['cpu_s']:.2f} s | "
                f"{r['peak_mib']:.0f} MiB | {ratio:.2f}x {fastest} | {cpu} | {mem:.2f}x |"
            )
    return "\n".join(rows) + (
        f"\n\nMedians of {repeat} timed runs per cell after a warm-up, the tools taking turns; whole processes.\n"
    )


ISSUE_31_TIME = {"msmarco": (0.35, 0.5), "medium": (0.6, 0.85)}
"""Issue 31's wall-time targets (ratios to pytrec_eval's: without bounds, with) by data size; any
other size keeps the earlier ones (0.5x without bounds, 1x with)."""


def _time_targets(label: str) -> tuple[float, float]:
    return next((t for size, t in ISSUE_31_TIME.items() if size in label), (0.5, 1.0))


def targets(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """The issues' targets against pytrec_eval: wall time of parse + six metrics + coverage, and
    with bounds as well, at most `_time_targets` of its wall time (issue 31: medium 0.6x / 0.85x,
    msmarco 0.35x / 0.5x), and no more memory. Against C trec_eval (when it was measured): no more
    peak memory than it, with bounds or without; and CPU time (user + system) no more than
    pytrec_eval's, with bounds or without (issue 31)."""
    rows = ["| data | coverage: time (target) | coverage: memory (target 1x) | with bounds: time (target) "
            "| memory vs C trec_eval (target 1x: without / with bounds) "
            "| CPU vs pytrec_eval (target 1x: without / with bounds) |",
            "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for label, by_tool in results.items():
        peer = by_tool.get("pytrec_eval")
        if peer is None:
            continue
        cov, bounds = by_tool["qrelkit (coverage)"], by_tool["qrelkit (coverage + bounds)"]
        t, m, b = cov["wall_s"] / peer["wall_s"], cov["peak_mib"] / peer["peak_mib"], bounds["wall_s"] / peer["wall_s"]
        t_max, b_max = _time_targets(label)
        c = by_tool.get("trec_eval (C)")
        vs_c = "not measured"
        if c is not None:
            without, with_bounds = cov["peak_mib"] / c["peak_mib"], bounds["peak_mib"] / c["peak_mib"]
            vs_c = f"{_verdict(without, 1.0)} / {_verdict(with_bounds, 1.0)}"
        cpu = f"{_verdict(cov['cpu_s'] / peer['cpu_s'], 1.0)} / {_verdict(bounds['cpu_s'] / peer['cpu_s'], 1.0)}"
        rows.append(
            f"| {label} | {_verdict(t, t_max)} (≤ {t_max}x) | {_verdict(m, 1.0)} | {_verdict(b, b_max)} (≤ {b_max}x) "
            f"| {vs_c} | {cpu} |"
        )
    return "\n".join(rows) + "\n"


def _verdict(ratio: float, limit: float) -> str:
    return f"met: {ratio:.2f}x" if ratio <= limit else f"**missed: {ratio:.2f}x**"


if __name__ == "__main__":
    main()
