"""Simulate judging in queue order: which order closes the runs' nDCG@10 bounds fastest?

Generated data (deterministic from --seed): queries in three strata with traffic weights; per
query a hidden graded label for every candidate document (profiles like `gen.py`: sparse, moderate,
deep, no relevant document); three runs of different quality ranking those documents (noisy
relevance scores, quantised so that ties happen); the top --depth of every run pooled. The golden
set starts partial: the top --start-depth of the oldest run was judged. Then, for each order, the
next --batch queue entries are revealed (their hidden grades become labels), the queue is
recomputed, the runs are rescored, and the traffic-weighted mean nDCG@10 bound width (the
headline's width, averaged over the runs) is recorded after every batch.

    python benchmarks/sim_queue.py                 # prints the curves; --json FILE, --svg FILE

Uses qrelkit's own queue (`scoring.impact.impact_scores`, `order_queue`) and scoring
(`evaluate`); nothing here is specific to the simulation but the data.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from qrelkit.models import PoolEntry
from qrelkit.scoring import evaluate
from qrelkit.scoring.arrays import RunLists, top_documents
from qrelkit.scoring.impact import impact_scores, order_queue, query_weights

SHARE = {"navigational": 0.15, "entity": 0.4, "how-to": 0.45}
"""Share of the queries in each stratum."""
TRAFFIC = {
    "head": {"navigational": 0.6, "entity": 0.25, "how-to": 0.15},
    "uniform": SHARE,
}
"""Stratum weights. head: the busiest stratum has the fewest queries (search logs look like
this); uniform: every query carries the same traffic, so the traffic share cannot help."""
RUN_NOISE = {"old": 1.6, "bm25": 1.2, "neural": 0.7}
"""Score noise of each run (lower ranks relevant documents higher); 'old' made the first labels."""
ORDERS = ("impact", "impact-ndcg", "depth", "random")
"""impact: the default queue (nDCG@10 and R@50); impact-ndcg: the queue told to narrow nDCG@10 only."""


def generate(n_queries: int, seed: int) -> tuple[dict[str, str], dict[str, dict[str, int]], list[RunLists]]:
    """Strata, hidden grades (query -> doc -> grade) and the runs' full rankings."""
    rng = np.random.default_rng(seed)
    names = list(SHARE)
    strata = {f"q{i:04d}": str(rng.choice(names, p=list(SHARE.values()))) for i in range(n_queries)}
    hidden: dict[str, dict[str, int]] = {}
    rows: dict[str, list[tuple[str, str, float]]] = {r: [] for r in RUN_NOISE}
    for q in strata:
        profile = rng.choice(4, p=[0.35, 0.5, 0.1, 0.05])
        n = int(rng.integers(40, 80))
        if profile == 0:  # sparse: one relevant document
            grades = np.zeros(n, int)
            grades[0] = rng.choice([1, 2, 3], p=[0.4, 0.35, 0.25])
        elif profile == 1:  # moderate
            grades = rng.choice(4, size=n, p=[0.7, 0.17, 0.09, 0.04])
        elif profile == 2:  # deep: many relevant
            grades = rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])
        else:  # nothing relevant
            grades = np.zeros(n, int)
        docs = [f"{q}-d{j}" for j in range(n)]
        hidden[q] = dict(zip(docs, grades.tolist(), strict=True))
        for run, noise in RUN_NOISE.items():
            scores = np.round(grades + rng.normal(0, noise, size=n), 1)  # quantised: ties happen
            rows[run].extend((q, d, float(s)) for d, s in zip(docs, scores, strict=True))
    runs = [RunLists(name, top_documents(r, 10_000)) for name, r in rows.items()]
    return strata, hidden, runs


def mean_width(
    runs: list[RunLists], labels: dict[str, dict[str, int]], strata: dict[str, str], share: dict[str, float]
) -> tuple[float, float]:
    """Traffic-weighted and plain mean nDCG@10 bound width, averaged over the runs."""
    weighted, plain = [], []
    queries = sorted(strata)
    w = np.array([share[q] for q in queries])
    for run in runs:
        ev = evaluate(
            labels,
            [(q, d, -i) for q, docs in run.ranked.items() for i, d in enumerate(docs)],
            "nDCG@10",
            queries=queries,
            max_grade=3,
        )
        s = ev.scores["nDCG@10"]
        width = s.high - s.low
        weighted.append(float((w * width).sum() / w.sum()))
        plain.append(float(width.mean()))
    return float(np.mean(weighted)), float(np.mean(plain))


def simulate(args: argparse.Namespace) -> dict[str, object]:
    strata, hidden, runs = generate(args.queries, args.seed)
    pooled = [RunLists(r.name, {q: list(d[: args.depth]) for q, d in r.ranked.items()}) for r in runs]
    weights = TRAFFIC[args.traffic]
    share = query_weights(strata, weights)
    start: dict[str, dict[str, int]] = {}
    old = next(r for r in runs if r.name == "old")
    for q, docs in old.ranked.items():
        start[q] = {d: hidden[q][d] for d in docs[: args.start_depth]}
    best: dict[tuple[str, str], int] = {}
    for run in pooled:
        for q, docs in run.ranked.items():
            for rank, d in enumerate(docs, 1):
                best[(q, d)] = min(best.get((q, d), rank), rank)
    curves: dict[str, list[dict[str, float]]] = {}
    for order in ORDERS:
        labels = {q: dict(v) for q, v in start.items()}
        points = []
        made = 0
        t0 = time.perf_counter()
        while True:
            weighted, plain = mean_width(runs, labels, strata, share)
            points.append({"judgments": made, "width": weighted, "width_unweighted": plain})
            if made >= args.budget:
                break
            entries = [
                PoolEntry(query_id=q, doc_id=d, best_rank=r, source="sim")
                for (q, d), r in sorted(best.items())
                if d not in labels.get(q, {})
            ]
            if not entries:
                break
            impacts = None
            if order.startswith("impact"):
                impacts = impact_scores(
                    [(e.query_id, e.doc_id) for e in entries],
                    pooled,
                    labels,
                    max_grade=3,
                    strata=strata,
                    weights=weights,
                    metrics="nDCG@10" if order == "impact-ndcg" else ("nDCG@10", "R@50"),
                )
            queue = order_queue(entries, order.split("-")[0], impacts=impacts, seed=args.seed + made)
            for item in queue[: args.batch]:
                labels.setdefault(item.query_id, {})[item.doc_id] = hidden[item.query_id][item.doc_id]
            made += min(args.batch, len(queue))
        curves[order] = points
        print(f"{order:<12} {time.perf_counter() - t0:6.1f} s", flush=True)
    return {
        "traffic": args.traffic,
        "weights": weights,
        "queries": args.queries,
        "pool_depth": args.depth,
        "pool_pairs": len(best),
        "start_labels": sum(len(v) for v in start.values()),
        "batch": args.batch,
        "seed": args.seed,
        "curves": curves,
    }


def reach(points: list[dict[str, float]], width: float) -> float | None:
    """Judgments needed to reach `width` (linear between batches); None if never reached."""
    for a, b in zip(points, points[1:], strict=False):
        if b["width"] <= width:
            if a["width"] == b["width"]:
                return b["judgments"]
            f = (a["width"] - width) / (a["width"] - b["width"])
            return a["judgments"] + f * (b["judgments"] - a["judgments"])
    return None


def at(points: list[dict[str, float]], judgments: int) -> float:
    return next((p["width"] for p in points if p["judgments"] >= judgments), points[-1]["width"])


def svg(result: dict[str, object], path: Path) -> None:
    """A line chart of width against judgments, one line per order (no plotting library)."""
    curves: dict[str, list[dict[str, float]]] = result["curves"]  # type: ignore[assignment]
    w, h, left, bottom, top, right = 640, 380, 64, 48, 24, 150
    xmax = max(p["judgments"] for c in curves.values() for p in c)
    ymax = max(p["width"] for c in curves.values() for p in c)
    ymax = float(np.ceil(ymax * 20) / 20)

    def x(v: float) -> float:
        return left + (w - left - right) * v / xmax

    def y(v: float) -> float:
        return h - bottom - (h - top - bottom) * v / ymax

    colors = {"impact": "#1f6feb", "impact-ndcg": "#8250df", "depth": "#d29922", "random": "#8b949e"}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        'font-family="system-ui, sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left}" y="14" fill="#57606a">traffic {result["traffic"]}: {result["queries"]} queries, '
        f"3 runs pooled to depth {result['pool_depth']}, batches of {result['batch']}</text>",
    ]
    for i in range(6):
        v = ymax * i / 5
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eaeef2"/>')
        parts.append(f'<text x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#57606a">{v:.2f}</text>')
    step = 500 if xmax > 1500 else 250
    for v in range(0, int(xmax) + 1, step):
        parts.append(f'<text x="{x(v):.1f}" y="{h - bottom + 18}" text-anchor="middle" fill="#57606a">{v}</text>')
    parts.append(f'<line x1="{left}" x2="{w - right}" y1="{h - bottom}" y2="{h - bottom}" stroke="#57606a"/>')
    parts.append(f'<text x="{(left + w - right) / 2}" y="{h - 10}" text-anchor="middle">judgments made</text>')
    parts.append(
        f'<text x="16" y="{(top + h - bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(top + h - bottom) / 2})">mean nDCG@10 bound width</text>'
    )
    for n, (order, points) in enumerate(curves.items()):
        line = " ".join(f"{x(p['judgments']):.1f},{y(p['width']):.1f}" for p in points)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colors[order]}" stroke-width="2"/>')
        ly = top + 16 + 20 * n
        parts.append(
            f'<line x1="{w - right + 12}" x2="{w - right + 32}" y1="{ly}" y2="{ly}" '
            f'stroke="{colors[order]}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{w - right + 38}" y="{ly + 4}">{order}</text>')
    parts.append("</svg>\n")
    path.write_text("\n".join(parts), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--depth", type=int, default=20, help="Pool depth of every run.")
    parser.add_argument("--start-depth", type=int, default=3, help="The old run's top N starts labeled.")
    parser.add_argument("--batch", type=int, default=50, help="Judgments revealed between rescorings.")
    parser.add_argument("--budget", type=int, default=2000, help="Judgments to simulate per order.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--traffic", choices=sorted(TRAFFIC), default="head", help="Stratum traffic weights.")
    parser.add_argument("--json", type=Path, help="Write the curves here.")
    parser.add_argument("--svg", type=Path, help="Draw the curves here.")
    parser.add_argument("--replay", action="store_true", help="Replay every order on hidden full labels (sim_replay).")
    parser.add_argument("--runs", type=int, default=8, help="--replay: systems ranking each query.")
    parser.add_argument("--steps", type=int, default=40, help="--replay: queue recomputations over the budget.")
    parser.add_argument("--shared-queries", type=int, default=60, help="--replay: queries of the shared set.")
    parser.add_argument("--png", type=Path, help="--replay: draw the figures here.")
    args = parser.parse_args()
    if args.replay:
        return replay_main(args)
    result = simulate(args)
    curves: dict[str, list[dict[str, float]]] = result["curves"]  # type: ignore[assignment]
    print(
        f"\n{result['queries']} queries, {result['pool_pairs']} pooled pairs (depth {result['pool_depth']}, 3 runs), "
        f"{result['start_labels']} labels at start, batches of {result['batch']}, traffic {result['traffic']} "
        f"{result['weights']}"
    )
    marks = [0, 250, 500, 1000, 1500, 2000]
    print(f"{'judgments':<12}" + "".join(f"{m:>8}" for m in marks if m <= args.budget))
    for order, points in curves.items():
        print(f"{order:<12}" + "".join(f"{at(points, m):8.4f}" for m in marks if m <= args.budget))
    mark = min(1000, args.budget)
    target = at(curves["depth"], mark)
    needed = {order: reach(points, target) for order, points in curves.items()}
    print(f"\njudgments to reach depth's width after {mark} ({target:.4f}):")
    for order, n in needed.items():
        print(f"  {order:<12} {'never' if n is None else f'{n:.0f}'}")
    result["target_width"] = target
    result["judgments_to_target"] = needed
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.svg:
        svg(result, args.svg)


def replay_main(args: argparse.Namespace) -> None:
    """`--replay`: every order on the TREC qrels and the shared generator's set (`sim_replay`)."""
    import sim_replay

    sets = {"trec-rag24": sim_replay.trec_rag24(), "shared-gen": sim_replay.shared_gen(args.shared_queries)}
    results: dict[str, dict[str, object]] = {}
    for name, hidden in sets.items():
        if hidden is None:
            print(f"{name}: skipped (../shared/bench/gen.py is not there)")
            continue
        print(f"{name}: {len(hidden)} queries, traffic {args.traffic}", flush=True)
        result = sim_replay.replay(hidden, args, TRAFFIC[args.traffic])
        result["targets"] = sim_replay.targets(result)
        results[name] = result
        print(sim_replay.table(name, result))
        print(json.dumps(result["targets"], indent=1))
    if args.json:
        args.json.write_text(json.dumps({"traffic": args.traffic, "seed": args.seed, "sets": results}, indent=1) + "\n")
    if args.png and results:
        sim_replay.png(results, args.png, args.traffic)


if __name__ == "__main__":
    main()
