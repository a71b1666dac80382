"""The t-test verdict over the box of per-query ranges (`scoring.settle_verdict`): against the exact
extremes of sum x^2 - beta (sum x)^2 over small boxes (every face's stationary point), against the
t statistic at the corners and at random points, and never less decisive than the bounds of mean
and SD taken apart."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from qrelkit.scoring.settle_verdict import (
    _insignificant_everywhere,
    _significant_everywhere,
    beta,
    critical,
    sd_range,
    significance_verdict,
)


def _face_points(lo: np.ndarray, hi: np.ndarray, b: float) -> list[np.ndarray]:
    """Every candidate extreme of G(x) = sum x^2 - b (sum x)^2 over the box: on each face (each
    coordinate at its low, its high or free) the free coordinates' stationary point (all equal to
    mu = b A / (1 - b f), A the fixed ones' sum, f how many are free) when it lies on the face."""
    out = []
    for kinds in itertools.product((0, 1, 2), repeat=len(lo)):
        k = np.array(kinds)
        x = np.where(k == 0, lo, hi)
        free = k == 2
        f = int(free.sum())
        if f:
            if abs(1 - b * f) < 1e-12:
                continue
            mu = b * float(x[~free].sum()) / (1 - b * f)
            if np.any(mu < lo[free] - 1e-12) or np.any(mu > hi[free] + 1e-12):
                continue
            x = np.where(free, mu, x)
        out.append(x)
    return out


def _gap(x: np.ndarray, b: float) -> float:
    return float((x**2).sum() - b * x.sum() ** 2)


def _t(x: np.ndarray) -> float:
    sd = float(x.std(ddof=1))
    if sd == 0:
        return math.inf if abs(x.mean()) > 1e-12 else 0.0
    return abs(float(x.mean())) * math.sqrt(len(x)) / sd


def _box(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = int(rng.integers(2, 6))
    centre = rng.normal(rng.choice([0.0, 0.5, 1.5]), 0.6, size=n)
    width = rng.exponential(rng.choice([0.05, 0.3, 1.0]), size=n) * (rng.random(size=n) < 0.8)
    lo = centre - width * rng.random(size=n)
    return lo, lo + width


def test_the_water_filling_minimum_is_the_exact_minimum_over_the_box() -> None:
    rng = np.random.default_rng(11)
    decided = 0
    for _ in range(400):
        lo, hi = _box(rng)
        b = beta(len(lo), critical(len(lo)))
        least = min(_gap(x, b) for x in _face_points(lo, hi, b))
        got = _insignificant_everywhere(lo, hi, b)
        decided += got
        if got:
            assert least > 0, (lo, hi)
        elif least > 1e-6:
            pytest.fail(f"min {least} > 0 over the box, yet not settled: {lo}, {hi}")
    assert decided > 20
    # the minimum inside a segment of mu (at its vertex), not at a breakpoint
    lo, hi = np.array([0.9765, -0.4438, 0.0258]), np.array([1.5349, 1.5254, 0.4088])
    b = beta(3, critical(3))
    assert min(_gap(x, b) for x in _face_points(lo, hi, b)) < 0
    assert not _insignificant_everywhere(lo, hi, b)


def test_a_significant_box_has_every_point_significant() -> None:
    rng = np.random.default_rng(12)
    decided = 0
    for _ in range(400):
        lo, hi = _box(rng)
        n = len(lo)
        b, c = beta(n, critical(n)), critical(n)
        most = max(_gap(x, b) for x in _face_points(lo, hi, b))
        got = _significant_everywhere(lo, hi, b)
        decided += got
        if got:
            assert most < 0, (lo, hi)
            corners = [np.where(np.array(bits), hi, lo) for bits in itertools.product([0, 1], repeat=n)]
            inside = [lo + rng.random(size=n) * (hi - lo) for _ in range(50)]
            assert all(_t(x) > c for x in corners + inside)
            assert len({np.sign(x.mean()) for x in corners}) == 1
    assert decided > 20


def _apart(lo: np.ndarray, hi: np.ndarray) -> str:
    """The verdict from mean and SD bounded apart (the rule before the box's own bounds)."""
    n = len(lo)
    c = critical(n)
    m_lo, m_hi = float(lo.mean()), float(hi.mean())
    sd_lo, sd_hi = sd_range(lo, hi)
    near = min(abs(m_lo), abs(m_hi)) if m_lo > 1e-12 or m_hi < -1e-12 else 0.0
    if near > 0 and (sd_hi == 0 or near * math.sqrt(n) / sd_hi > c):
        return "settled significant"
    if sd_lo > 0 and max(abs(m_lo), abs(m_hi)) * math.sqrt(n) / sd_lo <= c:
        return "settled not significant"
    return "open"


def test_the_verdict_settles_whatever_mean_and_sd_apart_settle_and_more() -> None:
    rng = np.random.default_rng(13)
    more = 0
    for _ in range(600):
        lo, hi = _box(rng)
        now, before = significance_verdict(lo, hi), _apart(lo, hi)
        if before != "open":
            assert now == before, (lo, hi)
        elif now != "open":
            more += 1
            n = len(lo)
            points = [np.where(np.array(bits), hi, lo) for bits in itertools.product([0, 1], repeat=n)]
            points += [lo + rng.random(size=n) * (hi - lo) for _ in range(100)]
            significant = {_t(x) > critical(n) for x in points}
            assert significant == {now == "settled significant"}, (lo, hi, now)
    assert more > 20


def test_a_box_holding_zero_inside_is_never_settled_not_significant() -> None:
    """t is scale-free: any box with 0 inside holds points of every t, so 'not significant' there
    would be wrong."""
    lo, hi = np.full(5, -0.1), np.full(5, 0.1)
    assert significance_verdict(lo, hi) == "open"
    assert significance_verdict(np.zeros(5), np.zeros(5)) == "settled not significant"
