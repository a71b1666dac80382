"""Aggregation: macro means with spread and a 95% interval, per stratum and traffic-weighted."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from ..models.plain import PlainSummary
from ..models.vocabulary import weight_shares
from .kernels import Scores

_T975 = [
    12.706204736,
    4.302652730,
    3.182446305,
    2.776445105,
    2.570581836,
    2.446911851,
    2.364624252,
    2.306004135,
    2.262157163,
    2.228138852,
    2.200985160,
    2.178812830,
    2.160368656,
    2.144786688,
    2.131449546,
    2.119905299,
    2.109815578,
    2.100922040,
    2.093024054,
    2.085963447,
    2.079613845,
    2.073873068,
    2.068657610,
    2.063898562,
    2.059538553,
    2.055529439,
    2.051830516,
    2.048407142,
    2.045229642,
    2.042272456,
]  # Student t 0.975 quantiles, df = 1..30


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (table to 30, then the
    Cornish-Fisher expansion, within 1e-5)."""
    if df <= 0:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


GEOMETRIC_FLOOR = 0.00001
"""trec_eval's MIN_GEO_MEAN: a value below it counts as it in a geometric mean (so 0 stays finite)."""


def geometric_mean(values: npt.NDArray[np.float64]) -> float:
    """trec_eval's gm_*: exp(mean(log(max(v, 0.00001))))."""
    return float(np.exp(np.log(np.maximum(values, GEOMETRIC_FLOOR)).mean()))


def summarize(scores: Scores, rows: npt.NDArray[np.int64], aggregate: str = "mean") -> PlainSummary:
    """Macro mean, sample SD, SE and a Student-t 95% interval clipped to [0, 1] (to [0, inf) when
    a value exceeds 1: a count; unclipped below 0 when a value is negative); over zero queries all
    NaN (null in JSON, n/a in tables), with no coverage and no bounds. `aggregate="geometric"`
    (`MeasureSpec.aggregate`) takes the mean, SD, SE and interval on the log scale, as
    `geometric_mean`, and gives the mean and its interval back on the value scale."""
    if aggregate == "geometric":
        return _geometric(scores, rows)
    values = scores.value[rows]
    n = len(values)
    if n == 0:
        nan = math.nan
        return PlainSummary(n=0, mean=nan, sd=nan, se=nan, ci95=(nan, nan), coverage=None, bounds=None, exact=True)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else 0.0
    se = sd / math.sqrt(n) if n > 1 else 0.0
    half = t975(n - 1) * se if n > 1 else 0.0
    cov = scores.coverage[rows]
    cov = cov[~np.isnan(cov)]
    return PlainSummary(
        n=n,
        mean=mean,
        sd=sd,
        se=se,
        # clipped to the measure's range: [0, 1], or [0, inf) for counts (NumRet, NumRel, ...)
        ci95=(
            mean - half if values.min() < 0 else max(0.0, mean - half),
            mean + half if values.max() > 1 else min(1.0, mean + half),
        ),
        coverage=float(cov.mean()) if len(cov) else None,
        bounds=None
        if np.isnan(scores.low[rows]).any()
        else (float(scores.low[rows].mean()), float(scores.high[rows].mean())),
        exact=bool(scores.exact[rows].all()),
    )


def _geometric(scores: Scores, rows: npt.NDArray[np.int64]) -> PlainSummary:
    """`summarize` on the log scale (values floored at `GEOMETRIC_FLOOR`), the mean, interval and
    bounds taken back to the value scale."""
    on_logs = Scores(
        value=np.log(np.maximum(scores.value[rows], GEOMETRIC_FLOOR)),
        coverage=scores.coverage[rows],
        low=scores.low[rows],
        high=scores.high[rows],
        exact=scores.exact[rows],
    )
    summary = summarize(on_logs, np.arange(len(rows), dtype=np.int64))
    if summary.n == 0:
        return summary
    low, high = scores.low[rows], scores.high[rows]
    return replace(
        summary,
        mean=math.exp(summary.mean),
        ci95=(math.exp(summary.ci95[0]), min(1.0, math.exp(summary.ci95[1]))),
        bounds=None if np.isnan(low).any() else (geometric_mean(low), geometric_mean(high)),
    )


def weighted_mean(by_stratum: Mapping[str, PlainSummary], weights: Mapping[str, float]) -> float | None:
    """Sum of weight x mean over strata that have queries, weights renormalised; None if no weight."""
    shares = weight_shares({s: weights.get(s, 0.0) for s, summary in by_stratum.items() if summary.n > 0})
    if not shares:
        return None
    return sum(w * by_stratum[s].mean for s, w in shares.items())


def strata_rows(query_strata: Sequence[str]) -> dict[str, npt.NDArray[np.int64]]:
    rows: dict[str, list[int]] = {}
    for i, s in enumerate(query_strata):
        rows.setdefault(s, []).append(i)
    return {s: np.array(v, dtype=np.int64) for s, v in sorted(rows.items())}
