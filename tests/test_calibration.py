"""The figures of `qrelkit calibrate` (`scoring.calibration`) against independent implementations:
weighted kappa against statsmodels' `cohens_kappa` and a brute-force double loop over the items
(scikit-learn is not in the dev dependencies), Krippendorff's alpha against the `krippendorff`
package, Kendall's tau-b against scipy; property tests over random label pairs, degenerate ones
included (one category, all agree, empty)."""

from __future__ import annotations

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from statsmodels.stats.inter_rater import cohens_kappa

from qrelkit.scoring import calibration as figures

MAX_GRADE = 3


def _brute_kappa(pairs: list[tuple[int, int]], power: int) -> float | None:
    """Weighted kappa from its definition: 1 - mean weight over the items as paired / mean weight
    over every (human of one item, machine of any item) combination."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(abs(h - m) ** power for h, m in pairs) / n
    expected = 0.0
    for h, _ in pairs:
        for _, m in pairs:
            expected += abs(h - m) ** power
    expected /= n * n
    return None if expected == 0 else 1 - observed / expected


def _statsmodels_kappa(pairs: list[tuple[int, int]], power: int) -> float:
    table = np.zeros((MAX_GRADE + 1, MAX_GRADE + 1))
    for h, m in pairs:
        table[h, m] += 1
    with warnings.catch_warnings():  # its standard error divides by zero on tiny tables; kappa is fine
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(cohens_kappa(table, wt="linear" if power == 1 else "quadratic").kappa)


def _reference_alpha(pairs: list[tuple[int, int]]) -> float | None:
    if len({g for p in pairs for g in p}) < 2:
        return None  # the package refuses a one-value domain: alpha is undefined there
    data = np.array([[h for h, _ in pairs], [m for _, m in pairs]], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))


grades = st.integers(0, MAX_GRADE)
label_pairs = st.lists(st.tuples(grades, grades), max_size=60)


@settings(max_examples=300, deadline=None)
@given(label_pairs)
def test_kappa_and_alpha_match_the_references_on_random_label_pairs(pairs: list[tuple[int, int]]) -> None:
    f = figures.agreement_figures(pairs, MAX_GRADE)
    for got, power in ((f.kappa_linear, 1), (f.kappa_quadratic, 2)):
        want = _brute_kappa(pairs, power)
        assert (got is None) == (want is None)
        if want is not None:
            assert got == pytest.approx(want, abs=1e-9)
            assert got == pytest.approx(_statsmodels_kappa(pairs, power), abs=1e-9)
    want_alpha = _reference_alpha(pairs)
    assert (f.alpha_ordinal is None) == (want_alpha is None)
    if want_alpha is not None:
        assert f.alpha_ordinal == pytest.approx(want_alpha, abs=1e-9)
    assert f.pairs == len(pairs) == sum(map(sum, f.confusion))
    for h, row in enumerate(f.confusion):
        assert row == [sum(p == (h, m) for p in pairs) for m in range(MAX_GRADE + 1)]
        assert f.by_grade[h].pairs == sum(row) == f.by_grade[h].agree + f.by_grade[h].over + f.by_grade[h].under
    if pairs:
        assert f.over_rate == pytest.approx(sum(m > h for h, m in pairs) / len(pairs))
        assert f.under_rate == pytest.approx(sum(m < h for h, m in pairs) / len(pairs))
        assert f.exact_agreement == pytest.approx(sum(m == h for h, m in pairs) / len(pairs))


@settings(max_examples=100, deadline=None)
@given(st.lists(grades, min_size=1, max_size=40))
def test_all_agree_is_1_unless_one_category_leaves_kappa_and_alpha_undefined(labels: list[int]) -> None:
    f = figures.agreement_figures([(g, g) for g in labels], MAX_GRADE)
    if len(set(labels)) == 1:
        assert f.kappa_linear is None and f.kappa_quadratic is None and f.alpha_ordinal is None
    else:
        assert f.kappa_linear == pytest.approx(1.0) and f.kappa_quadratic == pytest.approx(1.0)
        assert f.alpha_ordinal == pytest.approx(1.0)
    assert f.exact_agreement == 1.0 and f.over_rate == 0.0 and f.under_rate == 0.0


def test_degenerate_cases() -> None:
    empty = figures.agreement_figures([], MAX_GRADE)
    assert empty.pairs == 0 and empty.kappa_linear is None and empty.alpha_ordinal is None
    assert empty.exact_agreement is None and empty.over_rate is None
    assert empty.confusion == [[0] * 4 for _ in range(4)] and all(r.agree_rate is None for r in empty.by_grade)
    # each side one category, but not the same one: chance disagreement is certain, kappa 0 ... 1 - 1/1
    split = figures.agreement_figures([(0, 3)] * 5, MAX_GRADE)
    assert split.kappa_linear == pytest.approx(_brute_kappa([(0, 3)] * 5, 1)) == pytest.approx(0.0)
    assert split.over_rate == 1.0 and split.by_grade[0].over_rate == 1.0
    # the machine always one grade higher: linear kappa known by hand
    pairs = [(0, 1), (1, 2), (2, 3)]
    assert figures.weighted_kappa(pairs, MAX_GRADE, 1) == pytest.approx(_brute_kappa(pairs, 1))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12))
def test_tau_b_matches_scipy(xy: list[tuple[int, int]]) -> None:
    x = [a / 4 for a, _ in xy]  # ties on either side, both sides, and none
    y = [b / 4 for _, b in xy]
    got = figures.kendall_tau(x, y)
    want = kendalltau(x, y).statistic if len(xy) >= 2 else math.nan
    if math.isnan(want):
        assert got is None
    else:
        assert got == pytest.approx(want, abs=1e-12)


def test_consistency_counts_pairs_asked_twice_or_more() -> None:
    samples = {("q", "a"): [2, 2, 2], ("q", "b"): [1, 2], ("q", "c"): [3], ("q", "d"): [0, 0]}
    c = figures.consistency(samples, 3, deterministic=False)
    assert (c.pairs, c.flipped, c.samples) == (3, 1, 3) and c.flip_rate == pytest.approx(1 / 3)
    none = figures.consistency({("q", "c"): [3]}, 5, deterministic=True)
    assert none.pairs == 0 and none.flip_rate is None and none.deterministic


def test_run_rows_inflation_against_numpy() -> None:
    rng = np.random.default_rng(7)
    human = rng.random((20, 4))
    machine = human + rng.normal(0.05, 0.02, (20, 4))
    machine[:, 2] += 0.2  # one run favoured by the machine's labels
    rows = {r.run: r for r in figures.run_rows(["a", "b", "c", "d"], human, machine)}
    infl = machine - human
    for k, name in enumerate("abcd"):
        rel = infl[:, k] - infl.mean(axis=1)
        assert rows[name].inflation == pytest.approx(machine[:, k].mean() - human[:, k].mean())
        assert rows[name].relative == pytest.approx(rel.mean())
        assert rows[name].relative_se == pytest.approx(rel.std(ddof=1) / math.sqrt(20))
        assert rows[name].favoured == (rel.mean() > 2 * rel.std(ddof=1) / math.sqrt(20))
    assert rows["c"].favoured and not rows["a"].favoured
    assert [r.run for r in figures.run_rows(["a", "b", "c", "d"], human, machine)] == sorted(
        "abcd", key=lambda n: -human[:, "abcd".index(n)].mean()
    )
