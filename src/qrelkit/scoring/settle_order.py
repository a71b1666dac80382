"""The `settle` order and its replay: which unlabeled pair narrows the named comparisons most, and
how many judgments, in that order, it would take until each is settled.

A pair's priority is the expected narrowing of the width (hi - lo) of the mean delta interval of
every named comparison it touches, summed over them: for comparison c with n queries and the pair's
query q, (w_q - sum_s P(s) w_q | d = s) / n, where w_q is the width of q's delta range
(`settle.query_range`), w_q | d = s its width once d takes state s (a grade, or for a binary
measure relevant / not), and P(s) the grade prior of the current labels (`impact.grade_prior`,
add-one smoothed) summed over the grades of the state. Labeling removes labelings, so every
w_q | d = s <= w_q and the priority is >= 0. Where the range is enumerated, the conditional widths
are read off the same enumeration (the labelings with d at s); else the range is computed again
with d labeled. A comparison already settled (both verdicts) contributes nothing.

`replay` judges pairs in a given order, each taking one assumed grade (the grade nearest the
prior's mean: `expected_grade`), and says after how many every comparison would be settled: an
estimate, since real grades differ and a real queue re-orders as labels arrive. Ranges only
narrow as labels arrive, so once settled a comparison stays settled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from .arrays import RunLists
from .measures import Measure
from .settle import (
    CLOSED_FORM,
    QueryCase,
    QueryRange,
    Scale,
    enumerated_deltas,
    labelings,
    narrowed_widths,
    query_range,
    sign_verdict,
    significance_verdict,
    state_grades,
)

FloatArray = npt.NDArray[np.float64]
Pair = tuple[str, str]


@dataclass(frozen=True)
class Matchup:
    """One named comparison: baseline A, candidate B (their names) and a case per evaluated query."""

    a: str
    b: str
    cases: Sequence[QueryCase]


def state_prior(m: Measure, scale: Scale, prior: FloatArray) -> list[float]:
    """P(state) for each state of `settle.states`, from a prior over the grades."""
    return [float(sum(prior[g] for g in grades)) for grades in state_grades(m, scale)]


def expected_grade(prior: FloatArray) -> int:
    """The grade nearest the prior's mean (ties: the lower)."""
    mean = float(np.dot(np.arange(len(prior)), prior))
    return int(np.ceil(mean - 0.5))


def _signature(m: Measure, case: QueryCase, d: str, tail: set[str]) -> object:
    """Documents with equal signatures narrow the query's range alike: for P and R those in the
    same runs' top k (they enter the delta alike), for the enumerated families the documents below
    k in both runs (they move only the shared normaliser, through their count); else each its own."""
    if d in tail:
        return "tail"
    if m.family in ("P", "R"):
        k = m.cutoff
        return (d in case.run_a[:k], d in case.run_b[:k])
    return d


def below_both(m: Measure, case: QueryCase) -> set[str]:
    """The unlabeled documents either run retrieves, in neither top k."""
    k = m.cutoff
    if k is None or m.family == "Rprec":
        return set()
    top = {*case.run_a[:k], *case.run_b[:k]}
    return {d for d in (*case.run_a[k:], *case.run_b[k:]) if d not in top and d not in case.labels}


def expected_narrowing(m: Measure, case: QueryCase, scale: Scale, prior: FloatArray) -> dict[str, float]:
    """Open document -> its expected narrowing of the query's delta range (0 if the range is closed)."""
    now = query_range(m, case, scale)
    if not now.open_docs:
        return {}
    p = state_prior(m, scale, prior)
    grades = state_grades(m, scale)
    narrowed = narrowed_widths(m, case, scale) if now.exact else None
    lab = labelings(m, case, len(p)) if m.family not in CLOSED_FORM and now.exact and narrowed is None else None
    deltas = enumerated_deltas(m, case, scale, lab) if lab is not None else None
    column = {d: i for i, d in enumerate(lab.window)} if lab is not None else {}
    tail = set() if m.family in CLOSED_FORM else below_both(m, case)
    known: dict[object, float] = {}
    out: dict[str, float] = {}
    for d in now.open_docs:
        key = _signature(m, case, d, tail)
        if key not in known:
            expected = 0.0
            for s, ps in enumerate(p):
                if not grades[s]:
                    continue
                if narrowed is not None:
                    expected += ps * float(narrowed[0][d][s] if d in narrowed[0] else narrowed[1][s])
                elif deltas is not None and lab is not None and d in column:
                    rows = lab.each[:, column[d]] == s
                    expected += ps * float(deltas[rows].max() - deltas[rows].min())
                else:
                    labeled = replace(case, labels={**case.labels, d: grades[s][0]})
                    expected += ps * query_range(m, labeled, scale).width
            known[key] = max(now.width - expected, 0.0)
        out[d] = known[key]
    return out


def settled_now(ranges: Sequence[QueryRange]) -> bool:
    """Both verdicts settled for these per-query ranges."""
    lows = np.array([q.low for q in ranges])
    highs = np.array([q.high for q in ranges])
    if not len(ranges):
        return True
    return (
        sign_verdict(float(lows.mean()), float(highs.mean())) != "open" and significance_verdict(lows, highs) != "open"
    )


def priorities(m: Measure, matchups: Sequence[Matchup], scale: Scale, prior: FloatArray) -> dict[Pair, float]:
    """(query, doc) -> the summed expected narrowing of the open comparisons' mean delta widths."""
    out: dict[Pair, float] = {}
    for mu in matchups:
        if not mu.cases or settled_now([query_range(m, c, scale) for c in mu.cases]):
            continue
        n = len(mu.cases)
        for case in mu.cases:
            for d, v in expected_narrowing(m, case, scale, prior).items():
                out[(case.query_id, d)] = out.get((case.query_id, d), 0.0) + v / n
    return out


@dataclass(frozen=True)
class Replay:
    """After how many of the pairs (in order) each comparison would be settled, in sign and in both
    verdicts (None: not within these pairs), and all of them (None: not within these pairs)."""

    sign: list[int | None]
    settled: list[int | None]
    every: int | None


class _State:
    """One comparison's per-query ranges, updated as pairs are judged."""

    def __init__(self, m: Measure, mu: Matchup, scale: Scale) -> None:
        self.m, self.scale = m, scale
        self.cases = {c.query_id: c for c in mu.cases}
        self.at = {c.query_id: i for i, c in enumerate(mu.cases)}
        ranges = [query_range(m, c, scale) for c in mu.cases]
        self.lows = np.array([r.low for r in ranges])
        self.highs = np.array([r.high for r in ranges])
        self.open = {r.query_id: set(r.open_docs) for r in ranges}

    def judge(self, q: str, d: str, grade: int) -> bool:
        """Label (q, d); whether this comparison's range moved."""
        if d not in self.open.get(q, ()):
            return False
        case = self.cases[q]
        self.cases[q] = case = replace(case, labels={**case.labels, d: grade})
        r = query_range(self.m, case, self.scale)
        self.open[q] = set(r.open_docs)
        i = self.at[q]
        self.lows[i], self.highs[i] = r.low, r.high
        return True

    def sign(self) -> bool:
        return not len(self.lows) or sign_verdict(float(self.lows.mean()), float(self.highs.mean())) != "open"

    def settled(self) -> bool:
        return self.sign() and (not len(self.lows) or significance_verdict(self.lows, self.highs) != "open")


def replay(
    m: Measure, matchups: Sequence[Matchup], scale: Scale, pairs: Sequence[Pair], grade: int | Mapping[Pair, int]
) -> Replay:
    """Judge `pairs` in order, each at `grade` (one for all, or per pair), until every comparison
    is settled; see the module docstring."""
    states_ = [_State(m, mu, scale) for mu in matchups]
    sign: list[int | None] = [0 if s.sign() else None for s in states_]
    done: list[int | None] = [0 if s.settled() else None for s in states_]
    for step, (q, d) in enumerate(pairs, 1):
        if all(x is not None for x in done):
            break
        g = grade if isinstance(grade, int) else grade[(q, d)]
        for i, s in enumerate(states_):
            if done[i] is None and s.judge(q, d, g):
                if sign[i] is None and s.sign():
                    sign[i] = step
                if s.settled():
                    done[i] = step
    every = max((x for x in done if x is not None), default=0) if all(x is not None for x in done) else None
    return Replay(sign, done, every)


def input_matchups(
    runs: Sequence[RunLists],
    labels: Mapping[str, Mapping[str, int]],
    comparisons: Sequence[tuple[str, str]],
    metric: str | None,
    threshold: int,
    max_grade: int | None,
    pooled: Iterable[str] = (),
) -> tuple[Measure, list[Matchup], Scale, FloatArray]:
    """What the settle order and its replay read from the queue's input: the measure (default the
    headline), a `Matchup` per comparison over the queries with a label (as `score` evaluates
    them) and the `pooled` ones (the queue's queries: each is evaluated from its first label on,
    so the order counts it from the start); a query a run lacks scores 0. Then the scale and the
    grade prior of the labels."""
    from ..errors import ScoringError
    from ..models import HEADLINE
    from .names import parse_measure
    from .settle import grade_prior, refuse_unsupported

    grades = [g for docs in labels.values() for g in docs.values()]
    top = max_grade if max_grade is not None else max([threshold, 1, *grades])
    scale = Scale(top, threshold)
    m = parse_measure(metric or HEADLINE)
    refuse_unsupported(m, scale)
    by_name = {r.name: r.ranked for r in runs}
    queries = sorted({q for q, docs in labels.items() if docs} | set(pooled))
    out = []
    for a, b in comparisons:
        missing = [n for n in (a, b) if n not in by_name]
        if missing:
            raise ScoringError(f"the settle order has no run named {missing[0]!r}", "give the runs with --for")
        cases = [
            QueryCase(
                q, by_name[a].get(q, ()), by_name[b].get(q, ()), {d: g for d, g in labels.get(q, {}).items() if g >= 0}
            )
            for q in queries
        ]
        out.append(Matchup(a, b, cases))
    return m, out, scale, grade_prior(grades, top)
