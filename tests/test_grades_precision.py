"""Any int32 grade, and the two score precisions, against pytrec_eval (trec_eval 9.0.8).

* Grades 50, 200, 40,000 and 2^31 - 1 score as trec_eval scores them (the arrays are sized by the
  number of distinct grades, not by the largest). pytrec_eval itself allocates one counter per
  grade up to the largest (16 GiB at 2^31 - 1), so that grade is checked through what trec_eval
  computes from it: binary measures read only `grade >= threshold`, and nDCG is unchanged when
  every gain of a query is multiplied by one number; mixed with small grades, by hand.
* `score_precision="float32"` is pytrec_eval exactly: it stores scores as C floats, so scores
  that differ only past float32 precision tie, and ties go by document id descending.
  `"float64"` (the default) ranks as trec_eval 10.0, whose reference here is pytrec_eval fed the
  float64 order itself (scores replaced by their rank, found by sorting in Python).
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from conftest import Cli
from qrelkit.formats.columns import Columns, hash_docs
from qrelkit.scoring import evaluate
from qrelkit.scoring.arrays import DENSE_GRADES, rank, rank_columns
from qrelkit.scoring.measures import Measure
from test_measures_families import Qrels, Run, pytrec

BIG = 2**31 - 1
MEASURES = {  # qrelkit name -> trec_eval name
    "P@1": "P_1",
    "P@5": "P_5",
    "R@10": "recall_10",
    "RR": "recip_rank",
    "AP": "map",
    "nDCG": "ndcg",
    "nDCG@5": "ndcg_cut_5",
    "Rprec": "Rprec",
    "Success@3": "success_3",
}
NEW = {Measure("Bpref"): "bpref", Measure("SetF"): "set_F", Measure("NumRel"): "num_rel", Measure("infAP"): "infAP"}


def _graded(seed: int, grades: list[int], n_queries: int = 25) -> tuple[Qrels, Run]:
    rnd = random.Random(seed)
    qrels: Qrels = {}
    run: Run = {}
    for qi in range(n_queries):
        docs = [f"d{j}" for j in range(rnd.randint(1, 20))]
        qrels[f"q{qi}"] = {d: rnd.choice(grades) for d in docs if rnd.random() < 0.7}
        qrels[f"q{qi}"].update({f"x{j}": rnd.choice(grades) for j in range(rnd.randint(0, 3))})
        run[f"q{qi}"] = {d: rnd.randint(0, 15) / 4 for d in docs}
    return qrels, run


def _check(ev_values: dict[str, dict[str, float]], ref: dict[str, dict[str, float]], names: dict[str, str]) -> int:
    n = 0
    for q, values in ref.items():
        for ours, theirs in names.items():
            assert ev_values[q][ours] == pytest.approx(values[theirs], abs=1e-9), (q, ours)
            n += 1
    return n


@pytest.mark.parametrize("big", [50, 200, 40_000])
def test_large_grades_agree_with_trec_eval(big: int) -> None:
    qrels, run = _graded(big, [-1, 0, 1, 2, big, big - 1])
    levels = [1, 2, big]
    refs = pytrec(qrels, run, [*MEASURES.values(), *NEW.values()], [(t, False) for t in levels])
    names = {**MEASURES, **{m.name: n for m, n in NEW.items()}}
    for t, ref in zip(levels, refs, strict=True):
        ev = evaluate(qrels, run, [*MEASURES, *NEW], relevance_threshold=t)
        assert _check(ev.per_query(), ref, names) > 200
        # grades up to DENSE_GRADES are their own codes; past it, one code per distinct grade
        assert ev.ranked.label_counts.shape[1] == (big + 1 if big <= DENSE_GRADES else 5)


def test_the_largest_int32_grade_scores_as_trec_eval() -> None:
    qrels, run = _graded(31, [-1, 0, BIG])
    as_one = {q: {d: 1 if g == BIG else g for d, g in docs.items()} for q, docs in qrels.items()}
    ref = pytrec(as_one, run, list(MEASURES.values()), [(1, False)])[0]
    assert _check(evaluate(qrels, run, list(MEASURES)).per_query(), ref, MEASURES) > 100
    at_big = evaluate(qrels, run, list(MEASURES), relevance_threshold=BIG).per_query()
    assert _check(at_big, ref, MEASURES) > 100  # >= 2^31 - 1 picks the same documents as >= 1 above
    # mixed with grade 1, by hand: ranks b (1), a (BIG)
    # DCG = 1/log2(2) + BIG/log2(3); ideal = BIG/log2(2) + 1/log2(3)
    ev = evaluate({"q": {"a": BIG, "b": 1, "c": 0}}, {"q": {"b": 2.0, "a": 1.0}}, ["nDCG", "P@1", "AP"])
    v = ev.per_query()["q"]
    assert v["nDCG"] == pytest.approx((1 + BIG / math.log2(3)) / (BIG + 1 / math.log2(3)), abs=1e-12)
    assert (v["P@1"], v["AP"]) == (1.0, 1.0)
    s = ev.scores["nDCG"]
    assert s.low[0] == s.high[0] == s.value[0]  # nothing unlabeled


def test_a_grade_of_200_ranked_first_is_relevant() -> None:
    # issue 16's example: P@1 was 0 with coverage 0 and bounds [0, 0]
    ev = evaluate({"q": {"a": 200, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}, ["P@1"])
    s = ev.scores["P@1"]
    assert (s.value[0], s.coverage[0], s.low[0], s.high[0]) == (1.0, 1.0, 1.0, 1.0)


def test_the_scale_top_reaches_the_bounds_of_compacted_grades() -> None:
    # grades 0 and 300 only, scale top 1000: an unlabeled document may be graded 1000
    # nDCG@2 over ranks u, a (300): low: u at 0 -> 300/log2(3) / 300; high: u at 1000 ->
    # (1000 + 300/log2(3)) / (1000 + 300/log2(3)) = 1
    ev = evaluate({"q": {"a": 300, "b": 0}}, {"q": {"u": 2.0, "a": 1.0}}, ["nDCG@2"], max_grade=1000)
    s = ev.scores["nDCG@2"]
    assert (s.low[0], s.high[0]) == pytest.approx((1 / math.log2(3), 1.0), abs=1e-12)
    assert ev.ranked.top_grade == 1000


# -- score precision ----------------------------------------------------------------------------


def _near_ties(seed: int, n_queries: int = 30) -> tuple[Qrels, Run]:
    """Scores in clusters that differ past float32 precision (relative 1e-9) but not in float64,
    plus exact ties, on documents whose ids sort differently from their scores."""
    rnd = random.Random(seed)
    qrels: Qrels = {}
    run: Run = {}
    for qi in range(n_queries):
        docs = [f"doc{rnd.randint(0, 999):03d}" for _ in range(rnd.randint(2, 25))]
        docs = list(dict.fromkeys(docs))
        qrels[f"q{qi}"] = {d: rnd.choice([0, 1, 1, 2]) for d in docs if rnd.random() < 0.6} or {"none": 1}
        base = [rnd.uniform(5, 50) for _ in range(max(1, len(docs) // 4))]
        run[f"q{qi}"] = {d: rnd.choice(base) * (1 + rnd.choice([0.0, 1e-9, -1e-9, 3e-9, 1e-12])) for d in docs}
    return qrels, run


def _float64_order(run: Run) -> Run:
    """The run with each score replaced by its rank from the bottom, after sorting in Python by
    (score, document id bytes) descending: trec_eval 10's order, which float32 keeps exactly."""
    out: Run = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)
        out[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_both_score_precisions_agree_with_their_trec_eval(seed: int) -> None:
    qrels, run = _near_ties(seed)
    names = {**MEASURES, "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}
    ref32, ref64 = (pytrec(qrels, r, list(names.values()), [(1, False)])[0] for r in (run, _float64_order(run)))
    as32 = evaluate(qrels, run, list(names), score_precision="float32").per_query()
    as64 = evaluate(qrels, run, list(names)).per_query()
    assert _check(as32, ref32, names) > 200
    assert _check(as64, ref64, names) > 200
    differ = [(q, m) for q in ref32 for m in names if as32[q][m] != as64[q][m]]
    assert len(differ) >= 5  # the data does tell the modes apart


def test_float32_ties_go_by_document_id_descending() -> None:
    # 1.0 and 1.0 + 1e-9 are one float32: b > a by id, so b ranks first; float64 puts a first
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert evaluate(qrels, run, ["P@1"], score_precision="float32").per_query()["q"]["P@1"] == 0.0
    assert evaluate(qrels, run, ["P@1"]).per_query()["q"]["P@1"] == 1.0
    assert pytrec(qrels, run, ["P_1"], [(1, False)])[0]["q"]["P_1"] == 0.0


def test_the_exact_path_rounds_as_the_columnar_one() -> None:
    qrels, run = _near_ties(3, 10)
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    cols = Columns.from_rows(rows)
    qcols = Columns.from_rows([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()], integer=True)
    for precision in ("float32", "float64"):
        exact = rank(qrels, rows, score_precision=precision)
        fast = rank_columns(qcols, hash_docs(qcols.doc), cols, hash_docs(cols.doc), score_precision=precision)
        assert fast is not None
        assert np.array_equal(exact.grades, fast.grades)


def test_an_unknown_precision_is_refused() -> None:
    from qrelkit.errors import ScoringError

    with pytest.raises(ScoringError, match="score precision"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@1"], score_precision="float16")


def test_score_precision_on_the_command_line(run_cli: Cli) -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    qpath = run_cli.write("p.qrels", "q 0 a 1\nq 0 b 0\n")
    rpath = run_cli.write("p.run", f"q Q0 a 1 {1.0 + 1e-9!r} x\nq Q0 b 2 1.0 x\n")
    values = {}
    for precision in ("float64", "float32"):
        out = run_cli("score", str(rpath), "--qrels", str(qpath), "--metrics", "P@1", "--format", "json",
                      "--score-precision", precision).output  # fmt: skip
        values[precision] = json.loads(out)["reports"][0]["metrics"]["P@1"]["mean"]
    assert values == {"float64": 1.0, "float32": 0.0}
    assert qrels  # the files above hold these labels


def test_bounds_over_compacted_grades_cover_every_grade_in_between() -> None:
    """With grades compacted to codes, an unlabeled document is still allowed any grade up to the
    scale's top: brute force over grades at and between the coded ones (nDCG is linear-fractional
    between two coded grades, so its extremes sit on them)."""
    import itertools

    rnd = random.Random(8)
    tried = [0, 40, 100, 170, 300]
    for _ in range(20):
        docs = [f"d{i}" for i in range(rnd.randint(1, 5))]
        labels = {d: rnd.choice([0, 100, 300]) for d in docs if rnd.random() < 0.5}
        labels["far"] = rnd.choice([0, 100])
        run = {d: float(9 - i) for i, d in enumerate(docs)}
        unl = [d for d in docs[:3] if d not in labels]
        for name in ("nDCG@3", "P@3", "AP", "RR", "ERR(max_grade=300)@3", "DCG@3"):
            ev = evaluate({"q": labels}, {"q": run}, [name], max_grade=300)
            s = ev.scores[name]
            seen = [
                evaluate(
                    {"q": {**labels, **dict(zip(unl, gs, strict=True))}}, {"q": run}, [name], max_grade=300
                ).values(name)["q"]
                for gs in itertools.product(tried, repeat=len(unl))
            ]
            assert s.low[0] - 1e-12 <= min(seen) and max(seen) <= s.high[0] + 1e-12, name
            if name != "AP":  # AP@inf also reads unlabeled documents below rank 3, left at 0 here
                assert (min(seen), max(seen)) == pytest.approx((s.low[0], s.high[0]), abs=1e-12), name
