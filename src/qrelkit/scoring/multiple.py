"""Many runs at once: Holm and Bonferroni corrections, the randomized Tukey HSD test over every
pair of runs (Carterette 2012), paired randomization tests of every pair, discriminative power.

Values come as one array `[metrics, queries, runs]` (one metric's per-query values of every run,
over the queries every run holds). The randomized Tukey HSD permutes, independently for each query,
that query's values across the runs (the same permutations for every metric), takes each run's
mean and records the range max - min; the p-value of runs i and j is the share of resamples whose
range reaches |mean_i - mean_j|. It is exact, over every combination of per-query permutations,
when there are no more combinations than resamples; else Monte Carlo with the (count + 1) / (R + 1)
estimate, as `paired.randomization_p`.

How it stays fast: a query whose values are the same in every run (for every metric) adds the same
amount to every run whatever the permutation, so it is dropped, and the others are shifted by their
mid-range (neither changes a range). Permutations come from a table of all of them (up to
`_TABLED` runs) indexed by random integers, one gather of float32 rows per query and run serves
every metric, sums run over blocks of `_BLOCK` queries in float32 and then in float64. A resample
whose float32 range lies within its rounding bound of a threshold is recomputed in float64, so
every resample is decided as the float64 computation decides it. Resamples are drawn in tasks over
`_WORKERS` threads (numpy releases the GIL), each task from its own generator seeded from the one
given, so results do not depend on the threads. Memory stays bounded: `_CELLS` cells per chunk.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from .paired import randomization_p

FloatArray = npt.NDArray[np.float64]

TIE = 1e-9
"""Ranges within TIE x (1 + the sum over queries of a query's largest |shifted value|), in sums of
values, of an observed difference count as reaching it (float64 rounding is far below this)."""
_TABLED = 10
"""Up to this many runs, permutations are drawn from a table of all of them (10! rows: 36 MB)."""
_BLOCK = 16
"""Queries summed in float32 before the float64 sum."""
_CELLS = 200_000
"""(query, run) cells gathered at once: resamples per chunk = _CELLS // (queries x runs)."""
_TASK = 64
"""Resamples per task of the thread pool."""
_WORKERS = min(2, os.cpu_count() or 1)
"""Threads drawing resamples."""
_FLOAT32 = True
"""Gather float32 values (checked against float64 near every threshold); False: float64 only."""
_U32 = 2.0**-24
_U64 = 2.0**-53


def _family(p: npt.ArrayLike) -> FloatArray:
    arr = np.asarray(p, dtype=np.float64)
    if arr.ndim != 1:
        raise ScoringError(
            f"a family of p-values is a 1-D array, not {arr.ndim}-D", "correct one metric's candidates at a time"
        )
    if not np.all((arr >= 0.0) & (arr <= 1.0)):
        raise ScoringError("p-values must lie in [0, 1]", "pass the p-values of the paired tests, not statistics")
    return arr


def bonferroni(p: npt.ArrayLike) -> FloatArray:
    """Bonferroni-adjusted p-values of one family: min(1, m p)."""
    arr = _family(p)
    return np.minimum(arr * arr.size, 1.0)


def holm(p: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjusted p-values of one family (in the input's order): the k-th smallest
    p times (m - k + 1), made monotone by a running maximum, capped at 1. Ties get equal values."""
    arr = _family(p)
    order = np.argsort(arr, kind="stable")
    stepped = np.maximum.accumulate(arr[order] * np.arange(arr.size, 0, -1))
    out = np.empty(arr.size)
    out[order] = np.minimum(stepped, 1.0)
    return out


def _values(values: npt.ArrayLike) -> FloatArray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 3:
        raise ScoringError(
            f"values must be [metrics, queries, runs], got a {v.ndim}-D array", "stack each run's per-query values"
        )
    m, n, r = v.shape
    if m < 1 or n < 1 or r < 2:
        raise ScoringError(
            f"need at least one metric, one query and two runs (got {m}, {n}, {r})",
            "compare two or more runs over the queries they share",
        )
    if not np.all(np.isfinite(v)):
        raise ScoringError("a per-query value is not finite (NaN or infinite)", "score every run with --per-query")
    return v


def _check_resamples(resamples: int) -> None:
    if resamples < 1:
        raise ScoringError("--resamples must be at least 1")


def _shifted(v: FloatArray) -> FloatArray:
    """[queries', runs, metrics]: each query shifted by its mid-range, queries equal in every run and
    metric dropped. Ranges of run sums, and their differences, are unchanged by either."""
    c = np.ascontiguousarray(v.transpose(1, 2, 0))  # [queries, runs, metrics]
    high, low = c.max(axis=1, keepdims=True), c.min(axis=1, keepdims=True)
    keep = (high > low).any(axis=(1, 2))
    return np.ascontiguousarray((c - (high + low) / 2)[keep])


@functools.lru_cache(maxsize=4)
def _all_permutations(r: int) -> npt.NDArray[np.int8]:
    """[r!, r]: every permutation of range(r), built by inserting each next element at every position."""
    perms = np.zeros((1, 0), dtype=np.int8)
    for k in range(r):
        blocks = [np.insert(perms, pos, k, axis=1) for pos in range(k + 1)]
        perms = np.concatenate(blocks, axis=0)
    perms.setflags(write=False)
    return perms


def _combinations(r: int, n: int, limit: int) -> int | None:
    """(r!)^n if that is at most `limit`, else None."""
    f, total = math.factorial(r), 1
    for _ in range(n):
        total *= f
        if total > limit:
            return None
    return total


def _range_of(gathered: FloatArray) -> FloatArray:
    """[k, metrics]: max - min over runs of the sums over queries of `gathered` [k, queries, runs, metrics]."""
    sums = gathered.sum(axis=1)
    return np.asarray(sums.max(axis=1) - sums.min(axis=1), dtype=np.float64)


def _exact_ranges(c: FloatArray, total: int) -> FloatArray:
    """[total, metrics]: the range of every combination of per-query permutations (mixed radix r!)."""
    n, r, m = c.shape
    table = _all_permutations(r)
    flat, offsets = c.reshape(n * r, m), (np.arange(n) * r)[:, None]
    radix = len(table) ** np.arange(n, dtype=np.int64)
    out = np.empty((total, m))
    step = max(1, _CELLS // max(n * r, 1))
    for start in range(0, total, step):
        combos = np.arange(start, min(start + step, total), dtype=np.int64)
        digits = (combos[:, None] // radix) % len(table)  # [k, queries]
        idx = (table[digits] + offsets).reshape(len(combos), n * r)
        out[start : start + len(combos)] = _range_of(flat[idx].reshape(len(combos), n, r, m))
    return out


def _draw(rng: np.random.Generator, k: int, n: int, r: int) -> npt.NDArray[np.int8 | np.int16]:
    """[k, n, r]: a uniformly random permutation of range(r) for each of k x n (resample, query)."""
    if r <= _TABLED:
        table = _all_permutations(r)
        return np.take(table, rng.integers(0, len(table), size=(k, n)), axis=0)
    return rng.permuted(np.broadcast_to(np.arange(r, dtype=np.int16), (k, n, r)), axis=2)


class _Sampler:
    """The ranges of random resamples of the shifted values `c` [queries, runs, metrics], each decided
    against `thresholds` (per metric, sorted) exactly as the float64 computation decides it."""

    def __init__(self, c: FloatArray, thresholds: list[FloatArray]) -> None:
        n, r, m = c.shape
        self.r, self.m = r, m
        self.block = min(_BLOCK, n)
        self.blocks = -(-n // self.block)
        self.padded = self.blocks * self.block
        padded = np.zeros((self.padded, r, m))
        padded[:n] = c
        self.c64 = padded.reshape(-1, m)
        self.c32 = self.c64.astype(np.float32)
        self.offsets = (np.arange(self.padded) * r)[:, None]
        self.thresholds = thresholds
        largest = np.abs(c).max(axis=1).sum(axis=0)  # [metrics]: bounds every |sum| over queries
        # float32 rounding of the values and of each block's sum, float64 rounding of both sums;
        # a range is off by at most twice a sum's bound
        self.margin = 2.02 * largest * ((self.block + 1) * _U32 + (self.blocks + n + 1) * _U64)
        self.rechecked = 0
        self.lock = threading.Lock()

    def ranges(self, k: int, rng: np.random.Generator) -> FloatArray:
        perms = _draw(rng, k, self.padded, self.r)
        idx = (perms + self.offsets).reshape(k, -1)
        if not _FLOAT32:
            return _range_of(np.take(self.c64, idx, axis=0).reshape(k, -1, self.r, self.m))
        gathered = np.take(self.c32, idx, axis=0).reshape(k, self.blocks, self.block, self.r * self.m)
        sums = np.einsum("kbgc->kbc", gathered).sum(axis=1, dtype=np.float64).reshape(k, self.r, self.m)
        out = np.asarray(sums.max(axis=1) - sums.min(axis=1), dtype=np.float64)
        near = np.zeros(k, dtype=bool)
        for j, th in enumerate(self.thresholds):
            lo = np.searchsorted(th, out[:, j] - self.margin[j], side="left")
            near |= lo != np.searchsorted(th, out[:, j] + self.margin[j], side="right")
        if near.any():
            with self.lock:
                self.rechecked += int(near.sum())
            rows = idx[near]
            out[near] = _range_of(np.take(self.c64, rows, axis=0).reshape(len(rows), -1, self.r, self.m))
        return out


def _sampled_ranges(
    c: FloatArray, thresholds: list[FloatArray], resamples: int, rng: np.random.Generator
) -> FloatArray:
    """[resamples, metrics] random ranges, in tasks of _TASK resamples spread over _WORKERS threads
    (numpy releases the GIL); each task draws from its own generator seeded from `rng`, so the result
    does not depend on the threads."""
    sampler = _Sampler(c, thresholds)
    out = np.empty((resamples, c.shape[2]))
    step = max(1, _CELLS // (sampler.padded * c.shape[1]))
    starts = range(0, resamples, _TASK)
    seeds = rng.integers(0, 2**63 - 1, size=len(starts))

    def task(t: int) -> None:
        generator = np.random.default_rng(int(seeds[t]))
        end = min(starts[t] + _TASK, resamples)
        for start in range(starts[t], end, step):
            k = min(step, end - start)
            out[start : start + k] = sampler.ranges(k, generator)

    if _WORKERS <= 1 or len(starts) <= 1:
        for t in range(len(starts)):
            task(t)
    else:
        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            list(pool.map(task, range(len(starts))))
    return out


def randomized_tukey_hsd(values: npt.ArrayLike, resamples: int, rng: np.random.Generator) -> tuple[FloatArray, bool]:
    """The randomized Tukey HSD test of every pair of runs: (p [metrics, runs, runs], exact).

    `values` is [metrics, queries, runs]. p[m, i, j] is the share of resamples (per-query
    permutations of the values across runs, the same for every metric) whose range of run means
    reaches |mean_i - mean_j|: symmetric, 1 on the diagonal. Exact over every combination when
    (runs!)^queries (counting only queries whose values differ between runs) is at most `resamples`
    and there are at most `_TABLED` runs.
    """
    v = _values(values)
    _check_resamples(resamples)
    m, _, r = v.shape
    c = _shifted(v)
    if c.shape[0] == 0:  # every query alike in every run: no permutation moves a sum
        return np.ones((m, r, r)), True
    sums = c.sum(axis=0).T  # [metrics, runs]
    observed = np.abs(sums[:, :, None] - sums[:, None, :])  # [metrics, runs, runs]
    tol = TIE * (1.0 + np.abs(c).max(axis=1).sum(axis=0))  # [metrics]
    cut = observed - tol[:, None, None]
    upper = np.triu_indices(r, 1)
    total = _combinations(r, c.shape[0], resamples) if r <= _TABLED else None
    if total is not None:
        ranges = _exact_ranges(c, total)
    else:
        ranges = _sampled_ranges(c, [np.sort(cut[j][upper]) for j in range(m)], resamples, rng)
    ordered = np.sort(ranges, axis=0)
    count = np.stack([len(ordered) - np.searchsorted(ordered[:, j], cut[j], side="left") for j in range(m)])
    p = count / total if total is not None else (count + 1) / (resamples + 1)
    p[:, np.arange(r), np.arange(r)] = 1.0
    return p, total is not None


def pairwise_randomization_p(
    values: npt.ArrayLike, resamples: int, rng: np.random.Generator
) -> tuple[FloatArray, bool]:
    """The paired sign-flip randomization test (`paired.randomization_p`, uncorrected) of every pair
    of runs: (p [metrics, runs, runs], exact), symmetric, 1 on the diagonal. `values` is
    [metrics, queries, runs]; every pair and metric shares the same sign patterns."""
    v = _values(values)
    _check_resamples(resamples)
    m, n, r = v.shape
    i, j = np.triu_indices(r, 1)
    diffs = (v[:, :, j] - v[:, :, i]).transpose(2, 0, 1).reshape(-1, n)  # [pairs * metrics, queries]
    p_pairs, exact = randomization_p(diffs, resamples, rng)
    p = np.ones((m, r, r))
    p[:, i, j] = p[:, j, i] = p_pairs.reshape(len(i), m).T
    return p, exact


def pairwise_p(values: npt.ArrayLike, resamples: int, rng: np.random.Generator) -> FloatArray:
    """`pairwise_randomization_p` without the exactness flag: p [metrics, runs, runs]."""
    return pairwise_randomization_p(values, resamples, rng)[0]


def discriminative_power(p_pairs: npt.ArrayLike, alpha: float = 0.05) -> float:
    """Share of run pairs whose (uncorrected) paired test has p < alpha (Sakai 2006). `p_pairs` is
    the 1-D array of every pair's p-value, or a square [runs, runs] matrix (its upper triangle)."""
    arr = np.asarray(p_pairs, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[0] == arr.shape[1]:
        arr = arr[np.triu_indices(arr.shape[0], 1)]
    if arr.ndim != 1:
        raise ScoringError(
            f"p_pairs must be 1-D or a square matrix, got shape {arr.shape}", "pass one metric's pair p-values"
        )
    if arr.size == 0:
        raise ScoringError("discriminative power needs at least one pair of runs", "give two or more runs")
    if not 0.0 < alpha < 1.0:
        raise ScoringError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    _family(arr)
    return float(np.mean(arr < alpha))
