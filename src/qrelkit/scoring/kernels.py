"""How to compute: numpy kernels over `Ranked` arrays, one value per query.

Every kernel returns a `Scores`: the standard value (unlabeled documents count as not relevant),
the judged coverage of the window it looks at, and bounds: the smallest and largest value the
measure can take over every way of labeling the unlabeled documents retrieved, at any rank, each
with any grade 0..max_grade. A document below the cutoff adds no gain but can raise R (R@k, AP@k)
or the ideal DCG (nDCG@k), so it counts for the bounds though not for coverage. Unlabeled documents
that are not retrieved stay unlabeled (they are outside every labeling the bounds range over).

* P, Success, RR read the top k only and are monotone in each unlabeled grade: the bounds are the
  two uniform completions. R@k = (rel + a) / (R + a + b), a unlabeled documents of the top k and b
  below it made relevant: the minimum is a = 0 with every b, the maximum every a with b = 0.
* AP and Rprec depend on which unlabeled documents become relevant. For a fixed number m of them,
  AP and Rprec are largest when they take the earliest unlabeled positions and smallest when they
  take the latest (moving a relevant document up never lowers AP); prefix sums give every m at
  once, so the bounds are exact in O(depth) per query. AP@k's minimum also makes every unlabeled
  document below k relevant, its maximum none.
* nDCG: for a fixed multiset of grades in the top k, DCG is largest with the grades in descending
  order over the unlabeled positions and smallest in ascending order; the documents below k only
  move the ideal DCG, which never falls as a gain rises, so they take the lowest gain for the
  maximum and the highest for the minimum (with a negative gain, also the smallest positive one).
  The multisets are enumerated while there are at most `NDCG_EXACT_LIMIT` of them; past that the
  bounds are a sound outer interval (`_ndcg_outer`) that always contains the exact one, flagged
  `exact = False`.
* A threshold above the scale's top grade (`P(rel=5)` on 0..3) lets no unlabeled document become
  relevant: the bounds are the value.

Grades reach the kernels as codes (`Ranked.levels`) and thresholds as the code of the threshold
grade, so any int32 grade works; gains are taken from the grades themselves (`gains_of`).

Coverage is measured over each family's window (`Kernel.window`, described in
`MeasureSpec.coverage`): the retrieved documents whose label can change the value. RR and
Success stop at the first relevant document; the cutoff families read the top k.

`judged_only=True` (trec_eval -J) computes the value over the condensed list
(`arrays.condensed`); its coverage and bounds stay those of the full list, which is what the
value becomes once every retrieved document is labeled (the condensed value itself can lie
outside them: it is an estimate, not a completion).

`KERNELS` maps each family declared in `measures.SPECS` to its value function, its
value-with-bounds function and its coverage window; `compute` looks the family up there. The
count, set and judged-only families are in `kernels_sets`, DCG, ERR and RBP in `kernels_graded`,
the rest of trec_eval's `all_trec` in `kernels_trec`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations_with_replacement
from math import comb
from typing import cast

import numpy as np
import numpy.typing as npt

from .arrays import ABSENT, UNLABELED, Ranked, condensed
from .kernel_base import (
    BoolArray,
    Bounded,
    FloatArray,
    IntArray,
    Kernel,
    Window,
    can_be_relevant,
    coverage_within,
    cutoff_lengths,
    exact,
    first,
    gains_of,
    open_in,
    precision_at_moving_cut,
    relevant_total,
    safe_div,
    to_first,
    undeclared,
    unlabeled_below,
)
from .kernel_base import window as _window
from .kernels_graded import KERNELS as GRADED_KERNELS
from .kernels_sets import KERNELS as SET_KERNELS
from .kernels_trec import GEOMETRIC_TWINS
from .kernels_trec import KERNELS as TREC_KERNELS
from .measures import Measure
from .ties import distinct as distinct_values

NDCG_EXACT_LIMIT = 4096
"""Largest number of grade multisets enumerated per query for exact nDCG bounds."""

_safe_div = safe_div
_gains = gains_of
_relevant_total = relevant_total
_first = first
_exact = exact
_undeclared = undeclared


@dataclass(frozen=True)
class Scores:
    """Per-query results of one measure."""

    value: FloatArray
    coverage: FloatArray
    """Fraction of the retrieved documents in the measure's coverage window (the ranks whose label
    can change the value, `MeasureSpec.coverage`) that carry a label; NaN if none retrieved."""
    low: FloatArray
    high: FloatArray
    exact: BoolArray


def coverage(r: Ranked, k: int | None) -> FloatArray:
    """The labeled fraction of the retrieved documents in the top k (the whole run without k)."""
    w = _window(r, k)
    retrieved = (w != ABSENT).sum(axis=1)
    labeled = (w >= 0).sum(axis=1)
    out = np.full(len(r.query_ids), np.nan)
    np.divide(labeled, retrieved, out=out, where=retrieved > 0)
    return out


def precision(r: Ranked, k: int, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    w = _window(r, k)
    rel = (w >= t).sum(axis=1)
    unl = open_in(w, r, t).sum(axis=1)
    value = cast(FloatArray, rel / k)
    return value, value, cast(FloatArray, (rel + unl) / k)


def success(r: Ranked, k: int, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    w = _window(r, k)
    hit = cast(FloatArray, (w >= t).any(axis=1).astype(np.float64))
    could = cast(FloatArray, ((w >= t) | open_in(w, r, t)).any(axis=1).astype(np.float64))
    return hit, hit, could


def _below(r: Ranked, k: int | None, t: int) -> IntArray:
    """Unlabeled documents below rank k that a labeling can make relevant (raising R only)."""
    return unlabeled_below(r, k) if can_be_relevant(r, t) else np.zeros(len(r.query_ids), dtype=np.int64)


def recall(r: Ranked, k: int, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(rel + a) / (R + a + b) with a unlabeled documents of the top k and b below it made relevant:
    increasing in a, decreasing in b, so the minimum is a = 0, b = all below and the maximum a = all
    in the top k, b = 0."""
    w = _window(r, k)
    big_r = _relevant_total(r, t).astype(np.float64)
    rel = (w >= t).sum(axis=1).astype(np.float64)
    unl = open_in(w, r, t).sum(axis=1)
    value = _safe_div(rel, big_r)
    return value, _safe_div(rel, big_r + _below(r, k, t)), _safe_div(rel + unl, big_r + unl)


def reciprocal_rank(r: Ranked, k: int | None, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    w = _window(r, k)
    value = _first(w >= t)
    return value, value, _first((w >= t) | open_in(w, r, t))


def average_precision(r: Ranked, k: int | None, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The maximum leaves the unlabeled documents below k non-relevant, the minimum makes all of them
    relevant (they raise R and add no precision term). Every cell is computed, in place, and the
    cells without an unlabeled document are then dropped by arithmetic, not `np.where` (a third
    less time; the kept cells' values are the same floats, `tests/test_kernels_fast.py`)."""
    w = _window(r, k)
    big_r = _relevant_total(r, t).astype(np.float64)[:, None]
    below = _below(r, k, t).astype(np.float64)[:, None]
    pos = np.arange(1, w.shape[1] + 1, dtype=np.float64)[None, :]
    rel = (w >= t).astype(np.float64)
    unl = open_in(w, r, t).astype(np.float64)
    rel_cum = np.cumsum(rel, axis=1)
    scratch = rel * rel_cum
    scratch /= pos
    n0 = scratch.sum(axis=1, keepdims=True)
    value = _safe_div(n0, big_r)[:, 0]
    inv_rel = np.divide(rel, pos, out=scratch)
    after = inv_rel.sum(axis=1, keepdims=True) - np.cumsum(inv_rel, axis=1)  # sum of 1/i, i > p
    unl_cum = np.cumsum(unl, axis=1)
    before = rel_cum
    before -= rel  # labeled relevant strictly above each position
    off = 1.0 - unl  # cells with no unlabeled document: computed with a safe divisor, then dropped
    high = np.maximum(value, _ap_most(n0, big_r, before, unl_cum, pos, after, unl, off).max(axis=1, initial=-np.inf))
    # latest-first: every unlabeled document below p is already relevant when p is added
    inv_unl = np.divide(unl, pos, out=scratch)
    unl_after_inv = inv_unl.sum(axis=1, keepdims=True) - np.cumsum(inv_unl, axis=1)
    t_min = before + 1.0
    t_min /= pos
    t_min += after
    t_min += unl_after_inv
    t_min *= unl
    cand_min = np.cumsum(t_min[:, ::-1], axis=1)[:, ::-1]
    cand_min += n0
    den = unl_cum[:, -1:] - unl_cum  # unlabeled documents from p on: U - (up to p) + (at p)
    den += unl
    den += big_r + below
    den += off
    cand_min /= den
    off *= 2.0
    cand_min += off  # 2 off the unlabeled cells: above every AP, so never the minimum
    low = np.minimum(_safe_div(n0, big_r + below)[:, 0], cand_min.min(axis=1, initial=np.inf))
    return value, low, high


def _ap_most(
    n0: FloatArray,
    big_r: FloatArray,
    before: FloatArray,
    unl_cum: FloatArray,
    pos: FloatArray,
    after: FloatArray,
    unl: FloatArray,
    off: FloatArray,
) -> FloatArray:
    """AP's candidates for the maximum at each unlabeled cell (0 elsewhere: below the value, which
    is at least 0): the m-th added unlabeled document sits at p with m-1 added above it."""
    t_max = before + unl_cum
    t_max /= pos
    t_max += after
    t_max *= unl
    cand = np.cumsum(t_max, axis=1)
    cand += n0
    den = big_r + unl_cum
    den += off
    cand /= den
    cand *= unl
    return cand


def r_precision(r: Ranked, t: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    return precision_at_moving_cut(r, t, None)


# -- nDCG ---------------------------------------------------------------------------------------


def _cum_discount(n: int) -> FloatArray:
    """D[i] = sum of 1/log2(j + 1) for j = 1..i."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64)))])


def _ideal(counts: npt.NDArray[np.int64], gains: FloatArray, k: int | None, cum: FloatArray) -> FloatArray:
    """Ideal DCG@k for label counts [..., G+1]: grades placed highest first (grade 0 adds nothing)."""
    limit = counts.sum(axis=-1) if k is None else np.full(counts.shape[:-1], k)
    start = np.zeros(counts.shape[:-1], dtype=np.int64)
    total = np.zeros(counts.shape[:-1], dtype=np.float64)
    for g in np.argsort(-gains[: counts.shape[-1]], kind="stable"):
        if gains[g] <= 0:
            break
        end = start + counts[..., g]
        total += gains[g] * (cum[np.minimum(end, limit)] - cum[np.minimum(start, limit)])
        start = end
    return total


@cache
def _multisets(u: int, max_grade: int) -> npt.NDArray[np.int64]:
    """Every multiset of u grades from 0..max_grade, each row sorted descending."""
    rows = list(combinations_with_replacement(range(max_grade, -1, -1), u))
    return np.array(rows, dtype=np.int64).reshape(len(rows), u)


@cache
def _multiset_gains(u: int, max_grade: int, gains: bytes) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Each multiset of u grades (`_multisets`) as its gains, largest first [M, u], and its count
    of each grade [M, G+1]: the same for every block of queries, so made once (`gains`: the
    float64 gains' bytes, hashable)."""
    ms = _multisets(u, max_grade)
    g_desc = -np.sort(-np.frombuffer(gains, dtype=np.float64)[ms], axis=1)
    ms_counts = np.stack([(ms == g).sum(axis=1) for g in range(max_grade + 1)], axis=1)
    g_desc.flags.writeable = False
    ms_counts.flags.writeable = False
    return g_desc, ms_counts


def _ideal_rows(counts: npt.NDArray[np.int64], gains: FloatArray, k: int | None) -> npt.NDArray[np.int64]:
    """Label counts reduced to what the ideal DCG reads: grades of gain <= 0 add nothing, and past k
    labels of one grade add nothing (so equal rows share one ideal)."""
    out = np.where(gains[None, : counts.shape[1]] > 0, counts, 0)
    return out if k is None else np.minimum(out, k)


def _distinct_rows(a: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """`np.unique(a, axis=0, return_inverse=True)`, through one integer key per row when the
    counts fit one (several times faster)."""
    base = int(a.max(initial=0)) + 1
    if a.shape[1] * math.log2(base) >= 62:
        rows, which = np.unique(a, axis=0, return_inverse=True)
        return rows, which.ravel()
    key = a @ (base ** np.arange(a.shape[1], dtype=np.int64))
    _, first, which = np.unique(key, return_index=True, return_inverse=True)
    return a[first], which.ravel()


def ndcg(r: Ranked, m: Measure) -> Bounded:
    """nDCG with its bounds over every labeling of the unlabeled documents retrieved. Those in the
    top k (u of them) move the DCG and the ideal DCG, those below k only the ideal one: the maximum
    gives them the lowest gain, the minimum the highest (the ideal DCG never falls as a label's gain
    rises; with gains >= 0 the DCG is >= 0; a negative gain adds the other cases). For the u in the
    top k, every multiset of grades is tried with its best and worst placement while there are at
    most `NDCG_EXACT_LIMIT`; past that, `_ndcg_outer` (flagged not exact)."""
    k = m.cutoff
    w = _window(r, k)
    n, width = w.shape
    gains = _gains(r, m)
    below = unlabeled_below(r, k)
    cum = _cum_discount(int(r.label_counts.sum(axis=1).max(initial=0)) + r.depth + 1)
    disc = 1.0 / np.log2(np.arange(2, width + 2, dtype=np.float64))
    labeled_gain = np.where(w >= 0, gains[np.clip(w, 0, None)], 0.0)
    dcg = (labeled_gain * disc).sum(axis=1)
    idcg = _ideal(r.label_counts, gains, k, cum)
    value = _safe_div(dcg, idcg)

    unl = w == UNLABELED
    n_unl = unl.sum(axis=1)
    low, high, exact = value.copy(), value.copy(), np.ones(n, dtype=bool)
    open_ = (n_unl + below) > 0
    if not open_.any():
        return value, low, high, exact
    top = r.max_grade
    fewest_at, most_at = int(np.argmin(gains)), int(np.argmax(gains))
    negative = bool(gains.min() < 0)
    positive = np.nonzero(gains > 0)[0]
    one_at = int(positive[np.argmin(gains[positive])]) if len(positive) else fewest_at
    too_many = open_ & np.array([comb(int(u) + top, top) > NDCG_EXACT_LIMIT for u in range(width + 1)])[n_unl]
    if too_many.any():
        rows = np.nonzero(too_many)[0]
        low[rows], high[rows] = _ndcg_outer(r, rows, gains, k, cum, dcg[rows], (unl[rows] * disc).sum(axis=1))
        exact[rows] = False
    for u in distinct_values(n_unl[open_ & ~too_many]):
        rows = np.nonzero(open_ & (n_unl == u))[0]
        u = int(u)
        # discounts at the unlabeled positions, in rank order (= descending discount)
        unl_disc = -np.sort(-np.where(unl[rows], disc, -1.0), axis=1)[:, :u]
        g_desc, ms_counts = _multiset_gains(u, top, gains.tobytes())
        # [Q, M]: each query's best and worst placement of each multiset (a matrix product: five
        # times faster than the same einsum, which does not use BLAS; the same sums to ~1e-15)
        dcg_max = dcg[rows, None] + unl_disc @ g_desc.T
        dcg_min = dcg[rows, None] + unl_disc @ g_desc[:, ::-1].T
        # the ideal DCG depends on the query only through its label counts and the documents below
        # k: one table row per distinct (reduced) count vector. Below k: all at the lowest gain
        # (fewest), all at the highest (most), and with a negative gain one at the smallest positive
        # gain (the smallest positive ideal DCG, where the DCG is negative)
        fewest = r.label_counts[rows].copy()
        variants = [fewest]
        if below[rows].any():  # else every variant is the label counts themselves
            most = fewest.copy()
            fewest[:, fewest_at] += below[rows]
            most[:, most_at] += below[rows]
            variants.append(most)
            if negative:
                one = fewest.copy()
                one[:, one_at] += below[rows] > 0
                variants.append(one)
        distinct, which = _distinct_rows(_ideal_rows(np.vstack(variants), gains, k))
        table = _ideal(distinct[:, None, :] + ms_counts[None, :, :], gains, k, cum)  # [D, M]
        ideal = [table[part] for part in np.split(which, len(variants))]
        ideal += [ideal[0]] * (3 - len(ideal))
        # D / I grows with D; with D >= 0 it falls as I grows, with D < 0 it rises (I = 0: nDCG 0)
        best = _safe_div(dcg_max, ideal[0])
        worst = _safe_div(dcg_min, ideal[1])
        if negative:
            best = np.maximum(best, _safe_div(dcg_max, ideal[1]))
            worst = np.minimum(worst, np.minimum(_safe_div(dcg_min, ideal[0]), _safe_div(dcg_min, ideal[2])))
        high[rows] = best.max(axis=1)
        low[rows] = worst.min(axis=1)
    return value, low, high, exact


def _ndcg_outer(
    r: Ranked,
    rows: npt.NDArray[np.intp],
    gains: FloatArray,
    k: int | None,
    cum: FloatArray,
    dcg: FloatArray,
    open_disc: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """A sound outer interval for nDCG = D / I on `rows` (`dcg`, `open_disc` are theirs): D within
    [dcg + g_min S, dcg + g_max S] (S the discounts of the unlabeled ranks of the top k), I within
    [I_lo, I_hi] (every unlabeled document at the lowest or the highest gain: I only grows with a
    gain), or 0 (nDCG 0) where I_lo is. A positive I is at least I_lo, or where I_lo is 0 the
    smallest positive gain (one document at rank 1); D / I never exceeds 1."""
    positive = gains[gains > 0]
    if len(positive) == 0:  # no labeling gives an ideal DCG: nDCG is 0
        zero = np.zeros(len(rows))
        return zero, zero.copy()
    fewest_at, most_at = int(np.argmin(gains)), int(np.argmax(gains))
    n_unl = (r.grades[rows] == UNLABELED).sum(axis=1)
    fewest = r.label_counts[rows].copy()
    fewest[:, fewest_at] += n_unl
    most = r.label_counts[rows].copy()
    most[:, most_at] += n_unl
    i_lo = _ideal(fewest, gains, k, cum)
    i_hi = _ideal(most, gains, k, cum)
    i_pos = np.where(i_lo > 0, i_lo, positive.min())
    d_lo = dcg + gains.min() * open_disc
    d_hi = dcg + gains.max() * open_disc
    high = np.where(d_hi > 0, d_hi / i_pos, d_hi / i_hi)
    low = np.where(d_lo < 0, d_lo / i_pos, d_lo / i_hi)
    high = np.minimum(high, 1.0)  # a DCG@k never exceeds the ideal one (its positive gains, sorted)
    zero = i_lo == 0
    return np.where(zero, np.minimum(low, 0.0), low), np.where(zero, np.maximum(high, 0.0), high)


def judged(r: Ranked, k: int | None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The labeled fraction of the top k retrieved (of all retrieved without k: ir_measures' Judged)."""
    value = np.nan_to_num(coverage(r, k), nan=0.0)
    return value, value, value


BLOCK_CELLS = 1 << 16
"""Ranked cells per block of queries: kernels make several float arrays of this size (512 KiB:
below `workflows.scoring.MMAP_FROM`, so they reuse the heap's pages instead of mapping new ones)."""


def compute(r: Ranked, m: Measure, default_threshold: int, *, bounds: bool = True) -> Scores:
    """Values, coverage and (unless `bounds` is False: NaN) bounds of one measure for every
    evaluated query."""
    n = len(r.query_ids)
    step = max(1, BLOCK_CELLS // max(r.depth, 1))
    if n <= step:
        return _compute(r, m, default_threshold, bounds)
    parts = [_compute(r.rows(lo, min(n, lo + step)), m, default_threshold, bounds) for lo in range(0, n, step)]
    return Scores(
        value=np.concatenate([p.value for p in parts]),
        coverage=np.concatenate([p.coverage for p in parts]),
        low=np.concatenate([p.low for p in parts]),
        high=np.concatenate([p.high for p in parts]),
        exact=np.concatenate([p.exact for p in parts]),
    )


def _compute(r: Ranked, m: Measure, default_threshold: int, bounds: bool) -> Scores:
    kernel = KERNELS.get(m.family)
    if kernel is None:
        raise _undeclared(m)
    t = r.code(m.threshold(default_threshold))
    full = replace(m, judged_only=False)
    if bounds:
        value, low, high, is_exact = kernel.bounded(r, full, t)
    else:
        value = kernel.value(r, full, t)
        low = high = np.full(len(value), np.nan)
        is_exact = np.ones(len(value), dtype=bool)
    if m.judged_only:  # the condensed list's value; coverage and bounds stay the full list's
        value = kernel.value(condensed(r), full, t)
    lengths = kernel.window(r, full, t) if kernel.window is not None else cutoff_lengths(r, m.cutoff)
    return Scores(value=value, coverage=coverage_within(r, lengths), low=low, high=high, exact=is_exact)


# -- the kernel table ---------------------------------------------------------------------------

_AtK = Callable[[Ranked, int, int], tuple[FloatArray, FloatArray, FloatArray]]


def _at_k(kernel: _AtK, window: Window | None = None) -> Kernel:
    """A family whose cutoff is required and whose value comes with its bounds at no extra cost."""

    def bounded(r: Ranked, m: Measure, t: int) -> Bounded:
        if m.cutoff is None:
            raise _undeclared(m)
        return _exact(*kernel(r, m.cutoff, t))

    return Kernel(value=lambda r, m, t: bounded(r, m, t)[0], bounded=bounded, window=window)


def _ndcg_value(r: Ranked, m: Measure, _t: int) -> FloatArray:
    w = _window(r, m.cutoff)
    gains = _gains(r, m)
    disc = 1.0 / np.log2(np.arange(2, w.shape[1] + 2, dtype=np.float64))
    dcg = (np.where(w >= 0, gains[np.clip(w, 0, None)], 0.0) * disc).sum(axis=1)
    cum = _cum_discount(int(r.label_counts.sum(axis=1).max(initial=0)) + w.shape[1] + 1)
    return _safe_div(dcg, _ideal(r.label_counts, gains, m.cutoff, cum))


def _ap_value(r: Ranked, m: Measure, t: int) -> FloatArray:
    """AP = sum of precision at each relevant rank / R. The terms are placed in a zero matrix at the
    relevant cells only (their rank among the row's relevant documents, over the rank), not by a
    cumsum over every cell; the row sums are then the same floats (`tests/test_kernels_fast.py`)."""
    w = _window(r, m.cutoff)
    big_r = _relevant_total(r, t).astype(np.float64)
    rows, cols = np.nonzero(w >= t)
    starts = np.searchsorted(rows, np.arange(len(w)))  # each row's first relevant cell
    nth = np.arange(1, len(rows) + 1, dtype=np.float64)
    nth -= starts[rows]
    terms = np.zeros(w.shape, dtype=np.float64)
    terms[rows, cols] = nth / (cols + 1.0)
    return _safe_div(terms.sum(axis=1), big_r)


def _rprec_value(r: Ranked, _m: Measure, t: int) -> FloatArray:
    w = r.grades
    r_total = _relevant_total(r, t)
    inside = np.arange(w.shape[1])[None, :] < r_total[:, None]  # the top R (the whole row if shorter)
    rel_in = np.count_nonzero((w >= t) & inside, axis=1)
    return _safe_div(rel_in.astype(np.float64), r_total.astype(np.float64))


def _rr_value(r: Ranked, m: Measure, t: int) -> FloatArray:
    return _first(_window(r, m.cutoff) >= t)


def _to_first_relevant(r: Ranked, m: Measure, t: int) -> IntArray:
    return to_first(r.grades >= t, m.cutoff)


KERNELS: Mapping[str, Kernel] = {
    "P": _at_k(precision),
    "R": _at_k(recall),
    "Success": _at_k(success, _to_first_relevant),
    "RR": Kernel(_rr_value, lambda r, m, t: _exact(*reciprocal_rank(r, m.cutoff, t)), _to_first_relevant),
    "nDCG": Kernel(_ndcg_value, lambda r, m, _t: ndcg(r, m)),
    "AP": Kernel(_ap_value, lambda r, m, t: _exact(*average_precision(r, m.cutoff, t))),
    "Rprec": Kernel(_rprec_value, lambda r, _m, t: _exact(*r_precision(r, t))),
    "Judged": Kernel(lambda r, m, _t: judged(r, m.cutoff)[0], lambda r, m, _t: _exact(*judged(r, m.cutoff))),
    **SET_KERNELS,
    **GRADED_KERNELS,
    **TREC_KERNELS,
}
KERNELS = {**KERNELS, **{twin: KERNELS[of] for twin, of in GEOMETRIC_TWINS.items()}}
"""Family -> its kernel: the one dispatch on family (`measures.SPECS` declares the families)."""
