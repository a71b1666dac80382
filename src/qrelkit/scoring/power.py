"""Power of the two-sided paired t-test (a one-sample t-test of the per-query differences), the
minimum detectable effect and the queries needed, without scipy.

With n queries, df = n - 1 and effect size d = delta / sd_diff, the test rejects when
|t| > c = the 1 - alpha/2 quantile of Student's t with df degrees of freedom, and
power = P(T' > c) + P(T' < -c), T' noncentral t with noncentrality d sqrt(n). Writing
T' = (Z + ncp) / S with S = sqrt(chi2_df / df), P(T' <= t) = E[Phi(t S - ncp)]: an integral over the
density of S, taken by Gauss-Legendre panels over the range where that density is above e^-60 of its
peak, with extra panels where Phi(t s - ncp) turns (s near ncp / t, width 1 / |t|), normalised by
the same rule's integral of the density. Quantiles of t are found by bisection on that CDF.

Degenerate inputs: fewer than 2 queries leave no test (None); sd_diff = 0 (every query moves by the
same amount) makes any nonzero change detectable, so the minimum detectable effect is 0 and
2 queries suffice; delta = 0 is never detected (None).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError

FloatArray = npt.NDArray[np.float64]

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(20)
_PANELS = 40
"""Panels of the density's support."""
_TURN = np.linspace(-12.0, 12.0, 25)
"""Extra panel edges, in units of 1 / |t|, around the turn of Phi(t s - ncp)."""
_DEPTH = 60.0
"""The support of S: where its log-density is within this of its peak."""
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _phi(x: FloatArray) -> FloatArray:
    """The standard normal CDF, accurate in both tails."""
    return np.asarray(0.5 * _erfc(-x / math.sqrt(2.0)), dtype=np.float64)


def _log_density(s: FloatArray | float, df: int) -> FloatArray:
    """The log-density of S = sqrt(chi2_df / df) less its peak's, (df - 1) log s - df s^2 / 2 up to
    a constant; written around the mode (x = s / mode = 1 + e) so that large df lose no digits."""
    s = np.asarray(s, dtype=np.float64)
    if df == 1:
        return np.asarray(-s * s / 2, dtype=np.float64)
    e = s / math.sqrt((df - 1) / df) - 1.0
    with np.errstate(divide="ignore"):
        return np.asarray((df - 1) * (np.log1p(e) - e - e * e / 2), dtype=np.float64)


def _edge(df: int, inner: float, outer: float) -> float:
    """Bisection between `inner` (the mode) and `outer` for where the log-density falls by _DEPTH."""
    for _ in range(200):
        mid = (inner + outer) / 2
        if float(_log_density(mid, df)) > -_DEPTH:
            inner = mid
        else:
            outer = mid
    return (inner + outer) / 2


@functools.lru_cache(maxsize=1024)
def _support(df: int) -> tuple[float, float]:
    """(low, high): where the density of S is above e^-_DEPTH of its peak."""
    mode = math.sqrt((df - 1) / df)
    high = _edge(df, mode, mode + 10.0 + 200.0 / math.sqrt(df))
    low = 0.0 if df == 1 else _edge(df, mode, 0.0)
    return low, high


def _nodes(df: int, t: float, ncp: float) -> tuple[FloatArray, FloatArray]:
    """Quadrature nodes over the support of S and their weights times the (unnormalised) density."""
    if df < 1 or not (math.isfinite(t) and math.isfinite(ncp)):
        raise ScoringError(f"the t distribution needs df >= 1 and finite t, ncp (got {df}, {t}, {ncp})")
    low, high = _support(df)
    edges = np.linspace(low, high, _PANELS + 1)
    if t != 0.0:
        turn = ncp / t + _TURN / abs(t)
        edges = np.union1d(edges, turn[(turn > low) & (turn < high)])
    half = np.diff(edges)[:, None] / 2
    s = ((edges[:-1, None] + half) + half * _GL_NODES[None, :]).ravel()
    w = (half * _GL_WEIGHTS[None, :]).ravel() * np.exp(_log_density(s, df))
    return s, w


def nct_cdf(t: float, df: int, ncp: float = 0.0) -> float:
    """P(T <= t) for T noncentral t with `df` degrees of freedom and noncentrality `ncp`."""
    s, w = _nodes(df, t, ncp)
    return float(np.dot(w, _phi(t * s - ncp)) / w.sum())


def nct_sf(t: float, df: int, ncp: float = 0.0) -> float:
    """P(T > t), computed directly (accurate when small)."""
    s, w = _nodes(df, t, ncp)
    return float(np.dot(w, _phi(ncp - t * s)) / w.sum())


@functools.lru_cache(maxsize=4096)
def t_quantile(upper: float, df: int) -> float:
    """The t with P(T > t) = `upper` (0 < upper < 1/2) for Student's t with `df` degrees of freedom,
    by bisection on the CDF."""
    if not 0.0 < upper < 0.5:
        raise ScoringError(f"an upper tail probability must lie in (0, 1/2), got {upper}")
    lo = NormalDist().inv_cdf(1.0 - upper)  # the t quantile lies above the normal one
    hi = 2.0 * lo + 1.0
    while nct_sf(hi, df) > upper:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if nct_sf(mid, df) > upper:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return (lo + hi) / 2


def _check(alpha: float, power: float | None = None) -> None:
    if not 0.0 < alpha < 1.0:
        raise ScoringError(f"alpha must lie strictly between 0 and 1, got {alpha}", "the usual level is 0.05")
    if power is not None and not 0.0 < power < 1.0:
        raise ScoringError(f"power must lie strictly between 0 and 1, got {power}", "the usual target is 0.8")


def _sd(sd_diff: float) -> float:
    if not math.isfinite(sd_diff) or sd_diff < 0:
        raise ScoringError(f"an SD must be finite and >= 0, got {sd_diff}")
    return float(sd_diff)


def standard_error(sd: float, n: int) -> float | None:
    """sd / sqrt(n); None without queries."""
    return _sd(sd) / math.sqrt(n) if n >= 1 else None


def _power(d: float, n: int, alpha: float) -> float:
    df, crit, ncp = n - 1, t_quantile(alpha / 2, n - 1), d * math.sqrt(n)
    return nct_sf(crit, df, ncp) + nct_cdf(-crit, df, ncp)


def t_power(effect_size: float, n: int, alpha: float = 0.05) -> float | None:
    """Power of the two-sided paired t-test at standardised effect `effect_size` (mean difference /
    SD of the differences) on `n` queries; None for n < 2."""
    _check(alpha)
    if not math.isfinite(effect_size):
        raise ScoringError(f"the effect size must be finite, got {effect_size}")
    return _power(abs(effect_size), n, alpha) if n >= 2 else None


def min_detectable_effect(sd_diff: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The smallest mean difference, in metric units, the paired t-test on `n` queries detects with
    probability `power` at level `alpha`: the effect size found by bisection, times `sd_diff`.
    None for n < 2; 0.0 when sd_diff is 0 or the target power is at most alpha."""
    _check(alpha, power)
    sd = _sd(sd_diff)
    if n < 2:
        return None
    if sd == 0.0 or power <= alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while _power(hi, n, alpha) < power:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        if _power(mid, n, alpha) < power:
            lo = mid
        else:
            hi = mid
    return hi * sd


MIN_EFFECT = 1e-6
"""An effect size (delta / sd_diff) smaller than this needs more than 10^13 queries: no answer."""
MAX_EFFECT = 1e6


def queries_needed(delta: float, sd_diff: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """The smallest n >= 2 at which the paired t-test detects a mean difference `delta` (metric
    units, either sign) with probability `power`. None when delta is 0 or the effect size is under
    `MIN_EFFECT`; 2 when sd_diff is 0 or the target is at most alpha."""
    _check(alpha, power)
    sd = _sd(sd_diff)
    if not math.isfinite(delta):
        raise ScoringError(f"--delta must be finite, got {delta}")
    if delta == 0:
        return None
    if sd == 0.0 or power <= alpha:
        return 2
    d = abs(delta) / sd
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    if d < MIN_EFFECT or d > MAX_EFFECT:  # (z / d) ** 2 overflows, or 2 queries already suffice
        return None if d < MIN_EFFECT else 2
    guess = max(2, math.ceil((z / d) ** 2))

    def enough(n: int) -> bool:
        return n >= 2 and _power(d, n, alpha) >= power

    # gallop from the normal approximation to a bracket (lo fails, hi passes), then bisect
    step = 1
    if enough(guess):
        hi, lo = guess, guess - 1
        while enough(lo):
            hi, step = lo, step * 2
            lo = max(1, hi - step)
    else:
        lo, hi = guess, guess + 1
        while not enough(hi):
            lo, step = hi, step * 2
            hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi
