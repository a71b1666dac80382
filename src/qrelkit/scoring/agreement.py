"""Agreement between assessors: raw agreement, Cohen's kappa with linear weights per assessor
pair, Krippendorff's alpha with the ordinal metric.

Input: units, i.e. (query, doc) -> {assessor: grade} for the pairs several assessors graded (each
assessor's latest vote; skips are not grades). Pure: numbers in, numbers out.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from ..models import DEFAULT_STRATUM, MIN_AGREEMENT_PAIRS, AgreementReport, AgreementStats

Units = Mapping[tuple[str, str], Mapping[str, int]]


def raw_agreement(units: Units) -> float | None:
    """Share of assessor pairs (over every unit) that gave the same grade."""
    same = total = 0
    for votes in units.values():
        for a, b in itertools.combinations(votes.values(), 2):
            same += a == b
            total += 1
    return same / total if total else None


def kappa_linear(first: list[int], second: list[int]) -> float | None:
    """Cohen's kappa with linear disagreement weights |i - j| over paired grades:
    1 - observed mean |i - j| / the mean |i - j| expected from the two marginals."""
    if not first:
        return None
    a, b = np.asarray(first), np.asarray(second)
    observed = np.abs(a - b).mean()
    values = np.union1d(a, b)
    pa = np.array([(a == v).mean() for v in values])
    pb = np.array([(b == v).mean() for v in values])
    expected = float((np.outer(pa, pb) * np.abs(values[:, None] - values[None, :])).sum())
    if expected == 0:
        return None
    return float(1 - observed / expected)


def alpha_ordinal(units: Units) -> float | None:
    """Krippendorff's alpha, ordinal metric, from the coincidence matrix of the pairable values."""
    pairable = [list(v.values()) for v in units.values() if len(v) >= 2]
    if not pairable:
        return None
    values = sorted({g for grades in pairable for g in grades})
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for grades in pairable:
        m = len(grades)
        for i, j in itertools.permutations(range(m), 2):
            o[index[grades[i]], index[grades[j]]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    cum = np.concatenate([[0.0], np.cumsum(n_c)])
    # ordinal distance: (sum of n_g for g from c to k  -  (n_c + n_k) / 2)^2
    lo = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
    hi = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
    delta = (cum[hi + 1] - cum[lo] - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    observed = (o * delta).sum()
    expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1)
    if expected == 0:
        return None
    return float(1 - observed / expected)


def stats(units: Units, skipped: int) -> AgreementStats:
    multi = {pair: votes for pair, votes in units.items() if len(votes) >= 2}
    if len(multi) < MIN_AGREEMENT_PAIRS:
        return AgreementStats(
            n_pairs=len(multi), skipped=skipped, raw_agreement=raw_agreement(multi), alpha_ordinal=None, kappa_linear={}
        )
    assessors = sorted({a for votes in multi.values() for a in votes})
    kappas: dict[str, float | None] = {}
    for a, b in itertools.combinations(assessors, 2):
        both = [(v[a], v[b]) for v in multi.values() if a in v and b in v]
        if both:
            kappas[f"{a}|{b}"] = kappa_linear([x for x, _ in both], [y for _, y in both])
    return AgreementStats(
        n_pairs=len(multi),
        skipped=skipped,
        raw_agreement=raw_agreement(multi),
        alpha_ordinal=alpha_ordinal(multi),
        kappa_linear=kappas,
    )


def report(units: Units, skipped: Mapping[tuple[str, str], int], strata: Mapping[str, str]) -> AgreementReport:
    """Overall and per stratum (`strata`: query -> stratum); `skipped`: pair -> skip votes."""
    by: dict[str, dict[tuple[str, str], Mapping[str, int]]] = {}
    for pair, votes in units.items():
        by.setdefault(strata.get(pair[0], DEFAULT_STRATUM), {})[pair] = votes
    skips: dict[str, int] = {}
    for pair, n in skipped.items():
        s = strata.get(pair[0], DEFAULT_STRATUM)
        skips[s] = skips.get(s, 0) + n
    return AgreementReport(
        overall=stats(units, sum(skipped.values())),
        by_stratum={s: stats(by.get(s, {}), skips.get(s, 0)) for s in sorted(set(by) | set(skips))},
    )
