"""The measure families added for issue 16 against independent references: pytrec_eval (trec_eval
9.0.8) where trec_eval has the measure, ir_measures' gdeval provider for ERR, hand-computed
fixtures (the arithmetic written out) for DCG and RBP; and the coverage windows.

Generated data has unlabeled documents, grade 0, pooled-unjudged documents (grade -1), ties and
qrels documents the run does not retrieve. Scores are rounded to 1/8 so float32 and float64 agree
(the precision mode has its own tests in test_grades_precision.py).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import subprocess
import sys
from collections.abc import Mapping

import numpy as np
import pytest

from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate
from qrelkit.scoring.arrays import rank
from qrelkit.scoring.kernels import KERNELS, compute
from qrelkit.scoring.measures import SPECS, Measure

_CHILD = r"""
import json, sys, pytrec_eval
job = json.load(sys.stdin)
out = []
for level, judged_only in job["settings"]:
    ev = pytrec_eval.RelevanceEvaluator(
        job["qrels"], set(job["measures"]), relevance_level=level, judged_docs_only_flag=judged_only
    )
    out.append(ev.evaluate(job["run"]))
json.dump(out, sys.stdout)
"""

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def pytrec(
    qrels: Qrels, run: Run, measures: list[str], settings: list[tuple[int, bool]]
) -> list[dict[str, dict[str, float]]]:
    """pytrec_eval's per-query values for each (relevance level, judged-only) setting, in a fresh
    interpreter (pytrec_eval keeps state across evaluators)."""
    job = {"qrels": {q: d for q, d in qrels.items() if d}, "run": run, "measures": measures, "settings": settings}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], input=json.dumps(job), capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    result: list[dict[str, dict[str, float]]] = json.loads(out.stdout)
    return result


def generated(seed: int, n_queries: int = 40) -> tuple[Qrels, Run]:
    rnd = random.Random(seed)
    qrels: Qrels = {}
    run: Run = {}
    for qi in range(n_queries):
        q = f"q{qi}"
        docs = [f"d{j}" for j in range(rnd.randint(1, 30))]
        labels = {d: rnd.choice([-1, 0, 0, 1, 1, 2, 3]) for d in docs if rnd.random() < 0.6}
        labels.update({f"x{j}": rnd.choice([0, 1, 2, 3]) for j in range(rnd.randint(0, 4))})  # not retrieved
        if qi % 9 == 0:
            labels = {d: g for d, g in labels.items() if g <= 0}  # no relevant document
        qrels[q] = labels
        if qi % 13 != 5:  # some queries are missing from the run
            run[q] = {d: rnd.randint(0, 24) / 8 for d in docs}  # coarse scores: many ties
    return qrels, run


PAIRS = {  # qrelkit Measure -> trec_eval name
    Measure("NumRet"): "num_ret",
    Measure("NumRel"): "num_rel",
    Measure("NumRelRet"): "num_rel_ret",
    Measure("NumQ"): "num_q",
    Measure("SetP"): "set_P",
    Measure("SetR"): "set_recall",
    Measure("SetF"): "set_F",
    Measure("Bpref"): "bpref",
    Measure("infAP"): "infAP",
    # pytrec_eval is trec_eval 9: its rule for the rank of a recall level is IPrec's trec_eval=9
    Measure("IPrec11pt", trec_eval_version=9): "11pt_avg",
    **{Measure("IPrec", level=x / 10, trec_eval_version=9): f"iprec_at_recall_{x / 10:.2f}" for x in range(11)},
}
BASE = {  # families trec_eval -J applies to, with their trec_eval names
    Measure("P", 5): "P_5",
    Measure("AP"): "map",
    Measure("nDCG", 10): "ndcg_cut_10",
    Measure("nDCG"): "ndcg",
    Measure("RR"): "recip_rank",
    Measure("Rprec"): "Rprec",
    Measure("R", 10): "recall_10",
    Measure("Success", 5): "success_5",
}
TREC_MEASURES = ["num_ret", "num_rel", "num_rel_ret", "num_q", "set_P", "set_recall", "set_F", "bpref", "infAP"]
TREC_MEASURES += ["11pt_avg", "iprec_at_recall", "P_5", "map", "ndcg_cut_10", "ndcg", "recip_rank", "Rprec"]
TREC_MEASURES += ["recall_10", "success_5"]


def _agree(ours: Mapping[str, Mapping[str, float]], ref: Mapping[str, Mapping[str, float]], pairs: dict) -> int:  # type: ignore[type-arg]
    checked = 0
    for q, values in ref.items():
        for m, trec_name in pairs.items():
            # trec_eval divides 0 by 0 in 11pt_avg and iprec when a (condensed) list is empty:
            # qrelkit scores an empty list 0, as every other measure
            expected = 0.0 if math.isnan(values[trec_name]) else values[trec_name]
            assert ours[q][m.name] == pytest.approx(expected, abs=1e-9), (q, m.name)
            checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_new_families_and_judged_only_agree_with_trec_eval(seed: int) -> None:
    qrels, run = generated(seed)
    settings = [(1, False), (2, False), (1, True), (2, True)]
    refs = pytrec(qrels, run, TREC_MEASURES, settings)
    for (level, judged_only), ref in zip(settings, refs, strict=True):
        if judged_only:
            pairs = {dataclasses.replace(m, judged_only=True): n for m, n in {**BASE, **PAIRS}.items()}
            pairs = {m: n for m, n in pairs.items() if m.family not in ("NumQ", "NumRel")}  # no judged_only
        else:
            pairs = {**BASE, **PAIRS}
        ev = evaluate(qrels, run, list(pairs), relevance_threshold=level, max_grade=3)
        assert ref and _agree(ev.per_query(), ref, pairs) > 100


def test_judged_only_drops_unlabeled_documents_first() -> None:
    # ranks: u1 (unlabeled), a (1), u2 (unlabeled), b (0), c (1); condensed: a, b, c
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"u1": 5.0, "a": 4.0, "u2": 3.0, "b": 2.0, "c": 1.0}}
    ev = evaluate(qrels, run, [Measure("P", 2, judged_only=True), Measure("RR", judged_only=True), Measure("P", 2)])
    values = ev.per_query()["q"]
    assert values["P(judged_only=True)@2"] == 1 / 2  # a, b: one relevant of 2
    assert values["RR(judged_only=True)"] == 1.0  # a is first once u1 is gone
    assert values["P@2"] == 1 / 2  # u1 (not relevant), a
    # coverage and bounds stay the full list's: P@2 over u1, a
    s = ev.scores["P(judged_only=True)@2"]
    assert (s.coverage[0], s.low[0], s.high[0]) == (1 / 2, 1 / 2, 1.0)


def test_infap_reads_negative_grades_as_pooled_but_unjudged() -> None:
    # ranks (0-based j): 0 a rel, 1 n unpooled, 2 p pooled-unjudged, 3 b nonrel, 4 c rel; R = 2
    # a: j = 0 -> 1
    # c: j = 4, rel above 1, nonrel above 1, pooled above 1:
    #    1/5 + (4/5) * ((1 + 1 + 1) / 4) * ((1 + e) / (1 + 1 + 2e)), e = 1e-5
    qrels = {"q": {"a": 1, "p": -1, "b": 0, "c": 1}}
    run = {"q": {"a": 5.0, "n": 4.0, "p": 3.0, "b": 2.0, "c": 1.0}}
    e = 1e-5
    expected = (1 + 1 / 5 + (4 / 5) * (3 / 4) * ((1 + e) / (2 + 2 * e))) / 2
    got = evaluate(qrels, run, [Measure("infAP")]).per_query()["q"]["infAP"]
    assert got == pytest.approx(expected, abs=1e-12)
    ref = pytrec(qrels, run, ["infAP"], [(1, False)])[0]["q"]["infAP"]
    assert got == pytest.approx(ref, abs=1e-9)


def test_ndcg_with_a_gain_map_is_ndcg_over_mapped_grades() -> None:
    qrels, run = generated(7)
    gains = ((0, 0.0), (1, 1.0), (2, 5.0), (3, 7.0))
    mapped = {q: {d: dict(gains).get(g, g) if g >= 0 else g for d, g in docs.items()} for q, docs in qrels.items()}
    mapped_int = {q: {d: int(g) for d, g in docs.items()} for q, docs in mapped.items()}
    ref = pytrec(mapped_int, run, ["ndcg_cut_10", "ndcg"], [(1, False)])[0]
    ms = [Measure("nDCG", 10, gains=gains), Measure("nDCG", gains=gains)]
    ev = evaluate(qrels, run, ms, max_grade=3)
    assert _agree(ev.per_query(), ref, dict(zip(ms, ["ndcg_cut_10", "ndcg"], strict=True))) > 50
    # a map that reorders the grades: the ideal list follows the gains, not the grades
    swapped = ((1, 4.0), (2, 1.0), (3, 2.0))
    remap = {q: {d: int(dict(swapped).get(g, g)) for d, g in docs.items()} for q, docs in qrels.items()}
    ref2 = pytrec(remap, run, ["ndcg_cut_10"], [(1, False)])[0]
    ev2 = evaluate(qrels, run, [Measure("nDCG", 10, gains=swapped)], max_grade=3)
    assert _agree(ev2.per_query(), ref2, {Measure("nDCG", 10, gains=swapped): "ndcg_cut_10"}) > 20


def test_dcg_by_hand() -> None:
    # ranks: a (3), u (unlabeled), b (0), c (2); DCG@4 = 3/log2(2) + 0 + 0/log2(4) + 2/log2(5)
    qrels = {"q": {"a": 3, "b": 0, "c": 2, "z": 1}}
    run = {"q": {"a": 4.0, "u": 3.0, "b": 2.0, "c": 1.0}}
    ev = evaluate(qrels, run, [Measure("DCG", 4), Measure("DCG", 4, gain="exp"), Measure("DCG", 1)], max_grade=3)
    v = ev.per_query()["q"]
    assert v["DCG@4"] == pytest.approx(3 + 2 / math.log2(5), abs=1e-12)
    assert v["DCG(gain=exp)@4"] == pytest.approx(7 + 3 / math.log2(5), abs=1e-12)  # 2^3-1, 2^2-1
    assert v["DCG@1"] == 3.0
    s = ev.scores["DCG@4"]  # u at grade 0 .. at grade 3 (gain 3, discount 1/log2(3))
    assert (s.low[0], s.high[0]) == pytest.approx((3 + 2 / math.log2(5), 3 + 3 / math.log2(3) + 2 / math.log2(5)))


def test_rbp_and_its_residual_by_hand() -> None:
    # p = 0.5; ranks: a (1), u (unlabeled), b (0), c (2); weight of rank i = 0.5 * 0.5^(i-1)
    # RBP = 0.5 (a) + 0.0625 (c, rank 4) = 0.5625
    # residual = 0.25 (u, rank 2) + tail past rank 4: 0.5^4 = 0.0625 -> 0.3125
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 4.0, "u": 3.0, "b": 2.0, "c": 1.0}}
    ev = evaluate(qrels, run, [Measure("RBP", p=0.5), Measure("RBP", 3, p=0.5), Measure("RBP", rel=2, p=0.5)])
    s = ev.scores["RBP(p=0.5)"]
    assert (s.value[0], s.low[0], s.high[0]) == pytest.approx((0.5625, 0.5625, 0.5625 + 0.3125), abs=1e-12)
    # RBP@3: a only, 0.5; residual u 0.25, no tail (the run reaches rank 3): 0.25
    s3 = ev.scores["RBP(p=0.5)@3"]
    assert (s3.value[0], s3.high[0]) == pytest.approx((0.5, 0.75), abs=1e-12)
    assert ev.scores["RBP(rel=2,p=0.5)"].value[0] == pytest.approx(0.0625, abs=1e-12)  # c only
    # the default persistence is 0.8: 0.2 (a) + 0.2 * 0.8^3 (c) = 0.3024
    default = evaluate(qrels, run, [Measure("RBP")]).per_query()["q"]["RBP"]
    assert default == pytest.approx(0.2 + 0.2 * 0.8**3, abs=1e-12)


def test_rbp_residual_covers_every_completion() -> None:
    rnd = random.Random(5)
    for _ in range(30):
        docs = [f"d{i}" for i in range(rnd.randint(1, 8))]
        labels = {d: rnd.choice([0, 1]) for d in docs if rnd.random() < 0.5}
        run = {d: float(len(docs) - i) for i, d in enumerate(docs)}
        ev = evaluate({"q": labels or {"zz": 0}}, {"q": run}, [Measure("RBP", p=0.7)])
        s = ev.scores["RBP(p=0.7)"]
        unl = [d for d in docs if d not in labels]
        # all unlabeled relevant and the run continued by relevant documents forever: the top
        top = sum(0.3 * 0.7**i for i, d in enumerate(docs) if labels.get(d, 1) == 1) + 0.7 ** len(docs)
        assert s.high[0] == pytest.approx(top, abs=1e-12)
        assert s.low[0] == pytest.approx(sum(0.3 * 0.7**i for i, d in enumerate(docs) if labels.get(d) == 1))
        assert len(unl) >= 0


def _gdeval_err(qrels: Qrels, run: Run, k: int) -> dict[str, float]:
    import ir_measures

    measure = ir_measures.parse_measure(f"ERR@{k}")
    provider = ir_measures.providers.registry["gdeval"]
    qrels_rows = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return {m.query_id: m.value for m in provider.iter_calc([measure], qrels_rows, run_rows)}


def test_err_agrees_with_gdeval() -> None:
    # gdeval (the TREC Web track's script, through ir_measures) fixes the top grade at 4 and
    # prints 5 decimals; its topics must be numbers. Scores are distinct: its tie order differs.
    rnd = random.Random(11)
    qrels: Qrels = {}
    run: Run = {}
    for qi in range(1, 30):
        docs = [f"d{j}" for j in range(rnd.randint(1, 25))]
        qrels[str(qi)] = {d: rnd.choice([0, 1, 2, 3, 4]) for d in docs if rnd.random() < 0.7} or {"zz": 1}
        scores = rnd.sample(range(1000), len(docs))
        run[str(qi)] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    for k in (5, 20):
        ref = _gdeval_err(qrels, run, k)
        ev = evaluate(qrels, run, [Measure("ERR", k)], max_grade=4)
        got = ev.per_query()
        assert len(ref) > 20
        for q, v in ref.items():
            assert got[q][f"ERR@{k}"] == pytest.approx(v, abs=6e-6), q


def test_err_by_hand() -> None:
    # top grade 2: stop probabilities R(0) = 0, R(1) = 1/4, R(2) = 3/4
    # ranks: b (1), a (2): ERR = 1/4 / 1 + (1 - 1/4) * 3/4 / 2 = 0.25 + 0.28125
    m = Measure("ERR", 3, max_grade=2)
    ev = evaluate({"q": {"a": 2, "b": 1}}, {"q": {"b": 2.0, "a": 1.0, "u": 0.5}}, [m], max_grade=2)
    s = ev.scores["ERR(max_grade=2)@3"]
    assert s.value[0] == pytest.approx(0.53125, abs=1e-12)
    # u (rank 3) at the top grade: + (3/4)(1/4) * 3/4 / 3
    assert s.high[0] == pytest.approx(0.53125 + 0.75 * 0.25 * 0.75 / 3, abs=1e-12)


def test_bounds_of_new_families_hold_every_completion() -> None:
    """Brute force: label the unlabeled documents inside the window every way; each value lies
    within the bounds and the bounds are reached (they are exact)."""
    import itertools

    rnd = random.Random(3)
    families = [Measure("NumRel"), Measure("NumRelRet"), Measure("SetP"), Measure("SetR"), Measure("SetF")]
    families += [Measure("DCG", 3), Measure("ERR", 4), Measure("nDCG", 3, gains=((1, 3.0), (2, 1.0)))]
    for _ in range(25):
        docs = [f"d{i}" for i in range(rnd.randint(1, 6))]
        labels = {d: rnd.choice([0, 1, 2]) for d in docs if rnd.random() < 0.5}
        labels["far"] = rnd.choice([0, 1, 2])
        run = {d: float(10 - i) for i, d in enumerate(docs)}
        ev = evaluate({"q": labels}, {"q": run}, families, max_grade=2)
        for m in families:
            unl = [d for d in docs if d not in labels]  # every unlabeled document retrieved
            completions = list(itertools.product(range(3), repeat=len(unl)))
            by_query = evaluate(
                {f"q{i}": {**labels, **dict(zip(unl, gs, strict=True))} for i, gs in enumerate(completions)},
                {f"q{i}": run for i in range(len(completions))},
                [m],
                max_grade=2,
            ).values(m.name)
            seen = list(by_query.values())
            s = ev.scores[m.name]
            assert min(seen) == pytest.approx(s.low[0], abs=1e-12), m.name
            assert max(seen) == pytest.approx(s.high[0], abs=1e-12), m.name


def test_unbounded_families_report_no_bounds() -> None:
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "u": 1.0}}, [Measure("Bpref"), Measure("infAP")])
    report = ev.report(_fingerprint(), per_query=True)
    assert report.metrics["Bpref"].bounds is None
    assert report.per_query is not None and report.per_query["q"]["infAP"].bounds is None


def _fingerprint() -> Fingerprint:
    run = FileFingerprint(name="r", sha256="sha256:0")
    return Fingerprint(run=run, metrics=[], relevance_threshold=1, max_grade=1, qrelkit_version="t")


# -- coverage windows ---------------------------------------------------------------------------


def test_rr_coverage_counts_the_ranks_up_to_the_first_relevant_document() -> None:
    # ranks: u1, a (relevant), u2, u3, u4: RR can only change through u1
    labels = {"q": {"a": 1}}
    run = [("q", d, s) for d, s in [("u1", 5.0), ("a", 4.0), ("u2", 3.0), ("u3", 2.0), ("u4", 1.0)]]
    r = rank(labels, run)
    rr = compute(r, Measure("RR"), 1)
    assert rr.coverage[0] == 1 / 2  # a labeled of u1, a
    assert (rr.low[0], rr.high[0]) == (0.5, 1.0)
    assert compute(r, Measure("Success", 5), 1).coverage[0] == 1 / 2
    assert compute(r, Measure("RR", 1), 1).coverage[0] == 0.0  # only u1 is in the top 1
    assert compute(r, Measure("P", 5), 1).coverage[0] == 1 / 5  # every rank of the top 5 counts
    assert compute(r, Measure("AP"), 1).coverage[0] == 1 / 5
    # no relevant document: every rank could hold the first one
    none = rank({"q": {"a": 0}}, run)
    assert compute(none, Measure("RR"), 1).coverage[0] == 1 / 5
    # a labeled first relevant document at rank 1: nothing is open
    first = rank({"q": {"u1": 1}}, run)
    rr1 = compute(first, Measure("RR"), 1)
    assert (rr1.coverage[0], rr1.low[0], rr1.high[0]) == (1.0, 1.0, 1.0)


def test_count_families_have_no_coverage_window() -> None:
    r = rank({"q": {"a": 1}}, [("q", "a", 1.0), ("q", "u", 0.5)])
    for m in (Measure("NumRet"), Measure("NumQ")):
        assert np.isnan(compute(r, m, 1).coverage[0])
    assert compute(r, Measure("NumRel"), 1).coverage[0] == 1 / 2


def test_every_family_documents_its_coverage_and_bounds() -> None:
    assert set(SPECS) == set(KERNELS)
    for spec in SPECS.values():
        assert spec.coverage and spec.bounds, spec.family


def test_numret_with_rel_counts_relevant_retrieved_as_ir_measures() -> None:
    qrels, run = generated(4)
    ref = pytrec(qrels, run, ["num_rel_ret"], [(2, False)])[0]
    ev = evaluate(qrels, run, [Measure("NumRet", rel=2)], max_grade=3)  # the golden threshold stays 1
    assert _agree(ev.per_query(), ref, {Measure("NumRet", rel=2): "num_rel_ret"}) > 20
    assert not np.isnan(ev.scores["NumRet(rel=2)"].coverage).all()  # relevant counts have a window


UNIT_SLACK = 1e-9
"""Float rounding: RBPResid's p^n + (1 - p) sum p^(r-1) can add up to 1.0000000000000002."""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_families_declared_in_the_unit_interval_score_in_it(seed: int) -> None:
    """`MeasureSpec.unit_interval` says whose values lie in [0, 1] (a saved report with another
    is refused): on generated qrels with -1 and 0 grades, every such family, with its
    parameters, scores in it; the others are counts or sums."""
    from qrelkit.scoring.measures import CutoffRule

    qrels, run = generated(seed)
    names = []
    for spec in SPECS.values():
        at = ["@0.1", "@1"] if spec.family == "IPrec" else ["@0.2", "@2"] if spec.family == "RprecMult" else ["@3"]
        names += [spec.family] if spec.cutoff is CutoffRule.FORBIDDEN else [spec.family + a for a in at]
    names += ["nDCG(gain=exp)@10", "nDCG(gains={0:2,1:1,2:5,3:0})@10", "RBP(p=0.9,graded=True)", "ERR(max_grade=3)"]
    ev = evaluate(qrels, run, names, max_grade=3)
    for m in ev.measures:
        values = ev.scores[m.name].value
        inside = bool(((values >= 0) & (values <= 1 + UNIT_SLACK)).all())
        assert inside or not m.spec.unit_interval, (m.name, float(values.min()), float(values.max()))
    assert {s.family for s in SPECS.values() if not s.unit_interval} == {
        "NumRet", "NumRel", "NumRelRet", "NumQ", "DCG", "Utility", "NumNonRelJudgedRet",
    }  # fmt: skip
