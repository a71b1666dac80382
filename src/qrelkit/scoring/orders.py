"""The judging queue's orders, one declaration each: its name, what it does, where it comes from.

Every order takes the same `OrderInput` (the unlabeled pooled entries, the pooled runs' rankings,
the current labels, the seed, and what an order may need besides: the impacts, or later the named
comparisons of an order that settles them) and returns the entries in judging order with a
priority each (higher comes first). `qrelkit queue --order`, the judging screen and its queue
process all go through `order_entries`, so the three show the same queue.

The adaptive orders (`mtf`, `bandit`) are computed from the labels as they stand: the algorithm is
replayed over each query's runs, a labeled document counting as the judgment it is, and each
unlabeled document it reaches is queued and counted as not relevant (the pessimistic outcome) for
the rest of the replay. So the queue is a fixed function of the current labels: when a label
arrives, the queue computed next re-orders (a run that just found a relevant document keeps its
turn). Ties between runs are broken by the runs' names with `--seed 0` (the default), by a
permutation of them seeded by any other seed; ties between entries by the depth order (best
rank, then query, then document).

Loads no numpy on import (the CLI lists the orders in its help).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ScoringError
from ..models import QUEUE_ORDERS, PoolEntry, QueueItem

if TYPE_CHECKING:
    from .arrays import RunLists

RBP_PERSISTENCE = 0.8
"""p of the `rbp` order: a document at rank r of a run weighs (1 - p) p^(r - 1)."""


@dataclass(frozen=True)
class OrderInput:
    """What an order may read. `impacts`: one per entry (the `impact` order needs them);
    `comparisons` and `metrics` (or one `metric`): the run pairs a team cares about and the
    measures they are settled on (for an order that settles them; default the headline)."""

    entries: Sequence[PoolEntry]
    runs: Sequence[RunLists] = ()
    labels: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    seed: int = 0
    relevance_threshold: int = 1
    impacts: Sequence[float] | None = None
    comparisons: Sequence[tuple[str, str]] = ()
    metric: str | None = None
    metrics: Sequence[str] = ()
    """Several measures (`metric` names one; `metrics`, when given, are the measures)."""
    max_grade: int | None = None
    """The scale's top grade (the `settle` order; default: the highest label, at least the
    relevance threshold)."""


Ranking = tuple[list[int], list[float]]
"""Indices into the entries in judging order, and the priority of each."""


@dataclass(frozen=True)
class OrderSpec:
    """One judging order. `needs`: what the caller must fill in beyond the entries and seed
    (`runs`, `labels`, `impacts`, `comparisons`)."""

    name: str
    summary: str
    source: str
    needs: frozenset[str]
    adaptive: bool
    rank: Callable[[OrderInput], Ranking]


def _depth_order(entries: Sequence[PoolEntry]) -> list[int]:
    return sorted(
        range(len(entries)),
        key=lambda i: (entries[i].best_rank is None, entries[i].best_rank or 0, entries[i].query_id, entries[i].doc_id),
    )


def _depth(x: OrderInput) -> Ranking:
    chosen = _depth_order(x.entries)
    return chosen, [1.0 / (x.entries[i].best_rank or 0) if x.entries[i].best_rank else 0.0 for i in chosen]


def _impact(x: OrderInput) -> Ranking:
    if x.impacts is None or len(x.impacts) != len(x.entries):
        raise ScoringError("the impact order needs one impact per entry")
    impacts = x.impacts
    position = {i: n for n, i in enumerate(_depth_order(x.entries))}
    chosen = sorted(range(len(x.entries)), key=lambda i: (-impacts[i], position[i]))
    return chosen, [float(impacts[i]) for i in chosen]


def _random(x: OrderInput) -> Ranking:
    import numpy as np

    by_depth = _depth_order(x.entries)
    permutation = np.random.default_rng(x.seed).permutation(len(by_depth))
    chosen = [by_depth[int(j)] for j in permutation]
    return chosen, [1.0 - n / len(chosen) for n in range(len(chosen))]


def _run_order(runs: Sequence[RunLists], seed: int) -> list[RunLists]:
    """The tie-break between runs of equal standing: by name with seed 0 (the default), else
    those names permuted by `seed`."""
    import numpy as np

    by_name = sorted(runs, key=lambda r: r.name)
    if seed == 0:
        return by_name
    return [by_name[int(j)] for j in np.random.default_rng(seed).permutation(len(by_name))]


def _by_query(x: OrderInput) -> dict[str, dict[str, int]]:
    """query -> doc -> entry index."""
    out: dict[str, dict[str, int]] = {}
    for i, e in enumerate(x.entries):
        out.setdefault(e.query_id, {})[e.doc_id] = i
    return out


def _finish(x: OrderInput, keyed: dict[int, tuple[float, ...]], priority: dict[int, float]) -> Ranking:
    """The keyed entries by key (ties in depth order), then the rest in depth order at priority 0."""
    position = {i: n for n, i in enumerate(_depth_order(x.entries))}
    first = sorted(keyed, key=lambda i: (keyed[i], position[i]))
    rest = [i for i in sorted(position, key=position.__getitem__) if i not in keyed]
    chosen = first + rest
    return chosen, [priority.get(i, 0.0) for i in chosen]


def _mtf_query(
    runs: Sequence[Sequence[str]], labels: Mapping[str, int], open_: Mapping[str, int], threshold: int
) -> list[int]:
    """Move-to-front over one query's runs (in tie-break order): the run in front judges its next
    document not yet seen; a relevant one keeps it in front, a non-relevant (or a queued, counted
    non-relevant) one sends it to the back. The open entries in the order reached."""
    line = list(range(len(runs)))  # the runs, front first
    at = [0] * len(runs)
    seen: set[str] = set()
    out: list[int] = []
    while line:
        r = line[0]
        docs = runs[r]
        while at[r] < len(docs) and (docs[at[r]] in seen or (docs[at[r]] not in labels and docs[at[r]] not in open_)):
            at[r] += 1
        if at[r] == len(docs):
            line.pop(0)
            continue
        d = docs[at[r]]
        seen.add(d)
        at[r] += 1
        if d in open_:
            out.append(open_[d])
        if d in open_ or labels[d] < threshold:
            line.append(line.pop(0))
    return out


def _mtf(x: OrderInput) -> Ranking:
    runs = _run_order(x.runs, x.seed)
    keyed: dict[int, tuple[float, ...]] = {}
    priority: dict[int, float] = {}
    for q, open_ in _by_query(x).items():
        lists = [r.ranked.get(q, ()) for r in runs]
        for turn, i in enumerate(_mtf_query(lists, x.labels.get(q, {}), open_, x.relevance_threshold)):
            keyed[i] = (float(turn),)
            priority[i] = 1.0 / (turn + 1)
    return _finish(x, keyed, priority)


def _bandit_query(
    runs: Sequence[Sequence[str]], labels: Mapping[str, int], open_: Mapping[str, int], threshold: int
) -> list[tuple[int, float]]:
    """MaxMean over one query's runs (in tie-break order): each run an arm whose posterior mean of
    relevance is (1 + relevant) / (2 + judged) over the judged documents it ranks (Beta(1, 1)
    prior); the arm of highest mean (the first in tie-break order among equals) has its next
    unjudged document queued, counted judged non-relevant for every arm that ranks it. The open
    entries in the order queued, each with the mean that chose it."""
    rel = [sum(1 for d in docs if d in labels and labels[d] >= threshold) for docs in runs]
    judged = [sum(1 for d in docs if d in labels) for docs in runs]
    holders: dict[str, list[int]] = {}
    for r, docs in enumerate(runs):
        for d in docs:
            if d in open_:
                holders.setdefault(d, []).append(r)
    at = [0] * len(runs)
    live = [r for r in range(len(runs)) if any(d in open_ for d in runs[r])]
    queued: set[str] = set()
    out: list[tuple[int, float]] = []
    while live:
        means = [(1 + rel[r]) / (2 + judged[r]) for r in live]
        best = live[means.index(max(means))]
        docs = runs[best]
        while at[best] < len(docs) and (docs[at[best]] not in open_ or docs[at[best]] in queued):
            at[best] += 1
        if at[best] == len(docs):
            live.remove(best)
            continue
        d = docs[at[best]]
        queued.add(d)
        out.append((open_[d], max(means)))
        for r in holders[d]:
            judged[r] += 1
    return out


def _bandit(x: OrderInput) -> Ranking:
    runs = _run_order(x.runs, x.seed)
    keyed: dict[int, tuple[float, ...]] = {}
    priority: dict[int, float] = {}
    for q, open_ in _by_query(x).items():
        lists = [r.ranked.get(q, ()) for r in runs]
        for turn, (i, mean) in enumerate(_bandit_query(lists, x.labels.get(q, {}), open_, x.relevance_threshold)):
            keyed[i] = (-mean, float(turn))
            priority[i] = mean
    return _finish(x, keyed, priority)


def rbp_weights(x: OrderInput, p: float = RBP_PERSISTENCE) -> dict[int, float]:
    """Entry index -> sum over the runs of (1 - p) p^(rank - 1) at the rank each run gives it."""
    by_query = _by_query(x)
    weight: dict[int, float] = {}
    for run in x.runs:
        for q, open_ in by_query.items():
            for rank, d in enumerate(run.ranked.get(q, ()), 1):
                if d in open_:
                    i = open_[d]
                    weight[i] = weight.get(i, 0.0) + (1 - p) * p ** (rank - 1)
    return weight


def _rbp(x: OrderInput) -> Ranking:
    weight = rbp_weights(x)
    return _finish(x, {i: (-w,) for i, w in weight.items()}, weight)


def _settle(x: OrderInput) -> Ranking:
    """The expected narrowing of the named comparisons' delta intervals (`settle_order`), over
    every measure named (`settle_joint`); the pairs that narrow none come after, in depth order."""
    from .settle_joint import input_matchups_all, joint_priorities

    if not x.entries:
        return [], []
    if not x.comparisons:
        raise ScoringError("the settle order needs the comparisons it settles", "name them: --for A.run,B.run")
    metrics = list(x.metrics) or ([x.metric] if x.metric is not None else [])
    measures, matchups, scale, prior = input_matchups_all(
        x.runs, x.labels, x.comparisons, metrics, x.relevance_threshold, x.max_grade, {e.query_id for e in x.entries}
    )
    weight = joint_priorities(measures, matchups, scale, prior)
    keyed: dict[int, tuple[float, ...]] = {
        i: (-weight[p],) for i, e in enumerate(x.entries) if weight.get(p := (e.query_id, e.doc_id), 0.0) > 0
    }
    return _finish(x, keyed, {i: -k[0] for i, k in keyed.items()})


def _machine(x: OrderInput) -> Ranking:
    del x
    raise ScoringError(
        "the disagreement order reads the machine assessors' labels in the store",
        "it is computed by workflows.queue.ordered_queue (workflows.disagreement_order)",
    )


ORDERS: dict[str, OrderSpec] = {
    s.name: s
    for s in (
        OrderSpec(
            "impact",
            "pairs whose unknown grade holds the pooled runs' metric bounds open the most first: traffic "
            "share of the query x the expected narrowing of the bound widths (nDCG@10 and R@50 unless "
            "--metrics) once the pair is labeled, summed over the runs that rank it",
            "qrelkit",
            frozenset({"impacts"}),
            True,
            _impact,
        ),
        OrderSpec(
            "depth",
            "best rank in any run, then query, then document (the classic TREC pool order)",
            "Sparck Jones & van Rijsbergen, 1975 (pooling)",
            frozenset(),
            False,
            _depth,
        ),
        OrderSpec("random", "a permutation seeded by --seed", "", frozenset(), False, _random),
        OrderSpec(
            "mtf",
            "move-to-front: per query, the run that just yielded a relevant document keeps its turn, one "
            "that yielded a non-relevant one goes to the back; queries take turns",
            "Cormack, Palmer & Clarke, SIGIR 1998",
            frozenset({"runs", "labels"}),
            True,
            _mtf,
        ),
        OrderSpec(
            "bandit",
            "MaxMean: per query each run is an arm with posterior mean (1 + relevant) / (2 + judged) of "
            "the documents it ranks; the next unjudged document of the arm of highest mean, highest first",
            "Losada, Parapar & Barreiro, SIGIR 2016 / IPM 2017",
            frozenset({"runs", "labels"}),
            True,
            _bandit,
        ),
        OrderSpec(
            "rbp",
            f"weight descending: the sum over runs of the document's RBP rank weight (1-p)p^(r-1), p={RBP_PERSISTENCE}",
            "Moffat, Webber & Zobel, SIGIR 2007",
            frozenset({"runs"}),
            False,
            _rbp,
        ),
        OrderSpec(
            "disagreement",
            "where the machine assessors (`qrelkit assess`) are unsure first: their rows of the pair "
            "disagree across the relevance threshold, then on one side of it, then agree one grade from "
            "it; then the other machine-labeled pairs by impact, then the rest in depth order; only pairs "
            "no human labeled; with no machine label, the impact order",
            "qrelkit (machine assessors)",
            frozenset({"impacts", "machine"}),
            True,
            _machine,
        ),
        OrderSpec(
            "settle",
            "pairs that narrow the named comparisons' delta intervals (--for A.run,B.run or --leaderboard, "
            "--metric) the most first: per comparison, the query's delta range width less its expected width "
            "once the pair is labeled (the grade prior of the current labels), over the comparison's queries, "
            "summed over the comparisons not yet settled; several measures: each measure's sum weighed by the "
            "mean open width over its own, so that every (comparison, measure) counts; the rest in depth order",
            "qrelkit",
            frozenset({"runs", "labels", "comparisons"}),
            True,
            _settle,
        ),
    )
}
"""Every judging order, by name (the same names as `models.QueueOrder`)."""


def order_entries(x: OrderInput, order: str) -> list[QueueItem]:
    """The entries in `order`, each with its priority (higher comes first)."""
    spec = ORDERS.get(order)
    if spec is None or order not in QUEUE_ORDERS:
        raise ScoringError(f"unknown queue order {order!r}", f"use one of {', '.join(QUEUE_ORDERS)}")
    chosen, priority = spec.rank(x)
    return [
        QueueItem(
            query_id=x.entries[i].query_id,
            doc_id=x.entries[i].doc_id,
            priority=p,
            best_rank=x.entries[i].best_rank,
            source=x.entries[i].source,
        )
        for i, p in zip(chosen, priority, strict=True)
    ]


def orders_help(width: int = 96) -> str:
    """The orders as a `\\b` block for a command's help: name, what it does, its source."""
    import textwrap

    lines = ["\b"]
    for s in ORDERS.values():
        cite = f" [{s.source}]" if s.source else ""
        lines += textwrap.wrap(f"{s.name:<7} {s.summary}{cite}", width, subsequent_indent=" " * 8)
    return "\n".join(lines)
