"""The rules that used to be written in two to four places, now held once in `qrelkit.workflows`,
checked through both edges where both show them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT, Cli, one_report
from qrelkit.storage import Store
from qrelkit.workflows import queue, scoring, sources
from qrelkit.workflows.judging import JudgingSession

DEMO = ROOT / "goldensets" / "pydocs"
RUNS = [DEMO / "runs" / "bm25.run", DEMO / "runs" / "bm25-title.run"]


def _pooled_store(run_cli: Cli) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    run_cli("pool", *map(str, RUNS), "--depth", "20")


def test_the_queue_command_and_the_judging_screen_give_one_order(run_cli: Cli) -> None:
    """An assessor's own assignments come first in `qrelkit queue --assessor` exactly as in the
    judging session's queue, for every order."""
    _pooled_store(run_cli)
    run_cli("assign", "--overlap", "2", "--assessors", "ann,bob", "--pairs", "6", "--seed", "1")
    for order in ("impact", "depth", "random"):
        shown = json.loads(run_cli("queue", "--assessor", "ann", "--order", order, "--format", "json").output)
        with Store.open(run_cli.db) as store:
            session = JudgingSession(store=store, assessor="ann", order=order)
            expected = [(i.query_id, i.doc_id) for i in session.queue()]
            mine = set(store.log.pending_assignments("ann"))
        assert [(i["query_id"], i["doc_id"]) for i in shown] == expected
        assert {(i["query_id"], i["doc_id"]) for i in shown[:6]} == mine
        assert all(i["source"] == "assigned" for i in shown[:6])
    # someone with no assignment sees the plain queue order
    with Store.open(run_cli.db) as store:
        plain = queue.ordered_queue(store, "depth")
    shown = json.loads(run_cli("queue", "--assessor", "cy", "--order", "depth", "--format", "json").output)
    assert [(i["query_id"], i["doc_id"]) for i in shown] == [(i.query_id, i.doc_id) for i in plain]


def test_every_spelling_of_a_measure_is_stored_and_shown_canonically(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    a, b = run_cli.tmp / "a.json", run_cli.tmp / "b.json"
    run_cli("score", str(RUNS[0]), "--golden", golden, "--metrics", "MAP,MRR,Hit@3,NDCG@10,R@50", "--per-query",
            "--format", "json", "--out", str(a))  # fmt: skip
    run_cli("score", str(RUNS[1]), "--golden", golden, "--metrics", "AP,RR,Success@3,nDCG@10,R@50", "--per-query",
            "--format", "json", "--out", str(b))  # fmt: skip
    ra, rb = one_report(a.read_text()), one_report(b.read_text())
    assert list(ra["metrics"]) == list(rb["metrics"]) == ["AP", "RR", "Success@3", "nDCG@10", "R@50"]
    assert ra["fingerprint"]["metrics"] == list(ra["metrics"])
    assert set(next(iter(ra["per_query"].values()))) == set(ra["metrics"])
    c = json.loads(run_cli("compare", str(a), str(b), "--format", "json", "--resamples", "1000").output)
    assert set(c["metrics"]) == {"AP", "RR", "Success@3", "nDCG@10", "R@50"}  # no row dropped
    # a profile keeps the canonical names too
    run_cli("import", "version", golden)
    run_cli("profiles", "set", "p", "--metrics", "MAP,Hit@1")
    assert "AP, Success@1" in run_cli("profiles", "list").output


def test_gates_name_measures_as_typed_once_and_refuse_absent_ones(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    args = [*map(str, RUNS), "--golden", golden, "--resamples", "1000"]
    assert run_cli("compare", *args, "--fail-if-worse", "MAP:0.01").exit_code == 0  # typed once: not "the same measure"
    assert (
        run_cli("compare", *args, "--fail-if-worse", "ndcg@10:0.5", "--gate-pair", "NDCG@10,Recall@50").exit_code == 0
    )
    reports = []
    for run in RUNS:
        target = run_cli.tmp / f"{run.stem}.json"
        run_cli("score", str(run), "--golden", golden, "--per-query", "--format", "json", "--out", str(target))
        reports.append(str(target))
    missing = run_cli("compare", *reports, "--fail-if-worse", "P@5", ok=False)
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert len(missing.output.strip().splitlines()) == 1 and "P@5" in missing.output and "not in both" in missing.output
    pair = run_cli("compare", *reports, "--gate-pair", "P@5,nDCG@10", ok=False)
    assert pair.exit_code == 2 and "P@5" in pair.output


def test_one_json_shape_for_one_run_or_several_and_compare_reads_either(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    both = run_cli.tmp / "both.json"
    run_cli("score", *map(str, RUNS), "--golden", golden, "--per-query", "--format", "json", "--out", str(both))
    data = json.loads(both.read_text())
    assert list(data) == ["reports"] and [r["fingerprint"]["run"]["name"] for r in data["reports"]] == [
        "bm25.run",
        "bm25-title.run",
    ]
    c = json.loads(run_cli("compare", str(both), "--format", "json", "--resamples", "1000").output)
    assert c["baseline"]["run"]["name"] == "bm25.run" and c["candidate"]["run"]["name"] == "bm25-title.run"
    three = json.loads(
        run_cli(
            "compare", str(both), str(RUNS[0]), "--golden", golden, "--format", "json", "--resamples", "1000"
        ).output
    )  # three reports: a leaderboard, the first the baseline, names kept apart
    assert three["runs"] == ["bm25.run", "bm25-title.run", "bm25.run#2"]


def test_a_json_file_is_a_report_never_a_run(run_cli: Cli) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    fake = run_cli.write("run.json", (RUNS[0]).read_text())
    refused = run_cli("score", str(fake), ok=False)
    assert refused.exit_code == 2 and "a .json file is a saved report, not a run" in refused.output


def test_per_query_rows_in_the_table_and_a_run_column_in_trec_lines(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    table = run_cli("score", str(RUNS[0]), "--golden", golden, "--metrics", "nDCG@10,RR", "--per-query").output
    assert "per query: value · coverage" in table and "nav-01" in table
    one = run_cli("score", str(RUNS[0]), "--golden", golden, "--metrics", "RR", "--format", "trec").output
    assert one.splitlines()[-1].split("\t")[:2] == ["RR", "all"]
    several = run_cli("score", *map(str, RUNS), "--golden", golden, "--metrics", "RR", "--format", "trec").output
    assert {line.split("\t")[0] for line in several.splitlines()} == {"bm25.run", "bm25-title.run"}
    assert all(len(line.split("\t")) == 4 for line in several.splitlines())


def test_runs_whose_file_names_collide_get_names_that_tell_them_apart(run_cli: Cli) -> None:
    for folder in ("a", "b"):
        (run_cli.tmp / folder).mkdir()
        shutil.copy(RUNS[0], run_cli.tmp / folder / "bm25.run")
    paths = [run_cli.tmp / "a" / "bm25.run", run_cli.tmp / "b" / "bm25.run"]
    assert scoring.display_names(paths) == ["a/bm25.run", "b/bm25.run"]
    assert scoring.display_names([paths[0], paths[0]]) == ["bm25.run", "bm25.run#2"]
    assert scoring.display_names([paths[0], RUNS[1]]) == ["bm25.run", "bm25-title.run"]
    lines = run_cli("score", *map(str, paths), "--golden", str(DEMO / "1.0"), "--metrics", "RR", "--format", "trec")
    assert {line.split("\t")[0] for line in lines.output.splitlines()} == {"a/bm25.run", "b/bm25.run"}


def test_the_workflows_run_from_python_without_the_edges(tmp_path: Path) -> None:
    """What the README shows: a source, a plan, a report, no click and no textual."""
    source = sources.ScoringSource.from_version(DEMO / "1.0")
    report = scoring.score_run(source, RUNS[0], sources.plan(source, metrics="nDCG@10,MAP"))
    assert list(report.metrics) == ["nDCG@10", "AP"] and report.queries.evaluated == 42
