"""Time `qrelkit settled` and `qrelkit queue --order settle` on the demo set and a synthetic set.

The demo: `qrelkit demo --keep` (the bundled pydocs set, its two runs pooled at depth 10). The
synthetic set: `gen.py --size small` (1,000 queries, runs of 100) as run A, and run B the same
documents with their scores jittered (Gaussian, SD 1, seeded), both pooled at depth 10 into a
store. Per command the median wall and CPU (user + sys, of the child) over --repeat runs, and per
measure how many queries the enumeration covered exactly (the rest took the outer interval).

    python benchmarks/bench_settle.py [--repeat 3] [--metrics nDCG@10,P@10,R@50,RR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
QRELKIT = [sys.executable, "-m", "qrelkit"]


def cpu_of(cmd: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + sys, from the children's resource usage) of one child, and its
    standard output; a failure raises with its stderr."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.decode()


def median_of(cmd: list[str], repeat: int) -> tuple[float, float, str]:
    runs = [cpu_of(cmd) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2]


def jittered(run: Path, out: Path, seed: int = 7) -> Path:
    rng = np.random.default_rng(seed)
    with open(run) as src, open(out, "w") as dst:
        for line in src:
            f = line.split()
            if f:
                dst.write(f"{f[0]} Q0 {f[2]} 0 {float(f[4]) + rng.normal(0, 1.0):.4f} B\n")
    return out


def synthetic_store(folder: Path) -> tuple[Path, Path, Path, Path]:
    from gen import generate

    qrels, run_a = generate("small", folder)
    run_b = jittered(run_a, folder / "small" / "runB.trec")
    db = folder / "synthetic.db"
    queries = sorted({line.split()[0] for line in open(qrels)} | {line.split()[0] for line in open(run_a)})
    qfile = folder / "queries.tsv"
    qfile.write_text("".join(f"{q}\tquery {q}\tweb\n" for q in queries))
    for args in (
        ["init"],
        ["strata", "set", "web", "1"],
        ["import", "queries", str(qfile)],
        ["import", "qrels", str(qrels), "--skip-unknown"],
        ["pool", str(run_a), str(run_b), "--depth", "10"],
    ):
        subprocess.run([*QRELKIT, "--db", str(db), *args], check=True, capture_output=True)
    return db, qrels, run_a, run_b


def measure(name: str, db: Path, a: Path, b: Path, metrics: list[str], repeat: int) -> dict[str, object]:
    base = [*QRELKIT, "--db", str(db)]
    out: dict[str, object] = {}
    for m in metrics:
        wall, cpu, text = median_of([*base, "settled", str(a), str(b), "--metric", m, "--format", "json"], repeat)
        row = json.loads(text)["rows"][0]
        out[f"settled {m}"] = {
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "exact_queries": row["exact_queries"],
            "queries": row["queries"], "open_pairs": row["open_pairs"], "sign": row["sign"],
            "significance": row["significance"], "to_settle_sign": row["to_settle_sign"], "to_settle": row["to_settle"],
        }  # fmt: skip
        print(f"{name:<10} settled {m:<8} {wall:7.2f} s wall {cpu:7.2f} s cpu  {out[f'settled {m}']}", flush=True)
        for extra in ([], ["--until", "settled"]):
            cmd = [*base, "queue", "--order", "settle", "--for", f"{a},{b}", "--metric", m, "--format", "tsv", *extra]
            wall, cpu, text = median_of(cmd, repeat)
            key = f"queue settle {m}" + (" --until settled" if extra else "")
            out[key] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "pairs": len(text.splitlines())}
            print(f"{name:<10} {key:<40} {wall:7.2f} s wall {cpu:7.2f} s cpu  {out[key]}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--metrics", default="nDCG@10,P@10,R@50,RR")
    parser.add_argument("--only", choices=["demo", "synthetic"], help="One of the two sets only.")
    parser.add_argument("--json", type=Path, help="Write the figures here.")
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    from qrelkit.scoring.settle import LABELINGS_LIMIT, MULTISETS_LIMIT

    print(f"nDCG: exact up to {MULTISETS_LIMIT:,} gain multisets of the unlabeled documents in either top k per")
    print(f"query (64 documents on 0..3); Rprec exact; AP: every labeling up to {LABELINGS_LIMIT:,} (12 binary")
    print("documents), past that bounded R by R (sound)")
    print(f"load: {os.getloadavg()}")
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.only in (None, "demo"):
            db = folder / "demo.db"
            subprocess.run([*QRELKIT, "demo", "--keep", str(db)], check=True, capture_output=True)
            runs = HERE.parent / "goldensets" / "pydocs" / "runs"
            results["demo"] = measure("demo", db, runs / "bm25.run", runs / "bm25-title.run", metrics, args.repeat)
        if args.only in (None, "synthetic"):
            db, _, a, b = synthetic_store(folder)
            results["synthetic"] = measure("synthetic", db, a, b, metrics, args.repeat)
    print(f"load: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
