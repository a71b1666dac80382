"""Which unlabeled pair to judge next.

A pair's *impact* is the part of the pooled runs' open metric bounds that its unknown grade holds:

    impact(q, d) = w(q) * sum over runs r, measures m of  W(r, m, q) * N(r, m, q, d) / N(r, m, q)

`W(r, m, q)` is the width (high - low) of measure m's bounds for query q on run r (`kernels`).
`N(r, m, q, d) = W(r, m, q) - E_g W(r, m, q | d = g)` is how much labeling d alone is expected to
narrow it, the expectation over `prior` (the grade distribution of the current labels, add-one
smoothed); `N(r, m, q)` sums it over q's unlabeled documents inside m's cutoff on run r. So each
query's open width is shared among its unlabeled documents in proportion to what each alone would
close (evenly if no single label narrows it), and a pair counts only for the runs that rank it
inside the cutoff. Sharing the whole width, rather than ranking by the one-step narrowing alone,
keeps a query whose ten top documents are all unknown (wide open, yet no single label closes
much) from sinking to the bottom of the queue. `w(q)` is the query's share of traffic: its
stratum's weight (renormalised over the strata that have queries) over the stratum's query count;
with no weights, every query counts 1/N. Labeling a pair never widens a bound (it removes
completions), so N >= 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..models import TILES, PoolEntry, QueueItem, weight_shares
from .arrays import ABSENT, UNLABELED, Ranked, RunLists
from .kernels import compute
from .measures import Measure
from .names import parse_measures
from .settle import grade_prior as grade_prior  # its home is settle; the impact order reads it

FloatArray = npt.NDArray[np.float64]


def query_weights(strata: Mapping[str, str], weights: Mapping[str, float]) -> dict[str, float]:
    """Query -> share of traffic (sums to 1 over the queries)."""
    sizes: dict[str, int] = {}
    for s in strata.values():
        sizes[s] = sizes.get(s, 0) + 1
    shares = weight_shares({s: weights.get(s, 0.0) for s in sizes})
    if not shares:
        return {q: 1.0 / len(strata) for q in strata} if strata else {}
    return {q: shares[s] / sizes[s] for q, s in strata.items()}


def _narrowing(r: Ranked, m: Measure, threshold: int, prior: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The bound width per query, and per position the expected narrowing if the unlabeled
    document there alone were labeled (0 where labeled, absent or past the cutoff)."""
    out = np.zeros(r.grades.shape, dtype=np.float64)
    window = r.depth if m.cutoff is None else min(m.cutoff, r.depth)
    base = compute(r, m, threshold)
    width = np.nan_to_num(base.high - base.low)
    qi, pos = np.nonzero(r.grades[:, :window] == UNLABELED)
    if len(qi) == 0:
        return width, out
    levels = r.max_grade + 1
    rows = np.repeat(qi, levels)
    cols = np.repeat(pos, levels)
    grade = np.tile(np.arange(levels), len(qi))
    grades = r.grades[rows]
    grades[np.arange(len(rows)), cols] = grade
    counts = r.label_counts[rows]
    counts[np.arange(len(rows)), grade] += 1
    what_if = Ranked(
        query_ids=[""] * len(rows),
        grades=grades,
        n_ret=r.n_ret[rows],
        label_counts=counts,
        max_grade=r.max_grade,
        run_only=0,
    )
    after = compute(what_if, m, threshold)
    expected = (np.nan_to_num(after.high - after.low).reshape(len(qi), levels) * prior).sum(axis=1)
    out[qi, pos] = np.clip(width[qi] - expected, 0.0, None)
    return width, out


def width_shares(r: Ranked, m: Measure, threshold: int, prior: FloatArray) -> FloatArray:
    """[queries, depth]: each query's bound width, shared among its unlabeled documents inside the
    cutoff in proportion to their expected narrowing (evenly when no single label narrows it:
    then only several together can). Each row sums to the query's width."""
    width, narrowing = _narrowing(r, m, threshold, prior)
    window = r.depth if m.cutoff is None else min(m.cutoff, r.depth)
    open_ = np.zeros(r.grades.shape, dtype=bool)
    open_[:, :window] = r.grades[:, :window] == UNLABELED
    total = narrowing.sum(axis=1)
    even = open_ / np.maximum(open_.sum(axis=1), 1)[:, None]
    share = np.where((total > 0)[:, None], narrowing / np.where(total > 0, total, 1.0)[:, None], even)
    return np.asarray(share * width[:, None], dtype=np.float64)


def _ranked(
    run: RunLists, queries: Sequence[str], labels: Mapping[str, Mapping[str, int]], max_grade: int
) -> tuple[Ranked, list[Sequence[str]]]:
    lists = [run.ranked.get(q, ()) for q in queries]
    depth = max((len(docs) for docs in lists), default=0)
    grades = np.full((len(queries), max(depth, 1)), ABSENT, dtype=np.int32)
    counts = np.zeros((len(queries), max_grade + 1), dtype=np.int64)
    for i, (q, docs) in enumerate(zip(queries, lists, strict=True)):
        known = labels.get(q, {})
        grades[i, : len(docs)] = [known.get(d, UNLABELED) for d in docs]
        for g in known.values():
            counts[i, g] += 1
    n_ret = np.array([len(docs) for docs in lists], dtype=np.int64)
    return Ranked(list(queries), grades, n_ret, counts, max_grade, 0), lists


def impact_scores(
    candidates: Sequence[tuple[str, str]],
    runs: Sequence[RunLists],
    labels: Mapping[str, Mapping[str, int]],
    *,
    max_grade: int,
    strata: Mapping[str, str],
    weights: Mapping[str, float],
    metrics: str | Sequence[str] = TILES,
    relevance_threshold: int = 1,
) -> list[float]:
    """The impact of each candidate (query, doc) pair, in the candidates' order.

    :param labels: the current graded labels (query -> doc -> grade >= 0).
    :param strata: query -> stratum for every query of the golden set (for the traffic shares).
    """
    measures = parse_measures(metrics if isinstance(metrics, str) else list(metrics))
    prior = grade_prior([g for docs in labels.values() for g in docs.values()], max_grade)
    share = query_weights(strata, weights)
    queries = sorted({q for q, _ in candidates})
    total: dict[tuple[str, str], float] = {}
    for run in runs:
        ranked, lists = _ranked(run, queries, labels, max_grade)
        reduction = np.zeros(ranked.grades.shape)
        for m in measures:
            reduction += width_shares(ranked, m, m.threshold(relevance_threshold), prior)
        for i, docs in enumerate(lists):
            for j in np.flatnonzero(reduction[i, : len(docs)]).tolist():
                key = (queries[i], docs[j])
                total[key] = total.get(key, 0.0) + float(reduction[i, j])
    return [share.get(q, 0.0) * total.get((q, d), 0.0) for q, d in candidates]


def order_queue(
    entries: Sequence[PoolEntry],
    order: str,
    *,
    impacts: Sequence[float] | None = None,
    seed: int = 0,
    runs: Sequence[RunLists] = (),
    labels: Mapping[str, Mapping[str, int]] | None = None,
    relevance_threshold: int = 1,
) -> list[QueueItem]:
    """The entries in judging order, each with its priority (higher comes first): `scoring.orders`
    declares every order (`depth`, `impact`, `random`, `mtf`, `bandit`, `rbp`)."""
    from .orders import OrderInput, order_entries

    given = OrderInput(entries, runs, labels or {}, seed=seed, relevance_threshold=relevance_threshold, impacts=impacts)
    return order_entries(given, order)
