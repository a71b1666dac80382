"""Measure names: ir_measures syntax, trec_eval names, common spellings, lists and refusals.

The ir_measures spellings below are written as ir_measures' own parser and `repr` write them
(ir_measures/util.py `parse_measure`, measures/base.py `__repr__`; each was fed to ir_measures
0.4.3's `parse_measure` when this was written, which accepts all but the two marked as qrelkit's
own: unquoted `dcg=exp-log2` and `gain=exp`). ir_measures is not a test dependency, so the
check is not repeated here. The trec_eval names are
checked against pytrec_eval itself: a name qrelkit reads must give pytrec_eval's value for that
very name, to 1e-9.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from oracle import trec_eval
from qrelkit.errors import ScoringError
from qrelkit.scoring import evaluate
from qrelkit.scoring.measures import SPECS
from qrelkit.scoring.names import (
    TREC_NAMES,
    TrecName,
    canonical_names,
    parse_measure,
    parse_measures,
    trec_eval_name,
    trec_eval_names,
)

IR_MEASURES = {  # as ir_measures writes it -> qrelkit's canonical name
    "nDCG@10": "nDCG@10",
    "NDCG@10": "nDCG@10",
    "P@5": "P@5",
    "Precision@5": "P@5",
    "P(rel=2)@5": "P(rel=2)@5",
    "R@50": "R@50",
    "Recall@50": "R@50",
    "RR": "RR",
    "MRR": "RR",
    "RR@10": "RR@10",
    "AP": "AP",
    "MAP": "AP",
    "AP@100": "AP@100",
    "Rprec": "Rprec",
    "RPrec": "Rprec",
    "Success@1": "Success@1",
    "Judged@10": "Judged@10",
    "nDCG(dcg='exp-log2')@10": "nDCG(gain=exp)@10",
    'nDCG(dcg="exp-log2")@10': "nDCG(gain=exp)@10",
    "nDCG(dcg=exp-log2)@10": "nDCG(gain=exp)@10",  # qrelkit's own: ir_measures needs the quotes
    "nDCG(dcg='log2')@10": "nDCG@10",
    "nDCG(gain=exp)@10": "nDCG(gain=exp)@10",  # qrelkit's own spelling stays accepted
    "nDCG(judged_only=True)@10": "nDCG(judged_only=True)@10",
    "P(judged_only=False)@5": "P@5",
    "nDCG(gains={0:0,1:1,2:3})@10": "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(gains={2:3, 0:0, 1:1})": "nDCG(gains={0:0,1:1,2:3})",
    "AP(rel=2,judged_only=True)": "AP(rel=2,judged_only=True)",
    "P(cutoff=5)": "P@5",  # ir_measures also takes the @ parameter as a keyword
    "nDCG(cutoff=10, dcg='exp-log2')": "nDCG(gain=exp)@10",
}
COMMON = {  # spellings the issue lists, and other cases ir_measures' users type
    "map": "AP",
    "mrr": "RR",
    "p@5": "P@5",
    "judged@10": "Judged@10",
    "ndcg": "nDCG",
    "Ndcg@5": "nDCG@5",
    "recall@10": "R@10",
    "hit@3": "Success@3",
    "rbp@10": "RBP(p=0.9,graded=True)@10",  # trec_eval's rbp with a cutoff or a persistence of its own
    "rbp(p=0.5)": "RBP(p=0.5,graded=True)",
}
TREC_EVAL = {  # trec_eval name -> qrelkit's canonical name
    "P_5": "P@5",
    "P.5": "P@5",
    "recall_10": "R@10",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut.10": "nDCG@10",
    "map": "AP",
    "map_cut_10": "AP@10",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "success_1": "Success@1",
    "rbp": "RBP(p=0.9,graded=True)",  # trec_eval's rbp, not ir_measures' RBP (p=0.8, binary)
}


def _optional(families: dict[str, str]) -> dict[str, str]:
    """Cases whose family the registry declares (the families added with issue 16)."""
    return {k: v for k, v in families.items() if v.split("(")[0].split("@")[0] in SPECS}


NEW_FAMILIES = _optional(
    {
        "Bpref": "Bpref",
        "BPref": "Bpref",
        "bpref": "Bpref",
        "infAP": "infAP",
        "NumQ": "NumQ",
        "num_q": "NumQ",
        "NumRet": "NumRet",
        "num_ret": "NumRet",
        "NumRel": "NumRel",
        "num_rel": "NumRel",
        "NumRelRet": "NumRelRet",
        "num_rel_ret": "NumRelRet",
        "SetP": "SetP",
        "set_P": "SetP",
        "SetR": "SetR",
        "set_recall": "SetR",
        "SetF": "SetF",
        "set_F": "SetF",
        "IPrec@0.1": "IPrec@0.1",
        "IPrec(recall=0.1)": "IPrec@0.1",
        "iprec_at_recall_0.10": "IPrec@0.1",
        "11pt_avg": "IPrec11pt",
        "RBP(p=0.5)": "RBP(p=0.5)",
        "RBP": "RBP",
        "RBP(p=0.9,graded=True)": "RBP(p=0.9,graded=True)",
        "ERR@20": "ERR@20",
        "ERR(max_grade=4)@20": "ERR@20",  # gdeval's top grade is the default
        "ERR(max_grade=3)@20": "ERR(max_grade=3)@20",
        "IPrec(trec_eval=10)@0.1": "IPrec@0.1",
        "IPrec(trec_eval=9)@0.1": "IPrec(trec_eval=9)@0.1",
        "IPrec11pt(trec_eval=9)": "IPrec11pt(trec_eval=9)",
        "Judged": "Judged",
        "DCG@10": "DCG@10",
    }
)


@pytest.mark.parametrize(("written", "canonical"), list({**IR_MEASURES, **COMMON, **TREC_EVAL, **NEW_FAMILIES}.items()))
def test_every_spelling_reads_as_its_canonical_name(written: str, canonical: str) -> None:
    m = parse_measure(written)
    assert m.name == canonical and m.spelled == written
    assert parse_measure(m.name) == m  # the canonical name reads back as the same measure


TREC_SPELLED = {"P.5": "P_5", "ndcg_cut.10": "ndcg_cut_10"}
"""trec_eval's `-m` spelling (a dot) -> the name it prints (an underscore)."""


@pytest.mark.parametrize("written", [*TREC_EVAL, *(n for n in NEW_FAMILIES if n[0].islower() or n[0].isdigit())])
def test_trec_eval_names_round_trip(written: str) -> None:
    m = parse_measure(written)
    assert trec_eval_name(m) == TREC_SPELLED.get(written, written)
    assert parse_measure(TREC_SPELLED.get(written, written)) == m


def test_every_trec_eval_pattern_of_the_registry_is_read() -> None:
    for t in TREC_NAMES:
        name = {"k": f"{t.base}_7", "x": f"{t.base}_0.30", "": t.base}[t.slot]
        m = parse_measure(name)
        assert m.family == t.spec.family and trec_eval_name(m) == name


def test_measures_trec_eval_cannot_name_have_no_trec_eval_name() -> None:
    assert trec_eval_names(["RR@10", "P(rel=2)@5", "nDCG(gain=exp)@10", "Judged@10", "nDCG@10"]) == {
        "nDCG@10": "ndcg_cut_10"
    }


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("nDCG@10 P@5 P(rel=2)@5", ["nDCG@10", "P@5", "P(rel=2)@5"]),
        ('nDCG@10 P@5 "P(rel=2)@5"', ["nDCG@10", "P@5", "P(rel=2)@5"]),  # as ir_measures' README quotes it
        ("nDCG@10,P@5, AP", ["nDCG@10", "P@5", "AP"]),
        (
            "nDCG(gains={0:0,1:1,2:3})@10,P(rel=2, judged_only=True)@5",
            ["nDCG(gains={0:0,1:1,2:3})@10", "P(rel=2,judged_only=True)@5"],
        ),
        ("  map   P_5\tndcg_cut_10 ", ["AP", "P@5", "nDCG@10"]),
        ("P( rel = 2 )@5 RR", ["P(rel=2)@5", "RR"]),
        # trec_eval's parameter lists, as -m takes them
        ("ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
        ("P.5,10,20 recall.100,1000", ["P@5", "P@10", "P@20", "R@100", "R@1000"]),
        ("map_cut.5,10,RR", ["AP@5", "AP@10", "RR"]),
        ("iprec_at_recall.0,.5,1", ["IPrec@0", "IPrec@0.5", "IPrec@1"]),
    ],
)
def test_lists_split_at_commas_and_spaces_outside_parentheses(text: str, names: list[str]) -> None:
    assert [m.name for m in parse_measures(text)] == names
    assert canonical_names(text) == names


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("P@5 P_5", "P_5 and P@5 are the same measure"),
        ("map,AP", "AP and map are the same measure"),
        ("nDCG@10 ndcg_cut_10", "ndcg_cut_10 and nDCG@10 are the same measure"),
        (
            "nDCG(dcg='exp-log2')@10 nDCG(gain=exp)@10",
            "nDCG(gain=exp)@10 and nDCG(dcg='exp-log2')@10 are the same measure",
        ),
    ],
)
def test_the_same_measure_twice_is_refused(text: str, message: str) -> None:
    with pytest.raises(ScoringError) as caught:
        parse_measures(text)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("bad", "message", "suggestion"),
    [
        ("nDGC@10", "unknown measure 'nDGC@10'", "did you mean nDCG@10?"),
        ("Precison@5", "unknown measure 'Precison@5'", "did you mean P@5?"),
        ("ndcg_cutt_10", "unknown measure 'ndcg_cutt_10'", "did you mean ndcg_cut_10?"),
        ("Foo", "unknown measure 'Foo'", ""),
    ],
)
def test_unknown_names_suggest_the_closest_one_in_one_line(bad: str, message: str, suggestion: str) -> None:
    with pytest.raises(ScoringError) as caught:
        parse_measure(bad)
    hint = caught.value.hint or ""
    assert caught.value.message == message and "\n" not in hint
    assert hint.startswith(suggestion) and "NAME[(param=value)][@k]" in hint


def test_a_recall_level_family_asks_for_a_level() -> None:
    with pytest.raises(ScoringError, match=r"IPrec needs a recall level, e\.g\. IPrec@0\.1"):
        parse_measure("IPrec")
    with pytest.raises(ScoringError, match="between 0 and 1"):
        parse_measure("IPrec@1.5")


@pytest.mark.parametrize(
    "bad",
    [
        "nDCG(dcg='exp')@10",  # not an ir_measures dcg value
        "P(judged_only=maybe)@5",
        "nDCG(gains={0:0,0:1})@10",  # a grade twice
        "nDCG(gains=3)@10",
        "P(rel=2@5",
        "P_0",
        "P@1.5",
        "Judged(rel=2)@10",
        "P(cutoff=5)@5",  # the cutoff twice
    ],
)
def test_bad_parameters_and_cutoffs_are_refused(bad: str) -> None:
    with pytest.raises(ScoringError) as caught:
        parse_measure(bad)
    assert "\n" not in caught.value.message and caught.value.hint


def _case(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(6):
        docs = [f"d{i}" for i in range(40)]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docs, 25)}
        qrels[f"q{q}"][docs[0]] = 2  # every query has a relevant document
        run[f"q{q}"] = {d: rng.random() for d in rng.sample(docs, 30)}  # distinct scores: no ties
    return qrels, run


PYTREC = {  # the name pytrec_eval is asked for -> the key its results carry (the trec_eval name)
    "P.5": "P_5",
    "recall.10": "recall_10",
    "ndcg": "ndcg",
    "ndcg_cut.10": "ndcg_cut_10",
    "map": "map",
    "map_cut.10": "map_cut_10",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "success.1": "success_1",
}
PYTREC_NEW = {  # families added with issue 16, compared when the registry declares them
    "bpref": "bpref",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "set_P": "set_P",
    "set_recall": "set_recall",
    "set_F": "set_F",
    "infAP": "infAP",
}


@pytest.mark.parametrize("seed", [1, 2])
def test_trec_eval_names_give_trec_eval_values(seed: int) -> None:
    qrels, run = _case(seed)
    asked = {**PYTREC, **{k: v for k, v in PYTREC_NEW.items() if _known(v)}}
    want = trec_eval(qrels, run, list(asked))
    got = evaluate(qrels, run, list(asked.values()), max_grade=3).per_query()
    for name in asked.values():
        canonical = parse_measure(name).name
        for q in qrels:
            assert got[q][canonical] == pytest.approx(want[q][name], abs=1e-9), (name, q)


def _known(name: str) -> bool:
    try:
        parse_measure(name)
    except ScoringError:
        return False
    return True


def test_measures_page_is_current() -> None:
    """docs/measures.md is generated from the registry (`make generated`): it cannot drift."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "write_measures_docs.py"
    out = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout


def test_measures_page_names_every_family_with_its_names() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "measures.md").read_text(encoding="utf-8")
    for spec in SPECS.values():
        assert f"\n## {spec.family}\n" in page
    for t in TREC_NAMES:
        assert f"`{t.base}" in page


def test_a_list_given_as_a_sequence_is_spelled_out_too() -> None:
    assert [m.name for m in parse_measures(["ndcg_cut.5,10", "P@5"])] == ["nDCG@5", "nDCG@10", "P@5"]
    with pytest.raises(ScoringError, match="unknown measure '10'"):
        parse_measures("nDCG@5,10")  # only trec_eval's BASE.x lists take bare values


def test_rbp_is_trec_eval_s_and_rbp_upper_case_is_ir_measures() -> None:
    assert trec_eval_name(parse_measure("rbp")) == "rbp"
    assert trec_eval_name(parse_measure("RBP")) is None  # ir_measures' RBP: trec_eval has no such measure
    assert trec_eval_name(parse_measure("RBP(p=0.9)")) is None  # binary: not trec_eval's graded rbp


def test_a_trec_eval_name_can_stand_for_parameters() -> None:
    """A `trec_eval` field token `rbp(p=0.9)` says trec_eval's `rbp` is RBP(p=0.9) (trec_eval's
    default persistence, m_rbp.c), not qrelkit's default RBP."""
    rbp = TrecName(SPECS["RBP"], "rbp", "", "p=0.9")
    assert rbp.spell(parse_measure("RBP(p=0.9)")) == "rbp"
    assert rbp.spell(parse_measure("RBP")) is None and rbp.spell(parse_measure("RBP(p=0.5)")) is None
    assert rbp.measure(spelled="rbp") == parse_measure("RBP(p=0.9)")


def test_two_parameter_values_never_share_a_name() -> None:
    close = parse_measures("RBP(p=0.1234567) RBP(p=0.1234568)")
    assert close[0].name == "RBP(p=0.1234567)" and close[1].name == "RBP(p=0.1234568)"
    assert parse_measure("RBP(p=0.90)").name == "RBP(p=0.9)"  # yet short when short says it all
