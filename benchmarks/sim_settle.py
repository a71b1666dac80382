"""Judging until a comparison is settled, replayed on hidden full labels (issue 27, items 3-4).

    python benchmarks/sim_settle.py [--pairs 3] [--step 25] [--depth 20] [--json F] [--png F]

The data and the runs are `sim_replay`'s (the TREC 2024 RAG topics under tests/data, and the
shared generator's set when ../shared is there): --runs systems of graded quality, each query's
pool every run's top --depth, depth pooling's budget B the whole pool. The comparisons are run
pairs whose nDCG@10 differs clearly under the full labels (|mean delta| > 2 SE, paired over the
queries), up to --pairs of them spread from the least clear to the clearest.

For each comparison, each order starts from no label and judges the pool's pairs in its order,
the queue recomputed after every --step judgments (the adaptive orders re-order as labels
arrive). After every step the stopping rule (`scoring.settle.delta_range`, the exact range of the
mean delta over every labeling of the unlabeled documents both runs retrieve) is asked whether
the comparison is settled:

    sign      the sign of the mean delta can no longer change
    settled   the sign and the paired t-test's verdict can no longer change (`DeltaRange.settled`)

The figure per order is the judgments made when that first holds (to the nearest --step), or
"never" within the budget. The orders: depth, impact, rbp and settle (`--for` the comparison,
`--metric nDCG@10`). Issue 27's target: settle reaches a settled verdict with at most 40% of the
judgments depth order needs. The mean delta is over queries, unweighted (as `qrelkit settled`
and `compare`'s headline delta), so the traffic weights enter only the impact order.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sim_replay  # noqa: E402

from qrelkit.scoring.arrays import RunLists  # noqa: E402
from qrelkit.scoring.names import parse_measure  # noqa: E402
from qrelkit.scoring.orders import OrderInput, order_entries  # noqa: E402
from qrelkit.scoring.settle import DeltaRange, QueryCase, Scale, delta_range  # noqa: E402

ORDERS = ("depth", "impact", "rbp", "settle")
METRIC = "nDCG@10"
MAX_GRADE = 3
TARGET = 0.4
"""Issue 27: settle needs at most this share of the judgments depth order needs."""


def clear_pairs(values: np.ndarray, n: int) -> list[tuple[int, int, float, float]]:
    """(i, j, mean delta j - i, delta / SE) of the run pairs with |delta| > 2 SE, `n` of them spread
    from the least clear to the clearest."""
    found = []
    queries = values.shape[1]
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            d = values[j] - values[i]
            se = d.std(ddof=1) / np.sqrt(queries)
            if se > 0 and abs(d.mean()) > 2 * se:
                found.append((i, j, float(d.mean()), float(d.mean() / se)))
    found.sort(key=lambda p: abs(p[3]))
    if len(found) <= n:
        return found
    picks = sorted({round(k * (len(found) - 1) / max(n - 1, 1)) for k in range(n)})
    return [found[k] for k in picks]


def verdict(a: RunLists, b: RunLists, labels: dict[str, dict[str, int]], queries: list[str]) -> DeltaRange:
    cases = [QueryCase(q, a.ranked.get(q, []), b.ranked.get(q, []), labels.get(q, {})) for q in queries]
    return delta_range(parse_measure(METRIC), cases, Scale(MAX_GRADE))


def replay_pair(
    hidden: dict[str, dict[str, int]],
    runs: list[RunLists],
    pooled: list[RunLists],
    best: dict[tuple[str, str], int],
    pair: tuple[int, int],
    order: str,
    step: int,
    strata: dict[str, str],
    weights: dict[str, float],
    seed: int,
) -> dict[str, Any]:
    queries = sorted(hidden)
    a, b = runs[pair[0]], runs[pair[1]]
    labels: dict[str, dict[str, int]] = {}
    made, sign_at, settled_at = 0, None, None
    budget = len(best)
    while True:
        r = verdict(a, b, labels, queries)
        if sign_at is None and r.sign != "open":
            sign_at = made
        if r.settled:
            settled_at = made
            break
        if made >= budget:
            break
        entries = sim_replay.unlabeled(best, labels)
        impacts = sim_replay.impacts_of(order, entries, pooled, labels, strata, weights)
        x = OrderInput(
            entries=entries,
            runs=pooled if order != "settle" else runs,
            labels=labels,
            seed=seed,
            impacts=impacts,
            comparisons=[(a.name, b.name)] if order == "settle" else (),
            metric=METRIC if order == "settle" else None,
            max_grade=MAX_GRADE,
        )
        for item in order_entries(x, order)[: min(step, budget - made)]:
            labels.setdefault(item.query_id, {})[item.doc_id] = hidden[item.query_id][item.doc_id]
            made += 1
    return {"sign_at": sign_at, "settled_at": settled_at, "final_sign": r.sign, "final_test": r.significance}


def run_set(name: str, hidden: dict[str, dict[str, int]], args: argparse.Namespace) -> dict[str, Any]:
    queries = sorted(hidden)
    rng = np.random.default_rng(args.seed)
    strata = {q: str(rng.choice(list(sim_replay.SHARE), p=list(sim_replay.SHARE.values()))) for q in queries}
    weights = {"navigational": 1.0, "entity": 1.0, "how-to": 1.0}
    runs = sim_replay.make_runs(hidden, args.runs, args.seed)
    pooled, best = sim_replay.pool(runs, args.depth)
    values, _ = sim_replay.scores(runs, hidden, queries)
    pairs = clear_pairs(values, args.pairs)
    out: dict[str, Any] = {"queries": len(queries), "runs": len(runs), "pool_depth": args.depth}
    out["budget"] = len(best)
    out["step"] = args.step
    out["comparisons"] = []
    for i, j, delta, z in pairs:
        row: dict[str, Any] = {"a": runs[i].name, "b": runs[j].name, "delta": delta, "z": z, "orders": {}}
        for order in ORDERS:
            t0 = time.perf_counter()
            row["orders"][order] = replay_pair(
                hidden, runs, pooled, best, (i, j), order, args.step, strata, weights, args.seed
            )
            row["orders"][order]["seconds"] = round(time.perf_counter() - t0, 1)
            print(f"  {name} {runs[i].name}-{runs[j].name} {order:<7} {row['orders'][order]}", flush=True)
        out["comparisons"].append(row)
    return out


def ratio(mine: int | None, depth: int | None) -> float | None:
    return None if mine is None or not depth else mine / depth


def table(name: str, result: dict[str, Any]) -> str:
    """Per comparison and order: judgments until the sign, and until the sign and the test, are settled."""
    head = (
        f"**{name}** ({result['queries']} queries, {result['runs']} runs pooled to depth {result['pool_depth']}: "
        f"budget {result['budget']} judgments, the stopping rule asked every {result['step']}); each cell: "
        "judgments until the sign is settled / until the sign and the t-test are settled (never: not within "
        "the budget); settle's share of depth's in brackets\n\n"
    )
    lines = ["| comparison (delta, z) | " + " | ".join(ORDERS) + " |", "|---|" + "---|" * len(ORDERS)]
    for c in result["comparisons"]:
        depth = c["orders"]["depth"]
        cells = []
        for order in ORDERS:
            o = c["orders"][order]
            cell = " / ".join("never" if o[k] is None else str(o[k]) for k in ("sign_at", "settled_at"))
            if order == "settle":
                shares = [ratio(o[k], depth[k]) for k in ("sign_at", "settled_at")]
                cell += " (" + " / ".join("-" if s is None else f"{s:.0%}" for s in shares) + ")"
            cells.append(cell)
        lines.append(f"| {c['a']} vs {c['b']} ({c['delta']:+.3f}, {c['z']:.1f}) | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def png(results: dict[str, dict[str, Any]], path: Path) -> None:
    """Bars: per comparison, each order's judgments until settled (sign and test), as a share of the budget."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(7 * len(results), 3.8), squeeze=False)
    for ax, (name, result) in zip(axes[0], results.items(), strict=True):
        labels = [f"{c['a']}-{c['b']}\nz={c['z']:.1f}" for c in result["comparisons"]]
        width = 0.8 / len(ORDERS)
        for k, order in enumerate(ORDERS):
            heights = [
                (c["orders"][order]["settled_at"] or result["budget"]) / result["budget"] for c in result["comparisons"]
            ]
            ax.bar(np.arange(len(labels)) + k * width, heights, width, label=order)
        ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels, fontsize=8)
        ax.set_ylabel("share of the budget until settled", fontsize=8)
        ax.set_title(f"{name}: judgments until the comparison is settled (1.0: never)", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3, help="Clear comparisons per data set.")
    parser.add_argument("--depth", type=int, default=20, help="Pool depth of every run.")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--step", type=int, default=25, help="Judgments between two askings of the rule.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shared-queries", type=int, default=60)
    parser.add_argument("--sets", default="trec-rag24,shared-gen", help="Data sets, comma-separated.")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--png", type=Path)
    args = parser.parse_args()
    wanted = args.sets.split(",")
    load = {"trec-rag24": sim_replay.trec_rag24, "shared-gen": lambda: sim_replay.shared_gen(args.shared_queries)}
    sets = {name: load[name]() for name in wanted}
    results = {}
    for name, hidden in sets.items():
        if hidden is None:
            print(f"{name}: skipped (../shared/bench/gen.py not found)")
            continue
        results[name] = run_set(name, hidden, args)
        print(table(name, results[name]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.png:
        png(results, args.png)


if __name__ == "__main__":
    main()
