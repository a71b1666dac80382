"""The verdicts of the stopping rule over the box of per-query delta ranges (`settle` imports them).

Queries are labeled independently, so every labeling's vector of per-query deltas x lies in the
box [l_q, h_q] (each query's range); the box may hold more (a query's deltas need not fill its
range), so a verdict true at every point of the box holds for every labeling: sound, not exact.

The sign: the mean of x lies in [mean l, mean h]; settled iff that excludes 0 (or is 0).

The paired t-test (two-sided, alpha 0.05, n queries, critical value c). With S = sum x and
Q = sum x^2, t = mean sqrt(n) / sd and sd^2 = (Q - S^2 / n) / (n - 1), so |t| > c iff
Q < beta S^2 with beta = 1 / n + (n - 1) / (n c^2) (an x with sd 0 and S != 0: Q = S^2 / n <
beta S^2, significant, as the verdict counts it). So

* significant at every point iff max over the box of (Q - beta S^2) < 0 (S keeps one sign). For
  one S, Q is at most U(S), the fractional knapsack over the chords x_q^2 <= l_q^2 + (x_q - l_q)
  (l_q + h_q) (x^2 is convex), filled in descending l_q + h_q: U is concave and piecewise linear in
  S, so beta S^2 - U(S) is convex and its minimum over [sum l, sum h] is found per piece
  (`_significant_everywhere`). A relaxation: sound, not exact.
* not significant at every point iff min over the box of (Q - beta S^2) >= 0. For one S the
  smallest Q is the water-filling x_q = clip(mu, l_q, h_q) (mu setting the sum), and mu sweeps
  every S from sum l to sum h; between two breakpoints of mu, S and Q are a line and a parabola
  in mu, so the minimum is at a breakpoint or a segment's vertex (`_insignificant_everywhere`):
  exact over the box.

Beside these, the looser bounds of mean and SD apart (`sd_range`: the SD's exact minimum over the
box, min over c of sum dist(c, [l_q, h_q])^2, a convex piecewise quadratic solved per segment, and
an upper bound, min over c of sum max((l_q - c)^2, (h_q - c)^2) at c = the mean of the midpoints)
still count: either kind settling the verdict settles it (both are sound).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

ALPHA = 0.05
"""The paired t-test's level (two-sided)."""
TIE = 1e-12
"""Means this close to 0 are 0 (float sums of equal values may differ in the last bits)."""
MARGIN = 1e-9
"""How far (relative) inside its threshold a t verdict must be to count as settled."""

SignVerdict = Literal["settled B>A", "settled A>B", "settled tie", "open"]
SignificanceVerdict = Literal["settled significant", "settled not significant", "open", "no test"]


def sign_verdict(low: float, high: float) -> SignVerdict:
    """B>A iff every labeling gives a positive mean delta, A>B iff every one a negative one, a
    tie iff every one gives 0 (within `TIE`); else open."""
    if low > TIE:
        return "settled B>A"
    if high < -TIE:
        return "settled A>B"
    if abs(low) <= TIE and abs(high) <= TIE:
        return "settled tie"
    return "open"


def sd_range(lows: FloatArray, highs: FloatArray) -> tuple[float, float]:
    """Bounds on the sample SD (ddof 1) over the box [lows, highs] (see the module docstring)."""
    n = len(lows)
    if n < 2:
        return 0.0, 0.0
    c = float((lows + highs).mean() / 2)
    upper = float(np.maximum((lows - c) ** 2, (highs - c) ** 2).sum())
    points = np.sort(np.concatenate([lows, highs]))
    best = math.inf
    for c in _stationary(lows, highs, points):
        best = min(best, float((np.maximum(lows - c, 0) ** 2 + np.maximum(c - highs, 0) ** 2).sum()))
    slack = 1e-12 * (1.0 + float(np.abs(points).max(initial=0.0))) ** 2 * n
    return math.sqrt(max(best - slack, 0.0) / (n - 1)), math.sqrt((upper + slack) / (n - 1))


def _stationary(lows: FloatArray, highs: FloatArray, points: FloatArray) -> FloatArray:
    """The candidate minimisers of f(c) = sum (l - c)+^2 + (c - h)+^2: on each segment between
    breakpoints the root of f' = 2 (n_h c - sum_{h < c} h) - 2 (sum_{l > c} l - n_l c), clamped to
    it, and the breakpoints themselves."""
    lo_sorted, hi_sorted = np.sort(lows), np.sort(highs)
    mids = (points[:-1] + points[1:]) / 2
    n_h = np.searchsorted(hi_sorted, mids, side="left")  # highs below c
    n_l = len(lows) - np.searchsorted(lo_sorted, mids, side="right")  # lows above c
    h_cum = np.concatenate([[0.0], np.cumsum(hi_sorted)])
    l_cum = np.concatenate([[0.0], np.cumsum(lo_sorted[::-1])])
    total = n_h + n_l
    root = np.divide(h_cum[n_h] + l_cum[n_l], total, out=mids.copy(), where=total > 0)
    return np.concatenate([np.clip(root, points[:-1], points[1:]), points])


def critical(n: int, alpha: float = ALPHA) -> float:
    from .power import t_quantile

    return t_quantile(alpha / 2, n - 1)


def beta(n: int, c: float) -> float:
    """|t| > c iff sum x^2 < beta (sum x)^2 (module docstring)."""
    return 1.0 / n + (n - 1) / (n * c * c)


def _scale(lows: FloatArray, highs: FloatArray) -> float:
    """The size of Q and beta S^2 over the box, for the margin."""
    return (1.0 + len(lows)) * (1.0 + float(np.maximum(lows**2, highs**2).sum()))


def _significant_everywhere(lows: FloatArray, highs: FloatArray, b: float) -> bool:
    """Every point of the box has Q < b S^2 and one sign of S (module docstring)."""
    if lows.sum() <= 0:
        if highs.sum() >= 0:
            return False
        lows, highs = -highs, -lows
    fill = np.argsort(-(lows + highs), kind="stable")
    width, slope = (highs - lows)[fill], (highs + lows)[fill]
    s_at = float(lows.sum()) + np.concatenate([[0.0], np.cumsum(width)])  # the pieces' ends
    u_at = float((lows**2).sum()) + np.concatenate([[0.0], np.cumsum((highs**2 - lows**2)[fill])])
    vertex = np.clip(slope / (2 * b), s_at[:-1], s_at[1:])
    gap = np.concatenate(
        [b * s_at**2 - u_at, b * vertex**2 - (u_at[:-1] + slope * (vertex - s_at[:-1]))]  # b S^2 - U(S)
    )
    return bool(gap.min() > MARGIN * _scale(lows, highs))


def _insignificant_everywhere(lows: FloatArray, highs: FloatArray, b: float) -> bool:
    """Every point of the box has Q >= b S^2: the water-filling points (module docstring). On the
    segment of mu between two breakpoints, f queries are free (x = mu) and the rest fixed at their
    high (h <= mu) or low (l >= mu) with sum a and sum of squares q: S = a + f mu, Q = q + f mu^2,
    and Q - b S^2 is extreme at the segment's ends or at mu = b a / (1 - b f)."""
    points = np.unique(np.concatenate([lows, highs]))
    if len(points) == 1:
        x = np.clip(points[0], lows, highs)
        return bool(float((x**2).sum() - b * x.sum() ** 2) > MARGIN * _scale(lows, highs))
    mids = (points[:-1] + points[1:]) / 2
    hi_sorted, lo_sorted = np.sort(highs), np.sort(lows)[::-1]
    n_h = np.searchsorted(hi_sorted, mids, side="right")  # highs below mu
    n_l = np.searchsorted(-lo_sorted, -mids, side="right")  # lows above mu
    sums = [np.concatenate([[0.0], np.cumsum(v)]) for v in (hi_sorted, hi_sorted**2, lo_sorted, lo_sorted**2)]
    a = sums[0][n_h] + sums[2][n_l]
    q = sums[1][n_h] + sums[3][n_l]
    free = len(lows) - n_h - n_l
    denom = 1.0 - b * free
    vertex = np.divide(b * a, denom, out=mids.copy(), where=np.abs(denom) > 1e-15)
    gaps = [
        q + free * mu**2 - b * (a + free * mu) ** 2
        for mu in (points[:-1], points[1:], np.clip(vertex, points[:-1], points[1:]))
    ]
    return bool(min(float(g.min()) for g in gaps) > MARGIN * _scale(lows, highs))


def significance_verdict(lows: FloatArray, highs: FloatArray, alpha: float = ALPHA) -> SignificanceVerdict:
    """Whether the two-sided paired t-test's verdict holds at every point of the box. A point
    whose deltas are all equal has SD 0: significant when they are not 0."""
    n = len(lows)
    if n < 2:
        return "no test"
    c = critical(n, alpha)
    b = beta(n, c)
    mean_lo, mean_hi = float(lows.mean()), float(highs.mean())
    sd_lo, sd_hi = sd_range(lows, highs)
    root = math.sqrt(n)
    one_side = min(mean_lo, mean_hi) > TIE or max(mean_lo, mean_hi) < -TIE
    near = min(abs(mean_lo), abs(mean_hi)) if one_side else 0.0
    far = max(abs(mean_lo), abs(mean_hi))
    if near > 0 and (sd_hi == 0 or near * root / sd_hi > c or _significant_everywhere(lows, highs, b)):
        return "settled significant"
    zero = far <= TIE and bool(np.all(np.abs(lows) <= TIE)) and bool(np.all(np.abs(highs) <= TIE))
    if zero or (sd_lo > 0 and far * root / sd_lo <= c) or _insignificant_everywhere(lows, highs, b):
        return "settled not significant"
    return "open"


def t_now(deltas: FloatArray) -> float | None:
    """The t statistic of the deltas (None: fewer than 2 queries, or no spread)."""
    if len(deltas) < 2:
        return None
    sd = float(deltas.std(ddof=1))
    return float(deltas.mean()) * math.sqrt(len(deltas)) / sd if sd > 0 else None
