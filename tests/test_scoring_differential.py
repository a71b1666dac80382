"""qrelkit against trec_eval (pytrec-eval-terrier) per query, to 1e-9."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qrelkit
from conftest import Cli, one_report
from oracle import trec_eval
from qrelkit.errors import InputError, ScoringError
from qrelkit.formats import trec
from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate
from qrelkit.scoring.kernels import KERNELS
from qrelkit.scoring.measures import SPECS
from qrelkit.scoring.names import canonical_names, parse_measure, parse_measures

PAIRS = {  # qrelkit name (as written) -> trec_eval name
    "P@1": "P_1",
    "P@5": "P_5",
    "P@10": "P_10",
    "R@5": "recall_5",
    "R@50": "recall_50",
    "Success@1": "success_1",
    "Hit@5": "success_5",
    "RR": "recip_rank",
    "nDCG@3": "ndcg_cut_3",
    "nDCG@10": "ndcg_cut_10",
    "nDCG": "ndcg",
    "AP": "map",
    "AP@5": "map_cut_5",
    "Rprec": "Rprec",
}
TREC_MEASURES = [
    "P.1,5,10",
    "recall.5,50",
    "success.1,5",
    "recip_rank",
    "ndcg_cut.3,10",
    "ndcg",
    "map",
    "map_cut.5",
    "Rprec",
]
DATA = Path(__file__).parent / "data" / "conformance"

doc_ids = st.sampled_from([f"d{i}" for i in range(12)] + ["9", "10", "100", "D1"])
scores = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 3.25])  # few values: many ties


@st.composite
def case(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(draw(st.integers(1, 5))):
        q = f"q{i}"
        qrels[q] = draw(st.dictionaries(doc_ids, st.integers(-1, 3), max_size=8))
        if draw(st.booleans()) or not qrels[q]:
            run[q] = draw(st.dictionaries(doc_ids, scores, min_size=1, max_size=12))
    if draw(st.booleans()):
        run["run-only"] = {"d1": 1.0}
    return qrels, run


def compare(cases: list[tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]], level: int) -> int:
    """Score every case with both engines; return how many query values were compared."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for n, (q, r) in enumerate(cases):
        qrels.update({f"c{n}-{k}": v for k, v in q.items()})
        run.update({f"c{n}-{k}": v for k, v in r.items()})
    reference = trec_eval(qrels, run, TREC_MEASURES, level)
    ours = evaluate(qrels, run, list(PAIRS), relevance_threshold=level).per_query()
    canonical = dict(zip(PAIRS, canonical_names(PAIRS), strict=True))  # values come under canonical names
    compared = 0
    for qid, values in ours.items():
        if qid not in reference:
            # pytrec_eval skips queries missing from the run or with no judgments; we score 0
            assert qid not in run or not qrels[qid]
            assert all(v == 0.0 for v in values.values())
            continue
        for name, trec_name in PAIRS.items():
            assert values[canonical[name]] == pytest.approx(reference[qid][trec_name], abs=1e-9), (qid, name)
            compared += 1
    assert not any(k.endswith("run-only") for k in ours)
    return compared


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(case(), min_size=20, max_size=40), st.sampled_from([1, 2]))
def test_generated_cases_agree_with_trec_eval(cases: list, level: int) -> None:  # type: ignore[type-arg]
    compare(cases, level)  # asserts per query and measure


@pytest.mark.parametrize(
    "name", ["ties", "short_run", "only_rel0", "run_only", "qrels_only", "graded_l2", "rank_vs_score"]
)
@pytest.mark.parametrize("level", [1, 2])
def test_conformance_fixtures_agree_with_trec_eval(name: str, level: int) -> None:
    qrels: dict[str, dict[str, int]] = {}
    for rec in trec.read_qrels(DATA / f"{name}.qrels"):
        qrels.setdefault(rec.query_id, {})[rec.doc_id] = rec.grade
    run: dict[str, dict[str, float]] = {}
    for r in trec.read_run(DATA / f"{name}.run"):
        run.setdefault(r.query_id, {})[r.doc_id] = r.score
    assert compare([(qrels, run)], level) > 0


def test_tie_order_is_doc_id_descending_by_bytes() -> None:
    # '9' > '100' > '10' as bytes: only '10' is relevant, so it ranks third
    ev = evaluate({"q": {"10": 1}}, {"q": {"9": 1.0, "10": 1.0, "100": 1.0}}, "RR")
    assert ev.values("RR") == {"q": pytest.approx(1 / 3)}


def test_duplicates_are_errors_naming_both_lines() -> None:
    with pytest.raises(InputError, match=r"dup_docs.run:\d+: document 'd1' appears twice .* \(first on line \d+\)"):
        list(trec.read_run(DATA / "dup_docs.run"))
    with pytest.raises(InputError, match=r"dup_qrels.qrels:\d+: duplicate judgment .* \(first on line \d+\)"):
        list(trec.read_qrels(DATA / "dup_qrels.qrels"))
    with pytest.raises(ScoringError, match="appears twice"):
        evaluate({"q": {"a": 1}}, [("q", "a", 1.0), ("q", "a", 2.0)], "RR")


def test_seed_example() -> None:
    """Relevant A, B, C; ranking D, A, E, B, F."""
    ev = evaluate(
        {"q": {"A": 1, "B": 1, "C": 1}},
        {"q": {"D": 5, "A": 4, "E": 3, "B": 2, "F": 1}},
        "P@5,R@5,Success@5,RR",
    )
    values = ev.per_query()["q"]
    assert values["P@5"] == pytest.approx(0.40)
    assert round(values["R@5"], 3) == 0.667
    assert values["Success@5"] == 1.0
    assert values["RR"] == 0.5


def test_rr_at_k_is_rr_of_the_top_k() -> None:
    ev = evaluate({"q": {"c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}}, "RR@2,RR@3,RR")
    assert ev.per_query()["q"] == {"RR@2": 0.0, "RR@3": pytest.approx(1 / 3), "RR": pytest.approx(1 / 3)}


def test_judged_at_k_divides_by_retrieved() -> None:
    ev = evaluate({"q": {"a": 0, "b": 2}, "empty": {"a": 1}}, {"q": {"a": 3, "b": 2, "x": 1}}, "Judged@10")
    assert ev.values("Judged@10") == {"q": pytest.approx(2 / 3), "empty": 0.0}
    # coverage is undefined (NaN), not 0, when nothing was retrieved
    cov = ev.scores["Judged@10"].coverage
    assert cov[0] == pytest.approx(2 / 3) and cov[1] != cov[1]


def test_exp_gain_and_per_measure_threshold() -> None:
    qrels = {"q": {"a": 1, "b": 3}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    ev = evaluate(qrels, run, "nDCG(gain=exp)@2,P(rel=2)@2,P@2")
    v = ev.per_query()["q"]
    import math

    dcg = 1 / 1 + 7 / math.log2(3)
    idcg = 7 / 1 + 1 / math.log2(3)
    assert v["nDCG(gain=exp)@2"] == pytest.approx(dcg / idcg)
    assert v["P(rel=2)@2"] == 0.5 and v["P@2"] == 1.0


@pytest.mark.parametrize("bad", ["Foo@10", "P", "Rprec@5", "nDCG(rel=2)@10", "P@0", "P(gain=exp)@5", "RR,RR"])
def test_bad_measure_names_are_refused(bad: str) -> None:
    with pytest.raises(ScoringError):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, bad)


@pytest.mark.parametrize(
    ("bad", "message", "hint"),
    [
        ("Foo@10", "unknown measure 'Foo@10'", "NAME[(param=value)][@k]"),
        ("P", "P needs a cutoff, e.g. P@10", "NAME[(param=value)][@k]"),
        ("Hit", "Hit needs a cutoff, e.g. Success@10", "NAME[(param=value)][@k]"),
        ("Rprec@5", "Rprec takes no cutoff (its cutoff is R)", "NAME[(param=value)][@k]"),
        ("P@0", "P@0: the cutoff must be at least 1", "NAME[(param=value)][@k]"),
        (
            "nDCG(rel=2)@10",
            "nDCG(rel=2)@10: parameter 'rel=2' is not accepted",
            "rel=N (1 <= N <= 2147483647) for P, R, Success",
        ),
        ("P(rel=0)@5", "P(rel=0)@5: parameter 'rel=0' is not accepted", "gain=exp|linear for nDCG"),
        ("nDCG(gain=log)", "nDCG(gain=log): parameter 'gain=log' is not accepted", "gain=exp|linear for nDCG"),
        ("MAP,AP", "AP and MAP are the same measure", "NAME[(param=value)][@k]"),
    ],
)
def test_refusals_say_why_and_how(bad: str, message: str, hint: str) -> None:
    with pytest.raises(ScoringError) as caught:
        parse_measures(bad)
    assert caught.value.message == message and hint in (caught.value.hint or "")


def test_every_declared_family_has_a_kernel() -> None:
    assert set(SPECS) == set(KERNELS)
    assert all(spec.definition for spec in SPECS.values())
    names = [name for spec in SPECS.values() for name in spec.names]
    assert len(names) == len(set(names))  # no alias names two families


ALIASES = {"MAP": "AP", "MRR": "RR", "Hit@3": "Success@3", "NDCG@10": "nDCG@10", "Recall@5": "R@5", "ndcg": "nDCG"}


def test_aliases_report_under_their_canonical_names() -> None:
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"c": 3.0, "a": 2.0, "x": 1.5, "b": 1.0}}
    ev = qrelkit.evaluate(qrels, run, list(ALIASES), max_grade=2)  # the README entry point
    same = evaluate(qrels, run, list(ALIASES.values()), max_grade=2)
    assert [m.name for m in ev.measures] == list(ALIASES.values())
    assert ev.per_query() == same.per_query() and set(ev.per_query()["q"]) == set(ALIASES.values())
    fp = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=[m.name for m in ev.measures],
        relevance_threshold=1,
        max_grade=2,
        qrelkit_version="t",
    )
    report = ev.report(fp, per_query=True)
    assert list(report.metrics) == list(ALIASES.values()) == report.fingerprint.metrics
    assert set((report.per_query or {})["q"]) == set(ALIASES.values())
    assert report.metrics == same.report(fp, per_query=True).metrics


def test_canonical_names() -> None:
    assert parse_measure("Hit@3").name == "Success@3" and parse_measure("Hit@3").spelled == "Hit@3"
    assert parse_measure("P( rel = 2 )@5").name == "P(rel=2)@5"
    assert parse_measure("nDCG(gain=linear)@10").name == "nDCG@10"
    assert parse_measure("NDCG(gain=exp)@10").name == "nDCG(gain=exp)@10"
    assert parse_measure("MAP") == parse_measure("AP")  # the same measure, however written
    # merging lists: repeats (in any spelling) drop silently, the order is kept
    assert canonical_names("NDCG@10,R@50,nDCG@10,Hit@3") == ["nDCG@10", "R@50", "Success@3"]
    assert canonical_names(["MAP", " ", "AP", "RR"]) == ["AP", "RR"]
    assert canonical_names("") == []
    with pytest.raises(ScoringError, match="unknown measure"):
        canonical_names("nDCG@10,Foo")


@pytest.mark.parametrize("big", [127, 128, 200, 255, 256, 32_767, 32_768, 40_000])
def test_large_grades_score_as_trec_eval_through_the_file_path(run_cli: Cli, big: int) -> None:
    """Grades above 127 used to wrap in the run-side grade array (int8): a document graded 200
    ranked first scored P@1 = 0. Through the columnar file path, as `score --qrels` reads it."""
    import pytrec_eval

    qrels = {"q": {"a": big, "b": 1, "c": 0}, "r": {"d": big, "e": 3}}
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}, "r": {"e": 2.0, "d": 1.0}}
    qpath = run_cli.write(
        "big.qrels", "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    rpath = run_cli.write(
        "big.run",
        "".join(f"{q} Q0 {d} {i} {s} x\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items(), 1)),
    )
    out = run_cli("score", str(rpath), "--qrels", str(qpath), "--metrics", "P@1,P@2,nDCG@3,AP", "--format", "json",
                  "--per-query").output  # fmt: skip
    ours = {q: {m: v["value"] for m, v in ms.items()} for q, ms in one_report(out)["per_query"].items()}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_1", "P_2", "ndcg_cut_3", "map"}).evaluate(run)
    names = {"P@1": "P_1", "P@2": "P_2", "nDCG@3": "ndcg_cut_3", "AP": "map"}
    for q in qrels:
        for ours_name, theirs in names.items():
            assert ours[q][ours_name] == pytest.approx(ref[q][theirs], abs=1e-9)
