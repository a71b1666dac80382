"""Replay every judging order on data with hidden full labels (`sim_queue.py --replay`).

Data sets (hidden labels = the qrels, every document they lack not relevant):

    trec-rag24   tests/data/trec_eval/qrels.comment.test: 31 TREC 2024 RAG topics, grades 0-3
    shared-gen   the shared generator's `small` set (../shared/bench/gen.py, its first --shared-queries
                 queries with 5 or more judgments), skipped with a note when that file is absent

Runs: --runs systems of graded quality rank each query's judged documents by grade + Gaussian
noise (the noise of system i grows from 1.0 to 2.0, plus a per-query shift of sd 0.5: a system is
better on some queries than on others), scores quantised to 0.1 so that ties happen. The pool is
every run's top --depth; depth pooling's budget B is the whole pool. Queries get one of three
strata at random (the shares of `sim_queue.SHARE`) with the --traffic weights.

Every order starts from no label and is replayed with the same budget: the queue is recomputed
from the labels so far after every --steps-th of B (adaptive orders re-order as labels arrive),
its next pairs are judged (their hidden grades revealed). At 10%, 20%, ... 100% of B (the tables: 20%, 50%, 100%):

    found     relevant documents found (grade >= 1) per judgment made
    width     the traffic-weighted mean nDCG@10 bound width, over queries and runs
    tau       Kendall's tau-b of the runs' mean nDCG@10 (unlabeled = not relevant, as trec_eval)
              against their ranking under the full labels
    sig       of the run pairs significantly different under the full labels (two-sided paired
              sign-flip randomization test, `compare`'s p-value, p < 0.05), the share still
              significant, with the same sign, under the labels so far
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from qrelkit.models import PoolEntry
from qrelkit.scoring import evaluate
from qrelkit.scoring.arrays import RunLists, top_documents
from qrelkit.scoring.impact import impact_scores, order_queue, query_weights
from qrelkit.scoring.paired import randomization_p

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ("depth", "impact", "random", "mtf", "bandit", "rbp")
MARKS = tuple(round(0.1 * i, 1) for i in range(1, 11))
SHARE = {"navigational": 0.15, "entity": 0.4, "how-to": 0.45}
Labels = dict[str, dict[str, int]]


def trec_rag24() -> Labels:
    hidden: Labels = {}
    for line in (ROOT / "tests" / "data" / "trec_eval" / "qrels.comment.test").read_text().splitlines():
        q, _, d, g = line.split()
        hidden.setdefault(q, {})[d] = int(g)
    return hidden


def shared_gen(n_queries: int) -> Labels | None:
    folder = ROOT.parent / "shared" / "bench"
    if not (folder / "gen.py").is_file():
        return None
    sys.path.insert(0, str(folder))
    try:
        import gen  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(folder))
    hidden: Labels = {}
    for qrels, _ in gen.generate("small", {}):
        rows = [line.split() for line in qrels.splitlines()]
        if len(rows) >= 5:
            hidden[rows[0][0]] = {d: int(g) for _, _, d, g in rows}
        if len(hidden) == n_queries:
            break
    return hidden


def make_runs(hidden: Labels, n_runs: int, seed: int) -> list[RunLists]:
    rng = np.random.default_rng(seed)
    runs = []
    for i, noise in enumerate(np.linspace(1.0, 2.0, n_runs)):
        rows = []
        for q in sorted(hidden):
            docs = sorted(hidden[q])
            grades = np.array([hidden[q][d] for d in docs], dtype=float)
            scores = np.round(grades + rng.normal(rng.normal(0, 0.5), noise, size=len(docs)), 1)
            rows.extend((q, d, float(s)) for d, s in zip(docs, scores, strict=True))
        runs.append(RunLists(f"sys{i}", top_documents(rows, 10_000)))
    return runs


def scores(runs: list[RunLists], labels: Labels, queries: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """[runs, queries] nDCG@10 values and bound widths."""
    values, widths = [], []
    for run in runs:
        ev = evaluate(
            labels,
            [(q, d, -i) for q, docs in run.ranked.items() for i, d in enumerate(docs)],
            "nDCG@10",
            queries=queries,
            max_grade=3,
            keep_unlabeled=True,
        )
        where = {q: n for n, q in enumerate(ev.query_ids)}
        s = ev.scores["nDCG@10"]
        idx = [where[q] for q in queries]
        values.append(np.nan_to_num(np.asarray(s.value)[idx]))
        widths.append(np.nan_to_num(np.asarray(s.high - s.low)[idx]))
    return np.array(values), np.array(widths)


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's tau-b of two score vectors."""
    concordant = discordant = ties_a = ties_b = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            x, y = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
            if x == 0 and y == 0:
                continue
            if x == 0:
                ties_a += 1
            elif y == 0:
                ties_b += 1
            elif x == y:
                concordant += 1
            else:
                discordant += 1
    n = concordant + discordant
    denominator = np.sqrt((n + ties_a) * (n + ties_b))
    return float((concordant - discordant) / denominator) if denominator else 1.0


def significant(values: np.ndarray, seed: int) -> dict[tuple[int, int], int]:
    """Run pairs (i, j) significantly different (p < 0.05) -> sign of mean(i - j)."""
    pairs = [(i, j) for i in range(len(values)) for j in range(i + 1, len(values))]
    diffs = np.array([values[i] - values[j] for i, j in pairs])
    p, _ = randomization_p(diffs, 10_000, np.random.default_rng([seed, 1]))
    return {pair: int(np.sign(diffs[n].mean())) for n, pair in enumerate(pairs) if p[n] < 0.05}


def pool(runs: list[RunLists], depth: int) -> tuple[list[RunLists], dict[tuple[str, str], int]]:
    """Every run cut to its top `depth`, and each pooled pair's best rank in any of them."""
    pooled = [RunLists(r.name, {q: list(d[:depth]) for q, d in r.ranked.items()}) for r in runs]
    best: dict[tuple[str, str], int] = {}
    for run in pooled:
        for q, docs in run.ranked.items():
            for rank, d in enumerate(docs, 1):
                best[(q, d)] = min(best.get((q, d), rank), rank)
    return pooled, best


def unlabeled(best: dict[tuple[str, str], int], labels: Labels) -> list[PoolEntry]:
    """The pool's pairs not labeled yet, as queue entries."""
    return [
        PoolEntry(query_id=q, doc_id=d, best_rank=r) for (q, d), r in sorted(best.items()) if d not in labels.get(q, {})
    ]


def impacts_of(
    order: str,
    entries: list[PoolEntry],
    pooled: list[RunLists],
    labels: Labels,
    strata: dict[str, str],
    weights: dict[str, float],
) -> list[float] | None:
    """The impacts the `impact` order needs (None for any other order)."""
    if order != "impact":
        return None
    pairs = [(e.query_id, e.doc_id) for e in entries]
    return list(impact_scores(pairs, pooled, labels, max_grade=3, strata=strata, weights=weights))


def replay(hidden: Labels, args: Any, weights: dict[str, float]) -> dict[str, Any]:
    queries = sorted(hidden)
    rng = np.random.default_rng(args.seed)
    strata = {q: str(rng.choice(list(SHARE), p=list(SHARE.values()))) for q in queries}
    share = query_weights(strata, weights)
    w = np.array([share[q] for q in queries])
    runs = make_runs(hidden, args.runs, args.seed)
    pooled, best = pool(runs, args.depth)
    budget = len(best)
    full_values, _ = scores(runs, hidden, queries)
    full_sig = significant(full_values, args.seed)
    full_means = full_values.mean(axis=1)
    batch = max(1, budget // args.steps)
    marks = {int(round(m * budget)): m for m in MARKS}
    curves: dict[str, list[dict[str, float]]] = {}
    for order in ORDERS:
        t0 = time.perf_counter()
        labels: Labels = {}
        made = found = 0
        points = []
        while made < budget:
            entries = unlabeled(best, labels)
            impacts = impacts_of(order, entries, pooled, labels, strata, weights)
            queue = order_queue(entries, order, impacts=impacts, seed=args.seed, runs=pooled, labels=labels)
            step = min(batch, budget - made, *(m - made for m in marks if m > made))
            for item in queue[:step]:
                g = hidden[item.query_id][item.doc_id]
                labels.setdefault(item.query_id, {})[item.doc_id] = g
                found += g >= 1
            made += step
            if made in marks:
                values, widths = scores(runs, labels, queries)
                sig = significant(values, args.seed)
                kept = sum(1 for pair, s in full_sig.items() if sig.get(pair) == s)
                points.append(
                    {
                        "share": marks[made],
                        "judgments": made,
                        "found_per_judgment": found / made,
                        "width": float((widths * w).sum() / (w.sum() * len(runs))),
                        "tau": kendall_tau(values.mean(axis=1), full_means),
                        "sig_preserved": kept / len(full_sig) if full_sig else 1.0,
                    }
                )
        curves[order] = points
        print(f"  {order:<8} {time.perf_counter() - t0:6.1f} s", flush=True)
    return {
        "queries": len(queries),
        "runs": len(runs),
        "pool_depth": args.depth,
        "budget": budget,
        "significant_pairs": len(full_sig),
        "pairs": len(runs) * (len(runs) - 1) // 2,
        "curves": curves,
    }


def targets(result: dict[str, Any]) -> dict[str, Any]:
    """Issue 27 item 4: the best order at half of depth's budget against depth at the full budget."""
    curves = result["curves"]
    full = curves["depth"][-1]
    half = {o: next(p for p in c if p["share"] == 0.5) for o, c in curves.items()}
    best = max((o for o in half if o != "depth"), key=lambda o: (half[o]["tau"], half[o]["sig_preserved"]))
    b = half[best]
    return {
        "best_order": best,
        "tau": {"half": b["tau"], "depth_full": full["tau"], "met": b["tau"] >= full["tau"]},
        "sig": {
            "half": b["sig_preserved"],
            "depth_full": full["sig_preserved"],
            "met": b["sig_preserved"] >= full["sig_preserved"],
        },
        "width": {"half": b["width"], "depth_full": full["width"], "met": b["width"] <= full["width"]},
    }


def table(name: str, result: dict[str, Any]) -> str:
    """A Markdown table: per order, each cell at 20% / 50% / 100% of the budget."""
    head = f"**{name}** ({result['queries']} queries, {result['runs']} runs pooled to depth {result['pool_depth']}: "
    head += f"budget {result['budget']} judgments; {result['significant_pairs']} of {result['pairs']} run pairs "
    head += "significantly different under the full labels); each cell at 20% / 50% / 100% of the budget\n\n"
    lines = [
        "| order | found/judgment | width | tau | sig kept |",
        "|---|---|---|---|---|",
    ]
    for order, points in result["curves"].items():
        at = {p["share"]: p for p in points}
        cells = [
            " / ".join(f"{at[s][k]:.3f}" for s in (0.2, 0.5, 1.0))
            for k in ("found_per_judgment", "width", "tau", "sig_preserved")
        ]
        lines.append(f"| {order} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def png(results: dict[str, dict[str, Any]], path: Path, traffic: str) -> None:
    """One row per data set: found per judgment, width, tau, significant pairs kept, by budget share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [
        ("found_per_judgment", "relevant found / judgment"),
        ("width", "mean nDCG@10 bound width"),
        ("tau", "Kendall's tau vs full"),
        ("sig_preserved", "significant pairs kept"),
    ]
    fig, axes = plt.subplots(len(results), 4, figsize=(16, 3.6 * len(results)), squeeze=False)
    for row, (name, result) in enumerate(results.items()):
        for col, (key, label) in enumerate(keys):
            ax = axes[row][col]
            for order, points in result["curves"].items():
                ax.plot([p["share"] for p in points], [p[key] for p in points], marker="o", ms=3, label=order)
            ax.set_title(f"{name}: {label}", fontsize=9)
            ax.set_xlabel("share of depth pooling's judgments", fontsize=8)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"judging orders replayed, {traffic} traffic")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
