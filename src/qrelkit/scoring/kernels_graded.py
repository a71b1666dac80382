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


def _stop(r: Ranked) -> FloatArray:
    """ERR's stopping probability of each grade code: (2^g - 1) / 2^g_max, g_max the scale's top."""
    g = r.grade_values.astype(np.float64)
    top = float(r.top_grade)
    return np.asarray(np.exp2(g - top) - np.exp2(-top), dtype=np.float64)


def _err_of(w: npt.NDArray[np.int32], stop: FloatArray, unl_stop: float) -> FloatArray:
    p = np.where(w >= 0, stop[np.clip(w, 0, None)], np.where(w == UNLABELED, unl_stop, 0.0))
    reach = np.cumprod(np.concatenate([np.ones((len(w), 1)), 1.0 - p[:, :-1]], axis=1), axis=1)
    ranks = np.arange(1, w.shape[1] + 1, dtype=np.float64)[None, :]
    return np.asarray((reach * p / ranks).sum(axis=1), dtype=np.float64)


def err(r: Ranked, m: Measure, _t: int) -> Bounded:
    """Expected reciprocal rank: Σ_r R_r Π_{i<r} (1 - R_i) / r over the top k."""
    w = window(r, m.cutoff)
    stop = _stop(r)
    value = _err_of(w, stop, 0.0)
    return exact(value, value, _err_of(w, stop, float(stop.max())))


def _rbp_parts(r: Ranked, m: Measure, t: int) -> tuple[FloatArray, FloatArray]:
    """RBP and its residual: the weight of the unlabeled documents retrieved plus that of the
    ranks past the end of the run (up to k)."""
    p = m.p if m.p is not None else RBP_P
    w = window(r, m.cutoff)
    weight = (1.0 - p) * np.power(p, np.arange(w.shape[1], dtype=np.float64))[None, :]
    value = (weight * (w >= t)).sum(axis=1)
    open_ = (weight * (w == UNLABELED)).sum(axis=1)
    shown = (w != ABSENT).sum(axis=1).astype(np.float64)
    tail = np.power(p, shown) - (0.0 if m.cutoff is None else p**m.cutoff)
    return np.asarray(value, dtype=np.float64), np.asarray(open_ + np.maximum(tail, 0.0), dtype=np.float64)


def rbp(r: Ranked, m: Measure, t: int) -> Bounded:
    """[RBP, RBP + residual]: exact where the run fills the top k (the residual is then the weight
    of the unlabeled documents); the residual of the ranks past the end of the run (every rank
    without a cutoff) is weight no labeling reaches, so there it is an outer interval."""
    value, residual = _rbp_parts(r, m, t)
    full = np.zeros(len(value), dtype=bool) if m.cutoff is None else r.n_ret >= m.cutoff
    if not can_be_relevant(r, t):  # no unlabeled document can become relevant
        full &= ~(window(r, m.cutoff) == UNLABELED).any(axis=1)
    return value, value, value + residual, full


def rbp_residual(r: Ranked, m: Measure, t: int) -> FloatArray:
    """The residual alone (rbp_eval's second number)."""
    return _rbp_parts(r, m, t)[1]


KERNELS: Mapping[str, Kernel] = {
    "DCG": Kernel(lambda r, m, t: dcg(r, m, t)[0], dcg),
    "ERR": Kernel(lambda r, m, t: err(r, m, t)[0], err),
    "RBP": Kernel(lambda r, m, t: _rbp_parts(r, m, t)[0], rbp),
}
