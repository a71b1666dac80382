"""`score --format trec_eval` against trec_eval's own expected outputs (tests/data/trec_eval/).

The expected files hold every `all_trec` measure. A measure is compared when qrelkit computes it
under that trec_eval name (`parse_measure(name)` reads it and `trec_eval_name` gives the name
back): the expected file is filtered to those measures and qrelkit's output must equal it line for
line (layout, order, 4 decimals, integers for the counts, `runid`, `num_q`, the `all` rows).

Skipped: the measures qrelkit has no family for (at the time of writing `gm_map`, `gm_bpref`,
`relstring`, `Rprec_mult_*`, `utility`, `binG`, `G`, `ndcg_rel`, `Rndcg`, `relative_P_*`,
`set_relative_P`, `set_map`, `num_nonrel_judged_ret`, `rbp`, `rbp_resid`, `unj_*`; a family added
later is compared automatically), and `DIFFERS`: measures qrelkit computes knowingly otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli
from qrelkit.errors import ScoringError
from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate
from qrelkit.scoring.measures import parse_measure
from qrelkit.scoring.names import trec_eval_name

DATA = Path(__file__).parent / "data" / "trec_eval"

CASES = {"out.test.aq": "results.test", "out.test.aqc": "results.trunc"}
"""Expected output -> the run it was made from (both against qrels.test; qrelkit scores every
query of the qrels, trec_eval's -c, which only `results.trunc` needs: it has no topic 302)."""

DIFFERS = {
    "iprec_at_recall_": "trec_eval 10 turns level x R into a rank with lround; qrelkit truncates "
    "level x R + 0.9, as trec_eval 9 and pytrec_eval do (2 of the 33 per-query values in out.test.aq)",
    "11pt_avg": "the mean of the 11 iprec_at_recall values, so the same difference",
}
"""trec_eval name prefix -> why qrelkit's value differs from trec_eval 10's (docs/measures.md)."""

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
    compared = [n for n in names if n not in ALWAYS and computed(n) and not n.startswith(tuple(DIFFERS))]
    skipped = [n for n in names if n not in ALWAYS and n not in compared]
    return [x for x in lines if _name(x) in ALWAYS or _name(x) in compared], compared, skipped


CORE = ["map", "Rprec", "recip_rank", "P_5", "P_1000", "recall_10", "ndcg", "ndcg_cut_10", "map_cut_1000", "success_1"]
"""trec_eval measures qrelkit has always computed: these must be among the compared ones."""


@pytest.mark.parametrize("case", list(CASES))
def test_trec_eval_output_is_reproduced_line_for_line(run_cli: Cli, case: str) -> None:
    want, compared, skipped = expected(case)
    assert set(CORE) <= set(compared), skipped
    result = run_cli(
        "score",
        "--qrels",
        str(DATA / "qrels.test"),
        str(DATA / CASES[case]),
        "--metrics",
        " ".join(compared),
        "--format",
        "trec_eval",
        "--per-query",
    )
    assert result.output.splitlines() == want


@pytest.mark.parametrize("case", list(CASES))
def test_without_per_query_only_the_all_rows_are_printed(run_cli: Cli, case: str) -> None:
    want, compared, _ = expected(case)
    result = run_cli(
        "score", "--qrels", str(DATA / "qrels.test"), str(DATA / CASES[case]), "--metrics", ",".join(compared),
        "--format", "trec_eval",
    )  # fmt: skip
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
