"""Kernels of the user-model families: DCG@k, ERR@k and RBP(p) with its residual.

All three are sums of a per-rank weight times a non-decreasing function of the grade at that rank
(for ERR: the derivative in each rank's stopping probability is
Π_{i<j}(1 - R_i) (1/j - Σ_{r>j} R_r Π_{j<i<r}(1 - R_i) / r) >= 0), and none reads a label below
rank k, so the bounds are the two uniform completions: every unlabeled document in the window at
the lowest gain (grade), or at the highest. RBP's upper bound is rbp_eval's residual, which also
counts ranks past the end of the run: exact only where the run fills the top k (`rbp`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from .arrays import ABSENT, UNLABELED, Ranked
from .kernel_base import Bounded, FloatArray, Kernel, can_be_relevant, discounts, exact, gains_of, window
from .measures import Measure

RBP_P = 0.8
"""RBP's default persistence (ir_measures'; trec_eval 10's `rbp` defaults to 0.9)."""


def _dcg_of(w: npt.NDArray[np.int32], gains: FloatArray, unl_gain: float) -> FloatArray:
    g = np.where(w >= 0, gains[np.clip(w, 0, None)], np.where(w == UNLABELED, unl_gain, 0.0))
    return np.asarray((g * discounts(w.shape[1])).sum(axis=1), dtype=np.float64)


def dcg(r: Ranked, m: Measure, _t: int) -> Bounded:
    """Raw DCG: Σ gain(grade) / log2(rank + 1) over the top k; unlabeled documents gain 0."""
    w = window(r, m.cutoff)
    gains = gains_of(r, m)
    value = _dcg_of(w, gains, 0.0)
    return exact(value, _dcg_of(w, gains, float(gains.min())), _dcg_of(w, gains, float(gains.max())))


ERR_MAX_GRADE = 4
"""ERR's default top grade g_max (gdeval's MAX_JUDGMENT, so ir_measures' ERR@k)."""


def _stop(r: Ranked, m: Measure) -> tuple[FloatArray, float]:
    """ERR's stopping probability (2^g - 1) / 2^g_max of each grade code (as gdeval writes it),
    and that of an unlabeled document at the highest grade it may take; a labeled grade above
    g_max is refused, as gdeval refuses it."""
    top = m.max_grade if m.max_grade is not None else ERR_MAX_GRADE
    values = r.grade_values
    used = values[(r.label_counts > 0).any(axis=0)] if len(r.query_ids) else values[:0]
    if len(used) and int(used.max()) > top:
        fix = f"write ERR(max_grade={int(used.max())})" + (f"@{m.cutoff}" if m.cutoff is not None else "")
        raise ScoringError(f"{m.name}: the qrels hold grade {int(used.max())}, above its top grade {top}", fix)
    g = values.astype(np.float64)
    stop = np.asarray((np.exp2(g) - 1.0) / np.exp2(float(top)), dtype=np.float64)
    reachable = float(min(r.top_grade, top))
    return np.minimum(stop, 1.0), float((np.exp2(reachable) - 1.0) / np.exp2(float(top)))


def _err_of(w: npt.NDArray[np.int32], stop: FloatArray, unl_stop: float) -> FloatArray:
    p = np.where(w >= 0, stop[np.clip(w, 0, None)], np.where(w == UNLABELED, unl_stop, 0.0))
    reach = np.cumprod(np.concatenate([np.ones((len(w), 1)), 1.0 - p[:, :-1]], axis=1), axis=1)
    ranks = np.arange(1, w.shape[1] + 1, dtype=np.float64)[None, :]
    return np.asarray((reach * p / ranks).sum(axis=1), dtype=np.float64)


def err(r: Ranked, m: Measure, _t: int) -> Bounded:
    """Expected reciprocal rank: Σ_r R_r Π_{i<r} (1 - R_i) / r over the top k."""
    w = window(r, m.cutoff)
    stop, highest = _stop(r, m)
    value = _err_of(w, stop, 0.0)
    return exact(value, value, _err_of(w, stop, highest))


def _rbp_gains(r: Ranked, m: Measure, t: int, w: npt.NDArray[np.int32]) -> FloatArray:
    """[queries, ranks]: each document's gain. Binary: 1 at or above the threshold. graded=True
    (trec_eval 10's rbp): the grade itself, divided by the query's top grade in the qrels when that
    is above 1, whatever the threshold (a grade of 1 on a 0..3 query gains 1/3)."""
    if not m.graded:
        return np.asarray(w >= t, dtype=np.float64)
    values = r.grade_values.astype(np.float64)
    present = r.label_counts > 0
    query_top = np.where(present.any(axis=1), np.where(present, values[None, :], 0.0).max(axis=1), 0.0)
    scale = np.where(query_top > 1, query_top, 1.0)
    grade = np.where(w >= 0, values[np.clip(w, 0, None)], 0.0)
    return np.asarray(grade / scale[:, None], dtype=np.float64)


def _rbp_parts(r: Ranked, m: Measure, t: int) -> tuple[FloatArray, FloatArray]:
    """RBP and its residual: the weight of the unlabeled documents retrieved plus that of the
    ranks past the end of the run (up to k). The sum runs rank by rank, p^i as a running product,
    as trec_eval sums it."""
    p = m.p if m.p is not None else RBP_P
    w = window(r, m.cutoff)
    weight = np.cumprod(np.concatenate([[1.0], np.full(max(w.shape[1] - 1, 0), p)]))[None, : w.shape[1]]
    gains = _rbp_gains(r, m, t, w)
    total = np.zeros(len(w))
    for i in range(w.shape[1]):  # in rank order, as trec_eval adds them (the last digit of the mean)
        total += gains[:, i] * weight[:, i]
    value = (1.0 - p) * total
    open_ = (1.0 - p) * (weight * (w == UNLABELED)).sum(axis=1)
    shown = (w != ABSENT).sum(axis=1).astype(np.float64)
    tail = np.power(p, shown) - (0.0 if m.cutoff is None else p**m.cutoff)
    return np.asarray(value, dtype=np.float64), np.asarray(open_ + np.maximum(tail, 0.0), dtype=np.float64)


def rbp(r: Ranked, m: Measure, t: int) -> Bounded:
    """Value in [low, value + residual]. Binary, low is the value (unlabeled documents gain 0).
    graded=True: a retrieved unlabeled document labeled above the query's top grade rescales
    every other gain, so low is the smallest of the value, the value with one such document in
    the window (the lowest-weighted one) at the scale's top grade S, value x top / S + (1 - p) p^i,
    and, when one lies past the window, value x top / S.
    [RBP, RBP + residual]: exact where the run fills the top k (the residual is then the weight
    of the unlabeled documents); the residual of the ranks past the end of the run (every rank
    without a cutoff) is weight no labeling reaches, so there it is an outer interval."""
    value, residual = _rbp_parts(r, m, t)
    low = value
    if m.graded and r.top_grade > 1:
        p = m.p if m.p is not None else RBP_P
        w = window(r, m.cutoff)
        values = r.grade_values.astype(np.float64)
        present = r.label_counts > 0
        scale = np.maximum(np.where(present, values[None, :], 0.0).max(axis=1, initial=0.0), 1.0)
        unl = w == UNLABELED
        last = np.where(unl.any(axis=1), w.shape[1] - 1 - np.argmax(unl[:, ::-1], axis=1), 0)
        w_min = (1.0 - p) * np.power(p, last.astype(np.float64))
        shrunk = value * scale / float(r.top_grade)
        rescaled = np.where(unl.any(axis=1), shrunk + w_min, np.inf)
        beyond = (r.grades[:, w.shape[1] :] == UNLABELED).any(axis=1)  # labeled there: no gain, but rescales
        rescaled = np.minimum(rescaled, np.where(beyond, shrunk, np.inf))
        low = np.where(scale < r.top_grade, np.minimum(value, rescaled), value)
    full = np.zeros(len(value), dtype=bool) if m.cutoff is None else r.n_ret >= m.cutoff
    if not m.graded and not can_be_relevant(r, t):  # no unlabeled document can become relevant
        full &= ~(window(r, m.cutoff) == UNLABELED).any(axis=1)
    return value, np.asarray(low, dtype=np.float64), value + residual, full


KERNELS: Mapping[str, Kernel] = {
    "DCG": Kernel(lambda r, m, t: dcg(r, m, t)[0], dcg),
    "ERR": Kernel(lambda r, m, t: err(r, m, t)[0], err),
    "RBP": Kernel(lambda r, m, t: _rbp_parts(r, m, t)[0], rbp),
}
