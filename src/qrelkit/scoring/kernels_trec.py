"""Kernels of the rest of trec_eval's `all_trec`: RprecMult@x, Utility, BinG, G, nDCGRel, RnDCG,
RelP@k, SetRelP, SetAP, NumNonRelJudgedRet, RBPResid and Unjudged@k, as trec_eval 10 computes
them (GMAP and GMBpref are AP and Bpref per query, `GEOMETRIC_TWINS`; only their mean differs).

Bounds follow the convention of `kernels`: the extremes over every labeling of the unlabeled
documents retrieved.

* RelP, SetRelP, SetAP, Utility and NumNonRelJudgedRet are monotone in the number of unlabeled
  documents made relevant (inside the window for RelP; one made relevant below k only raises R,
  which lowers RelP), so their bounds are the two uniform completions.
* RprecMult@x is Rprec's case with the cutoff trunc(x R + 0.9): for m unlabeled documents made
  relevant only how many of them fall in the top trunc(x (R + m) + 0.9) counts, so every m gives
  its extremes at once (`kernel_base.precision_at_moving_cut`, as Rprec).
* BinG, G, nDCGRel and RnDCG have none (see their `MeasureSpec.bounds`); nor do Unjudged and
  RBPResid, which measure the labeling itself: every completed labeling makes them 0.

Gains are trec_eval's defaults: a grade's gain is the grade (`gains_of` with the linear rule).
The ideal list holds every labeled document with a positive gain, highest first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from .arrays import ABSENT, UNLABELED, Ranked
from .kernel_base import (
    Bounded,
    FloatArray,
    IntArray,
    Kernel,
    exact,
    gains_of,
    no_bounds,
    precision_at_moving_cut,
    relevant_total,
    safe_div,
    undeclared,
    window,
)
from .measures import Measure

RBP_RESID_P = 0.9
"""RBPResid's default persistence: trec_eval's (its `rbp_resid` defaults to p = 0.9)."""

GEOMETRIC_TWINS = {"GMAP": "AP", "GMBpref": "Bpref"}
"""Family -> the family whose per-query values (and kernel) it shares; only the mean differs."""


def _whole_run(r: Ranked, _m: Measure, _t: int) -> IntArray:
    return np.full(len(r.query_ids), r.depth, dtype=np.int64)


def _counts(r: Ranked, t: int) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per query: retrieved, relevant retrieved, unlabeled retrieved, and R."""
    w = r.grades
    ret = (w != ABSENT).sum(axis=1).astype(np.float64)
    rel = (w >= t).sum(axis=1).astype(np.float64)
    unl = (w == UNLABELED).sum(axis=1).astype(np.float64)
    return ret, rel, unl, relevant_total(r, t).astype(np.float64)


# -- set and count families ----------------------------------------------------------------------


def utility(r: Ranked, _m: Measure, t: int) -> Bounded:
    """trec_eval's default utility 1 a - 1 b + 0 c + 0 d: relevant retrieved minus the others."""
    ret, rel, unl, _ = _counts(r, t)
    value = 2 * rel - ret
    return exact(value, value, value + 2 * unl)


def set_relative_p(r: Ranked, _m: Measure, t: int) -> Bounded:
    """Relevant retrieved / min(retrieved, R); 0 when either is 0."""
    ret, rel, unl, big_r = _counts(r, t)
    value = safe_div(rel, np.minimum(ret, big_r))
    return exact(value, value, safe_div(rel + unl, np.minimum(ret, big_r + unl)))


def set_ap(r: Ranked, _m: Measure, t: int) -> Bounded:
    """Relevant retrieved^2 / (retrieved x R): SetP x SetR. m unlabeled documents made relevant give
    (rel + m)^2 / (ret (R + m)), whose derivative has the sign of 2R + m - rel >= 0."""
    ret, rel, unl, big_r = _counts(r, t)
    value = safe_div(rel * rel, ret * big_r)
    return exact(value, value, safe_div((rel + unl) ** 2, ret * (big_r + unl)))


def num_nonrel_judged_ret(r: Ranked, _m: Measure, t: int) -> Bounded:
    """Labeled documents retrieved below the threshold."""
    w = r.grades
    value = ((w >= 0) & (w < t)).sum(axis=1).astype(np.float64)
    return exact(value, value, value + (w == UNLABELED).sum(axis=1))


# -- cutoff families -----------------------------------------------------------------------------


def relative_p(r: Ranked, m: Measure, t: int) -> Bounded:
    """Relevant in the top k / min(k, R); 0 when R is 0. Unlabeled documents in the top k made
    relevant raise it; those below k made relevant raise R only, which lowers it."""
    k = m.cutoff
    if k is None:
        raise undeclared(m)
    w = window(r, k)
    rel = (w >= t).sum(axis=1).astype(np.float64)
    unl_in = (w == UNLABELED).sum(axis=1).astype(np.float64)
    unl_below = (r.grades == UNLABELED).sum(axis=1) - unl_in
    big_r = relevant_total(r, t).astype(np.float64)
    value = safe_div(rel, np.minimum(k, big_r))
    low = safe_div(rel, np.minimum(k, big_r + unl_below))
    return exact(value, low, safe_div(rel + unl_in, np.minimum(k, big_r + unl_in)))


def unjudged(r: Ranked, m: Measure, _t: int) -> FloatArray:
    """Unlabeled documents in the top k / k (a run shorter than k is padded with judged ones)."""
    if m.cutoff is None:
        raise undeclared(m)
    return np.asarray((window(r, m.cutoff) == UNLABELED).sum(axis=1) / m.cutoff, dtype=np.float64)


def _rprec_mult_cut(big_r: npt.NDArray[np.int64] | npt.NDArray[np.float64], x: float) -> IntArray:
    """trec_eval's cutoff at x R: (long) (x R + 0.9)."""
    return np.asarray(np.trunc(x * np.asarray(big_r, dtype=np.float64) + 0.9), dtype=np.int64)


def rprec_mult(r: Ranked, m: Measure, t: int) -> Bounded:
    """Precision at the rank trunc(x R + 0.9) (a run shorter than that counts as not relevant);
    the bounds try every number of unlabeled documents made relevant."""
    level = m.level
    if level is None:
        raise undeclared(m)
    return exact(*precision_at_moving_cut(r, t, lambda big_r: _rprec_mult_cut(big_r, level)))


def _rprec_mult_value(r: Ranked, m: Measure, t: int) -> FloatArray:
    if m.level is None:
        raise undeclared(m)
    w = r.grades
    den = _rprec_mult_cut(relevant_total(r, t), m.level)
    rel_cum = np.concatenate([np.zeros((len(w), 1), np.int64), np.cumsum(w >= t, axis=1)], axis=1)
    rel_in = np.take_along_axis(rel_cum, np.minimum(den, w.shape[1])[:, None], axis=1)[:, 0]
    return safe_div(rel_in.astype(np.float64), den.astype(np.float64))


def rbp_resid(r: Ranked, m: Measure, _t: int) -> FloatArray:
    """trec_eval's RBP residual: p^n + (1 - p) Σ p^(rank-1) over the unlabeled documents retrieved,
    n the documents retrieved; 0 when none is unlabeled."""
    p = m.p if m.p is not None else RBP_RESID_P
    w = r.grades
    unl = w == UNLABELED
    weight = np.power(p, np.arange(w.shape[1], dtype=np.float64))[None, :]
    tail = np.power(p, r.n_ret.astype(np.float64))
    value = tail + (1.0 - p) * (weight * unl).sum(axis=1)
    return np.asarray(np.where(unl.any(axis=1), value, 0.0), dtype=np.float64)


# -- gain families -------------------------------------------------------------------------------


def bin_g(r: Ranked, _m: Measure, t: int) -> FloatArray:
    """Σ over relevant retrieved documents of 1 / log2(2 + documents not relevant above it), / R."""
    w = r.grades
    rel = w >= t
    not_rel_above = np.arange(w.shape[1])[None, :] - (np.cumsum(rel, axis=1) - rel)
    term = np.where(rel, 1.0 / np.log2(2.0 + not_rel_above), 0.0)
    return safe_div(term.sum(axis=1), relevant_total(r, t).astype(np.float64))


def _ideal_levels(r: Ranked, gains: FloatArray) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """The positive gains, highest first, and per query the rank where each one's documents end
    in the ideal list ([queries, levels], cumulative counts)."""
    order = [int(c) for c in np.argsort(-gains, kind="stable") if gains[c] > 0]
    counts = r.label_counts[:, order] if order else np.zeros((len(r.query_ids), 0), np.int64)
    return gains[order], np.cumsum(counts, axis=1)


def _ideal_at(level_gains: FloatArray, ends: npt.NDArray[np.int64], width: int) -> FloatArray:
    """[queries, width]: the ideal list's gain at ranks 1..width (0 past its positive gains)."""
    ranks = np.arange(1, width + 1)[None, :]
    out = np.zeros((ends.shape[0], width))
    for k in range(len(level_gains) - 1, -1, -1):  # highest level last: it wins its ranks
        out[ranks <= ends[:, k : k + 1]] = level_gains[k]
    return out


def _ideal_dcg_to(
    level_gains: FloatArray, ends: npt.NDArray[np.int64], stop: npt.NDArray[np.int64], cum: FloatArray
) -> FloatArray:
    """The ideal DCG at rank `stop` ([queries, points]); `cum[i]` the discounts summed to rank i."""
    total = np.zeros(stop.shape)
    start = np.zeros(stop.shape, dtype=np.int64)
    for k in range(len(level_gains)):
        end = np.minimum(ends[:, k : k + 1], stop)
        total += level_gains[k] * (cum[end] - cum[np.minimum(start, end)])
        start = np.maximum(start, end)
    return total


def _cum_discount(n: int) -> FloatArray:
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64)))])


def _run_gains(r: Ranked, gains: FloatArray) -> FloatArray:
    w = r.grades
    return np.where(w >= 0, gains[np.clip(w, 0, None)], 0.0)


def g_measure(r: Ranked, m: Measure, _t: int) -> FloatArray:
    """trec_eval's G: Σ gain(i) / log2(2 + cost(i) - results(i)) over the ranks i, results(i) the
    gain of the run to rank i, cost(i) Σ max(ideal gain, 1) to rank i; over the ideal gains' sum."""
    gains = gains_of(r, m)
    level_gains, ends = _ideal_levels(r, gains)
    g = _run_gains(r, gains)
    ideal = _ideal_at(level_gains, ends, r.depth)
    cost = np.cumsum(np.maximum(ideal, 1.0), axis=1)
    term = np.where(g != 0, g / np.log2(2.0 + cost - np.cumsum(g, axis=1)), 0.0)
    total_ideal = (np.diff(ends, axis=1, prepend=0) * level_gains[None, :]).sum(axis=1)
    return safe_div(term.sum(axis=1), total_ideal)


def _dcg_prefix(r: Ranked, g: FloatArray) -> FloatArray:
    """[queries, depth + 1]: the run's DCG to rank 0..depth."""
    d = np.cumsum(g / np.log2(np.arange(2, r.depth + 2, dtype=np.float64))[None, :], axis=1)
    return np.concatenate([np.zeros((len(g), 1)), d], axis=1)


def ndcg_rel(r: Ranked, m: Measure, _t: int) -> FloatArray:
    """nDCG averaged over the P documents of positive gain: at each one retrieved, the nDCG at its
    rank; each one not retrieved, the whole run's DCG over the whole ideal DCG."""
    gains = gains_of(r, m)
    level_gains, ends = _ideal_levels(r, gains)
    positive = ends[:, -1] if ends.shape[1] else np.zeros(len(r.query_ids), np.int64)
    g = _run_gains(r, gains)
    dcg = _dcg_prefix(r, g)[:, 1:]
    cum = _cum_discount(int(max(positive.max(initial=0), r.depth)) + 1)
    ranks = np.arange(1, r.depth + 1, dtype=np.int64)[None, :]
    ideal = _ideal_dcg_to(level_gains, ends, np.broadcast_to(ranks, g.shape), cum)
    at_rel = np.where(g > 0, safe_div(dcg, ideal), 0.0).sum(axis=1)
    full_ideal = _ideal_dcg_to(level_gains, ends, positive[:, None], cum)[:, 0]
    missing = positive - (g > 0).sum(axis=1)
    total = at_rel + missing * safe_div(dcg[:, -1], full_ideal)
    return np.where((positive > 0) & (total > 0), safe_div(total, positive.astype(np.float64)), 0.0)


def r_ndcg(r: Ranked, m: Measure, t: int) -> FloatArray:
    """nDCG averaged over the ideal list's gain boundaries (the ranks where its gain drops: the
    cumulative counts of the positive grades), plus the run's end when it is retrieved more than
    one past the last positive ideal rank; 0 when R is 0."""
    gains = gains_of(r, m)
    level_gains, ends = _ideal_levels(r, gains)
    n = len(r.query_ids)
    positive = ends[:, -1] if ends.shape[1] else np.zeros(n, np.int64)
    dcg = _dcg_prefix(r, _run_gains(r, gains))
    cum = _cum_discount(int(max(positive.max(initial=0), r.depth)) + 1)
    # one point per level with documents: its ideal list ends at `ends`, the run is cut there
    filled = np.diff(ends, axis=1, prepend=0) > 0
    at = np.take_along_axis(dcg, np.minimum(ends, r.depth), axis=1)
    ideal = _ideal_dcg_to(level_gains, ends, ends, cum)
    total = np.where(filled, safe_div(at, ideal), 0.0).sum(axis=1)
    points = filled.sum(axis=1)
    full_ideal = _ideal_dcg_to(level_gains, ends, positive[:, None], cum)[:, 0]
    past = (r.n_ret > positive + 1) & (full_ideal > 0)
    total = total + np.where(past, safe_div(dcg[:, -1], full_ideal), 0.0)
    points = points + past
    value = safe_div(total, points.astype(np.float64))
    return np.where(relevant_total(r, t) > 0, value, 0.0)


# -- the kernel table ----------------------------------------------------------------------------


def _bounded(fn: Callable[[Ranked, Measure, int], Bounded], whole_run: bool = True) -> Kernel:
    return Kernel(lambda r, m, t: fn(r, m, t)[0], fn, _whole_run if whole_run else None)


def _unbounded(fn: Callable[[Ranked, Measure, int], FloatArray], whole_run: bool = True) -> Kernel:
    return Kernel(fn, lambda r, m, t: no_bounds(fn(r, m, t)), _whole_run if whole_run else None)


KERNELS: Mapping[str, Kernel] = {
    "RprecMult": Kernel(_rprec_mult_value, rprec_mult, _whole_run),
    "Utility": _bounded(utility),
    "BinG": _unbounded(bin_g),
    "G": _unbounded(g_measure),
    "nDCGRel": _unbounded(ndcg_rel),
    "RnDCG": _unbounded(r_ndcg),
    "RelP": _bounded(relative_p),
    "SetRelP": _bounded(set_relative_p),
    "SetAP": _bounded(set_ap),
    "NumNonRelJudgedRet": _bounded(num_nonrel_judged_ret),
    "RBPResid": _unbounded(rbp_resid),
    "Unjudged": _unbounded(unjudged, whole_run=False),
}
"""Family -> its kernel (`kernels.KERNELS` takes these in, and the `GEOMETRIC_TWINS`)."""
