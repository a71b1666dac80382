"""Queries are never silently lost or added: which queries a mean is over, as trec_eval -c.

- A golden-set query the run lacks scores 0 (trec_eval -c), is counted, and is named in
  per-query output, in comparisons (each side) and in leaderboards.
- A golden-set query with no label of any grade is left out of every mean, as trec_eval leaves
  out a query its qrels lack, and counted; `--keep-unlabeled-queries` scores it 0.
- A query whose labels are all grade 0 (or a pooled -1 beside a 0) is in trec_eval's qrels:
  it stays in every mean, at 0 (checked against trec_eval 10's own output, tests/data/query_sets).
- A run that shares no query id with the golden set is an input error (exit 2), not a 0.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from conftest import DATA, Cli, one_report
from oracle import trec_eval
from qrelkit.scoring import evaluate
from qrelkit.workflows.scoring import KEPT_POLICY

SETS = DATA / "query_sets"
QRELS, RUN = SETS / "qrels.txt", SETS / "run.txt"
METRICS = "AP,P@5,RR,nDCG,nDCG@10,R@5,Rprec,Bpref,Success@5,infAP"
TREC_NAMES = {
    "AP": "map", "P@5": "P_5", "RR": "recip_rank", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10", "R@5": "recall_5",
    "Rprec": "Rprec", "Bpref": "bpref", "Success@5": "success_5", "infAP": "infAP",
}  # fmt: skip
QUERIES = "q1\tone\ts\nq2\ttwo\ts\nq3\tthree\ts\nq4\tfour\ts\nq6\tsix, in the run\ts\nq7\tseven\ts\n"
"""The golden set: the qrels' four queries and two with no label (q6 is in the run, q7 is not)."""


def _trec_eval() -> tuple[dict[str, dict[str, float]], int]:
    """trec_eval 10's `-c -q` output: measure -> query (or `all`) -> value, and num_q."""
    values: dict[str, dict[str, float]] = {}
    num_q = 0
    for line in (SETS / "trec_eval_c_q.txt").read_text().splitlines():
        name, query, value = line.split()
        if name == "num_q":
            num_q = int(value)
        elif name != "runid":
            values.setdefault(name, {})[query] = float(value)
    return values, num_q


def _store(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", QUERIES)), "--create-strata")
    run_cli("import", "qrels", str(QRELS))


def _score(run_cli: Cli, *args: str) -> dict:  # type: ignore[type-arg]
    out = run_cli("score", *args, "--metrics", METRICS, "--format", "json", "--per-query").output
    return one_report(out)


def _agrees_with_trec_eval(report: dict, share: float = 1.0) -> None:  # type: ignore[type-arg]
    """The means are trec_eval -c's (times `share`: the mean over more queries, the extra at 0);
    trec_eval prints 4 decimals."""
    reference, _ = _trec_eval()
    for ours, theirs in TREC_NAMES.items():
        assert report["metrics"][ours]["mean"] == pytest.approx(reference[theirs]["all"] * share, abs=5e-5), ours


def test_a_qrels_file_scores_as_trec_eval_minus_c(run_cli: Cli) -> None:
    report = _score(run_cli, str(RUN), "--qrels", str(QRELS))
    _, num_q = _trec_eval()
    q = report["queries"]
    assert q["evaluated"] == num_q == 4
    assert (q["missing_from_run"], q["run_only"], q["unlabeled"], q["unlabeled_kept"]) == (1, 2, 0, False)
    assert report["missing_from_run"] == ["q4"] and report["unlabeled_queries"] == []
    _agrees_with_trec_eval(report)


def test_queries_judged_not_relevant_stay_in_every_mean_at_zero(run_cli: Cli) -> None:
    # q2: every label grade 0; q3: a grade 0 and a pooled -1. Both are in trec_eval's qrels, in
    # its num_q, and 0 in every measure; so are they here, measure by measure
    reference, _ = _trec_eval()
    report = _score(run_cli, str(RUN), "--qrels", str(QRELS))
    for ours, theirs in TREC_NAMES.items():
        for qid in ("q2", "q3"):
            assert report["per_query"][qid][ours]["value"] == reference[theirs][qid] == 0.0, (ours, qid)
        assert report["metrics"][ours]["n"] == 4


def test_the_store_leaves_out_queries_with_no_label_as_trec_eval_does(run_cli: Cli) -> None:
    _store(run_cli)
    report = _score(run_cli, str(RUN))
    q = report["queries"]
    assert (q["evaluated"], q["missing_from_run"], q["run_only"], q["unlabeled"]) == (4, 1, 1, 2)
    assert q["unlabeled_kept"] is False and report["unlabeled_queries"] == ["q6", "q7"]
    assert set(report["per_query"]) == {"q1", "q2", "q3", "q4"}
    assert report["fingerprint"]["query_policy"] != KEPT_POLICY
    _agrees_with_trec_eval(report)  # the store scores as trec_eval -c scores its exported qrels
    exported = run_cli.write("exported.qrels", run_cli("export", "qrels").output)
    again = _score(run_cli, str(RUN), "--qrels", str(exported))
    assert again["queries"]["evaluated"] == 4
    for m in TREC_NAMES:
        assert again["metrics"][m]["mean"] == pytest.approx(report["metrics"][m]["mean"], abs=1e-12)
    table = run_cli("score", str(RUN), "--metrics", "AP").output
    assert "2 golden-set queries have no labels: left out (--keep-unlabeled-queries scores them 0)." in table


def test_keep_unlabeled_queries_scores_them_zero(run_cli: Cli) -> None:
    _store(run_cli)
    report = _score(run_cli, str(RUN), "--keep-unlabeled-queries")
    q = report["queries"]
    assert (q["evaluated"], q["missing_from_run"], q["unlabeled"], q["unlabeled_kept"]) == (6, 2, 2, True)
    assert report["missing_from_run"] == ["q4", "q7"] and report["unlabeled_queries"] == ["q6", "q7"]
    assert all(v["value"] == 0.0 for qid in ("q6", "q7") for v in report["per_query"][qid].values())
    assert report["fingerprint"]["query_policy"] == KEPT_POLICY
    _agrees_with_trec_eval(report, share=4 / 6)
    table = run_cli("score", str(RUN), "--metrics", "AP", "--per-query", "--keep-unlabeled-queries").output
    assert "2 golden-set queries have no labels: scored 0 (--keep-unlabeled-queries)." in table
    assert "q7 (not in run: 0; no labels: 0)" in table and "q6 (no labels: 0)" in table
    # the two policies are not comparable: compare says so rather than pairing them silently
    kept = run_cli.write("kept.json", run_cli("score", str(RUN), "--format", "json", "--per-query",
                                              "--keep-unlabeled-queries").output)  # fmt: skip
    refused = run_cli("compare", str(kept), str(RUN), ok=False)
    assert refused.exit_code == 2 and "query policy differs" in refused.output


def test_the_python_api_leaves_out_a_query_with_no_label_unless_kept() -> None:
    qrels = {"a": {"d1": 1, "d2": 0}, "z": {"x": 0}, "e": {}}
    run = {"a": {"d2": 2.0, "d1": 1.0}, "z": {"x": 1.0}, "e": {"d1": 1.0}}
    names = list(TREC_NAMES)
    ev = evaluate(qrels, run, names, queries=["a", "z", "e", "never"])
    assert ev.query_ids == ["a", "z"] and ev.unlabeled == ["e", "never"]
    counts = ev.counts()
    assert (counts.evaluated, counts.unlabeled, counts.unlabeled_kept, counts.no_relevant) == (2, 2, False, 1)
    reference = trec_eval(qrels, run, sorted(set(TREC_NAMES.values())))  # pytrec_eval: 1e-9
    assert set(reference) == {"a", "z"}
    for m in ev.measures:
        expected = sum(reference[q][TREC_NAMES[m.name]] for q in ("a", "z")) / 2
        assert ev.means()[m.name] == pytest.approx(expected, abs=1e-9), m.name
    kept = evaluate(qrels, run, names, queries=["a", "z", "e", "never"], keep_unlabeled=True)
    assert kept.query_ids == ["a", "z", "e", "never"] and kept.counts().unlabeled_kept
    assert kept.missing_from_run() == ["never"]
    for m in ev.measures:
        assert kept.means()[m.name] == pytest.approx(ev.means()[m.name] / 2, abs=1e-12)


@pytest.mark.parametrize("source", ["store", "qrels"])
def test_a_run_that_shares_no_query_is_an_error(run_cli: Cli, source: str) -> None:
    other = run_cli.write("run.txt", "301 Q0 d1 1 3.0 r\n302 Q0 d1 1 3.0 r\n")
    args = ["--qrels", str(QRELS)] if source == "qrels" else []
    if source == "store":
        _store(run_cli)
    for command in (["score", str(other)], ["compare", str(RUN), str(other)]):
        result = run_cli(*command, *args, ok=False)
        what = "the golden set" if source == "store" else "the qrels"
        side = "golden set" if source == "store" else "qrels"
        assert result.exit_code == 2, result.output
        assert f"run.txt shares no query with {what} (run: '301', {side}: 'q1')" in result.output
        assert "are they for the same topics?" in result.output
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_run_of_the_golden_sets_unlabeled_queries_only_is_scored(run_cli: Cli) -> None:
    # it shares ids with the golden set (the topics are right), so it is no error: every
    # evaluated query is missing from it, and the report says so
    _store(run_cli)
    report = _score(run_cli, str(run_cli.write("q6.run", "q6 Q0 d1 1 1.0 r\n")))
    q = report["queries"]
    assert (q["evaluated"], q["missing_from_run"], q["unlabeled"]) == (4, 4, 2)


def _lacking_run(run_cli: Cli) -> Path:
    """RUN without q1: a run that lacks a query the other has."""
    kept = [line for line in RUN.read_text().splitlines() if not line.startswith("q1 ")]
    return run_cli.write("lacks.run", "\n".join(kept) + "\n")


def test_compare_says_how_many_queries_each_side_lacks(run_cli: Cli) -> None:
    lacks = _lacking_run(run_cli)
    args = [str(RUN), str(lacks), "--qrels", str(QRELS), "--metrics", "AP"]
    text = run_cli("compare", *args).output
    assert "4 queries paired (A's run lacks 1, B's run lacks 2: scored 0)" in text
    assert "B lacks.run has no document for 2 paired queries, scored 0 there" in text and "q1, q4" in text
    assert "A run.txt has no document for 1 paired query" in text
    c = json.loads(run_cli("compare", *args, "--format", "json").output)
    assert c["missing_a"] == ["q4"] and c["missing_b"] == ["q1", "q4"]
    assert c["baseline_queries"]["missing_from_run"] == 1 and c["candidate_queries"]["missing_from_run"] == 2
    page = run_cli("compare", *args, "--format", "html").output
    assert "A&#x27;s run lacks 1, B&#x27;s run lacks 2: scored 0" in page
    assert "not in B&#x27;s run: scored 0" in page and "not in A or B&#x27;s run: scored 0" in page
    assert 'stroke-dasharray="3 2"' in page and "outlined: a query one run lacks (scored 0)" in page
    same = run_cli("compare", str(RUN), str(RUN), "--qrels", str(QRELS), "--metrics", "AP").output
    assert "4 queries paired (A's run lacks 1, B's run lacks 1: scored 0)" in same
    full = run_cli.write("full.run", RUN.read_text() + "q4 Q0 d9 1 1.0 r\n")
    clean = run_cli("compare", str(full), str(full), "--qrels", str(QRELS), "--metrics", "AP").output
    assert "4 queries paired (none missing from either run)" in clean


def test_compare_counts_the_queries_with_no_label(run_cli: Cli) -> None:
    _store(run_cli)
    text = run_cli("compare", str(RUN), str(_lacking_run(run_cli)), "--metrics", "AP").output
    assert "2 golden-set queries have no labels: left out (--keep-unlabeled-queries scores them 0)." in text
    kept = run_cli("compare", str(RUN), str(RUN), "--metrics", "AP", "--keep-unlabeled-queries").output
    assert "6 queries paired (A's run lacks 2, B's run lacks 2: scored 0)" in kept
    assert "2 golden-set queries have no labels: scored 0 (--keep-unlabeled-queries)." in kept
    page = run_cli("compare", str(RUN), str(RUN), "--metrics", "AP", "--format", "html").output
    assert "2 golden-set queries have no labels: left out" in page


def test_the_leaderboard_names_what_each_run_lacks(run_cli: Cli) -> None:
    _store(run_cli)
    lacks = _lacking_run(run_cli)
    args = [str(RUN), str(lacks), str(RUN), "--metrics", "AP", "--resamples", "1000"]
    board = json.loads(run_cli("compare", *args, "--format", "json").output)
    assert [r["missing_from_run"] for r in board["rows"]] == [["q4"], ["q1", "q4"], ["q4"]]
    assert [r["queries"]["unlabeled"] for r in board["rows"]] == [2, 2, 2]
    text = run_cli("compare", *args).output
    assert "4 queries (3 runs lack some, scored 0 there)" in text
    assert "lacks.run: its run has no document for 2 of the compared queries, scored 0 there: q1, q4" in text
    assert "2 golden-set queries have no labels: left out" in text
    rows = csv.DictReader(io.StringIO(run_cli("compare", *args, "--format", "csv").output))
    assert list(dict.fromkeys((r["run"], r["missing_from_run"], r["unlabeled"]) for r in rows)) == [
        ("run.txt", "1", "2"), ("lacks.run", "2", "2"), ("run.txt#2", "1", "2"),
    ]  # fmt: skip
    page = run_cli("compare", *args, "--format", "html").output
    assert "lacks 2 (scored 0)" in page and "4 queries (3 runs lack some, scored 0 there)" in page
    assert "its run has no document for 2 of the compared queries, scored 0 there: q1, q4" in page


def test_per_query_output_marks_the_queries_the_run_lacks(run_cli: Cli) -> None:
    args = [str(RUN), "--qrels", str(QRELS), "--metrics", "AP,RR", "--per-query"]
    table = run_cli("score", *args).output
    assert "q4 (not in run: 0)" in table and "q1 (" not in table
    assert "macro mean over 4 queries: 1 missing from the run (scored 0)" in table
    rows = list(csv.DictReader(io.StringIO(run_cli("score", *args, "--format", "csv").output)))
    assert {(r["query"], r["in_run"]) for r in rows} == {("q1", "true"), ("q2", "true"), ("q3", "true"),
                                                         ("q4", "false")}  # fmt: skip
    summary = list(csv.DictReader(io.StringIO(run_cli("score", *args[:-1], "--format", "csv").output)))
    assert {(r["missing_from_run"], r["unlabeled"]) for r in summary} == {("1", "0")}
