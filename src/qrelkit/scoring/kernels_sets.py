"""Kernels of the count, set and judged-only families: NumRet, NumRel, NumRelRet, NumQ, SetP,
SetR, SetF, Bpref, infAP, IPrec@level and the 11-point average, as trec_eval computes them.

Bounds follow the convention of `kernels`: the extremes over every labeling of the unlabeled
documents retrieved. Counts and set measures are monotone in the number of unlabeled documents
made relevant, so their bounds are the two uniform completions. Bpref, infAP and interpolated
precision have none (NaN, null in reports), see their `MeasureSpec.bounds`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .arrays import ABSENT, Ranked
from .kernel_base import (
    Bounded,
    FloatArray,
    IntArray,
    Kernel,
    Window,
    exact,
    no_bounds,
    open_in,
    relevant_total,
    safe_div,
    undeclared,
)
from .measures import Measure

INFAP_EPSILON = 0.00001
"""trec_eval's smoothing constant in infAP."""
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def _counts(r: Ranked, t: int) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per query: retrieved, relevant retrieved, unlabeled retrieved that a label can make relevant,
    and R."""
    w = r.grades
    ret = (w != ABSENT).sum(axis=1).astype(np.float64)
    rel = (w >= t).sum(axis=1).astype(np.float64)
    unl = open_in(w, r, t).sum(axis=1).astype(np.float64)
    return ret, rel, unl, relevant_total(r, t).astype(np.float64)


def num_ret(r: Ranked, m: Measure, t: int) -> Bounded:
    """Documents retrieved; with `rel` given, the relevant ones (ir_measures' NumRet(rel=N))."""
    if m.rel is not None:
        return num_rel_ret(r, m, t)
    ret = _counts(r, t)[0]
    return exact(ret, ret, ret)


def num_rel(r: Ranked, _m: Measure, t: int) -> Bounded:
    _, _, unl, big_r = _counts(r, t)
    return exact(big_r, big_r, big_r + unl)


def num_rel_ret(r: Ranked, _m: Measure, t: int) -> Bounded:
    _, rel, unl, _ = _counts(r, t)
    return exact(rel, rel, rel + unl)


def num_q(r: Ranked, _m: Measure, _t: int) -> Bounded:
    one = np.ones(len(r.query_ids))
    return exact(one, one, one)


def set_p(r: Ranked, _m: Measure, t: int) -> Bounded:
    ret, rel, unl, _ = _counts(r, t)
    return exact(safe_div(rel, ret), safe_div(rel, ret), safe_div(rel + unl, ret))


def set_r(r: Ranked, _m: Measure, t: int) -> Bounded:
    _, rel, unl, big_r = _counts(r, t)
    value = safe_div(rel, big_r)
    return exact(value, value, safe_div(rel + unl, big_r + unl))


def set_f(r: Ranked, _m: Measure, t: int) -> Bounded:
    """F1 = 2PR / (P + R), computed as trec_eval 10 computes it (P = rel/ret, R = rel/R first, then
    2 P R / (P + R); 0 with nothing relevant retrieved), so a value half-way between two printed
    digits rounds as trec_eval's does. It equals 2 |rel ret| / (|ret| + R); m unlabeled documents
    made relevant give 2 (rel + m) / (ret + R + m), increasing in m."""
    ret, rel, unl, big_r = _counts(r, t)
    p, rec = safe_div(rel, ret), safe_div(rel, big_r)
    value = np.where(rel > 0, safe_div(2.0 * p * rec, p + rec), 0.0)
    return exact(value, value, np.maximum(value, safe_div(2 * (rel + unl), ret + big_r + unl)))


def bpref(r: Ranked, _m: Measure, t: int) -> FloatArray:
    """trec_eval's bpref: each judged relevant document scores 1 - min(n, R) / min(N, R), n the
    judged nonrelevant documents above it, N all judged nonrelevant ones; the sum over R."""
    w = r.grades
    rel = w >= t
    nonrel = (w >= 0) & (w < t)
    big_r = relevant_total(r, t).astype(np.float64)
    big_n = r.label_counts[:, : min(t, r.max_grade + 1)].sum(axis=1).astype(np.float64)
    above = np.cumsum(nonrel, axis=1).astype(np.float64)
    cap = np.minimum(big_n, big_r)[:, None]
    term = np.where(
        above > 0, 1.0 - safe_div(np.minimum(above, big_r[:, None]), np.broadcast_to(cap, above.shape)), 1.0
    )
    return safe_div(np.where(rel, term, 0.0).sum(axis=1), big_r)


def inf_ap(r: Ranked, _m: Measure, t: int) -> FloatArray:
    """trec_eval's infAP: documents outside the pool (absent from the qrels) count as nonrelevant
    ranks, pooled but unjudged ones (negative grade in the qrels) are assumed relevant in the
    proportion of the judged ones above."""
    w = r.grades
    rel = w >= t
    nonrel = (w >= 0) & (w < t)
    pooled = r.pooled if r.pooled is not None else np.zeros(w.shape, dtype=bool)
    rel_before: FloatArray = (np.cumsum(rel, axis=1) - rel.astype(np.int64)).astype(np.float64)
    nonrel_before = np.cumsum(nonrel, axis=1).astype(np.float64)  # the document itself is relevant
    pooled_before = (np.cumsum(pooled, axis=1) - pooled.astype(np.int64)).astype(np.float64)
    j = np.arange(w.shape[1], dtype=np.float64)[None, :]  # 0-based rank
    seen = rel_before + nonrel_before + pooled_before
    frac = (rel_before + INFAP_EPSILON) / (rel_before + nonrel_before + 2 * INFAP_EPSILON)
    term = np.where(j == 0, 1.0, 1.0 / (j + 1.0) + (j / (j + 1.0)) * safe_div(seen, np.maximum(j, 1.0)) * frac)
    return safe_div(np.where(rel, term, 0.0).sum(axis=1), relevant_total(r, t).astype(np.float64))


def _recall_ranks(level: float, big_r: IntArray, rule: int | None) -> IntArray:
    """How many relevant documents recall level x stands for: round(x R) half away from zero, as
    trec_eval 10 (`lround`); rule 9: x R + 0.9 truncated, as trec_eval 9 and pytrec_eval."""
    xr = level * big_r.astype(np.float64)
    if rule == 9:
        return np.asarray(np.floor(xr + 0.9), dtype=np.int64)
    whole = np.floor(xr)
    return np.asarray(whole + (xr - whole >= 0.5), dtype=np.int64)


def _iprec(r: Ranked, t: int, levels: tuple[float, ...], rule: int | None = None) -> FloatArray:
    """[queries, levels]: trec_eval's interpolated precision, the largest precision at any rank at
    or below the one where the run reaches the relevant documents level x stands for
    (`_recall_ranks`); 0 when the run never reaches it."""
    w = r.grades
    rel = w >= t
    big_r = relevant_total(r, t)
    rel_cum = np.cumsum(rel, axis=1)
    pos = np.arange(1, w.shape[1] + 1, dtype=np.float64)[None, :]
    prec = np.where(w != ABSENT, rel_cum / pos, 0.0)
    best_below = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]  # max precision at ranks >= i
    n_rel_ret = rel_cum[:, -1] if w.shape[1] else np.zeros(len(r.query_ids), np.int64)
    out = np.zeros((len(r.query_ids), len(levels)))
    if not w.shape[1]:
        return out
    for i, level in enumerate(levels):
        need = _recall_ranks(level, big_r, rule)
        reached = need <= n_rel_ret
        # rank of the need-th relevant document (need = 0: rank 1)
        at = np.argmax(rel_cum >= np.maximum(need, 1)[:, None], axis=1)
        value = np.take_along_axis(best_below, at[:, None], axis=1)[:, 0]
        out[:, i] = np.where(reached & (n_rel_ret > 0), value, 0.0)
    return out


def iprec(r: Ranked, m: Measure, t: int) -> FloatArray:
    if m.level is None:
        raise undeclared(m)
    return _iprec(r, t, (m.level,), m.trec_eval_version)[:, 0]


def eleven_point(r: Ranked, m: Measure, t: int) -> FloatArray:
    """The mean of the 11 levels, summed from level 1 down to 0 as trec_eval sums them."""
    values = _iprec(r, t, ELEVEN_POINTS, m.trec_eval_version)
    total = np.zeros(len(r.query_ids))
    for i in reversed(range(len(ELEVEN_POINTS))):
        total = total + values[:, i]
    return np.asarray(total / len(ELEVEN_POINTS), dtype=np.float64)


def _whole_run(r: Ranked, _m: Measure, _t: int) -> IntArray:
    return np.full(len(r.query_ids), r.depth, dtype=np.int64)


def _nothing(r: Ranked, m: Measure, _t: int) -> IntArray:
    """No label changes the value (coverage n/a), unless it counts relevant documents."""
    return np.full(len(r.query_ids), r.depth if m.rel is not None else 0, dtype=np.int64)


def _bounded(fn: Callable[[Ranked, Measure, int], Bounded], window: Window = _whole_run) -> Kernel:
    return Kernel(lambda r, m, t: fn(r, m, t)[0], fn, window)


def _unbounded(fn: Callable[[Ranked, Measure, int], FloatArray]) -> Kernel:
    return Kernel(fn, lambda r, m, t: no_bounds(fn(r, m, t)), _whole_run)


KERNELS: Mapping[str, Kernel] = {
    "NumRet": _bounded(num_ret, _nothing),
    "NumRel": _bounded(num_rel),
    "NumRelRet": _bounded(num_rel_ret),
    "NumQ": _bounded(num_q, _nothing),
    "SetP": _bounded(set_p),
    "SetR": _bounded(set_r),
    "SetF": _bounded(set_f),
    "Bpref": _unbounded(bpref),
    "infAP": _unbounded(inf_ap),
    "IPrec": _unbounded(iprec),
    "IPrec11pt": _unbounded(eleven_point),
}
