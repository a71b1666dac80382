"""Start-up: whole-process wall and CPU time of the commands that should start at once.

    python benchmarks/bench_startup.py [--repeat 21]

Times `python -c pass` (the floor), `qrelkit --version`, `qrelkit --help`, and `qrelkit score` of a
10-line run against a 10-line qrels file (`--format json`, the six measures of bench_score.py),
beside pytrec_eval scoring the same files (`peers/pytrec_eval_score.py`) and C trec_eval when a
binary is given by `TREC_EVAL=PATH` or found on PATH. The tools take turns, after one untimed
round; medians of wall time and of CPU time (user + system, the child's own rusage from os.wait4).
Issue 31's targets: `--version` and `--help` under 80 ms, the small `score` under 150 ms.

qrelkit's modules are byte-compiled first (`compileall`, into `__pycache__`), as pip does when it
installs a package: with PYTHONDONTWRITEBYTECODE set and no `.pyc` beside an editable install's
sources, every start compiles the ~60 modules `score` imports again (~110 ms of the 10-line score).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = "nDCG@10,R@50,RR,P@5,AP,Rprec"
TARGETS = {"qrelkit --version": 0.080, "qrelkit --help": 0.080, "qrelkit score (10 lines)": 0.150}


def _qrelkit() -> list[str]:
    """The `qrelkit` console script beside this Python (what a user runs), else `python -m qrelkit`."""
    script = Path(sys.executable).with_name("qrelkit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "qrelkit"]


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child; a failure raises with its stderr."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {child.stderr.read().decode() if child.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def commands(folder: Path) -> dict[str, list[str]]:
    qrels, run = folder / "small.qrels", folder / "small.run"
    qrels.write_text("".join(f"q{i} 0 d{i} {i % 4}\n" for i in range(10)))
    run.write_text("".join(f"q{i % 5} Q0 d{i} {i // 5 + 1} {10 - i} r\n" for i in range(10)))
    qrelkit = _qrelkit()
    found = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "qrelkit --version": [*qrelkit, "--version"],
        "qrelkit --help": [*qrelkit, "--help"],
        "qrelkit score (10 lines)": [
            *qrelkit,
            "score",
            str(run),
            "--qrels",
            str(qrels),
            "--format",
            "json",
            "--metrics",
            METRICS,
        ],  # fmt: skip
        "pytrec_eval (10 lines)": [sys.executable, str(HERE / "peers" / "pytrec_eval_score.py"), str(qrels), str(run)],
    }
    trec_eval = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if trec_eval:
        # -c: a query of the qrels that the run lacks scores 0 (trec_eval 10 otherwise stops at it, exit 4)
        found["trec_eval 10 (10 lines)"] = [trec_eval, "-c", "-m", "all_trec", str(qrels), str(run)]
    return found


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=21)
    args = ap.parse_args(argv)
    import qrelkit

    compileall.compile_dir(Path(qrelkit.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands(Path(tmp))
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
        for round_ in range(args.repeat + 1):
            for name, cmd in cmds.items():
                sample = run_once(cmd)
                if round_:
                    samples[name].append(sample)
    lines = ["| command | wall (median) | CPU (median) | target |", "|---|---:|---:|---|"]
    for name, got in samples.items():
        wall = statistics.median(w for w, _ in got)
        cpu = statistics.median(c for _, c in got)
        target = TARGETS.get(name)
        verdict = "" if target is None else f"< {target * 1000:.0f} ms: {'met' if wall < target else 'missed'}"
        lines.append(f"| `{name}` | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms | {verdict} |")
    if not any(name.startswith("trec_eval") for name in samples):
        lines.append("\n(no trec_eval binary: give one with TREC_EVAL=PATH for its column)")
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
