"""What every kernel module shares: the array types, `Kernel` (one row of `kernels.KERNELS`) and
small helpers over `Ranked`.

Thresholds reaching a kernel are grade codes (`Ranked.code`), so `grades >= t` means "at least as
relevant as the threshold" whatever the grades are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from .arrays import ABSENT, UNLABELED, Ranked
from .measures import Measure

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

Bounded = tuple[FloatArray, FloatArray, FloatArray, BoolArray]
"""Per query: value, low, high, and whether the bounds are exact."""

Window = Callable[[Ranked, Measure, int], IntArray]
"""Per query, how many leading ranks hold the documents whose label can change the value."""


class Kernel(NamedTuple):
    """How to compute one family, with the uniform signature (ranked, measure, threshold code)."""

    value: Callable[[Ranked, Measure, int], FloatArray]
    """The standard value alone, skipping the bound computations."""
    bounded: Callable[[Ranked, Measure, int], Bounded]
    """The value with its bounds."""
    window: Window | None = None
    """The coverage window; None: the top k (the whole run without a cutoff)."""


def window(r: Ranked, k: int | None) -> npt.NDArray[np.int32]:
    return r.grades if k is None else r.grades[:, : min(k, r.depth)]


def safe_div(num: FloatArray, den: FloatArray) -> FloatArray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def relevant_total(r: Ranked, t: int) -> IntArray:
    """R: labeled documents at or above the threshold code t, retrieved or not."""
    return r.label_counts[:, t:].sum(axis=1) if t <= r.max_grade else np.zeros(len(r.query_ids), np.int64)


def can_be_relevant(r: Ranked, t: int) -> bool:
    """Whether a grade of the scale reaches the threshold code t: an unlabeled document can become
    relevant (`P(rel=5)` on a 0..3 scale: none can)."""
    return t <= r.max_grade


def open_in(w: npt.NDArray[np.int32], r: Ranked, t: int) -> BoolArray:
    """The unlabeled documents of a window that some labeling makes relevant at threshold t."""
    unl = w == UNLABELED
    return unl if can_be_relevant(r, t) else np.zeros_like(unl)


def unlabeled_below(r: Ranked, k: int | None) -> IntArray:
    """Per query, the unlabeled documents retrieved below rank k (none without a cutoff): their
    labels move R or the ideal DCG though no gain of theirs is counted."""
    if k is None or k >= r.depth:
        return np.zeros(len(r.query_ids), dtype=np.int64)
    return np.asarray((r.grades[:, k:] == UNLABELED).sum(axis=1), dtype=np.int64)


def first(mask: BoolArray) -> FloatArray:
    """1 / rank of the first True per row, 0 if none."""
    any_ = mask.any(axis=1)
    at = mask.argmax(axis=1) + 1
    return np.where(any_, 1.0 / at, 0.0)


def exact(value: FloatArray, low: FloatArray, high: FloatArray) -> Bounded:
    return value, low, high, np.ones(len(value), dtype=bool)


def no_bounds(value: FloatArray) -> Bounded:
    """A value whose definition admits no bounds (reported as null)."""
    nan = np.full(len(value), np.nan)
    return value, nan, nan.copy(), np.ones(len(value), dtype=bool)


def undeclared(m: Measure) -> ScoringError:
    return ScoringError(f"{m.name} cannot be computed as declared", "see `qrelkit score --help`")


def coverage_within(r: Ranked, lengths: IntArray) -> FloatArray:
    """Per query, the labeled fraction of the retrieved documents among its first `lengths` ranks;
    NaN where that holds no retrieved document."""
    longest = min(int(lengths.max(initial=0)), r.depth)
    grades = r.grades[:, :longest]  # no window reaches past its longest: fewer cells to count
    if len(lengths) and bool((lengths >= longest).all()):  # one window for all (a cutoff)
        retrieved = np.count_nonzero(grades != ABSENT, axis=1)
        labeled = np.count_nonzero(grades >= 0, axis=1)
    else:
        inside = np.arange(longest)[None, :] < lengths[:, None]
        retrieved = np.count_nonzero((grades != ABSENT) & inside, axis=1)
        labeled = np.count_nonzero((grades >= 0) & inside, axis=1)
    out = np.full(len(r.query_ids), np.nan)
    np.divide(labeled, retrieved, out=out, where=retrieved > 0)
    return out


def cutoff_lengths(r: Ranked, k: int | None) -> IntArray:
    """The window of a measure that reads the top k (the whole run without a cutoff)."""
    return np.full(len(r.query_ids), r.depth if k is None else min(k, r.depth), dtype=np.int64)


def to_first(mask: BoolArray, k: int | None) -> IntArray:
    """The ranks up to and including the first True in the top k, or all k when there is none:
    past the first relevant document no label changes RR or Success."""
    limit = mask.shape[1] if k is None else min(k, mask.shape[1])
    top = mask[:, :limit]
    return np.asarray(np.where(top.any(axis=1), top.argmax(axis=1) + 1, limit), dtype=np.int64)


def gains_of(r: Ranked, m: Measure) -> FloatArray:
    """The gain of each grade code: the grade (linear), 2^grade - 1 (exp) or the measure's map
    (`gains`; a grade it leaves out keeps its grade as gain)."""
    g = r.grade_values.astype(np.float64)
    if m.gains is not None:
        mapped = dict(m.gains)
        return np.array([mapped.get(int(v), float(v)) for v in r.grade_values], dtype=np.float64)
    if m.gain == "linear":
        return g
    with np.errstate(over="ignore"):
        return np.asarray(np.exp2(g) - 1.0, dtype=np.float64)


def discounts(width: int) -> FloatArray:
    """1 / log2(rank + 1) for ranks 1..width."""
    return np.asarray(1.0 / np.log2(np.arange(2, width + 2, dtype=np.float64)), dtype=np.float64)


def precision_at_moving_cut(
    r: Ranked, t: int, cut_of: Callable[[IntArray], IntArray] | None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Precision at rank `cut_of(R)` (R = relevant documents; a run shorter than the cut counts
    as not relevant), and its exact bounds: for every number m of the unlabeled documents that
    can become relevant (`open_in`), R + m sets the cut, and the m fall inside it as many or as few
    as they can. Rprec (cut R: `cut_of` None) and RprecMult (cut trunc(x R + 0.9)) are this with
    their cuts. Counts are int32 and every division is of the same two integers as before, so the
    floats are the same (`tests/test_kernels_fast.py`)."""
    w = r.grades
    n, depth = w.shape
    big_r = relevant_total(r, t)
    rel_cum, unl_cum = _counts_to(w >= t), _counts_to(open_in(w, r, t))
    u_total = unl_cum[:, -1:]
    added = np.arange(depth + 1)[None, :]
    den = big_r[:, None] + added if cut_of is None else cut_of(big_r[:, None] + added)
    if cut_of is None:  # the cut moves one rank per document added: each row's counts, shifted
        rel_in, unl_in = _shifted(rel_cum, big_r), _shifted(unl_cum, big_r)
    else:
        cut = np.minimum(den, depth)
        rel_in, unl_in = np.take_along_axis(rel_cum, cut, axis=1), np.take_along_axis(unl_cum, cut, axis=1)
    den_f = den.astype(np.float64)
    value = safe_div(rel_in[:, 0].astype(np.float64), den_f[:, 0])
    invalid = (added > u_total).astype(np.float64)  # more made relevant than there are: dropped below
    num = np.minimum(added, unl_in)
    num += rel_in
    hi = safe_div(num.astype(np.float64), den_f)
    hi -= hi * invalid  # 0 there: at most `value`, which column 0 holds
    np.subtract(unl_in, u_total, out=num)
    num += added
    np.maximum(num, 0, out=num)
    num += rel_in
    lo = safe_div(num.astype(np.float64), den_f)
    invalid *= 2.0
    lo += invalid  # above every precision there: never the minimum
    return value, lo.min(axis=1), hi.max(axis=1)


def _counts_to(mask: BoolArray) -> npt.NDArray[np.int32]:
    """[n, depth + 1]: column c holds the True cells among each row's first c."""
    out = np.zeros((mask.shape[0], mask.shape[1] + 1), dtype=np.int32)
    np.cumsum(mask.view(np.int8), axis=1, dtype=np.int32, out=out[:, 1:])
    return out


def _shifted(cum: npt.NDArray[np.int32], start: IntArray) -> npt.NDArray[np.int32]:
    """Row q of `cum` from column min(start[q], last) on, its last value repeated to the same width:
    `take_along_axis(cum, minimum(start[:, None] + arange(width), last))`, as row copies."""
    n, width = cum.shape
    padded = np.empty((n, 2 * width - 1), dtype=cum.dtype)
    padded[:, :width] = cum
    padded[:, width:] = cum[:, -1:]
    windows = np.lib.stride_tricks.sliding_window_view(padded, width, axis=1)
    return np.asarray(windows[np.arange(n), np.minimum(start, width - 1)])
