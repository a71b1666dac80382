"""Coverage and bounds: brute-force enumeration and hand-computed cases."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from qrelkit.scoring import evaluate
from qrelkit.scoring import kernels as kernels_module
from qrelkit.scoring.arrays import rank
from qrelkit.scoring.kernels import compute
from qrelkit.scoring.measures import parse_measure

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


def _window_unlabeled(labels: dict[str, int], ranked_docs: list[str], k: int | None) -> list[str]:
    window = ranked_docs if k is None else ranked_docs[:k]
    return [d for d in window if labels.get(d, -1) < 0]


def brute_force(
    labels: dict[str, int], run: dict[str, float], name: str, max_grade: int, t: int
) -> tuple[float, float]:
    """Min and max of the measure over every grade assignment to the unlabeled docs in its window."""
    m = parse_measure(name)
    ranked_docs = [d for _, d in sorted(((s, d.encode()) for d, s in run.items()), reverse=True)]
    ranked = [d.decode() for d in ranked_docs]
    unl = _window_unlabeled(labels, ranked, m.cutoff)
    values = []
    for grades in itertools.product(range(max_grade + 1), repeat=len(unl)):
        completed = {d: g for d, g in labels.items() if g >= 0}
        completed.update(zip(unl, grades, strict=True))
        ev = evaluate(
            {"q": completed}, {"q": run}, name, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True
        )
        values.append(ev.per_query()["q"][name])
    return min(values), max(values)


@pytest.mark.parametrize("seed", range(60))
def test_bounds_equal_brute_force(seed: int) -> None:
    rnd = random.Random(seed)
    max_grade = rnd.choice([1, 2, 3])
    t = rnd.randint(1, max_grade)
    docs = [f"d{i}" for i in range(9)]
    run = {d: float(rnd.choice([1, 2, 3, 4])) for d in rnd.sample(docs, rnd.randint(1, 6))}
    labels = {d: rnd.choice([-1, 0, 1, max_grade]) for d in rnd.sample(docs, rnd.randint(0, 8))}
    labels = {d: min(g, max_grade) for d, g in labels.items()}
    for name in MEASURES:
        if name.startswith("Judged"):  # Judged is coverage itself: its bounds are its value
            continue
        if "rel=2" in name and max_grade < 2:
            continue
        # a query with no label at all is left out of a mean by default: kept here for its bounds
        ev = evaluate({"q": labels}, {"q": run}, name, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True)
        s = ev.scores[name]
        lo, hi = brute_force(labels, run, name, max_grade, t)
        assert s.exact[0]
        assert (s.low[0], s.high[0]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12)), name
        assert s.low[0] <= s.value[0] <= s.high[0]


def test_outer_interval_contains_the_exact_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels_module, "NDCG_EXACT_LIMIT", 1)
    rnd = random.Random(7)
    for _ in range(30):
        run = {f"d{i}": float(rnd.randint(0, 3)) for i in range(6)}
        labels = {f"d{i}": rnd.choice([-1, 0, 2, 3]) for i in range(6) if rnd.random() < 0.5}
        for name in ("nDCG@4", "nDCG"):
            s = evaluate({"q": labels}, {"q": run}, name, max_grade=3, keep_unlabeled=True).scores[name]
            lo, hi = brute_force(labels, run, name, 3, 1)
            if not s.exact[0]:
                assert s.low[0] <= lo + 1e-12 and hi <= s.high[0] + 1e-12


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
