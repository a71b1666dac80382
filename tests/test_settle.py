"""The stopping rule (`scoring.settle`): the range of the mean delta against brute force over every
labeling (scored by `evaluate`, the engine `score` uses), the verdicts against every labeling, the
SD bounds of the t verdict, ties, queries with nothing unlabeled, an empty pool, a query one run
lacks."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from qrelkit.errors import ScoringError
from qrelkit.scoring import evaluate
from qrelkit.scoring.names import parse_measure
from qrelkit.scoring.settle import (
    LABELINGS_LIMIT,
    QueryCase,
    Scale,
    critical,
    delta_range,
    labelings_count,
    query_range,
    sd_range,
    sign_verdict,
    significance_verdict,
)

EXACT = ["P@3", "R@3", "Success@2", "RR", "RR@3", "nDCG@3", "nDCG", "nDCG(gain=exp)@3", "AP", "AP@3", "Rprec"]
RUN_LEN = 6


def _values(
    m: str, docs: Sequence[str], label_sets: Sequence[Mapping[str, int]], max_grade: int, threshold: int
) -> np.ndarray:
    """`score`'s value of one query's run under each label set (`evaluate`, each set its own query)."""
    qrels = {f"q{i}": dict(ls) or {"__none__": 0} for i, ls in enumerate(label_sets)}
    run = {f"q{i}": {d: float(len(docs) - r) for r, d in enumerate(docs)} for i in range(len(label_sets))}
    ev = evaluate(
        qrels,
        run,
        m,
        queries=list(qrels),
        max_grade=max_grade,
        relevance_threshold=threshold,
        bounds=False,
        keep_unlabeled=True,
    )
    per = ev.per_query()
    name = parse_measure(m).name
    return np.array([per[q][name] if q in per else 0.0 for q in qrels])


def _brute(m: str, case: QueryCase, scale: Scale) -> np.ndarray:
    """The delta of the query under every labeling of the unlabeled documents either run retrieves."""
    unl = [d for d in dict.fromkeys([*case.run_a, *case.run_b]) if d not in case.labels]
    sets = [
        {**case.labels, **dict(zip(unl, grades, strict=True))}
        for grades in itertools.product(range(scale.max_grade + 1), repeat=len(unl))
    ]
    b = _values(m, case.run_b, sets, scale.max_grade, scale.threshold)
    return np.asarray(b - _values(m, case.run_a, sets, scale.max_grade, scale.threshold), dtype=np.float64)


def _case(rng: random.Random, q: str, max_grade: int, most_unlabeled: int = 5) -> QueryCase:
    docs = [f"d{i}" for i in range(9)]
    run_a = rng.sample(docs, rng.randint(0, RUN_LEN))
    run_b = rng.sample(docs, rng.randint(0, RUN_LEN))
    labels = {d: rng.randint(0, max_grade) for d in docs if rng.random() < 0.4}
    unl = [d for d in dict.fromkeys(run_a + run_b) if d not in labels]
    rng.shuffle(unl)
    keep = rng.randint(0, most_unlabeled)
    for d in unl[keep:]:
        labels[d] = rng.randint(0, max_grade)
    return QueryCase(q, run_a, run_b, labels)


@pytest.mark.parametrize("max_grade", [1, 3])
@pytest.mark.parametrize("seed", range(6))
def test_ranges_equal_brute_force_over_every_labeling(max_grade: int, seed: int) -> None:
    rng = random.Random(seed * 10 + max_grade)
    scale = Scale(max_grade, rng.randint(1, max_grade))
    for m in EXACT:
        measure = parse_measure(m)
        cases = [_case(rng, f"q{i}", max_grade) for i in range(rng.randint(1, 4))]
        lows, highs = [], []
        for case in cases:
            got = query_range(measure, case, scale)
            deltas = _brute(m, case, scale)
            now = (
                _values(m, case.run_b, [case.labels], max_grade, scale.threshold)[0]
                - _values(m, case.run_a, [case.labels], max_grade, scale.threshold)[0]
            )
            assert got.now == pytest.approx(now, abs=1e-9), (m, case)
            if got.exact:
                assert got.low == pytest.approx(deltas.min(), abs=1e-9), (m, case)
                assert got.high == pytest.approx(deltas.max(), abs=1e-9), (m, case)
            else:
                assert got.low <= deltas.min() + 1e-9 and got.high >= deltas.max() - 1e-9, (m, case)
            if got.high - got.low > 1e-12:
                assert got.open_docs
            lows.append(deltas.min())
            highs.append(deltas.max())
        total = delta_range(measure, cases, scale)
        if total.sign == "settled B>A":
            assert np.mean(lows) > 0
        elif total.sign == "settled A>B":
            assert np.mean(highs) < 0
        elif total.sign == "settled tie":
            assert max(abs(x) for x in lows + highs) <= 1e-9
        else:
            assert np.mean(lows) <= 1e-12 and np.mean(highs) >= -1e-12


def _t_significant(x: np.ndarray) -> bool:
    sd = float(x.std(ddof=1))
    if sd == 0:
        return bool(abs(x.mean()) > 1e-12)
    return abs(float(x.mean())) * math.sqrt(len(x)) / sd > critical(len(x))


@pytest.mark.parametrize("seed", range(8))
def test_the_significance_verdict_holds_for_every_labeling(seed: int) -> None:
    """Every combination of the queries' achievable deltas agrees with a settled verdict."""
    rng = random.Random(100 + seed)
    scale = Scale(1)
    for m in ("P@3", "nDCG@3", "RR"):
        measure = parse_measure(m)
        cases = [_case(rng, f"q{i}", 1, most_unlabeled=3) for i in range(rng.randint(2, 4))]
        # a clear difference in some cases: B gets the relevant documents
        if seed % 2:
            cases = [
                QueryCase(c.query_id, c.run_a, [*c.run_b[:1], "r1", "r2"], {**c.labels, "r1": 1, "r2": 1})
                for c in cases
            ]
        per_query = [np.unique(np.round(_brute(m, c, scale), 12)) for c in cases]
        verdict = delta_range(measure, cases, scale).significance
        outcomes = {_t_significant(np.array(v)) for v in itertools.product(*per_query)}
        if verdict == "settled significant":
            assert outcomes == {True}
        elif verdict == "settled not significant":
            assert outcomes == {False}


def test_sd_bounds_contain_the_sd_of_every_point_of_the_box() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 7))
        lo = rng.normal(size=n)
        hi = lo + rng.exponential(size=n) * (rng.random(size=n) < 0.7)
        sd_lo, sd_hi = sd_range(lo, hi)
        corners = [np.where(np.array(bits), hi, lo) for bits in itertools.product([0, 1], repeat=n)]
        inside = [lo + rng.random(size=n) * (hi - lo) for _ in range(200)]
        sds = [float(x.std(ddof=1)) for x in corners + inside]
        assert sd_lo <= min(sds) + 1e-9 and sd_hi >= max(sds) - 1e-9
        # the lower bound is the exact minimum: a point of the box comes within a hair of it
        best = _min_sd(lo, hi)
        assert sd_lo == pytest.approx(best, abs=1e-6)


def _min_sd(lo: np.ndarray, hi: np.ndarray) -> float:
    """The smallest SD over the box by ternary search on the convex f(c) = sum dist(c, box_q)^2."""

    def f(c: float) -> float:
        return float((np.maximum(lo - c, 0) ** 2 + np.maximum(c - hi, 0) ** 2).sum())

    a, b = float(lo.min()), float(hi.max())
    for _ in range(200):
        m1, m2 = a + (b - a) / 3, b - (b - a) / 3
        a, b = (a, m2) if f(m1) <= f(m2) else (m1, b)
    return math.sqrt(f((a + b) / 2) / (len(lo) - 1))


def test_identical_runs_are_a_settled_tie() -> None:
    case = QueryCase("q", ["a", "b", "c"], ["a", "b", "c"], {"a": 1})
    for m in EXACT:
        r = delta_range(parse_measure(m), [case, case], Scale(3))
        assert r.sign == "settled tie" and r.low == 0 == r.high, m
        assert r.significance == "settled not significant"


def test_a_query_with_nothing_unlabeled_is_closed_and_exact() -> None:
    case = QueryCase("q", ["a", "b"], ["b", "c"], {"a": 0, "b": 2, "c": 1})
    for m in EXACT:
        r = query_range(parse_measure(m), case, Scale(3))
        assert r.low == r.now == r.high and r.exact and r.open_docs == (), m


def test_an_empty_pool_no_query_settles_as_a_tie() -> None:
    r = delta_range(parse_measure("nDCG@10"), [], Scale(3))
    assert (r.now, r.low, r.high, r.sign, r.significance) == (0.0, 0.0, 0.0, "settled tie", "no test")


def test_a_query_one_run_lacks_scores_zero_for_it() -> None:
    case = QueryCase("q", [], ["a", "b"], {"a": 1})
    r = query_range(parse_measure("P@2"), case, Scale(1))
    assert (r.now, r.low, r.high) == (0.5, 0.5, 1.0)
    assert r.open_docs == ("b",)
    both = query_range(parse_measure("nDCG@2"), QueryCase("q", [], [], {"a": 1}), Scale(1))
    assert (both.now, both.low, both.high) == (0.0, 0.0, 0.0)


def test_a_document_only_one_run_retrieves_still_moves_the_others_recall() -> None:
    """B's R@1 falls when A's unlabeled document turns out relevant: the range is joint."""
    case = QueryCase("q", ["x", "a"], ["r"], {"r": 1, "a": 0})
    r = query_range(parse_measure("R@1"), case, Scale(1))
    assert r.now == 1.0 and r.low == pytest.approx(0.0) and r.high == 1.0
    assert r.exact


def test_many_unlabeled_documents_fall_back_to_a_sound_outer_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    from qrelkit.scoring import settle_ratio

    rng = random.Random(3)
    docs = [f"d{i}" for i in range(14)]
    case = QueryCase("q", docs[:7], docs[7:], {})
    assert labelings_count(14, 4) > LABELINGS_LIMIT
    exact = query_range(parse_measure("nDCG@7"), case, Scale(3))
    assert exact.exact and exact.low == pytest.approx(-1) and exact.high == pytest.approx(1)
    monkeypatch.setattr(settle_ratio, "MULTISETS_LIMIT", 10)
    r = query_range(parse_measure("nDCG@7"), case, Scale(3))
    assert not r.exact and r.low <= -1 + 1e-9 and r.high >= 1 - 1e-9
    # random labelings stay inside it
    m = "nDCG@7"
    for _ in range(50):
        labels = {d: rng.randint(0, 3) for d in docs}
        delta = _values(m, case.run_b, [labels], 3, 1)[0] - _values(m, case.run_a, [labels], 3, 1)[0]
        assert r.low - 1e-9 <= delta <= r.high + 1e-9


@pytest.mark.parametrize("max_grade", [1, 3])
@pytest.mark.parametrize("seed", range(4))
def test_the_ranges_without_enumeration_against_brute_force(
    max_grade: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the labelings' enumeration turned off, nDCG (gain multisets) and Rprec (R by R) are
    still exact and AP (R by R, each run apart) still contains every labeling's delta, on queries
    with more unlabeled documents than the enumeration took (up to 6 on 0..3, 9 binary), some
    of them below k in both runs."""
    from qrelkit.scoring import settle

    monkeypatch.setattr(settle, "LABELINGS_LIMIT", 1)
    rng = random.Random(70 + 10 * seed + max_grade)
    scale = Scale(max_grade, rng.randint(1, max_grade))
    most = 6 if max_grade == 3 else 9
    inexact = 0
    for m in ("nDCG@3", "nDCG", "nDCG(gain=exp)@4", "nDCG(gains={1:0,3:7})@3", "Rprec", "AP", "AP@3"):
        measure = parse_measure(m)
        for i in range(5):
            case = _case(rng, f"q{i}", max_grade, most_unlabeled=most)
            got = query_range(measure, case, scale)
            deltas = _brute(m, case, scale)
            assert got.low <= got.now + 1e-12 and got.now <= got.high + 1e-12, (m, case)
            if measure.family == "AP":
                inexact += not got.exact
                assert got.low <= deltas.min() + 1e-9 and got.high >= deltas.max() - 1e-9, (m, case)
            else:
                assert got.exact, (m, case)
                assert got.low == pytest.approx(deltas.min(), abs=1e-9), (m, case)
                assert got.high == pytest.approx(deltas.max(), abs=1e-9), (m, case)
    assert inexact > 0


def test_sign_and_significance_verdicts_on_their_edges() -> None:
    assert sign_verdict(0.1, 0.2) == "settled B>A"
    assert sign_verdict(-0.2, -0.1) == "settled A>B"
    assert sign_verdict(0.0, 0.0) == "settled tie"
    assert sign_verdict(0.0, 0.1) == "open"
    same = np.full(5, 0.1)
    assert significance_verdict(same, same) == "settled significant"
    assert significance_verdict(np.zeros(5), np.zeros(5)) == "settled not significant"
    assert significance_verdict(np.zeros(1), np.zeros(1)) == "no test"
    assert significance_verdict(np.zeros(5), np.ones(5)) == "open"


def test_unsupported_families_are_refused() -> None:
    with pytest.raises(ScoringError, match="does not cover"):
        delta_range(parse_measure("ERR@10"), [], Scale(3))
    with pytest.raises(ScoringError, match="grade 0"):
        delta_range(parse_measure("nDCG(gains={0:1,1:2})@10"), [], Scale(3))


@pytest.mark.parametrize("max_grade", [1, 3])
def test_the_outer_interval_contains_every_labeling(max_grade: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the enumeration turned off, every query takes the outer interval: it still contains
    the brute-force range."""
    from qrelkit.scoring import settle, settle_ratio

    monkeypatch.setattr(settle, "LABELINGS_LIMIT", 1)
    monkeypatch.setattr(settle_ratio, "MULTISETS_LIMIT", 0)
    rng = random.Random(40 + max_grade)
    scale = Scale(max_grade, rng.randint(1, max_grade))
    outer = 0
    for m in ("nDCG@3", "nDCG", "nDCG(gain=exp)@3", "AP", "AP@3", "Rprec"):
        for i in range(12):
            case = _case(rng, f"q{i}", max_grade)
            got = query_range(parse_measure(m), case, scale)
            deltas = _brute(m, case, scale)
            outer += not got.exact
            assert got.low <= deltas.min() + 1e-9 and got.high >= deltas.max() - 1e-9, (m, case)
            assert got.low <= got.now <= got.high
    assert outer > 20


@pytest.mark.parametrize("m", ["P@3", "R@3", "RR", "nDCG@3", "nDCG", "AP@3", "Rprec"])
@pytest.mark.parametrize("at_once", [True, False])
def test_the_expected_narrowing_is_the_width_less_the_expected_width_once_labeled(
    m: str, at_once: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nDCG's widths once labeled come from one enumeration for every document (`at_once`), or,
    past `NARROWED_CELLS`, from labeling each document in turn: the same either way."""
    from qrelkit.scoring import settle_ratio
    from qrelkit.scoring.settle import grade_prior, state_grades
    from qrelkit.scoring.settle_order import expected_narrowing, state_prior

    if not at_once:
        monkeypatch.setattr(settle_ratio, "NARROWED_CELLS", 0)

    rng = random.Random(9)
    scale = Scale(3, 2)
    measure = parse_measure(m)
    prior = grade_prior([0, 0, 1, 3], 3)
    for i in range(30):
        case = _case(rng, f"q{i}", 3)
        got = expected_narrowing(measure, case, scale, prior)
        now = query_range(measure, case, scale)
        assert set(got) == set(now.open_docs)
        p, grades = state_prior(measure, scale, prior), state_grades(measure, scale)
        for d, v in got.items():
            expected = sum(
                ps
                * query_range(
                    measure, QueryCase(case.query_id, case.run_a, case.run_b, {**case.labels, d: g[0]}), scale
                ).width
                for ps, g in zip(p, grades, strict=True)
            )
            assert v == pytest.approx(now.width - expected, abs=1e-9) and v >= 0
