"""`qrelkit.scoring.multiple`: Holm and Bonferroni against statsmodels' `multipletests`; the randomized
Tukey HSD against a brute force over every permutation combination written here; the pairwise
randomization tests against scipy's exact permutation test; discriminative power by counting."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from qrelkit.errors import ScoringError
from qrelkit.scoring import multiple as mu


def _families() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    out = [np.array([0.03]), np.array([0.0, 1.0, 0.5]), np.array([0.01, 0.01, 0.01, 0.04])]
    for size in (2, 3, 5, 9, 20, 60):
        out.append(rng.random(size))
        out.append(rng.random(size) ** 4)  # many small ones
        out.append(np.round(rng.random(size), 1))  # ties
        out.append(rng.choice([0.001, 0.02, 0.02, 0.3, 1.0], size=size))  # heavy ties, exact 1s
    return out


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
def test_corrections_match_statsmodels(method: str) -> None:
    ours = mu.holm if method == "holm" else mu.bonferroni
    families = _families()
    for p in families:
        expected = multipletests(p, alpha=0.05, method=method)[1]
        np.testing.assert_allclose(ours(p), expected, rtol=0, atol=1e-12)
    assert len(families) == 27


def test_holm_by_hand() -> None:
    # p = (0.01, 0.04, 0.03, 0.005), m = 4: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 =
    # 0.02, 0.03, 0.06, 0.04 -> running max 0.02, 0.03, 0.06, 0.06, back in input order
    np.testing.assert_allclose(mu.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02], atol=1e-15)
    np.testing.assert_allclose(mu.bonferroni([0.01, 0.3]), [0.02, 0.6], atol=1e-15)
    assert mu.holm([]).shape == (0,)


@pytest.mark.parametrize("bad", [[[0.1, 0.2]], [0.1, float("nan")], [0.2, 1.5], [-0.1]])
def test_corrections_reject_bad_p_values(bad: list[object]) -> None:
    for correct in (mu.holm, mu.bonferroni):
        with pytest.raises(ScoringError) as caught:
            correct(bad)  # type: ignore[arg-type]  # not a list of floats, on purpose
        assert caught.value.hint


def brute_tukey(values: np.ndarray) -> np.ndarray:
    """Every combination of per-query permutations, plainly: the share whose range of run means
    reaches |mean_i - mean_j| (up to 1e-9)."""
    m, n, r = values.shape
    means = values.mean(axis=1)
    count = np.zeros((m, r, r))
    total = 0
    perms = list(itertools.permutations(range(r)))
    for combo in itertools.product(perms, repeat=n):
        permuted = np.empty_like(values)
        for q, perm in enumerate(combo):
            permuted[:, q, :] = values[:, q, list(perm)]
        run_means = permuted.mean(axis=1)
        spread = run_means.max(axis=1) - run_means.min(axis=1)
        for k in range(m):
            for i in range(r):
                for j in range(r):
                    count[k, i, j] += spread[k] >= abs(means[k, i] - means[k, j]) - 1e-9
        total += 1
    return count / total


def _small_cases() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    with_constant = rng.random((2, 4, 3))
    with_constant[:, 1, :] = 0.5  # the same in every run: adds nothing
    return [
        rng.random((2, 4, 3)),  # 3 runs x 4 queries: 6^4 = 1296 combinations
        rng.integers(0, 5, size=(3, 4, 3)) / 4.0,  # quarter steps: many exact ties
        np.round(rng.random((2, 5, 3)), 1),  # tenths (P@10-like): ties under rounding
        rng.random((1, 2, 4)),  # 4 runs x 2 queries: 24^2
        rng.integers(0, 3, size=(2, 7, 2)) / 2.0,  # 2 runs x 7 queries: 2^7
        with_constant,
    ]


@pytest.mark.parametrize("case", range(6))
def test_tukey_exact_equals_brute_force(case: int) -> None:
    values = _small_cases()[case]
    p, exact = mu.randomized_tukey_hsd(values, 10_000, np.random.default_rng(0))
    assert exact
    np.testing.assert_array_equal(p, brute_tukey(values))


def test_tukey_exact_only_when_combinations_fit() -> None:
    values = np.random.default_rng(5).random((1, 3, 3))  # 6^3 = 216 combinations
    assert mu.randomized_tukey_hsd(values, 216, np.random.default_rng(0))[1]
    p, exact = mu.randomized_tukey_hsd(values, 215, np.random.default_rng(0))
    assert not exact
    assert np.all(p >= 1 / 216)  # (count + 1) / (R + 1) is never 0


def test_tukey_exact_chunks_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    values = _small_cases()[0]
    whole, _ = mu.randomized_tukey_hsd(values, 10_000, np.random.default_rng(0))
    monkeypatch.setattr(mu, "_CELLS", 7)  # one combination per chunk
    chunked, _ = mu.randomized_tukey_hsd(values, 10_000, np.random.default_rng(0))
    np.testing.assert_array_equal(whole, chunked)


def _exact_vectorised(values: np.ndarray) -> np.ndarray:
    """The brute force of `brute_tukey`, vectorised over combinations (for 6^6 = 46,656 of them)."""
    m, n, r = values.shape
    perms = np.array(list(itertools.permutations(range(r))))
    combos = np.array(list(itertools.product(range(len(perms)), repeat=n)))  # [C, n]
    permuted = values[:, np.arange(n)[None, :, None], perms[combos]]  # [m, C, n, r]
    run_means = permuted.mean(axis=2)
    spread = run_means.max(axis=2) - run_means.min(axis=2)  # [m, C]
    means = values.mean(axis=1)
    observed = np.abs(means[:, :, None] - means[:, None, :])
    return np.asarray((spread[:, :, None, None] >= observed[:, None] - 1e-9).mean(axis=1))


def test_tukey_monte_carlo_within_binomial_error_of_exact() -> None:
    values = np.random.default_rng(21).random((3, 6, 3))
    values[0] += np.array([0.0, 0.25, 0.5])  # a real spread in one metric (exact p 0.037)
    expected = _exact_vectorised(values)
    resamples = 20_000
    p, exact = mu.randomized_tukey_hsd(values, resamples, np.random.default_rng(3))
    assert not exact
    error = np.sqrt(expected * (1 - expected) / resamples)
    assert np.all(np.abs(p - expected) <= 4.5 * error + 2 / resamples)
    assert expected[0, 0, 2] < 0.05 and p[0, 0, 2] < 0.05


def _loop_tukey(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """A plain Monte Carlo reference: one rng.permutation per query per resample."""
    m, n, r = values.shape
    means = values.mean(axis=1)
    observed = np.abs(means[:, :, None] - means[:, None, :])
    count = np.zeros((m, r, r))
    for _ in range(resamples):
        permuted = np.stack([values[:, q, rng.permutation(r)] for q in range(n)], axis=1)
        run_means = permuted.mean(axis=1)
        spread = run_means.max(axis=1) - run_means.min(axis=1)
        count += spread[:, None, None] >= observed - 1e-9
    return (count + 1) / (resamples + 1)


def test_tukey_monte_carlo_agrees_with_a_plain_loop() -> None:
    rng = np.random.default_rng(8)
    values = np.clip(rng.beta(2, 2, (1, 40, 1)) + rng.normal(0, 0.2, (2, 40, 5)), 0, 1)
    values[:, :, 4] += 0.08
    values[1] = np.round(values[1] * 10) / 10
    ours, exact = mu.randomized_tukey_hsd(values, 20_000, np.random.default_rng(1))
    reference = _loop_tukey(values, 3_000, np.random.default_rng(2))
    assert not exact
    pooled = (ours + reference) / 2
    error = np.sqrt(pooled * (1 - pooled) * (1 / 20_000 + 1 / 3_000))
    assert np.all(np.abs(ours - reference) <= 4.5 * error + 1e-3)


def test_tukey_many_runs_draws_without_the_table() -> None:
    rng = np.random.default_rng(14)
    values = rng.random((1, 25, 12))  # 12 runs: beyond the table of every permutation
    values[0, :, 11] += 0.6
    ours, exact = mu.randomized_tukey_hsd(values, 6_000, np.random.default_rng(1))
    reference = _loop_tukey(values, 1_500, np.random.default_rng(2))
    assert not exact
    pooled = (ours + reference) / 2
    error = np.sqrt(pooled * (1 - pooled) * (1 / 6_000 + 1 / 1_500))
    assert np.all(np.abs(ours - reference) <= 4.5 * error + 1e-3)
    assert ours[0, 0, 11] < 0.05


def test_tukey_float32_path_decides_as_float64(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    values = np.clip(rng.beta(2, 2, (1, 300, 1)) + rng.normal(0, 0.25, (3, 300, 6)), 0, 1)
    values[1] = np.round(values[1] * 10) / 10  # tenths: ranges tie thresholds exactly
    values[2] = 1.0 / np.ceil(1.0 / np.maximum(values[2], 0.1))  # reciprocal ranks
    fast, _ = mu.randomized_tukey_hsd(values, 3_000, np.random.default_rng(9))
    monkeypatch.setattr(mu, "_FLOAT32", False)
    slow, _ = mu.randomized_tukey_hsd(values, 3_000, np.random.default_rng(9))
    np.testing.assert_array_equal(fast, slow)


def test_tukey_does_not_depend_on_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(10).random((2, 40, 4))
    monkeypatch.setattr(mu, "_TASK", 16)  # 13 tasks for 200 resamples, the last one short
    two, _ = mu.randomized_tukey_hsd(values, 200, np.random.default_rng(5))
    monkeypatch.setattr(mu, "_WORKERS", 1)
    one, _ = mu.randomized_tukey_hsd(values, 200, np.random.default_rng(5))
    np.testing.assert_array_equal(one, two)


def test_tukey_shape_symmetry_and_determinism() -> None:
    rng = np.random.default_rng(6)
    values = rng.random((2, 50, 4))
    p, exact = mu.randomized_tukey_hsd(values, 500, np.random.default_rng(1))
    again, _ = mu.randomized_tukey_hsd(values, 500, np.random.default_rng(1))
    assert p.shape == (2, 4, 4) and not exact
    np.testing.assert_array_equal(p, again)
    np.testing.assert_array_equal(p, p.transpose(0, 2, 1))
    assert np.all(p[:, np.arange(4), np.arange(4)] == 1.0)
    assert np.all((p > 0) & (p <= 1))
    # queries the same in every run change nothing: p is 1 for every pair, exactly
    for runs in (3, 12):
        flat, exact = mu.randomized_tukey_hsd(np.full((1, 30, runs), 0.4), 100, np.random.default_rng(1))
        assert exact and flat.shape == (1, runs, runs) and np.all(flat == 1.0)


def test_tukey_with_two_runs_is_the_exact_sign_flip_test() -> None:
    rng = np.random.default_rng(12)
    a, b = rng.random(9), rng.random(9) + 0.2
    p, exact = mu.randomized_tukey_hsd(np.stack([a, b], axis=1)[None], 2**9, np.random.default_rng(0))
    reference = stats.permutation_test(
        (a, b),
        lambda x, y: abs(np.mean(x - y)),
        permutation_type="samples",
        vectorized=False,
        n_resamples=np.inf,
        alternative="greater",
    )
    assert exact
    assert p[0, 0, 1] == pytest.approx(reference.pvalue, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((3, 4)), np.zeros((1, 4, 1)), np.zeros((1, 0, 3)), np.array([[[0.1, float("nan")]]])],
)
def test_tukey_rejects_bad_values(bad: np.ndarray) -> None:
    for test in (mu.randomized_tukey_hsd, mu.pairwise_randomization_p):
        with pytest.raises(ScoringError) as caught:
            test(bad, 100, np.random.default_rng(0))
        assert caught.value.hint


def test_tukey_rejects_no_resamples() -> None:
    with pytest.raises(ScoringError, match="resamples"):
        mu.randomized_tukey_hsd(np.zeros((1, 3, 3)), 0, np.random.default_rng(0))


def test_pairwise_randomization_matches_scipy_exact() -> None:
    rng = np.random.default_rng(13)
    values = rng.random((2, 8, 4))
    values[0, :, 3] += 0.3
    p, exact = mu.pairwise_randomization_p(values, 256, np.random.default_rng(0))
    assert exact and p.shape == (2, 4, 4)
    for m in range(2):
        for i, j in itertools.combinations(range(4), 2):
            reference = stats.permutation_test(
                (values[m, :, i], values[m, :, j]),
                lambda x, y: abs(np.mean(x - y)),
                permutation_type="samples",
                vectorized=False,
                n_resamples=np.inf,
                alternative="greater",
            )
            assert p[m, i, j] == p[m, j, i] == pytest.approx(reference.pvalue, abs=1e-12)
    assert np.all(p[:, np.arange(4), np.arange(4)] == 1.0)


def test_discriminative_power_counts_pairs_below_alpha() -> None:
    pairs = np.array([0.001, 0.049, 0.05, 0.2, 0.7, 0.01])
    assert mu.discriminative_power(pairs, 0.05) == 3 / 6  # strictly below: 0.05 itself is not
    assert mu.discriminative_power(pairs, 0.01) == 1 / 6
    square = np.ones((4, 4))
    for (i, j), p in zip(itertools.combinations(range(4), 2), pairs, strict=True):
        square[i, j] = square[j, i] = p
    assert mu.discriminative_power(square, 0.05) == 0.5
    with pytest.raises(ScoringError):
        mu.discriminative_power(np.ones((1, 1)))
    with pytest.raises(ScoringError):
        mu.discriminative_power(pairs, 0.0)
    with pytest.raises(ScoringError):
        mu.discriminative_power(np.ones((2, 3)))


def test_discriminative_power_of_separated_runs() -> None:
    # five runs 0.1 apart with small noise: every pair differs; five identical runs: none (p = 1)
    rng = np.random.default_rng(17)
    base = rng.random((1, 60, 1))
    apart = base + 0.1 * np.arange(5) + rng.normal(0, 0.01, (1, 60, 5))
    p, _ = mu.pairwise_randomization_p(apart, 2_000, np.random.default_rng(0))
    assert mu.discriminative_power(p[0], 0.05) == 1.0
    same = np.repeat(base, 5, axis=2)
    p, _ = mu.pairwise_randomization_p(same, 2_000, np.random.default_rng(0))
    assert mu.discriminative_power(p[0], 0.05) == 0.0 and math.isclose(p.min(), 1.0)
