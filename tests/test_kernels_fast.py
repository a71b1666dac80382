"""The bounds kernels written for speed (AP's and the moving-cut precisions', issue 31 item 2)
give the same floats, bit for bit, as the plain formulas they replaced, kept here as their twins:
random grade matrices of every shape (short and long rows, all unlabeled, none, padding, a
threshold above the scale), and the kernels' blocks (`kernels.BLOCK_CELLS`) lowered."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qrelkit.scoring import kernels
from qrelkit.scoring.arrays import ABSENT, UNLABELED, Ranked
from qrelkit.scoring.kernel_base import (
    can_be_relevant,
    coverage_within,
    open_in,
    precision_at_moving_cut,
    relevant_total,
    safe_div,
    to_first,
    unlabeled_below,
    window,
)
from qrelkit.scoring.kernels_trec import _rprec_mult_cut
from qrelkit.scoring.names import parse_measure

Floats = npt.NDArray[np.float64]


def ap_twin(r: Ranked, k: int | None, t: int) -> tuple[Floats, Floats, Floats]:
    """AP's value and bounds as first written (`np.where` masks, a fresh array per step)."""
    w = window(r, k)
    big_r = relevant_total(r, t).astype(np.float64)[:, None]
    below = (unlabeled_below(r, k) if can_be_relevant(r, t) else np.zeros(len(w), dtype=np.int64)).astype(np.float64)[
        :, None
    ]
    pos = np.arange(1, w.shape[1] + 1, dtype=np.float64)[None, :]
    rel = (w >= t).astype(np.float64)
    unl = open_in(w, r, t).astype(np.float64)
    rel_cum = np.cumsum(rel, axis=1)
    n0 = (rel * rel_cum / pos).sum(axis=1, keepdims=True)
    value = safe_div(n0, big_r)[:, 0]
    before = rel_cum - rel
    inv_rel = rel / pos
    after = inv_rel.sum(axis=1, keepdims=True) - np.cumsum(inv_rel, axis=1)
    unl_cum = np.cumsum(unl, axis=1)
    t_max = np.where(unl > 0, (before + unl_cum) / pos + after, 0.0)
    cand_max = np.where(unl > 0, safe_div(n0 + np.cumsum(t_max, axis=1), big_r + unl_cum), -np.inf)
    inv_unl = unl / pos
    unl_after_inv = inv_unl.sum(axis=1, keepdims=True) - np.cumsum(inv_unl, axis=1)
    t_min = np.where(unl > 0, (before + 1) / pos + after + unl_after_inv, 0.0)
    rev_cum = np.cumsum(t_min[:, ::-1], axis=1)[:, ::-1]
    unl_from = np.cumsum(unl[:, ::-1], axis=1)[:, ::-1]
    cand_min = np.where(unl > 0, safe_div(n0 + rev_cum, big_r + below + unl_from), np.inf)
    high = np.maximum(value, cand_max.max(axis=1, initial=-np.inf))
    low = np.minimum(safe_div(n0, big_r + below)[:, 0], cand_min.min(axis=1, initial=np.inf))
    return value, low, high


def moving_cut_twin(
    r: Ranked, t: int, cut_of: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]
) -> tuple[Floats, Floats, Floats]:
    """`precision_at_moving_cut` as first written (int64 counts, `take_along_axis`, masks)."""
    w = r.grades
    n, depth = w.shape
    big_r = relevant_total(r, t)
    rel_cum = np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(w >= t, axis=1)], axis=1)
    unl_cum = np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(open_in(w, r, t), axis=1)], axis=1)
    u_total = unl_cum[:, -1:]
    added = np.arange(depth + 1)[None, :]
    valid = added <= u_total
    den = cut_of(big_r[:, None] + added)
    cut = np.minimum(den, depth)
    rel_in = np.take_along_axis(rel_cum, cut, axis=1)
    unl_in = np.take_along_axis(unl_cum, cut, axis=1)
    num_max = rel_in + np.minimum(added, unl_in)
    num_min = rel_in + np.maximum(0, added - (u_total - unl_in))
    value = safe_div(rel_in[:, 0].astype(np.float64), den[:, 0].astype(np.float64))
    hi = np.where(valid, safe_div(num_max.astype(np.float64), den.astype(np.float64)), -np.inf)
    lo = np.where(valid, safe_div(num_min.astype(np.float64), den.astype(np.float64)), np.inf)
    return value, lo.min(axis=1), hi.max(axis=1)


@st.composite
def ranked_matrices(draw: st.DrawFn) -> Ranked:
    """Grade matrices as the join builds them: each row a run of labeled (0..top), unlabeled and
    (past its end) absent cells, with label counts at least the labeled retrieved ones."""
    n = draw(st.integers(1, 12))
    depth = draw(st.integers(1, 40))
    top = draw(st.integers(1, 4))
    unlabeled_share = draw(st.sampled_from([0.0, 0.3, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, top + 1, size=(n, depth)).astype(np.int32)
    grades[rng.random((n, depth)) < unlabeled_share] = UNLABELED
    n_ret = rng.integers(0, depth + 1, size=n)
    n_ret[0] = depth  # one full row
    for i, length in enumerate(n_ret):
        grades[i, length:] = ABSENT
    counts = np.zeros((n, top + 1), dtype=np.int64)
    for g in range(top + 1):
        counts[:, g] = (grades == g).sum(axis=1) + rng.integers(0, 4, size=n)
    return Ranked(
        query_ids=[f"q{i}" for i in range(n)],
        grades=grades,
        n_ret=n_ret.astype(np.int64),
        label_counts=counts,
        max_grade=top,
        run_only=0,
    )


def same_floats(a: tuple[Floats, ...], b: tuple[Floats, ...]) -> bool:
    return all(x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranked_matrices(), st.sampled_from([None, 1, 3, 10, 100]), st.integers(0, 5))
def test_ap_bounds_are_the_twins_floats(r: Ranked, k: int | None, t: int) -> None:
    assert same_floats(kernels.average_precision(r, k, t), ap_twin(r, k, t))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranked_matrices(), st.integers(0, 5), st.sampled_from([0.2, 0.5, 1.0, 2.0]))
def test_moving_cut_bounds_are_the_twins_floats(r: Ranked, t: int, level: float) -> None:
    assert same_floats(precision_at_moving_cut(r, t, None), moving_cut_twin(r, t, lambda b: b))

    def cut(b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return _rprec_mult_cut(b, level)

    assert same_floats(precision_at_moving_cut(r, t, cut), moving_cut_twin(r, t, cut))


@pytest.mark.parametrize("cells", [1, 7, 64, kernels.BLOCK_CELLS])
@pytest.mark.parametrize("name", ["AP", "AP@5", "Rprec", "RprecMult@0.5", "AP(rel=2)"])
def test_kernel_blocks_give_the_same_floats(name: str, cells: int, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _fixed_matrix()
    m = parse_measure(name)
    whole = kernels.compute(r, m, 1)
    monkeypatch.setattr(kernels, "BLOCK_CELLS", cells)
    blocked = kernels.compute(r, m, 1)
    assert same_floats((whole.value, whole.low, whole.high), (blocked.value, blocked.low, blocked.high))


def _fixed_matrix() -> Ranked:
    rng = np.random.default_rng(31)
    n, depth, top = 50, 30, 3
    grades = rng.integers(0, top + 1, size=(n, depth)).astype(np.int32)
    grades[rng.random((n, depth)) < 0.6] = UNLABELED
    n_ret = rng.integers(1, depth + 1, size=n)
    for i, length in enumerate(n_ret):
        grades[i, length:] = ABSENT
    counts = np.stack([(grades == g).sum(axis=1) + rng.integers(0, 3, size=n) for g in range(top + 1)], axis=1)
    return Ranked([f"q{i}" for i in range(n)], grades, n_ret.astype(np.int64), counts.astype(np.int64), top, 0)


def ap_value_twin(r: Ranked, k: int | None, t: int) -> Floats:
    w = window(r, k)
    big_r = relevant_total(r, t).astype(np.float64)
    rel = (w >= t).astype(np.float64)
    pos = np.arange(1, w.shape[1] + 1, dtype=np.float64)
    return safe_div((rel * np.cumsum(rel, axis=1) / pos).sum(axis=1), big_r)


def rprec_value_twin(r: Ranked, t: int) -> Floats:
    w = r.grades
    r_total = relevant_total(r, t)
    rel_cum = np.concatenate([np.zeros((len(w), 1), np.int64), np.cumsum(w >= t, axis=1)], axis=1)
    rel_in = np.take_along_axis(rel_cum, np.minimum(r_total, w.shape[1])[:, None], axis=1)[:, 0]
    return safe_div(rel_in.astype(np.float64), r_total.astype(np.float64))


def coverage_twin(r: Ranked, lengths: npt.NDArray[np.int64]) -> Floats:
    inside = np.arange(r.depth)[None, :] < lengths[:, None]
    retrieved = ((r.grades != ABSENT) & inside).sum(axis=1)
    labeled = ((r.grades >= 0) & inside).sum(axis=1)
    out = np.full(len(r.query_ids), np.nan)
    np.divide(labeled, retrieved, out=out, where=retrieved > 0)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranked_matrices(), st.sampled_from([None, 1, 3, 10, 100]), st.integers(0, 5))
def test_ap_and_rprec_values_are_the_twins_floats(r: Ranked, k: int | None, t: int) -> None:
    m = parse_measure("AP" if k is None else f"AP@{k}")
    assert kernels._ap_value(r, m, t).tobytes() == ap_value_twin(r, k, t).tobytes()
    assert kernels._rprec_value(r, parse_measure("Rprec"), t).tobytes() == rprec_value_twin(r, t).tobytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ranked_matrices(), st.data())
def test_coverage_is_the_twins(r: Ranked, data: st.DataObject) -> None:
    n = len(r.query_ids)
    same = data.draw(st.integers(0, r.depth + 3))
    varied = np.array(data.draw(st.lists(st.integers(0, r.depth + 3), min_size=n, max_size=n)), dtype=np.int64)
    for lengths in (np.full(n, same, dtype=np.int64), varied, to_first(r.grades >= 1, None)):
        assert coverage_within(r, lengths).tobytes() == coverage_twin(r, lengths).tobytes()


@pytest.mark.parametrize("gains", [[0.0, 1.0, 3.0, 7.0], [1.0, 0.0, 5.0, 2.0], [0.0, 1.0]])
def test_multiset_gains_made_once_are_the_per_block_ones(gains: list[float]) -> None:
    g = np.array(gains)
    top = len(gains) - 1
    for u in range(7):
        ms = kernels._multisets(u, top)
        g_desc, ms_counts = kernels._multiset_gains(u, top, g.tobytes())
        assert g_desc.tobytes() == (-np.sort(-g[ms], axis=1)).tobytes()
        assert np.array_equal(ms_counts, np.stack([(ms == grade).sum(axis=1) for grade in range(top + 1)], axis=1))
        assert kernels._multiset_gains(u, top, g.tobytes())[0] is g_desc  # cached
