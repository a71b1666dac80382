"""`qrelkit.scoring.power`: the paired t-test's power, minimum detectable effect and queries needed,
against scipy's noncentral t and statsmodels' TTestPower (both test-only references), and the domain
text's figures (160 queries: per-query SD 0.41 -> SE 0.032, SD 0.29 -> SE 0.023)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

from qrelkit.errors import ScoringError
from qrelkit.scoring import power as pw

REFERENCE = TTestPower()
DFS = (1, 2, 3, 5, 9, 30, 159, 1000, 100_000)


@pytest.mark.parametrize("df", DFS)
def test_noncentral_t_cdf_matches_scipy(df: int) -> None:
    for t in (-650.0, -25.0, -2.5, -0.3, 0.0, 0.8, 1.96, 4.0, 30.0, 650.0):
        for ncp in (0.0, 0.4, -1.5, 2.8, 9.0, 35.0):
            for ours, theirs in (
                (pw.nct_cdf(t, df, ncp), stats.nct.cdf(t, df, ncp) if ncp else stats.t.cdf(t, df)),
                (pw.nct_sf(t, df, ncp), stats.nct.sf(t, df, ncp) if ncp else stats.t.sf(t, df)),
            ):
                if math.isfinite(theirs):
                    assert ours == pytest.approx(theirs, abs=1e-9, rel=1e-6), (t, df, ncp)
                else:  # scipy's noncentral t gives NaN far in a tail (e.g. t = -650, ncp = 35)
                    assert 0.0 <= ours < 1e-12, (t, df, ncp)


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_matches_scipy(df: int) -> None:
    for upper in (0.0005, 0.005, 0.025, 0.05, 0.1, 0.4):
        assert pw.t_quantile(upper, df) == pytest.approx(stats.t.isf(upper, df), rel=1e-10)


def _reference(d: float, n: int, alpha: float) -> float:
    """statsmodels' power; where its lower tail is NaN (scipy's noncentral t far in the tail, e.g.
    d = 3, n = 6, alpha = 0.001) the upper tail alone, which is then the power to 1e-12."""
    power = float(REFERENCE.power(effect_size=d, nobs=n, alpha=alpha, alternative="two-sided"))
    if math.isfinite(power):
        return power
    lower = pw.nct_cdf(-stats.t.isf(alpha / 2, n - 1), n - 1, d * math.sqrt(n))
    assert lower < 1e-12
    return float(stats.nct.sf(stats.t.isf(alpha / 2, n - 1), n - 1, d * math.sqrt(n)))


def test_power_matches_statsmodels() -> None:
    checked = 0
    for n in (2, 3, 4, 6, 10, 25, 60, 160, 1000, 5000):
        for d in (0.0, 0.03, 0.1, 0.25, 0.5, 0.8, 1.5, 3.0, -0.5):
            for alpha in (0.001, 0.01, 0.05, 0.1, 0.2):
                assert pw.t_power(d, n, alpha) == pytest.approx(_reference(abs(d), n, alpha), abs=1e-6), (d, n, alpha)
                checked += 1
    assert checked == 450


def test_no_effect_has_power_alpha() -> None:
    # hand arithmetic: with no effect the two-sided test rejects exactly a share alpha of the time
    for n, alpha in ((2, 0.05), (160, 0.05), (40, 0.01)):
        assert pw.t_power(0.0, n, alpha) == pytest.approx(alpha, abs=1e-9)


@pytest.mark.parametrize("n", [2, 3, 5, 10, 20, 50, 160, 1000])
@pytest.mark.parametrize(("alpha", "target"), [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_min_detectable_effect_solves_statsmodels_power(n: int, alpha: float, target: float) -> None:
    mde = pw.min_detectable_effect(1.0, n, alpha, target)
    assert mde is not None
    # the root itself: statsmodels' power at our effect size is the target
    assert _reference(mde, n, alpha) == pytest.approx(target, abs=1e-9)
    theirs = float(np.squeeze(REFERENCE.solve_power(effect_size=None, nobs=n, alpha=alpha, power=target)))
    residual = abs(_reference(theirs, n, alpha) - target)
    if residual < 1e-7:  # where statsmodels' root finder converged
        assert mde == pytest.approx(theirs, rel=1e-6)
    else:  # it stops early (1.7e-5 in power at n = 1000) or at its bound (10 at n = 2, alpha 0.01)
        assert abs(_reference(mde, n, alpha) - target) < residual
    assert pw.min_detectable_effect(0.37, n, alpha, target) == pytest.approx(0.37 * mde, rel=1e-12)


@pytest.mark.parametrize(
    ("delta", "sd"), [(0.02, 0.29), (0.02, 0.41), (0.05, 0.2), (0.1, 0.3), (0.5, 1.0), (1.2, 1.0), (-0.3, 0.9)]
)
def test_queries_needed_is_the_smallest_n_statsmodels_accepts(delta: float, sd: float) -> None:
    n = pw.queries_needed(delta, sd)
    assert n is not None
    d = abs(delta) / sd
    assert REFERENCE.power(effect_size=d, nobs=n, alpha=0.05) >= 0.8
    if n > 2:
        assert REFERENCE.power(effect_size=d, nobs=n - 1, alpha=0.05) < 0.8
    assert n == math.ceil(REFERENCE.solve_power(effect_size=d, nobs=None, alpha=0.05, power=0.8))


def test_queries_needed_other_levels_and_huge_n() -> None:
    for delta, sd, alpha, target in ((0.03, 0.25, 0.01, 0.9), (0.2, 0.5, 0.1, 0.6), (0.001, 1.0, 0.05, 0.8)):
        n = pw.queries_needed(delta, sd, alpha, target)
        assert n is not None
        d = delta / sd
        assert REFERENCE.power(effect_size=d, nobs=n, alpha=alpha) >= target
        assert REFERENCE.power(effect_size=d, nobs=n - 1, alpha=alpha) < target


def test_domain_figures() -> None:
    # SE = SD / sqrt(n), by hand: 0.41 / 12.649 = 0.0324, 0.29 / 12.649 = 0.0229
    mrr, ndcg = pw.standard_error(0.41, 160), pw.standard_error(0.29, 160)
    assert mrr is not None and ndcg is not None
    assert round(mrr, 3) == 0.032 and round(ndcg, 3) == 0.023
    mde_mrr, mde_ndcg = pw.min_detectable_effect(0.41, 160), pw.min_detectable_effect(0.29, 160)
    assert mde_mrr is not None and mde_ndcg is not None
    assert mde_ndcg < mde_mrr
    assert mde_ndcg / mde_mrr == pytest.approx(0.29 / 0.41, rel=1e-12)
    d160 = REFERENCE.solve_power(effect_size=None, nobs=160, alpha=0.05, power=0.8)
    assert mde_ndcg == pytest.approx(0.29 * d160, abs=1e-6)
    assert mde_mrr == pytest.approx(0.41 * d160, abs=1e-6)
    # at power 0.8 and these SDs taken as the SDs of the paired differences, two points (0.02) is
    # below either MDE; it takes about ten times the queries
    assert 0.02 < mde_ndcg < mde_mrr
    assert pw.queries_needed(0.02, 0.29) == math.ceil(REFERENCE.solve_power(0.02 / 0.29, None, 0.05, 0.8))


def test_degenerate_inputs() -> None:
    assert pw.t_power(0.5, 1) is None and pw.t_power(0.5, 0) is None
    assert pw.min_detectable_effect(0.3, 1) is None
    assert pw.min_detectable_effect(0.0, 50) == 0.0
    assert pw.min_detectable_effect(0.3, 50, alpha=0.2, power=0.1) == 0.0
    assert pw.queries_needed(0.0, 0.3) is None
    assert pw.queries_needed(0.02, 0.0) == 2
    assert pw.standard_error(0.3, 0) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda: pw.t_power(0.5, 10, alpha=0.0),
        lambda: pw.t_power(0.5, 10, alpha=1.5),
        lambda: pw.t_power(float("nan"), 10),
        lambda: pw.min_detectable_effect(-0.1, 10),
        lambda: pw.min_detectable_effect(float("inf"), 10),
        lambda: pw.min_detectable_effect(0.3, 10, power=1.0),
        lambda: pw.queries_needed(float("nan"), 0.3),
        lambda: pw.queries_needed(0.1, 0.3, alpha=-1),
        lambda: pw.t_quantile(0.7, 10),
        lambda: pw.nct_cdf(1.0, 0),
    ],
)
def test_bad_input_is_a_scoring_error(call: object) -> None:
    with pytest.raises(ScoringError):
        call()  # type: ignore[operator]
