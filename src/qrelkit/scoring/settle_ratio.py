"""The delta of one query for the families whose normaliser moves with the labeling (nDCG's ideal
DCG, AP's and Rprec's R), bounded without trying every labeling (`settle` calls these).

Notation: U the unlabeled documents either run retrieves (any rank), R0 the labeled relevant
documents of the query, r how many of U a labeling makes relevant, R = R0 + r.

* nDCG (exact). The window W: the unlabeled documents in either top k; each d in W adds
  c_d = (B's discount of d) - (A's) times its gain to N = DCG_B - DCG_A (c_d sums the discounts
  of every position d holds in a run's top k; 0 outside it); the tail T: the rest of U, which
  moves only the ideal DCG I. Both runs share I, so delta = N / I (0 when I = 0, as `score`
  gives nDCG 0 then). I depends only on the multiset of gains the labeling gives, not on which
  document takes which gain, so for one multiset of W's gains N / I is largest when N is: the
  largest gains on the largest c_d (the rearrangement inequality), and smallest with the largest
  gains on the smallest c_d. For one labeling of W, the tail moves only I (never down as a gain
  rises): N / I is extreme at the tail's largest I (all at the top gain) or its smallest (all 0).
  (Gains are >= 0, as the measure's names require: if the labels and W give I = 0 they give N = 0,
  and the delta is 0 whatever the tail.) So the range is the extremes over every multiset of W's
  gains (C(|W| + S - 1, S - 1) of them for S states, `composition_count`) times those two tails:
  exact, without the S^|W| labelings.
* Rprec (exact). For one R, R * delta = K(R) + sum over the r documents made relevant of
  e_d(R), with K(R) the labeled relevant in B's top R less those in A's top R and e_d(R) the
  positions d holds in B's top R less those in A's (+1, -1 or 0 without duplicates). Any r of U
  can be chosen, so the maximum takes the r largest e_d(R) and the minimum the r smallest; the
  range is the extremes over every R from R0 to R0 + |U| (R = 0: both 0).
* AP (sound, not exact). AP = S / R with S = sum over the relevant positions p of the run's window
  of (relevant in its top p) / p = sum_i i / p_i (p_i the i-th relevant position). S never falls
  as a document becomes relevant (one more term, and later terms' counts grow). For r relevant
  among U, B's S is at most B's S with the min(r, u_B) earliest unlabeled positions of its window
  relevant (u_B of them; each p_i is then the smallest it can be), and A's S at least A's S with
  the max(0, r - (|U| - u_A)) latest unlabeled positions of its window relevant (the fewest the r
  can put there, each p_i the largest it can be). Each run is bounded apart for each R, so the
  range [min over R of (S_B min - S_A max) / R, max over R of (S_B max - S_A min) / R] contains
  every labeling's delta; it is not exact (the two runs' best sets may differ).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

MULTISETS_LIMIT = 50_000
"""Most gain multisets of a query's window tried for nDCG (4 gains: a window of 64 documents)."""


NARROWED_CELLS = 4_000_000
"""Most cells (documents x states x multisets) `ndcg_narrowed` holds at once; past it, None (the
caller labels each document in turn: slower, the same widths)."""


def composition_count(n: int, s: int) -> int:
    """How many multisets of s states n documents can take."""
    return math.comb(n + s - 1, s - 1)


@cache
def compositions(n: int, s: int) -> IntArray:
    """[M, s] every way of putting n documents into s states (counts per state), stars and bars."""
    if s == 1:
        return np.full((1, 1), n, dtype=np.int64)
    bars = np.array(list(itertools.combinations(range(n + s - 1), s - 1)), dtype=np.int64).reshape(-1, s - 1)
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + s - 1)])
    return np.asarray(np.diff(edges, axis=1) - 1, dtype=np.int64)


@cache
def _cum_disc(n: int) -> FloatArray:
    """D[i] = sum of 1 / log2(j + 1) for j = 1..i, i = 0..n."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64)))])


def _ideal(levels: FloatArray, counts: IntArray, k: int | None) -> FloatArray:
    """Ideal DCG(@k) of rows of counts [M, L] of the positive gains `levels` (descending)."""
    total = counts.sum(axis=1)
    cum = _cum_disc(int(total.max(initial=0)))
    limit = total if k is None else np.minimum(total, k)
    start = np.zeros(len(counts), dtype=np.int64)
    out = np.zeros(len(counts))
    for j, v in enumerate(levels):
        end = start + counts[:, j]
        out += v * (cum[np.minimum(end, limit)] - cum[np.minimum(start, limit)])
        start = end
    return out


def _ratio(n: FloatArray, ideal: FloatArray) -> FloatArray:
    return np.divide(n, ideal, out=np.zeros(len(n)), where=ideal > 0)


def _level_counts(
    values: Sequence[float], known: Sequence[float], gains: FloatArray, counts: IntArray
) -> tuple[FloatArray, dict[float, int], IntArray, IntArray]:
    """What the ideal DCG reads, for `ndcg_range` and `ndcg_narrowed`: the positive gains any label
    of the query can take (largest first) and each one's column, the known labels' count at each
    (one row), and that row plus each multiset's documents (`counts`, column j at `gains[j]`): [M, L]."""
    levels = np.array(sorted({v for v in (*values, *known) if v > 0}, reverse=True), dtype=np.float64)
    at = {v: j for j, v in enumerate(levels)}
    known_counts = np.zeros(len(levels), dtype=np.int64)
    for v in known:
        if v > 0:
            known_counts[at[v]] += 1
    base = np.repeat(known_counts[None, :], len(counts), axis=0)
    for j, v in enumerate(gains):
        if v > 0:
            base[:, at[v]] += counts[:, j]
    return levels, at, known_counts, base


def ndcg_range(
    coef: Sequence[float], n0: float, known: Sequence[float], tail: int, values: Sequence[float], k: int | None
) -> tuple[float, float, float] | None:
    """(now, low, high) of one query's nDCG delta (module docstring): `coef` the c_d of the window's
    unlabeled documents, `n0` N under the labels, `known` the gains of every label of the query,
    `tail` the unlabeled documents below k in both runs, `values` the gains a document can take
    (`settle.states`). None past `MULTISETS_LIMIT` multisets."""
    w, s = len(coef), len(values)
    if composition_count(w, s) > MULTISETS_LIMIT:
        return None
    gains = np.array(sorted(values, reverse=True), dtype=np.float64)
    counts = compositions(w, s)  # [M, s], column j: documents at gains[j]
    end = np.cumsum(counts, axis=1)
    start = end - counts
    c = np.sort(np.asarray(coef, dtype=np.float64))
    up = np.concatenate([[0.0], np.cumsum(c[::-1])])  # largest c first
    down = np.concatenate([[0.0], np.cumsum(c)])  # smallest c first
    n_max = n0 + ((up[end] - up[start]) * gains).sum(axis=1)
    n_min = n0 + ((down[end] - down[start]) * gains).sum(axis=1)
    levels, at, known_counts, base = _level_counts(values, known, gains, counts)
    now_ideal = _ideal(levels, known_counts[None, :], k)[0]
    now = n0 / now_ideal if now_ideal > 0 else 0.0
    tails = [base]
    if tail and max(values) > 0:
        most = base.copy()
        most[:, at[max(values)]] += tail
        tails.append(most)
    ideals = [_ideal(levels, t, k) for t in tails]
    high = max(float(_ratio(n_max, i).max()) for i in ideals)
    low = min(float(_ratio(n_min, i).min()) for i in ideals)
    return now, min(low, now), max(high, now)


def _counts_below(rank: IntArray, who: IntArray, n_docs: int, depth: int) -> IntArray:
    """[depth + 1, n_docs]: how many of each document's positions (1-based `rank`, document `who`)
    lie in the top i, for i = 0..depth."""
    grid = np.zeros((depth + 2, n_docs), dtype=np.int64)
    np.add.at(grid, (np.minimum(rank, depth + 1), who), 1)
    return np.cumsum(grid, axis=0)[: depth + 1]


def rprec_range(
    known_a: Sequence[bool],
    known_b: Sequence[bool],
    open_a: Sequence[int],
    open_b: Sequence[int],
    r0: int,
    n_open: int,
) -> tuple[float, float, float]:
    """(now, low, high) of one query's Rprec delta (module docstring). Per position of each run:
    `known_*` labeled relevant, `open_*` the index (0..n_open-1) of its unlabeled document in U,
    else -1; `r0` the labeled relevant documents of the query; `n_open` = |U| (0 when no grade
    can make a document relevant)."""
    top = r0 + n_open
    kb = np.concatenate([[0], np.cumsum(np.asarray(known_b, dtype=np.int64))])
    ka = np.concatenate([[0], np.cumsum(np.asarray(known_a, dtype=np.int64))])
    big_r = np.arange(r0, top + 1)
    k_r = kb[np.minimum(big_r, len(known_b))] - ka[np.minimum(big_r, len(known_a))]
    e = np.zeros((top + 1, n_open), dtype=np.int64)
    for sign, where in ((1, open_b), (-1, open_a)):
        pos = np.asarray(where, dtype=np.int64)
        ranks = np.nonzero(pos >= 0)[0] + 1
        e += sign * _counts_below(ranks, pos[pos >= 0], n_open, top)
    e = np.sort(e[big_r], axis=1)
    prefix = np.hstack([np.zeros((len(big_r), 1), dtype=np.int64), np.cumsum(e, axis=1)])
    r = big_r - r0
    rows = np.arange(len(big_r))
    most = k_r + prefix[rows, n_open] - prefix[rows, n_open - r]
    least = k_r + prefix[rows, r]
    denom = np.maximum(big_r, 1)
    now = float(k_r[0] / r0) if r0 else 0.0
    return now, float((least / denom).min()), float((most / denom).max())


def _s_values(known: Sequence[bool], open_at: Sequence[int], earliest: bool) -> FloatArray:
    """S = sum_i i / p_i of a window with its labeled relevant positions `known` and j of its
    unlabeled positions (`open_at`, 0-based, ascending) relevant, for j = 0..len(open_at): the
    earliest j, or the latest."""
    n, u = len(known), len(open_at)
    rel = np.tile(np.asarray(known, dtype=np.float64), (u + 1, 1))
    chosen = np.arange(u)[None, :] < np.arange(u + 1)[:, None]  # [j, i]: the i-th earliest is relevant
    if not earliest:
        chosen = chosen[:, ::-1]
    if u:
        rel[:, np.asarray(open_at)] = chosen
    cum = np.cumsum(rel, axis=1)
    return np.asarray((rel * cum / np.arange(1, n + 1)).sum(axis=1), dtype=np.float64)


def ap_range(
    known_a: Sequence[bool],
    known_b: Sequence[bool],
    open_a: Sequence[int],
    open_b: Sequence[int],
    r0: int,
    n_open: int,
) -> tuple[float, float]:
    """A sound (low, high) of one query's AP delta (module docstring); the windows' positions as
    `rprec_range` takes them, each document at most once per window."""
    at_a = [p for p, i in enumerate(open_a) if i >= 0]
    at_b = [p for p, i in enumerate(open_b) if i >= 0]
    a_most, a_least = _s_values(known_a, at_a, True), _s_values(known_a, at_a, False)
    b_most, b_least = _s_values(known_b, at_b, True), _s_values(known_b, at_b, False)
    r = np.arange(n_open + 1)
    big_r = np.maximum(r0 + r, 1)
    high = (b_most[np.minimum(r, len(at_b))] - a_least[np.maximum(0, r - (n_open - len(at_a)))]) / big_r
    low = (b_least[np.maximum(0, r - (n_open - len(at_b)))] - a_most[np.minimum(r, len(at_a))]) / big_r
    return float(low.min()), float(high.max())


def _without_one(c: FloatArray, order: IntArray) -> FloatArray:
    """[W, W] row j: the prefix sums (0..W-1 terms) of c in `order` with document j left out."""
    w = len(c)
    ranked = c[order]
    prefix = np.concatenate([[0.0], np.cumsum(ranked)])
    where = np.empty(w, dtype=np.int64)
    where[order] = np.arange(w)
    t = np.arange(w)[None, :]
    return np.where(t <= where[:, None], prefix[:w][None, :], prefix[1:][None, :] - c[:, None])


def ndcg_narrowed(
    coef: Sequence[float], n0: float, known: Sequence[float], tail: int, values: Sequence[float], k: int | None
) -> tuple[FloatArray, FloatArray] | None:
    """The width of one query's nDCG delta range once one more document is labeled, as
    `ndcg_range` of the labels with it would give: [W, S] for window document j at `values[s]`,
    and [S] for one tail document (empty without a tail). For window document j the other W - 1
    take every multiset (one enumeration for all j), N gains values[s] c_j and the ideal the gain.
    None past `MULTISETS_LIMIT` multisets or `NARROWED_CELLS`."""
    w, s = len(coef), len(values)
    if composition_count(w, s) > MULTISETS_LIMIT or w * s * composition_count(max(w - 1, 0), s) > NARROWED_CELLS:
        return None
    at_tail = np.array(
        [ndcg_range(coef, n0, [*known, v], tail - 1, values, k) for v in values] if tail else [], dtype=np.float64
    )
    tail_widths = at_tail[:, 2] - at_tail[:, 1] if tail else np.zeros(0)
    if w == 0:
        return np.zeros((0, s)), tail_widths
    c = np.asarray(coef, dtype=np.float64)
    gains = np.array(sorted(values, reverse=True), dtype=np.float64)
    counts = compositions(w - 1, s)
    end = np.cumsum(counts, axis=1)
    start = end - counts
    rest = []
    for order in (np.argsort(-c, kind="stable"), np.argsort(c, kind="stable")):
        p = _without_one(c, order)  # [W, W]
        rest.append(((p[:, end] - p[:, start]) * gains).sum(axis=2))  # [W, M]
    levels, at, _, base = _level_counts(values, known, gains, counts)
    widths = np.zeros((w, s))
    for si, v in enumerate(values):
        labeled = base.copy()
        if v > 0:
            labeled[:, at[v]] += 1
        tails = [labeled]
        if tail and max(values) > 0:
            most = labeled.copy()
            most[:, at[max(values)]] += tail
            tails.append(most)
        ideals = np.stack([_ideal(levels, t, k) for t in tails])  # [kinds, M]
        n_max = n0 + v * c[:, None] + rest[0]  # [W, M]
        n_min = n0 + v * c[:, None] + rest[1]
        safe = np.where(ideals > 0, ideals, 1.0)[None, :, :]
        high = np.where(ideals[None] > 0, n_max[:, None, :] / safe, 0.0).max(axis=(1, 2))
        low = np.where(ideals[None] > 0, n_min[:, None, :] / safe, 0.0).min(axis=(1, 2))
        widths[:, si] = high - low
    return widths, tail_widths
