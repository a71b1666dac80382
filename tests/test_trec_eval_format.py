"""`score --format trec_eval` against trec_eval 10.0's own outputs (tests/data/trec_eval/, see its
README): trec_eval's test files and generated graded cases.

The expected files hold every `all_trec` measure. A measure is compared when qrelkit computes it
under that trec_eval name (`parse_measure(name)` reads it and `trec_eval_name` gives the name
back): the expected file is filtered to those measures and qrelkit's output must equal it byte for
byte (layout, order, 4 decimals, integers for the counts, `runid`, `num_q`, the `all` rows). A
measure qrelkit learns later is compared without a change here.

Skipped: the measures qrelkit has no family for (at the time of writing `relstring`).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from conftest import Cli
from oracle import trec_eval as pytrec_eval
from qrelkit.errors import ScoringError
from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate
from qrelkit.scoring.names import parse_measure, trec_eval_name

DATA = Path(__file__).parent / "data" / "trec_eval"

CASES = {
    "out.test.aq": ("qrels.test", "results.test"),
    "out.test.aqc": ("qrels.test", "results.trunc"),
    "out.test.aql": ("qrels.rel_level", "results.test", "--relevance-level", "2"),
    "out.comment.test.aqc": ("qrels.comment.test", "results.comment.test"),
    "out.gen1.aqc": ("gen1.qrels", "gen1.run"),
    "out.gen2.aqc": ("gen2.qrels", "gen2.run"),
    "out.gen3.aqc": ("gen3.qrels", "gen3.run"),
}
"""Expected output -> (qrels, run, options). qrelkit scores every query of the qrels, trec_eval's
-c (which the files without it do not need: their runs have every query); -l2 is --relevance-level 2."""

ALWAYS = {"runid", "num_q"}
"""Lines trec_eval prints whatever measures are chosen, and so does qrelkit."""


def _name(line: str) -> str:
    return line.split("\t", 1)[0].rstrip()


def computed(name: str) -> bool:
    """Whether qrelkit computes the trec_eval measure `name` under that very name."""
    try:
        return trec_eval_name(parse_measure(name)) == name
    except ScoringError:
        return False


def expected(case: str) -> tuple[list[str], list[str], list[str]]:
    """(the expected lines qrelkit must print, the measures compared, the measures skipped)."""
    lines = (DATA / case).read_text(encoding="utf-8").splitlines()
    names = list(dict.fromkeys(_name(x) for x in lines))
    compared = [n for n in names if n not in ALWAYS and computed(n)]
    skipped = [n for n in names if n not in ALWAYS and n not in compared]
    return [x for x in lines if _name(x) in ALWAYS or _name(x) in compared], compared, skipped


CORE = ["map", "Rprec", "recip_rank", "P_5", "P_1000", "recall_10", "ndcg", "ndcg_cut_10", "map_cut_1000", "success_1"]
CORE += ["iprec_at_recall_0.10", "11pt_avg", "set_F", "rbp", "bpref", "infAP", "num_rel_ret"]
"""trec_eval measures qrelkit computes: these must be among the compared ones."""
REST_OF_ALL_TREC = [
    "gm_map", "gm_bpref", "Rprec_mult_0.20", "Rprec_mult_2.00", "utility", "binG", "G", "ndcg_rel", "Rndcg",
    "relative_P_5", "relative_P_1000", "set_relative_P", "set_map", "num_nonrel_judged_ret", "rbp_resid",
    "unj_5", "unj_20",
]  # fmt: skip
"""The rest of `all_trec` (kernels_trec, the geometric means): compared too."""


def _args(case: str) -> list[str]:
    qrels, run, *options = CASES[case]
    return ["score", "--qrels", str(DATA / qrels), str(DATA / run), *options]


@pytest.mark.parametrize("case", list(CASES))
def test_trec_eval_output_is_reproduced_byte_for_byte(run_cli: Cli, case: str) -> None:
    want, compared, skipped = expected(case)
    assert set(CORE) <= set(compared), skipped
    assert set(REST_OF_ALL_TREC) <= set(compared), skipped
    result = run_cli(*_args(case), "--metrics", " ".join(compared), "--format", "trec_eval", "--per-query")
    assert result.output.splitlines() == want


@pytest.mark.parametrize("case", ["out.test.aqc", "out.gen3.aqc"])
def test_without_per_query_only_the_all_rows_are_printed(run_cli: Cli, case: str) -> None:
    want, compared, _ = expected(case)
    result = run_cli(*_args(case), "--metrics", ",".join(compared), "--format", "trec_eval")
    assert result.output.splitlines() == [x for x in want if x.split("\t")[1] == "all"]


def test_measures_trec_eval_lacks_follow_under_qrelkit_names(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n1 0 b 0\n")
    run = run_cli.write("r.run", "1 Q0 x 1 3.0 mine\n1 Q0 a 2 2.0 mine\n")
    out = run_cli("score", "--qrels", str(qrels), str(run), "--metrics", "Judged@2 P@1", "--format", "trec_eval")
    rows = [line.split("\t") for line in out.output.splitlines()]
    # P@1: x is unlabeled, so 0/1; Judged@2: one of the two retrieved carries a label, 1/2
    assert rows[:2] == [["runid                 ", "all", "mine"], ["num_q                 ", "all", "1"]]
    assert [r[0].rstrip() for r in rows[2:]][-2:] == ["P_1", "Judged@2"]
    assert rows[-2][2] == "0.0000" and rows[-1][2] == "0.5000"


def test_names_trec_eval_renames_tables_and_trec_lines(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n1 0 b 0\n")
    run = run_cli.write("r.run", "1 Q0 a 1 3.0 mine\n1 Q0 b 2 2.0 mine\n")
    args = ["score", "--qrels", str(qrels), str(run), "--metrics", "nDCG@10,AP,RR@1", "--names", "trec_eval"]
    trec = run_cli(*args, "--format", "trec").output.splitlines()
    # a ranked first: AP = 1/1, nDCG@10 = 1 (the ideal ranking), RR@1 = 1 (no trec_eval name)
    assert trec == ["ndcg_cut_10\tall\t1.000000", "map\tall\t1.000000", "RR@1\tall\t1.000000"]
    table = run_cli(*args).output
    assert "ndcg_cut_10" in table and "map" in table and "nDCG@10" not in table
    json_out = run_cli(*args, "--format", "json").output
    assert '"nDCG@10"' in json_out and "ndcg_cut_10" not in json_out  # JSON keeps canonical names


def test_the_interval_of_a_count_is_not_clipped_to_1() -> None:
    run = {"a": {"1": 1.0, "2": 0.5}, "b": {"1": 1.0, "2": 0.5, "3": 0.2, "4": 0.1}}
    ev = evaluate({"a": {"x": 1}, "b": {"y": 1}}, run, "NumRet")
    fp = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=["NumRet"],
        relevance_threshold=1,
        max_grade=1,
        qrelkit_version="t",
    )
    m = ev.report(fp).metrics["NumRet"]
    # 2 and 4 retrieved: mean 3, sd sqrt(2), se sqrt(2)/sqrt(2) = 1, t(0.975, df 1) = 12.706204736
    assert m.mean == 3.0 and m.se == pytest.approx(1.0)
    assert m.ci95 == pytest.approx((0.0, 3.0 + 12.706204736))


def test_several_runs_print_one_block_each_with_its_runid(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n2 0 b 1\n")
    one = run_cli.write("one.run", "1 Q0 a 1 3.0 first\n2 Q0 x 1 1.0 first\n")
    two = run_cli.write("two.jsonl", '{"query_id": "1", "doc_id": "z", "score": 1.0}\n')
    out = run_cli("score", "--qrels", str(qrels), str(one), str(two), "--metrics", "P_1", "--format", "trec_eval")
    rows = [line.split("\t") for line in out.output.splitlines()]
    # one.run: query 1 has a first (relevant), query 2 has x (not): P_1 = (1 + 0) / 2, 1 + 1 retrieved;
    # two.jsonl (no run tag: its file name): only z for query 1, P_1 = 0, 1 retrieved
    counts = ["num_q", "num_ret", "num_rel", "num_rel_ret", "P_1"]
    assert [(r[0].rstrip(), r[2]) for r in rows] == [
        ("runid", "first"), *zip(counts, ["2", "2", "2", "1", "0.5000"], strict=True),
        ("runid", "two.jsonl"), *zip(counts, ["2", "1", "2", "0", "0.0000"], strict=True),
    ]  # fmt: skip


def _read(path: Path, value: type) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        f = text.split()
        q, d, v = (f[0], f[2], f[3]) if value is int else (f[0], f[2], f[4])
        out.setdefault(q, {})[d] = value(v) if value is int else float(v)
    return out


def test_reference_pytrec_eval_prints_what_pytrec_eval_computes(run_cli: Cli) -> None:
    """--reference pytrec_eval: float32 scores and trec_eval 9's rank of a recall level, so the
    per-query lines carry pytrec_eval's values; trec_eval 10's differ on some of them."""
    measures = ["iprec_at_recall", "11pt_avg", "map", "P_10", "ndcg_cut_10"]
    names = [*(f"iprec_at_recall_{x / 10:.2f}" for x in range(11)), "11pt_avg", "map", "P_10", "ndcg_cut_10"]
    qrels = _read(DATA / "gen1.qrels", int)
    run = {q: docs for q, docs in _read(DATA / "gen1.run", float).items() if q in qrels}
    ref = pytrec_eval(qrels, run, measures)  # type: ignore[arg-type]
    args = ["score", "--qrels", str(DATA / "gen1.qrels"), str(DATA / "gen1.run"), "--metrics", " ".join(names)]
    lines = run_cli(*args, "--format", "trec_eval", "--per-query", "--reference", "pytrec_eval").output
    got = {(f[0].rstrip(), f[1]): f[2] for f in (x.split("\t") for x in lines.splitlines())}
    compared = 0
    for q, values in ref.items():
        for name in names:
            want = values[name]
            assert got[(name, q)] == f"{0.0 if math.isnan(want) else want:6.4f}", (name, q)
            compared += 1
    assert compared > 300
    te10 = run_cli(*args, "--format", "trec_eval", "--per-query").output.splitlines()
    assert sorted(te10) != sorted(lines.splitlines())  # the two references differ on these data


def test_reference_pytrec_eval_computes_the_trec_eval_9_variant() -> None:
    from qrelkit.scoring.names import for_reference

    assert for_reference(parse_measure("iprec_at_recall_0.10"), "pytrec_eval").name == "IPrec(trec_eval=9)@0.1"
    assert for_reference(parse_measure("11pt_avg"), "pytrec_eval").name == "IPrec11pt(trec_eval=9)"
    assert for_reference(parse_measure("P_5"), "pytrec_eval").name == "P@5"
    assert trec_eval_name(parse_measure("IPrec(trec_eval=9)@0.1")) is None  # not trec_eval 10's number
    assert trec_eval_name(parse_measure("IPrec(trec_eval=9)@0.1"), "pytrec_eval") == "iprec_at_recall_0.10"


GOLDEN = Path(__file__).resolve().parents[1] / "goldensets" / "pydocs"


def _json_metrics(out: str) -> dict[str, float]:
    import json

    rep = json.loads(out)["reports"][0]
    return {name: m["mean"] for name, m in rep["metrics"].items()} | {
        "threshold": rep["fingerprint"]["relevance_threshold"],
        "max_grade": rep["fingerprint"]["max_grade"],
    }


def test_relevance_level_is_trec_eval_s_l_for_qrels_and_a_golden_set(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n1 0 b 2\n1 0 c 0\n")
    run = run_cli.write("r.run", "1 Q0 a 1 3.0 mine\n1 Q0 b 2 2.0 mine\n1 Q0 c 3 1.0 mine\n")
    base = ["score", "--qrels", str(qrels), str(run), "--format", "json", "--metrics", "P@2 P(rel=2)@2"]
    plain, level2 = _json_metrics(run_cli(*base).output), _json_metrics(run_cli(*base, "--relevance-level", "2").output)
    # a (1) and b (2) in the top 2: P@2 = 2/2 at threshold 1, 1/2 at threshold 2 (= P(rel=2)@2)
    assert plain["P@2"] == 1.0 and level2["P@2"] == 0.5 == level2["P(rel=2)@2"]
    assert (plain["threshold"], level2["threshold"], level2["max_grade"]) == (1, 2, 2)
    # the scale's top: unlabeled documents may take it in the bounds, and the fingerprint says it
    assert _json_metrics(run_cli(*base, "--max-grade", "5").output)["max_grade"] == 5
    golden = ["score", "--golden", str(GOLDEN / "1.0"), str(GOLDEN / "runs" / "bm25.run"), "--format", "json"]
    golden += ["--metrics", "P@10 P(rel=2)@10"]
    own, moved = (
        _json_metrics(run_cli(*golden).output),
        _json_metrics(run_cli(*golden, "--relevance-level", "2").output),
    )
    assert own["threshold"] == 1 and own["max_grade"] == 3  # the golden set's own scale
    assert moved["threshold"] == 2 and moved["P@10"] == own["P(rel=2)@10"] and moved["max_grade"] == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--max-grade", "1"], "q.txt holds grade 2, above --max-grade 1"),
        (["--max-grade", "2", "--relevance-level", "3"], "--relevance-level 3 is outside the scale's grades 1..2"),
    ],
)
def test_a_scale_that_cannot_hold_the_qrels_is_refused_in_one_line(
    run_cli: Cli, options: list[str], message: str
) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n1 0 b 2\n")
    run = run_cli.write("r.run", "1 Q0 a 1 3.0 mine\n")
    result = run_cli("score", "--qrels", str(qrels), str(run), *options, ok=False)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_relevance_level_reaches_compare(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 1\n1 0 b 2\n2 0 c 2\n2 0 d 1\n")
    one = run_cli.write("one.run", "1 Q0 a 1 3.0 one\n1 Q0 b 2 2.0 one\n2 Q0 d 1 2.0 one\n2 Q0 c 2 1.0 one\n")
    two = run_cli.write("two.run", "1 Q0 b 1 3.0 two\n1 Q0 a 2 2.0 two\n2 Q0 c 1 2.0 two\n2 Q0 d 2 1.0 two\n")
    out = run_cli(
        "compare", str(one), str(two), "--qrels", str(qrels), "--metrics", "P@1", "--relevance-level", "2",
        "--format", "json", "--resamples", "1000",
    ).output  # fmt: skip
    # at threshold 2 only b and c are relevant: P@1 is 0 for `one` (a, d first), 1 for `two`
    assert '"relevance_threshold": 2' in out


def test_err_follows_gdeval_and_refuses_a_grade_above_its_top(run_cli: Cli) -> None:
    qrels = run_cli.write("q.txt", "1 0 a 3\n1 0 b 0\n")
    run = run_cli.write("r.run", "1 Q0 a 1 3.0 mine\n")
    out = _json_metrics(
        run_cli("score", "--qrels", str(qrels), str(run), "--format", "json", "--metrics",
                "ERR@10 ERR(max_grade=3)@10").output
    )  # fmt: skip
    # a grade-3 document first: (2^3 - 1) / 2^4 with gdeval's top grade 4, (2^3 - 1) / 2^3 with 3
    assert out["ERR@10"] == 7 / 16 and out["ERR(max_grade=3)@10"] == 7 / 8
    high = run_cli.write("h.txt", "1 0 a 5\n")
    result = run_cli("score", "--qrels", str(high), str(run), "--metrics", "ERR@10", ok=False)
    assert result.exit_code == 2 and "ERR(max_grade=5)@10" in result.output and "Traceback" not in result.output


def test_rbp_is_trec_eval_s_graded_rbp() -> None:
    """trec_eval 10.0 on these qrels and run (`-m rbp -q`, checked once by hand): 0.1300, 0.1450.
    q1: a (3), b (1) on a 0..3 query: 0.1 (3/3 + 0.9 x 1/3); q2: y (2), x (1) on 0..2: 0.1 (1 + 0.9 x 1/2)."""
    qrels = {"1": {"a": 3, "b": 1, "c": 0}, "2": {"x": 1, "y": 2}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"y": 3.0, "x": 2.0, "z": 1.0}}
    ev = evaluate(qrels, run, "rbp RBP RBP(p=0.9)", relevance_threshold=2)
    got = ev.per_query()
    assert got["1"]["RBP(p=0.9,graded=True)"] == pytest.approx(0.13, abs=1e-12)
    assert got["2"]["RBP(p=0.9,graded=True)"] == pytest.approx(0.145, abs=1e-12)
    # binary at the threshold 2: only a (q1, rank 1) and y (q2, rank 1) gain
    assert got["1"]["RBP(p=0.9)"] == pytest.approx(0.1, abs=1e-12)
    assert got["1"]["RBP"] == pytest.approx(0.2, abs=1e-12)


def test_graded_rbp_bounds_hold_every_labeling() -> None:
    """A new label above a query's top grade rescales the other gains: the lower bound allows it."""
    import itertools

    from qrelkit.scoring.measures import Measure

    m = Measure("RBP", 3, p=0.5, graded=True)
    labels = {"a": 1, "far": 0}
    run = {"a": 3.0, "u": 2.0, "v": 1.0, "w": 0.5}  # u, v inside the window; w past it
    ev = evaluate({"q": labels}, {"q": run}, [m], max_grade=3)
    seen = [
        evaluate({"q": {**labels, "u": g1, "v": g2, "w": g3}}, {"q": run}, [m], max_grade=3).values(m.name)["q"]
        for g1, g2, g3 in itertools.product(range(4), repeat=3)
    ]
    s = ev.scores[m.name]
    assert min(seen) == pytest.approx(s.low[0], abs=1e-12)
    assert max(seen) <= s.high[0] + 1e-12


def test_judged_without_a_cutoff_is_over_all_retrieved() -> None:
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0, "y": 0.5}}, "Judged Judged@2")
    assert ev.per_query()["q"] == {"Judged": 0.5, "Judged@2": 0.5}
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}, "Judged Judged@2")
    assert ev.per_query()["q"] == pytest.approx({"Judged": 2 / 3, "Judged@2": 1.0})
