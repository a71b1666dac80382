"""Coverage and bounds: brute-force enumeration and hand-computed cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qrelkit.scoring import evaluate
from qrelkit.scoring import kernels as kernels_module
from qrelkit.scoring.arrays import rank
from qrelkit.scoring.kernels import compute
from qrelkit.scoring.names import parse_measure

MEASURES = [
    "P@3",
    "Success@2",
    "R@4",
    "RR",
    "RR@3",
    "AP",
    "AP@4",
    "Rprec",
    "nDCG@3",
    "nDCG",
    "nDCG(gain=exp)@4",
    "P(rel=2)@4",
    "AP(rel=2)",
    "Judged@5",
]

GAIN_MAPS = (
    "{0:0,1:1,2:3,3:7}",
    "{0:0,1:2,2:1,3:5}",  # not monotone in the grade
    "{0:1,1:2,2:3,3:4}",  # grade 0 gains too
    "{0:0,2:5}",  # grades left out keep their grade as gain
)
"""Gain maps as measure names take them: a negative gain is refused (test_refused_arguments.py)."""


def measure_names(k: int) -> list[str]:
    """Every family with bounds, with and without cutoff k, thresholds and gains."""
    names = [f"{f}@{k}" for f in ("P", "R", "AP", "nDCG", "RR", "Success", "DCG", "ERR", "RBP", "Judged")]
    names += ["AP", "nDCG", "RR", "DCG", "ERR", "RBP", "Rprec", "SetP", "SetR", "SetF"]
    names += ["NumRel", "NumRelRet", "NumRet", "NumQ", "NumRet(rel=2)"]
    names += [f"{f}(rel=2)@{k}" for f in ("P", "R", "AP", "RR", "Success", "RBP")]
    names += [f"P(rel=3)@{k}", f"R(rel=3)@{k}", "Rprec(rel=2)", "SetR(rel=2)", "SetF(rel=3)", "AP(rel=3)"]
    names += [f"nDCG(gain=exp)@{k}", "nDCG(gain=exp)", f"DCG(gain=exp)@{k}", f"RBP(p=0.5)@{k}"]
    for gains in GAIN_MAPS:
        names += [f"nDCG(gains={gains})@{k}", f"nDCG(gains={gains})", f"DCG(gains={gains})@{k}"]
    return names


def ranked_docs(run: dict[str, float]) -> list[str]:
    """The run in trec_eval order: score descending, then document id descending (bytes)."""
    return [d.decode() for _, d in sorted(((s, d.encode()) for d, s in run.items()), reverse=True)]


def brute_force(
    labels: dict[str, int], run: dict[str, float], names: list[str], max_grade: int, t: int
) -> dict[str, tuple[float, float]]:
    """Min and max of each measure over every grade assignment 0..max_grade to the unlabeled
    documents retrieved, at every rank (an unlabeled document not retrieved stays unlabeled); each
    labeling is one query of a single evaluation."""
    unl = [d for d in ranked_docs(run) if labels.get(d, -1) < 0]
    judged = {d: g for d, g in labels.items() if g >= 0}
    qrels, runs = {}, {}
    for i, grades in enumerate(itertools.product(range(max_grade + 1), repeat=len(unl))):
        qrels[f"q{i}"] = {**judged, **dict(zip(unl, grades, strict=True))}
        runs[f"q{i}"] = run
    ev = evaluate(qrels, runs, names, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True)
    return {m.name: (float(ev.scores[m.name].value.min()), float(ev.scores[m.name].value.max())) for m in ev.measures}


def check_against_brute_force(
    labels: dict[str, int], run: dict[str, float], names: list[str], max_grade: int, t: int
) -> None:
    ev = evaluate({"q": labels}, {"q": run}, names, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True)
    truth = brute_force(labels, run, names, max_grade, t)
    n_ret = len(run)
    for m in ev.measures:
        s = ev.scores[m.name]
        low, high, value = float(s.low[0]), float(s.high[0]), float(s.value[0])
        if m.family == "Judged":  # Judged measures labeling itself, not grades: its bounds are its value
            assert low == value == high, m.name
            continue
        lo, hi = truth[m.name]
        # RBP's residual counts the ranks past the end of the run, and unlabeled documents a
        # threshold above the scale keeps non-relevant: then it is an outer interval
        rbp_exact = m.cutoff is not None and n_ret >= m.cutoff and m.threshold(t) <= max_grade
        always_exact = m.family != "RBP" or rbp_exact
        if always_exact:
            assert s.exact[0], m.name
        if s.exact[0]:
            assert low == pytest.approx(lo, abs=1e-12) and high == pytest.approx(hi, abs=1e-12), m.name
        else:
            assert low <= lo + 1e-12 and hi <= high + 1e-12, m.name
        if m.gains is None or dict(m.gains).get(0, 0.0) == 0.0:
            # the value is the labeling "every unlabeled document at grade 0": inside the bounds
            assert low - 1e-12 <= value <= high + 1e-12, m.name


@st.composite
def queries(draw: st.DrawFn) -> tuple[dict[str, int], dict[str, float], int, int, int]:
    """A small query: up to 8 retrieved documents (tied scores too), up to 4 of them unlabeled
    (absent from the qrels or graded -1, pooled but unjudged), a few labeled documents not
    retrieved; grades 0..max_grade, a threshold and a cutoff 1..6."""
    max_grade = draw(st.integers(1, 3))
    n = draw(st.integers(1, 8))
    docs = [f"d{i}" for i in range(n + 3)]
    run = {d: float(draw(st.integers(0, 4))) for d in docs[:n]}
    grade = st.integers(0, max_grade)
    labels: dict[str, int] = {}
    unlabeled = 0
    for d in docs[:n]:
        kind = draw(st.sampled_from(["graded", "absent", "pooled"])) if unlabeled < 4 else "graded"
        if kind == "graded":
            labels[d] = draw(grade)
        else:
            unlabeled += 1
            if kind == "pooled":
                labels[d] = -1
    for d in docs[n:]:
        g = draw(st.one_of(st.none(), grade, st.just(-1)))
        if g is not None:
            labels[d] = g
    return labels, run, max_grade, draw(st.integers(1, max_grade)), draw(st.integers(1, 6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_bounds_equal_brute_force(query: tuple[dict[str, int], dict[str, float], int, int, int]) -> None:
    labels, run, max_grade, t, k = query
    check_against_brute_force(labels, run, measure_names(k), max_grade, t)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_outer_interval_contains_every_labeling(
    query: tuple[dict[str, int], dict[str, float], int, int, int],
) -> None:
    """Past `NDCG_EXACT_LIMIT` grade multisets, nDCG's bounds are an outer interval (flagged)."""
    labels, run, max_grade, t, k = query
    names = [n for n in measure_names(k) if n.startswith("nDCG")]
    limit = kernels_module.NDCG_EXACT_LIMIT
    kernels_module.NDCG_EXACT_LIMIT = 1
    try:
        ev = evaluate({"q": labels}, {"q": run}, names, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True)
    finally:
        kernels_module.NDCG_EXACT_LIMIT = limit
    truth = brute_force(labels, run, names, max_grade, t)
    for m in ev.measures:
        s = ev.scores[m.name]
        lo, hi = truth[m.name]
        assert s.low[0] <= lo + 1e-12 and hi <= s.high[0] + 1e-12, m.name
        if not s.exact[0]:
            assert s.low[0] <= s.high[0], m.name


def test_issue_example_labels_below_the_cutoff() -> None:
    # issue 24: d1 and d4 (unlabeled, below rank 3) graded 3 raise the ideal DCG@3 to
    # 3 + 3 / log2 3 + 1 / 2, while the top 3 stay d5 (1), d6 (0), d10 (0)
    labels = {"d5": 1, "d6": 0, "d10": 0, "d4": -1}
    run = {"d5": 3.0, "d6": 2.0, "d10": 2.0, "d1": 1.0, "d4": 0.0}
    ev = evaluate({"q": labels}, {"q": run}, "nDCG@3,R@3,AP@3,P@3", max_grade=3)
    s = ev.scores
    assert s["nDCG@3"].coverage[0] == 1.0  # coverage still reads the top 3 only
    assert s["nDCG@3"].low[0] == pytest.approx(1 / (3 + 3 / math.log2(3) + 0.5))
    assert round(s["nDCG@3"].low[0], 3) == 0.185 and s["nDCG@3"].high[0] == 1.0
    assert (s["R@3"].low[0], s["R@3"].high[0]) == (pytest.approx(1 / 3), 1.0)
    assert (s["AP@3"].low[0], s["AP@3"].high[0]) == (pytest.approx(1 / 3), 1.0)
    assert s["P@3"].low[0] == s["P@3"].high[0] == pytest.approx(1 / 3)


def test_labels_not_retrieved_stay_unlabeled() -> None:
    # x is pooled but not retrieved: no labeling reaches it, so R@1 is exact at 1
    ev = evaluate({"q": {"a": 1, "x": -1}}, {"q": {"a": 1.0}}, "R@1,nDCG@1", max_grade=3)
    for name in ("R@1", "nDCG@1"):
        assert ev.scores[name].low[0] == ev.scores[name].high[0] == 1.0


def test_rbp_is_exact_only_where_the_run_fills_the_cutoff() -> None:
    ev = evaluate({"q": {"a": 1}}, {"q": {"a": 2.0, "x": 1.0}}, "RBP@2,RBP@3,RBP", max_grade=1)
    assert ev.scores["RBP@2"].exact[0] and ev.scores["RBP@2"].high[0] == pytest.approx(0.2 + 0.16)
    assert not ev.scores["RBP@3"].exact[0] and ev.scores["RBP@3"].high[0] == pytest.approx(0.2 + 0.16 + 0.128)
    assert not ev.scores["RBP"].exact[0]


# -- hand-computed ----------------------------------------------------------------------------


def test_wide_bounds_when_the_top_is_unlabeled() -> None:
    # ranking x y a: x, y unlabeled, a relevant (grade 1); scale 0..1
    ev = evaluate({"q": {"a": 1}}, {"q": {"x": 3.0, "y": 2.0, "a": 1.0}}, "P@3,RR,nDCG@3,R@3", max_grade=1)
    s = ev.scores
    assert s["P@3"].value[0] == pytest.approx(1 / 3) and s["P@3"].high[0] == 1.0
    assert s["RR"].value[0] == pytest.approx(1 / 3) and s["RR"].high[0] == 1.0
    assert s["nDCG@3"].value[0] == pytest.approx(0.5)  # (1/log2 4) / 1
    assert (s["nDCG@3"].low[0], s["nDCG@3"].high[0]) == (pytest.approx(0.5), pytest.approx(1.0))
    assert s["R@3"].value[0] == 1.0 and s["R@3"].low[0] == 1.0
    assert s["P@3"].coverage[0] == pytest.approx(1 / 3)


def test_making_an_unlabeled_document_relevant_can_lower_ndcg() -> None:
    # a (grade 3) at rank 1, x unlabeled at rank 2; a perfect document low in the ranking
    # raises the ideal DCG more than the DCG: nDCG@3 falls below its standard value 1.0
    ev = evaluate({"q": {"a": 3, "b": 0}}, {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}, "nDCG@3", max_grade=3)
    s = ev.scores["nDCG@3"]
    assert s.value[0] == 1.0
    with_x = evaluate({"q": {"a": 3, "b": 0, "x": 3}}, {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}, "nDCG@3").scores
    expected = (3 + 3 / math.log2(4)) / (3 + 3 / math.log2(3))
    assert expected < 1.0
    assert with_x["nDCG@3"].value[0] == pytest.approx(expected)
    assert s.low[0] == pytest.approx(expected) and s.high[0] == 1.0


def test_making_an_unlabeled_document_relevant_can_lower_ap() -> None:
    # a relevant at rank 1, x unlabeled at rank 3: AP is 1.0; if x is relevant, AP = (1 + 2/3) / 2
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}, "AP", max_grade=1)
    s = ev.scores["AP"]
    assert s.value[0] == 1.0 and s.high[0] == 1.0 and s.low[0] == pytest.approx((1 + 2 / 3) / 2)


def test_full_coverage_collapses_the_bounds() -> None:
    ev = evaluate({"q": {"a": 2, "b": 0, "c": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, MEASURES, max_grade=3)
    for name, s in ev.scores.items():
        assert s.coverage[0] == 1.0, name
        assert s.low[0] == s.value[0] == s.high[0], name


def test_skipped_and_pooled_unjudged_are_unlabeled() -> None:
    # negative grade = pooled but not judged: not relevant for the value, open for the bounds
    ev = evaluate({"q": {"a": -1, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "P@2", max_grade=1)
    assert ev.scores["P@2"].value[0] == 0.5 and ev.scores["P@2"].high[0] == 1.0
    assert ev.scores["P@2"].coverage[0] == 0.5


def test_ndcg_multisets_are_cached_and_sorted() -> None:
    ms = kernels_module._multisets(2, 2)
    assert ms.tolist() == [[2, 2], [2, 1], [2, 0], [1, 1], [1, 0], [0, 0]]
    assert np.all(np.diff(ms, axis=1) <= 0)


def test_rank_builds_absent_padding() -> None:
    r = rank({"q": {"a": 1}, "e": {}}, [("q", "a", 1.0), ("q", "z", 0.5)])
    assert r.grades.tolist() == [[1, -1], [-2, -2]]
    assert compute(r, parse_measure("Judged@2"), 1).coverage[1] != compute(r, parse_measure("Judged@2"), 1).coverage[1]
