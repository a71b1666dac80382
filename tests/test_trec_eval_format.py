"""`score --format trec_eval` against trec_eval 10.0's own outputs (tests/data/trec_eval/, see its
README): trec_eval's test files and generated graded cases.

The expected files hold every `all_trec` measure. A measure is compared when qrelkit computes it
under that trec_eval name (`parse_measure(name)` reads it and `trec_eval_name` gives the name
back): the expected file is filtered to those measures and qrelkit's output must equal it byte for
byte (layout, order, 4 decimals, integers for the counts, `runid`, `num_q`, the `all` rows). A
measure qrelkit learns later is compared without a change here.
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
from qrelkit.scoring.measures import parse_measure
from qrelkit.scoring.names import trec_eval_name

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


def _args(case: str) -> list[str]:
    qrels, run, *options = CASES[case]
    return ["score", "--qrels", str(DATA / qrels), str(DATA / run), *options]


@pytest.mark.parametrize("case", list(CASES))
def test_trec_eval_output_is_reproduced_byte_for_byte(run_cli: Cli, case: str) -> None:
    want, compared, skipped = expected(case)
    assert set(CORE) <= set(compared), skipped
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
    assert m.ci95 == (0.0, pytest.approx(3.0 + 12.706204736))


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
    ref = pytrec_eval(qrels, run, measures)
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
