"""Judging until comparisons are settled, replayed on hidden full labels (issue 27, items 3-4).

    python benchmarks/sim_settle.py [--pairs 3] [--step 25] [--depth 20] [--seed 7] [--json F] [--png F]

The data and the runs are `sim_replay`'s (the TREC 2024 RAG topics under tests/data, and the
shared generator's set when ../shared is there): --runs systems of graded quality, each query's
pool every run's top --depth, depth pooling's budget B the whole pool. Every query of the set is
part of every comparison from the start (the team's query set), labeled or not.

Each order starts from no label and judges the pool's pairs in its order, the queue recomputed
after every --step judgments (the adaptive orders re-order as labels arrive); after every single
judgment the stopping rule (`scoring.settle`, the exact range of each query's delta over every
labeling of the unlabeled documents both runs retrieve, as `qrelkit settled` asks it) says of each
comparison whether

    sign      the sign of the mean delta can no longer change
    settled   the sign and the paired t-test's verdict can no longer change (`DeltaRange.settled`)

Two figures per order (depth; impact under uniform and under head traffic; rbp; settle):

    clear pairs  up to --pairs run pairs whose nDCG@10 differs clearly under the full labels
                 (|mean delta| > 2 SE, paired over the queries), from the least clear to the
                 clearest: the judgments until each is settled (settle told `--for` that pair)
    every pair   all pairs of the --runs runs: how many are settled at 20%, 50% and 100% of B, and
                 the judgments at which every pair is (settle told `--for` all of them)

Orders other than settle do not depend on the comparisons, so one replay of each gives both
figures. Issue 27's target: settle settles a clear pair with at most 40% of the judgments depth
order needs. The mean delta is over queries, unweighted (as `qrelkit settled` and `compare`'s
headline delta), so the traffic enters only the impact order. Deterministic under --seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sim_replay  # noqa: E402
from sim_queue import TRAFFIC  # noqa: E402

from qrelkit.scoring.arrays import RunLists  # noqa: E402
from qrelkit.scoring.names import parse_measure  # noqa: E402
from qrelkit.scoring.orders import OrderInput, order_entries  # noqa: E402
from qrelkit.scoring.settle import (  # noqa: E402
    DeltaRange,
    QueryCase,
    QueryRange,
    Scale,
    delta_range,
    query_range,
    sign_verdict,
    significance_verdict,
)
from qrelkit.scoring.settle_order import Matchup, below_both, replay  # noqa: E402

ORDERS = {
    "depth": ("depth", None),
    "impact (uniform)": ("impact", "uniform"),
    "impact (head)": ("impact", "head"),
    "rbp": ("rbp", None),
    "settle": ("settle", None),
}
"""Column -> (queue order, traffic of the impact order)."""
METRIC = "nDCG@10"
MAX_GRADE = 3
TARGET = 0.4
"""Issue 27: settle needs at most this share of the judgments depth order needs."""
MARKS = (0.2, 0.5, 1.0)
Labels = dict[str, dict[str, int]]


@dataclass(frozen=True)
class World:
    """One data set's hidden labels, runs, pool and strata."""

    hidden: Labels
    queries: list[str]
    runs: list[RunLists]
    pooled: list[RunLists]
    best: dict[tuple[str, str], int]
    strata: dict[str, str]
    seed: int
    step: int


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


def matchup(w: World, pair: tuple[int, int], labels: Labels) -> Matchup:
    """Runs pair[0] (A) and pair[1] (B) over every query, at the labels so far."""
    a, b = w.runs[pair[0]], w.runs[pair[1]]
    cases = [QueryCase(q, a.ranked.get(q, []), b.ranked.get(q, []), labels.get(q, {})) for q in w.queries]
    return Matchup(a.name, b.name, cases)


def verdict(w: World, pair: tuple[int, int], labels: Labels) -> DeltaRange:
    return delta_range(parse_measure(METRIC), matchup(w, pair, labels).cases, Scale(MAX_GRADE))


def queue(w: World, column: str, labels: Labels, focus: list[tuple[int, int]]) -> list[tuple[str, str]]:
    """The pool's unlabeled pairs in the column's order (settle: for the `focus` pairs)."""
    order, traffic = ORDERS[column]
    entries = sim_replay.unlabeled(w.best, labels)
    weights = TRAFFIC[traffic or "uniform"]
    x = OrderInput(
        entries=entries,
        runs=w.pooled if order != "settle" else w.runs,
        labels=labels,
        seed=w.seed,
        impacts=sim_replay.impacts_of(order, entries, w.pooled, labels, w.strata, weights),
        comparisons=[(w.runs[i].name, w.runs[j].name) for i, j in focus] if order == "settle" else (),
        metric=METRIC if order == "settle" else None,
        max_grade=MAX_GRADE,
    )
    return [(item.query_id, item.doc_id) for item in order_entries(x, order)]


def judge_until(w: World, column: str, pairs: list[tuple[int, int]]) -> dict[str, Any]:
    """Judge in the column's order until every pair is settled or the budget is spent: per pair the
    judgments until its sign, and both verdicts, are settled (None: not within the budget), the
    verdicts at the end, and the pairs judged, in order."""
    m, scale = parse_measure(METRIC), Scale(MAX_GRADE)
    budget = len(w.best)
    labels: Labels = {}
    sign: list[int | None] = [None] * len(pairs)
    done: list[int | None] = [None] * len(pairs)
    made, judged = 0, []
    t0 = time.perf_counter()
    while True:
        open_ = [k for k in range(len(pairs)) if done[k] is None]
        room = min(w.step, budget - made) if open_ else 0
        chunk = queue(w, column, labels, [pairs[k] for k in open_])[:room] if room else []
        grades = {(q, d): w.hidden[q][d] for q, d in chunk}
        # the rule after every judgment of the chunk (at 0: before any, on the first pass)
        got = replay(m, [matchup(w, pairs[k], labels) for k in open_], scale, chunk, grades)
        for n, k in enumerate(open_):
            if sign[k] is None and got.sign[n] is not None:
                sign[k] = made + got.sign[n]
            if got.settled[n] is not None:
                done[k] = made + got.settled[n]
        if not chunk:
            break
        for q, d in chunk:
            labels.setdefault(q, {})[d] = grades[(q, d)]
        judged += chunk
        made += len(chunk)
    final = [verdict(w, p, labels) for p in pairs]
    return {
        "sign_at": sign,
        "settled_at": done,
        "final_sign": [r.sign for r in final],
        "final_test": [r.significance for r in final],
        "judged": judged,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def oracle(w: World, pair: tuple[int, int], sign: int) -> dict[str, int | None]:
    """A reference no order can reach: a greedy that knows every hidden grade. Each judgment it
    takes the pool pair whose grade moves the interval's end nearest the full labels' `sign` most
    (the high end when A is better), once the sign is settled (or when nothing moves that end) the
    one that narrows its query's range most (when no single label narrows any, one in the widest
    query), until settled or nothing is left to judge. Per query the candidates are its open
    documents of either top k, and one tail document per grade (below k in both runs they move
    only the ideal DCG, alike)."""
    m, scale = parse_measure(METRIC), Scale(MAX_GRADE)
    cases = {c.query_id: c for c in matchup(w, pair, {}).cases}
    ranges = {q: query_range(m, c, scale) for q, c in cases.items()}

    def moves(q: str) -> dict[str, tuple[float, float, QueryRange]]:
        case, now, out = cases[q], ranges[q], {}
        tail, seen = below_both(m, case), set()
        for d in now.open_docs:
            g = w.hidden[q][d] if (q, d) in w.best else None
            if g is None or (d in tail and g in seen):
                continue
            seen |= {g} if d in tail else set()
            r = query_range(m, replace(case, labels={**case.labels, d: g}), scale)
            out[d] = ((now.high - r.high) if sign < 0 else (r.low - now.low), now.width - r.width, r)
        return out

    made, sign_at, at = 0, None, {q: moves(q) for q in cases}
    while True:
        lows, highs = np.array([r.low for r in ranges.values()]), np.array([r.high for r in ranges.values()])
        if sign_at is None and sign_verdict(float(lows.mean()), float(highs.mean())) != "open":
            sign_at = made
        if sign_at is not None and significance_verdict(lows, highs) != "open":
            return {"sign_at": sign_at, "settled_at": made}
        key = 0 if sign_at is None else 1
        best = max(((at[q][d][key], at[q][d][1], q, d) for q in at for d in at[q]), default=None)
        if best is not None and best[0] <= 0:  # nothing moves that end: the widest narrowing
            best = max((at[q][d][1], 0.0, q, d) for q in at for d in at[q])
        if best is not None and best[0] <= 0:  # no one label narrows: one of the widest query's
            best = max((ranges[q].width, 0.0, q, d) for q in at for d in at[q])
        if best is None:
            return {"sign_at": sign_at, "settled_at": None}
        q, d = best[2], best[3]
        cases[q] = replace(cases[q], labels={**cases[q].labels, d: w.hidden[q][d]})
        ranges[q], made = at[q][d][2], made + 1
        at[q] = moves(q)


def every(at: list[int | None]) -> int | None:
    """When every pair was settled (None: some never were)."""
    return None if any(x is None for x in at) else max(at, default=0)


def summary(result: dict[str, Any], budget: int) -> dict[str, Any]:
    """Per budget mark, how many pairs are settled (sign; both), and when every one is."""
    at = {}
    for share in MARKS:
        limit = round(share * budget)
        at[str(share)] = {k: sum(x is not None and x <= limit for x in result[f"{k}_at"]) for k in ("sign", "settled")}
    return {"at": at, "every_sign_at": every(result["sign_at"]), "every_settled_at": every(result["settled_at"])}


def world(hidden: Labels, n_runs: int, depth: int, seed: int, step: int) -> World:
    """The runs (`sim_replay.make_runs`), their pool to `depth` and the queries' strata."""
    queries = sorted(hidden)
    rng = np.random.default_rng(seed)
    strata = {q: str(rng.choice(list(sim_replay.SHARE), p=list(sim_replay.SHARE.values()))) for q in queries}
    runs = sim_replay.make_runs(hidden, n_runs, seed)
    pooled, best = sim_replay.pool(runs, depth)
    return World(hidden, queries, runs, pooled, best, strata, seed, step)


def run_set(name: str, hidden: Labels, args: argparse.Namespace) -> dict[str, Any]:
    w = world(hidden, args.runs, args.depth, args.seed, args.step)
    queries, runs, best = w.queries, w.runs, w.best
    values, _ = sim_replay.scores(runs, hidden, queries)
    everyone = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    clear = clear_pairs(values, args.pairs)
    out: dict[str, Any] = {"queries": len(queries), "runs": len(runs), "pool_depth": args.depth}
    out.update(budget=len(best), step=args.step, seed=args.seed, orders=list(ORDERS), seconds={})
    replays = {}
    for column in ORDERS:
        replays[column] = judge_until(w, column, everyone)
        out["seconds"][column] = replays[column].pop("seconds")
        replays[column]["judged"] = len(replays[column]["judged"])
        print(f"  {name} every pair, {column}: {summary(replays[column], len(best))}", flush=True)
    out["every_pair"] = {
        "pairs": [[runs[i].name, runs[j].name] for i, j in everyone],
        "orders": {c: {**r, **summary(r, len(best))} for c, r in replays.items()},
    }
    out["comparisons"] = []
    for i, j, delta, z in clear:
        k = everyone.index((i, j))
        row: dict[str, Any] = {"a": runs[i].name, "b": runs[j].name, "delta": delta, "z": z, "orders": {}}
        for column, r in replays.items():
            row["orders"][column] = {key: r[key][k] for key in ("sign_at", "settled_at", "final_sign", "final_test")}
        alone = judge_until(w, "settle", [(i, j)])
        out["seconds"][f"settle {runs[i].name}-{runs[j].name}"] = alone.pop("seconds")
        row["orders"]["settle"] = {key: alone[key][0] for key in ("sign_at", "settled_at", "final_sign", "final_test")}
        row["oracle"] = oracle(w, (i, j), 1 if delta > 0 else -1)
        print(f"  {name} {runs[i].name}-{runs[j].name}: {row['orders']}", flush=True)
        out["comparisons"].append(row)
    return out


def ratio(mine: int | None, depth: int | None) -> float | None:
    return None if mine is None or not depth else mine / depth


def _cell(x: int | None) -> str:
    return "never" if x is None else str(x)


def table(name: str, result: dict[str, Any]) -> str:
    """The clear pairs (per order: judgments until the sign, and until sign and test, are settled),
    then every pair (settled at 20% / 50% / 100% of the budget, and when every one is)."""
    columns = result["orders"]
    head = (
        f"**{name}** ({result['queries']} queries, {result['runs']} runs pooled to depth {result['pool_depth']}: "
        f"budget {result['budget']} judgments, the queue recomputed every {result['step']}, the rule asked after "
        "every judgment); each cell: judgments until the sign is settled / until the sign and the t-test are "
        "settled (never: not within the budget); settle's and the oracle's share of depth's in brackets (oracle: "
        "a greedy that knows every hidden grade, a reference no order can reach)\n\n"
    )
    lines = [
        "| comparison (delta, z) | " + " | ".join(columns) + " | oracle |",
        "|---|" + "---|" * (len(columns) + 1),
    ]
    for c in result["comparisons"]:
        depth = c["orders"]["depth"]
        cells = []
        for column in columns:
            o = c["orders"][column]
            cell = " / ".join(_cell(o[k]) for k in ("sign_at", "settled_at"))
            if column == "settle":
                shares = [ratio(o[k], depth[k]) for k in ("sign_at", "settled_at")]
                cell += " (" + " / ".join("-" if s is None else f"{s:.0%}" for s in shares) + ")"
            cells.append(cell)
        o = c["oracle"]
        shares = [ratio(o[k], depth[k]) for k in ("sign_at", "settled_at")]
        cells.append(
            " / ".join(_cell(o[k]) for k in ("sign_at", "settled_at"))
            + " ("
            + " / ".join("-" if x is None else f"{x:.0%}" for x in shares)
            + ")"
        )
        lines.append(f"| {c['a']} vs {c['b']} ({c['delta']:+.3f}, {c['z']:.1f}) | " + " | ".join(cells) + " |")
    every_pair = result["every_pair"]
    pairs = len(every_pair["pairs"])
    lines += [
        "",
        f"Every pair of the {result['runs']} runs ({pairs} pairs; settle told `--for` all of them): pairs "
        "settled (sign; sign and t-test) at 20% / 50% / 100% of the budget, and the judgments at which every "
        "pair's sign, and every pair, is settled",
        "",
        "| order | sign settled | sign and test settled | every sign at | every pair at |",
        "|---|---|---|---|---|",
    ]
    for column in columns:
        o = every_pair["orders"][column]
        counts = [" / ".join(str(o["at"][str(s)][k]) for s in MARKS) for k in ("sign", "settled")]
        lines.append(
            f"| {column} | {counts[0]} | {counts[1]} | {_cell(o['every_sign_at'])} | {_cell(o['every_settled_at'])} |"
        )
    return head + "\n".join(lines) + "\n"


def png(results: dict[str, dict[str, Any]], path: Path) -> None:
    """Per data set: the clear pairs' judgments until settled (sign and test) as a share of the
    budget, each order's and the oracle's, with 40% of depth's as a mark; and the pairs settled
    against the judgments made."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(results), figsize=(7 * len(results), 7.4), squeeze=False)
    for col, (name, result) in enumerate(results.items()):
        ax, budget, columns = axes[0][col], result["budget"], result["orders"]
        comps = result["comparisons"]
        width = 0.8 / (len(columns) + 1)
        for k, column in enumerate(columns):
            heights = [(c["orders"][column]["settled_at"] or budget) / budget for c in comps]
            ax.bar(np.arange(len(comps)) + k * width, heights, width, label=column)
        heights = [(c["oracle"]["settled_at"] or budget) / budget for c in comps]
        ax.bar(np.arange(len(comps)) + len(columns) * width, heights, width, color="0.8", hatch="//", label="oracle")
        for n, c in enumerate(comps):
            depth = c["orders"]["depth"]["settled_at"]
            if depth is not None:
                ax.hlines(TARGET * depth / budget, n - width / 2, n + 0.8 - width / 2, colors="k", linestyles=":")
        ax.set_xticks(np.arange(len(comps)) + 0.4 - width / 2, [f"{c['a']}-{c['b']}\nz={c['z']:.1f}" for c in comps])
        ax.set_ylabel("share of the budget until settled", fontsize=8)
        ax.set_title(f"{name}: clear pairs, judgments until settled (1.0: never; dotted: 40% of depth's)", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
        ax = axes[1][col]
        steps = np.arange(budget + 1)
        for column in columns:
            at = [x for x in result["every_pair"]["orders"][column]["settled_at"] if x is not None]
            ax.plot(steps / budget, np.searchsorted(np.sort(at), steps, side="right"), label=column)
        ax.set_xlabel("share of the budget (depth pooling's judgments)", fontsize=8)
        ax.set_ylabel(f"pairs settled (of {len(result['every_pair']['pairs'])})", fontsize=8)
        ax.set_title(f"{name}: every run pair, settled (sign and t-test)", fontsize=9)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3, help="Clear comparisons per data set.")
    parser.add_argument("--depth", type=int, default=20, help="Pool depth of every run.")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--step", type=int, default=25, help="Judgments between two recomputations of the queue.")
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
