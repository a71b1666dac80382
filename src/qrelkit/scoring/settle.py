"""The stopping rule: can any labeling of the unlabeled documents still change a comparison?

For runs A and B, one measure M and the current labels, `delta_range` gives the range [lo, hi] of
the mean per-query delta mean_q (M_B(q) - M_A(q)) over every labeling of the unlabeled documents
the two runs retrieve (the union of both runs, at any rank: a document below the cutoff still
moves R or the ideal DCG), each unlabeled document taking any grade of the scale. Documents
neither run retrieves stay unlabeled, as in `score`'s bounds. Both runs are scored against the
same labeling, so a document only A retrieves still raises B's R: the range of the delta is not
A's bounds minus B's. Queries are independent, so lo and hi are the means of the per-query
minimum and maximum. The delta now (unlabeled counted not relevant, as `score` does) lies in it.

Per query, with U_A and U_B the unlabeled documents in A's and B's top k (t the relevance
threshold; when no grade of the scale reaches t no unlabeled document can matter, [now, now]):

* P@k: delta = (rel_B - rel_A) / k. A document in both top k adds 1/k to both and cancels, so
  delta = now + (|S & (U_B - U_A)| - |S & (U_A - U_B)|) / k for the set S made relevant: the
  maximum makes B-only documents relevant and A-only ones not, the minimum the reverse. Exact.
* Success@k, RR(@k): each run's value depends only on its first relevant document and rises with
  every document made relevant. If S attains the maximum and d is the document that gives B its
  first relevant rank under S (none: labeled only), then {d} (or the empty set) gives B the same
  value and A at most the same, so the maximum is over the empty set and the single documents of
  U_B; the minimum over the empty set and those of U_A. Exact.
* R@k: delta = (D0 + b - a) / (R + b + a + e), D0 the labeled relevant of B's top k minus A's,
  R the labeled relevant documents, b (a) the B-only (A-only) unlabeled documents of the top k
  made relevant, e the others (in both top k, or below k in both: they add to both numerators or
  to none). Write N / T. One more b: (N + 1) / (T + 1) - N / T = (T - N) / (T (T + 1)) >= 0 as
  T >= N (T = 0 forces N = 0, then 1 > 0); one more a: (-T - N) / (T (T + 1)) <= 0 as T + N >=
  rel_B + b >= 0. So the maximum takes every B-only document, no A-only one, and e = 0 when N > 0
  or e = all when N < 0 (N = 0 gives 0 whatever e); the minimum mirrors it. Exact.
* nDCG(@k), AP(@k), Rprec: the normaliser (ideal DCG, R) depends on the labeling
  (`settle_ratio` proves each). nDCG: every multiset of gains of the unlabeled documents in
  either top k, each placed best and worst (the rearrangement inequality), with the two labelings
  of the documents only below k that reach the extremes (all 0, all the top gain: they move only
  the shared normaliser); exact while there are at most `settle_ratio.MULTISETS_LIMIT`
  multisets, past that a sound outer interval: A's lowest value minus B's highest and the
  reverse, each run's over every labeling of the union (`_outer_run`: numerator and normaliser bounded apart), flagged
  `exact=False` per query. Rprec: for each R, the R - R0 documents made relevant that raise or
  lower the delta most; exact. AP: every labeling of the unlabeled documents in either top k
  (relevant or not; the whole run without a cutoff) while there are at most `LABELINGS_LIMIT`,
  with the tail's three labelings: exact; past that, for each R each run's AP bounded apart
  (`settle_ratio.ap_range`), within the outer interval: sound, flagged `exact=False`.

Other families are refused (`refuse_unsupported`). The verdicts (`settle_verdict`: the sign, and
the paired t-test over the box of per-query intervals) are sound but not exact: "open" may be said
where no labeling would in fact change it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from .measures import Measure
from .settle_ratio import MULTISETS_LIMIT, ap_range, ndcg_narrowed, ndcg_range, rprec_range
from .settle_verdict import ALPHA as ALPHA
from .settle_verdict import TIE as TIE
from .settle_verdict import SignificanceVerdict as SignificanceVerdict
from .settle_verdict import SignVerdict as SignVerdict
from .settle_verdict import critical as critical
from .settle_verdict import sd_range as sd_range
from .settle_verdict import sign_verdict as sign_verdict
from .settle_verdict import significance_verdict as significance_verdict

FloatArray = npt.NDArray[np.float64]

LABELINGS_LIMIT = 4096
"""Most labelings enumerated per query and run pair (AP; nDCG and Rprec's conditional widths)."""
CLOSED_FORM = ("P", "R", "Success", "RR")
ENUMERATED = ("nDCG", "AP", "Rprec")
SUPPORTED = CLOSED_FORM + ENUMERATED
MAX_GRADES = 64
"""The largest scale (top grade) the enumeration takes: one state per distinct gain."""
EXACTNESS = {
    "P": "exact (closed form)",
    "R": "exact (closed form)",
    "Success": "exact (closed form)",
    "RR": "exact (closed form)",
    "nDCG": f"exact per query up to {MULTISETS_LIMIT:,} gain multisets, else a sound outer interval",
    "AP": f"exact per query up to {LABELINGS_LIMIT:,} labelings, else a sound interval (R by R)",
    "Rprec": "exact (closed form, R by R)",
}
"""How exact the range is, per family (`qrelkit settled` and the README say it)."""


@dataclass(frozen=True)
class QueryCase:
    """One query: each run's documents in trec_eval order (the whole run; empty when the run lacks
    the query, which then scores 0), and the labels (document -> grade >= 0; any other document is
    unlabeled)."""

    query_id: str
    run_a: Sequence[str]
    run_b: Sequence[str]
    labels: Mapping[str, int]


@dataclass(frozen=True)
class Scale:
    """The grades 0..max_grade and the relevance threshold of the binary families."""

    max_grade: int
    threshold: int = 1


@dataclass(frozen=True)
class QueryRange:
    """One query's delta: now, its range over every labeling, whether the range is exact, and the
    unlabeled documents whose labels can move it (none when lo = hi)."""

    query_id: str
    now: float
    low: float
    high: float
    exact: bool
    open_docs: tuple[str, ...] = ()

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class DeltaRange:
    """The mean delta of one measure over the queries: now, [low, high], the verdicts."""

    metric: str
    now: float
    low: float
    high: float
    queries: list[QueryRange] = field(default_factory=list)
    sign: SignVerdict = "open"
    significance: SignificanceVerdict = "no test"

    @property
    def exact(self) -> bool:
        return all(q.exact for q in self.queries)

    @property
    def exact_queries(self) -> int:
        return sum(q.exact for q in self.queries)

    @property
    def open_pairs(self) -> int:
        return sum(len(q.open_docs) for q in self.queries)

    @property
    def settled(self) -> bool:
        return self.sign != "open" and self.significance != "open"


def refuse_unsupported(m: Measure, scale: Scale) -> None:
    """Families the stopping rule does not cover, and nDCG gains it cannot range over."""
    if m.family not in SUPPORTED:
        raise ScoringError(
            f"the stopping rule does not cover {m.name}", f"use one of the families {', '.join(SUPPORTED)}"
        )
    if m.judged_only:
        raise ScoringError(
            f"{m.name}: a condensed-list value is an estimate, not a completion", "leave out judged_only"
        )
    if m.family == "nDCG":
        if scale.max_grade > MAX_GRADES:
            raise ScoringError(f"{m.name}: the stopping rule takes scales up to grade {MAX_GRADES}")
        if _gain(m, 0) != 0:
            raise ScoringError(f"{m.name}: a gain for grade 0 makes 'unlabeled' no labeling", "give grade 0 gain 0")


@cache
def _gain(m: Measure, grade: int) -> float:
    if m.gains is not None:
        return float(dict(m.gains).get(grade, float(grade)))
    return float(grade) if m.gain == "linear" else float(2.0**grade - 1.0)


def states(m: Measure, scale: Scale) -> list[float]:
    """What an unlabeled document can become: nDCG its distinct gains (0 first), a binary family
    not relevant / relevant ([0, 1]), or [0] when no grade reaches its threshold."""
    if m.family == "nDCG":
        gains = sorted({_gain(m, g) for g in range(scale.max_grade + 1)} - {0.0})
        return [0.0, *gains]
    return [0.0, 1.0] if scale.max_grade >= m.threshold(scale.threshold) else [0.0]


def state_grades(m: Measure, scale: Scale) -> list[list[int]]:
    """The grades behind each state (`states`), in the same order."""
    values = states(m, scale)
    out: list[list[int]] = [[] for _ in values]
    t = m.threshold(scale.threshold)
    for g in range(scale.max_grade + 1):
        v = _gain(m, g) if m.family == "nDCG" else float(g >= t)
        out[values.index(v) if v in values else 0].append(g)
    return out


def grade_prior(grades: Sequence[int], max_grade: int) -> FloatArray:
    """P(grade) from the current labels, add-one smoothed (uniform when there are none): the prior
    of the `impact` order (which imports it from here) and of the `settle` order."""
    counts = np.ones(max_grade + 1, dtype=np.float64)
    if grades:
        counts += np.bincount(np.clip(np.asarray(grades, dtype=np.int64), 0, max_grade), minlength=max_grade + 1)
    return np.asarray(counts / counts.sum(), dtype=np.float64)


@cache
def _disc(n: int) -> FloatArray:
    """1 / log2(rank + 1) for ranks 1..n (shared: never written to)."""
    return np.asarray(1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64)), dtype=np.float64)


def _window(m: Measure, docs: Sequence[str]) -> Sequence[str]:
    return docs if m.cutoff is None or m.family == "Rprec" else docs[: m.cutoff]


def _unlabeled(docs: Sequence[str], labels: Mapping[str, int]) -> list[str]:
    return [d for d in docs if d not in labels]


# -- the closed forms ---------------------------------------------------------------------------


def _first_value(m: Measure, window: Sequence[str], relevant: set[str]) -> float:
    for rank, d in enumerate(window, 1):
        if d in relevant:
            return 1.0 if m.family == "Success" else 1.0 / rank
    return 0.0


def _first_ranks(m: Measure, window: Sequence[str], docs: set[str]) -> dict[str, float]:
    """The value one relevant document alone gives at its (first) rank of the window."""
    out: dict[str, float] = {}
    for rank, d in enumerate(window, 1):
        if d in docs and d not in out:
            out[d] = 1.0 if m.family == "Success" else 1.0 / rank
    return out


def _closed(m: Measure, case: QueryCase, scale: Scale) -> QueryRange:
    t = m.threshold(scale.threshold)
    rel = {d for d, g in case.labels.items() if g >= t}
    wa, wb = _window(m, case.run_a), _window(m, case.run_b)
    ua, ub = set(_unlabeled(wa, case.labels)), set(_unlabeled(wb, case.labels))
    can = scale.max_grade >= t
    if m.family == "P":
        k = m.cutoff or 1
        now = (sum(d in rel for d in wb) - sum(d in rel for d in wa)) / k
        only_a, only_b = (ua - ub, ub - ua) if can else (set(), set())
        return _range(case, now, now - len(only_a) / k, now + len(only_b) / k, only_a | only_b)
    if m.family == "R":
        return _recall(case, rel, wa, wb, ua, ub, can)
    va, vb = _first_value(m, wa, rel), _first_value(m, wb, rel)
    now = vb - va
    if not can:
        return _range(case, now, now, now, set())
    # one more relevant document d: each run's value becomes the better of its own and d's rank's
    at_a = _first_ranks(m, wa, ua)
    at_b = _first_ranks(m, wb, ub)
    high = max([now, *(max(vb, at_b[d]) - max(va, at_a.get(d, 0.0)) for d in ub)])
    low = min([now, *(max(vb, at_b.get(d, 0.0)) - max(va, at_a[d]) for d in ua)])
    return _range(case, now, low, high, ua | ub)


def _recall(
    case: QueryCase, rel: set[str], wa: Sequence[str], wb: Sequence[str], ua: set[str], ub: set[str], can: bool
) -> QueryRange:
    def div(n: float, d: float) -> float:
        return n / d if d > 0 else 0.0

    big_r = len(rel)
    d0 = sum(d in rel for d in wb) - sum(d in rel for d in wa)
    now = div(d0, big_r)
    if not can:
        return _range(case, now, now, now, set())
    every = set(_unlabeled(case.run_a, case.labels)) | set(_unlabeled(case.run_b, case.labels))
    n_a, n_b = len(ua - ub), len(ub - ua)
    rest = len(every) - n_a - n_b
    high = div(d0 + n_b, big_r + n_b + (rest if d0 + n_b < 0 else 0))
    low = div(d0 - n_a, big_r + n_a + (rest if d0 - n_a > 0 else 0))
    return _range(case, now, low, high, every)


def _range(case: QueryCase, now: float, low: float, high: float, docs: set[str] | Sequence[str]) -> QueryRange:
    """A query's range; its open documents in the order the runs rank them (none when closed)."""
    if high - low <= 0:
        return QueryRange(case.query_id, now, low, high, True)
    ordered = tuple(d for d in dict.fromkeys([*case.run_a, *case.run_b]) if d in docs)
    return QueryRange(case.query_id, now, low, high, True, ordered)


# -- the enumerated families --------------------------------------------------------------------


@dataclass(frozen=True)
class Labelings:
    """The labelings of one query's unlabeled documents that reach the extremes of the delta:
    every state of each `window` document (one column of state indices in `each` per document),
    times the three labelings of the `tail` (`tail_kind`: 0 all not relevant / gain 0, 1 all the
    top state, 2 one at the smallest positive gain and the rest 0). The tail is below k in both
    runs: it moves only the normaliser (the ideal DCG, R), which both runs share, so for a fixed
    window labeling delta = N / I with N fixed and I nondecreasing in every tail grade; N / I is
    extreme at the largest I (all top), the smallest I (all 0) or the smallest positive I (one
    document at the smallest positive gain, at rank 1 of the ideal: I >= that gain whenever I > 0)."""

    window: list[str]
    tail: list[str]
    each: npt.NDArray[np.int64]
    """[L, len(window)] state indices."""
    tail_kind: npt.NDArray[np.int64]
    """[L] the tail labeling of each row (see above)."""


@cache
def _grid(n: int, s: int) -> npt.NDArray[np.int64]:
    rows = list(itertools.product(range(s), repeat=n))
    return np.array(rows, dtype=np.int64).reshape(len(rows), n)


def labelings_count(n_window: int, n_states: int) -> int:
    """How many window labelings the enumeration tries: states^window."""
    return int(n_states**n_window)


def labelings(m: Measure, case: QueryCase, n_states: int) -> Labelings | None:
    """The labelings of the query's unlabeled documents that the measure reads, or None past
    `LABELINGS_LIMIT` window labelings."""
    wa, wb = _window(m, case.run_a), _window(m, case.run_b)
    window = list(dict.fromkeys(_unlabeled([*wa, *wb], case.labels)))
    seen = set(window)
    tail = [d for d in dict.fromkeys(_unlabeled([*case.run_a, *case.run_b], case.labels)) if d not in seen]
    if n_states == 1:
        window, tail = [], []
    if labelings_count(len(window), n_states) > LABELINGS_LIMIT:
        return None
    grid = _grid(len(window), n_states)
    kinds = np.array([0, 1, 2] if tail else [0], dtype=np.int64)
    return Labelings(window, tail, np.repeat(grid, len(kinds), axis=0), np.tile(kinds, len(grid)))


def _tail_values(lab: Labelings, state: FloatArray, width: int) -> FloatArray:
    """[L, width] the tail's values under each row's tail labeling (`width` of its documents)."""
    out = np.zeros((len(lab.tail_kind), width))
    if width == 0:
        return out
    positive = state[state > 0]
    out[lab.tail_kind == 1] = state.max()
    out[lab.tail_kind == 2, 0] = positive.min() if len(positive) else 0.0
    return out


def run_values(
    m: Measure, docs: Sequence[str], labels: Mapping[str, int], scale: Scale, lab: Labelings, values: Sequence[float]
) -> FloatArray:
    """The measure of one run under every labeling (a row each)."""
    state = np.asarray(values, dtype=np.float64)
    win = state[lab.each]  # [L, W]
    rows = len(lab.each)
    docs = _window(m, docs)
    column = {d: i for i, d in enumerate(lab.window)}
    t = m.threshold(scale.threshold)
    if m.family == "nDCG":
        fixed = {d: _gain(m, g) for d, g in labels.items()}
    else:
        fixed = {d: float(g >= t) for d, g in labels.items()}
    at = np.zeros((rows, len(docs)))
    for p, d in enumerate(docs):
        if d in fixed:
            at[:, p] = fixed[d]
        elif d in column:
            at[:, p] = win[:, column[d]]
    if m.family == "nDCG":
        k = m.cutoff
        dcg = at @ _disc(len(docs))
        known = np.array(sorted((g for g in fixed.values() if g > 0), reverse=True)[:k], dtype=np.float64)
        tail = _tail_values(lab, state, len(lab.tail) if k is None else min(k, len(lab.tail)))
        pool = np.hstack([np.broadcast_to(known, (rows, len(known))), win, tail])
        pool = -np.sort(-np.maximum(pool, 0.0), axis=1)
        depth = pool.shape[1] if k is None else min(k, pool.shape[1])
        ideal = pool[:, :depth] @ _disc(depth)
        return np.divide(dcg, ideal, out=np.zeros(rows), where=ideal > 0)
    tail_r = np.where(lab.tail_kind == 1, len(lab.tail), np.where(lab.tail_kind == 2, 1, 0)) * (len(state) > 1)
    big_r: FloatArray = sum(fixed.values()) + win.sum(axis=1) + tail_r
    cum = np.cumsum(at, axis=1)
    if m.family == "AP":
        num = (at * cum / np.arange(1, len(docs) + 1)).sum(axis=1)
        return np.asarray(np.divide(num, big_r, out=np.zeros(rows), where=big_r > 0), dtype=np.float64)
    cum = np.hstack([np.zeros((rows, 1)), cum])  # Rprec: relevant in the top R
    inside = cum[np.arange(rows), np.minimum(big_r, len(docs)).astype(np.int64)]
    return np.asarray(np.divide(inside, big_r, out=np.zeros(rows), where=big_r > 0), dtype=np.float64)


def _outer_run(
    m: Measure, docs: Sequence[str], labels: Mapping[str, int], every: int, scale: Scale, values: Sequence[float]
) -> tuple[float, float]:
    """A sound interval for one run over every labeling of the `every` unlabeled documents of
    the union: numerator and normaliser bounded apart (both only grow with a grade)."""
    docs = _window(m, docs)
    t = m.threshold(scale.threshold)
    if m.family == "nDCG":
        k = m.cutoff
        disc = _disc(len(docs))
        gains = [_gain(m, labels[d]) if d in labels else 0.0 for d in docs]
        dcg = float(np.dot(gains, disc)) if docs else 0.0
        open_disc = float(sum(disc[p] for p, d in enumerate(docs) if d not in labels))
        known = sorted((_gain(m, g) for g in labels.values() if _gain(m, g) > 0), reverse=True)
        top = max(values)
        positive = [v for v in values if v > 0]

        def ideal(gs: list[float]) -> float:
            gs = sorted(gs, reverse=True)[: (k if k is not None else len(gs))]
            return float(np.dot(gs, _disc(len(gs)))) if gs else 0.0

        i_lo, i_hi = ideal(known), ideal(known + ([top] * every if top > 0 else []))
        if i_hi <= 0:
            return 0.0, 0.0
        i_pos = i_lo if i_lo > 0 else min(positive)
        d_lo, d_hi = dcg + min(values) * open_disc, dcg + top * open_disc
        high = min(1.0, d_hi / i_pos) if d_hi > 0 else d_hi / i_hi
        low = d_lo / i_pos if d_lo < 0 else d_lo / i_hi
        return (min(low, 0.0), max(high, 0.0)) if i_lo == 0 else (low, high)
    big_r = sum(g >= t for g in labels.values())
    can = len(values) > 1
    if m.family == "AP":
        num = 0.0
        most, hits, hits_most = 0.0, 0, 0
        for p, d in enumerate(docs, 1):
            lab = d in labels and labels[d] >= t
            if lab:
                hits += 1
                num += hits / p
            if lab or (can and d not in labels):
                hits_most += 1
                most += hits_most / p
        low = num / (big_r + every) if big_r + every > 0 else 0.0
        return low, (min(1.0, most / max(big_r, 1)) if most > 0 else 0.0)
    rel_top = sum(d in labels and labels[d] >= t for d in docs[:big_r])
    reach = big_r + (every if can else 0)
    could = sum((d in labels and labels[d] >= t) or (can and d not in labels) for d in docs[:reach])
    low = rel_top / reach if reach > 0 else 0.0
    return low, (min(1.0, could / max(big_r, 1)) if could > 0 else 0.0)


_NONE = Labelings([], [], np.zeros((1, 0), np.int64), np.zeros(1, np.int64))
"""No unlabeled document labeled: the values now."""


def enumerated_deltas(m: Measure, case: QueryCase, scale: Scale, lab: Labelings) -> FloatArray:
    """M_B - M_A under every labeling of `lab`."""
    values = states(m, scale)
    return run_values(m, case.run_b, case.labels, scale, lab, values) - run_values(
        m, case.run_a, case.labels, scale, lab, values
    )


def ndcg_inputs(m: Measure, case: QueryCase) -> tuple[dict[str, float], float, list[float]]:
    """What `settle_ratio` reads of an nDCG query: each unlabeled document of either top k with
    its c_d (B's discounts less A's), N under the labels, and the gains of the labels."""
    wa, wb = _window(m, case.run_a), _window(m, case.run_b)
    coef: dict[str, float] = {}
    for sign, docs in ((1.0, wb), (-1.0, wa)):
        for d, x in zip(docs, _disc(len(docs)), strict=True):
            coef[d] = coef.get(d, 0.0) + sign * float(x)
    n0 = sum(_gain(m, case.labels[d]) * x for d, x in coef.items() if d in case.labels)
    window = {d: x for d, x in coef.items() if d not in case.labels}
    return window, n0, [_gain(m, g) for g in case.labels.values()]


def narrowed_widths(m: Measure, case: QueryCase, scale: Scale) -> tuple[dict[str, FloatArray], FloatArray] | None:
    """nDCG: the width of the query's delta range once one more document takes each state
    (`states`), per unlabeled document of either top k, and for any one of the rest (the tail);
    None for the other families, or past the multisets' limit (`settle_ratio.ndcg_narrowed`)."""
    if m.family != "nDCG":
        return None
    window, n0, known = ndcg_inputs(m, case)
    every = dict.fromkeys(_unlabeled([*case.run_a, *case.run_b], case.labels))
    got = ndcg_narrowed(list(window.values()), n0, known, len(every) - len(window), states(m, scale), m.cutoff)
    if got is None:
        return None
    return dict(zip(window, got[0], strict=True)), got[1]


def _ratio(m: Measure, case: QueryCase, scale: Scale, values: list[float]) -> QueryRange | None:
    """`settle_ratio`'s range: nDCG and Rprec exact, AP sound (None: nDCG past its multisets' limit,
    AP while its labelings can be enumerated or when a run repeats a document)."""
    wa, wb = _window(m, case.run_a), _window(m, case.run_b)
    every = list(dict.fromkeys(_unlabeled([*case.run_a, *case.run_b], case.labels)))
    if m.family == "nDCG":
        window, n0, known = ndcg_inputs(m, case)
        got = ndcg_range(list(window.values()), n0, known, len(every) - len(window), values, m.cutoff)
        return None if got is None else _range(case, *got, set(every))
    t, can = m.threshold(scale.threshold), len(values) > 1
    at = {d: i for i, d in enumerate(every)} if can else {}
    known_a, known_b = ([d in case.labels and case.labels[d] >= t for d in w] for w in (wa, wb))
    open_a, open_b = ([at.get(d, -1) for d in w] for w in (wa, wb))
    r0 = sum(g >= t for g in case.labels.values())
    if m.family == "Rprec":
        return _range(case, *rprec_range(known_a, known_b, open_a, open_b, r0, len(at)), set(every))
    if len(set(wa)) < len(wa) or len(set(wb)) < len(wb) or labelings(m, case, len(values)) is not None:
        return None
    now = float(run_values(m, case.run_b, case.labels, scale, _NONE, values)[0])
    now -= float(run_values(m, case.run_a, case.labels, scale, _NONE, values)[0])
    low, high = ap_range(known_a, known_b, open_a, open_b, r0, len(at))
    a_lo, a_hi = _outer_run(m, case.run_a, case.labels, len(every), scale, values)
    b_lo, b_hi = _outer_run(m, case.run_b, case.labels, len(every), scale, values)
    found = _range(case, now, min(now, max(low, b_lo - a_hi)), max(now, min(high, b_hi - a_lo)), set(every))
    return replace(found, exact=False)


def _enumerated(m: Measure, case: QueryCase, scale: Scale) -> QueryRange:
    values = states(m, scale)
    ratio = _ratio(m, case, scale, values)
    if ratio is not None:
        return ratio
    lab = labelings(m, case, len(values))
    if lab is not None:
        deltas = enumerated_deltas(m, case, scale, lab)
        return _range(case, float(deltas[0]), float(deltas.min()), float(deltas.max()), {*lab.window, *lab.tail})
    now = float(
        run_values(m, case.run_b, case.labels, scale, _NONE, values)[0]
        - run_values(m, case.run_a, case.labels, scale, _NONE, values)[0]
    )
    every = list(dict.fromkeys(_unlabeled([*case.run_a, *case.run_b], case.labels)))
    a_lo, a_hi = _outer_run(m, case.run_a, case.labels, len(every), scale, values)
    b_lo, b_hi = _outer_run(m, case.run_b, case.labels, len(every), scale, values)
    found = _range(case, now, min(now, b_lo - a_hi), max(now, b_hi - a_lo), set(every))
    return QueryRange(found.query_id, now, found.low, found.high, False, found.open_docs)


def query_range(m: Measure, case: QueryCase, scale: Scale) -> QueryRange:
    """The delta M_B - M_A of one query: now and over every labeling of its unlabeled documents."""
    return _closed(m, case, scale) if m.family in CLOSED_FORM else _enumerated(m, case, scale)


# -- the verdicts (`settle_verdict`) ------------------------------------------------------------


def summarize(metric: str, ranges: Sequence[QueryRange], alpha: float = ALPHA) -> DeltaRange:
    """The mean delta over the queries and its verdicts (no query: a settled tie at 0)."""
    if not ranges:
        return DeltaRange(metric, 0.0, 0.0, 0.0, [], "settled tie", "no test")
    lows = np.array([q.low for q in ranges])
    highs = np.array([q.high for q in ranges])
    low, high = float(lows.mean()), float(highs.mean())
    return DeltaRange(
        metric,
        float(np.mean([q.now for q in ranges])),
        low,
        high,
        list(ranges),
        sign_verdict(low, high),
        significance_verdict(lows, highs, alpha),
    )


def delta_range(m: Measure, cases: Sequence[QueryCase], scale: Scale) -> DeltaRange:
    """`query_range` of every query, summarized (`summarize`)."""
    refuse_unsupported(m, scale)
    return summarize(m.name, [query_range(m, c, scale) for c in cases])
