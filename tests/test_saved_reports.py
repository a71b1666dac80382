"""Saved reports from the CLI: `--save` says what it kept under which id, `qrelkit reports list`
lists them, and `qrelkit reports show ID` prints one exactly as `score` or `compare` prints it."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from conftest import ROOT, Cli
from qrelkit.storage import Store

GOLDEN = ROOT / "goldensets" / "pydocs"
RUNS = [str(GOLDEN / "runs" / "bm25.run"), str(GOLDEN / "runs" / "bm25-title.run")]
COMPARE = [*RUNS, "--resamples", "1000", "--seed", "3"]


@pytest.fixture
def saved(run_cli: Cli) -> Cli:
    """A store holding the bundled golden set, two saved score reports (ids 1, 2) and a saved
    comparison (id 3)."""
    run_cli("import", "version", str(GOLDEN / "1.0"))
    run_cli("score", *RUNS, "--save")
    run_cli("compare", *COMPARE, "--save")
    return run_cli


def test_save_says_what_it_kept_under_which_id(run_cli: Cli) -> None:
    run_cli("import", "version", str(GOLDEN / "1.0"))
    scored = run_cli("score", *RUNS, "--save", "--format", "json")
    assert scored.stderr.splitlines() == [
        "saved score report 1: bm25.run (qrelkit reports show 1)",
        "saved score report 2: bm25-title.run (qrelkit reports show 2)",
    ]
    assert json.loads(scored.stdout)["reports"]  # standard output is still only the report
    compared = run_cli("compare", *COMPARE, "--save")
    assert compared.stderr.splitlines()[-1] == (
        "saved comparison report 3: bm25.run vs bm25-title.run (qrelkit reports show 3)"
    )
    with Store.open(run_cli.db) as s:  # the store agrees: the newest of each kind
        score, comparison = s.reports.latest("score"), s.reports.latest("comparison")
    assert score is not None and score.name == "bm25-title.run"
    assert comparison is not None and comparison.name == "bm25.run vs bm25-title.run"
    assert not run_cli("score", RUNS[0]).stderr  # without --save nothing is kept, nothing said


def test_list_shows_id_kind_name_and_when(saved: Cli) -> None:
    rows = json.loads(saved("reports", "list", "--format", "json").stdout)
    assert [(r["id"], r["kind"], r["name"]) for r in rows] == [
        (1, "score", "bm25.run"),
        (2, "score", "bm25-title.run"),
        (3, "comparison", "bm25.run vs bm25-title.run"),
    ]
    with sqlite3.connect(saved.db) as conn:
        created = [r[0] for r in conn.execute("SELECT created FROM reports ORDER BY id")]
    assert [r["created"] for r in rows] == created
    table = saved("reports", "list").stdout
    assert "3 saved reports" in table
    for r in rows:
        assert re.search(rf"│ {r['id']}\s+│ {r['kind']}\s+│ {re.escape(r['name'])}\s+│ {r['created'][:10]}", table)
    only = json.loads(saved("reports", "list", "--kind", "comparison", "--format", "json").stdout)
    assert [r["id"] for r in only] == [3]


def test_an_empty_store_lists_nothing(run_cli: Cli) -> None:
    run_cli("init", "--name", "empty")
    assert json.loads(run_cli("reports", "list", "--format", "json").stdout) == []
    assert "0 saved reports" in run_cli("reports", "list").stdout


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_score_report_shows_as_score_shows_it(saved: Cli, fmt: str) -> None:
    for report_id, run in ((1, RUNS[0]), (2, RUNS[1])):
        shown = saved("reports", "show", str(report_id), "--format", fmt).stdout
        assert shown == saved("score", run, "--format", fmt).stdout


@pytest.mark.parametrize("fmt", ["table", "json", "html"])
def test_a_comparison_shows_as_compare_shows_it(saved: Cli, fmt: str) -> None:
    shown = saved("reports", "show", "3", "--format", fmt).stdout
    assert shown == saved("compare", *COMPARE, "--format", fmt).stdout


def test_a_per_query_report_shows_its_queries(run_cli: Cli) -> None:
    run_cli("import", "version", str(GOLDEN / "1.0"))
    run_cli("score", RUNS[0], "--per-query", "--save")
    assert run_cli("reports", "show", "1").stdout == run_cli("score", RUNS[0], "--per-query").stdout


def test_show_writes_to_out(saved: Cli, tmp_path: Path) -> None:
    out = tmp_path / "c.html"
    result = saved("reports", "show", "3", "--format", "html", "--out", str(out))
    assert out.read_text(encoding="utf-8") == saved("compare", *COMPARE, "--format", "html").stdout
    assert result.stdout == ""


def _refused(cli: Cli, *args: str) -> str:
    result = cli(*args, ok=False)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "(hint: " in lines[0], lines
    return lines[0]


def test_bad_ids_and_kinds_are_one_line_errors(saved: Cli) -> None:
    assert "no saved report 9 (the store holds 3)" in _refused(saved, "reports", "show", "9")
    assert "is a score report: it has no HTML page" in _refused(saved, "reports", "show", "1", "--format", "html")
    assert "reports show --help" in _refused(saved, "reports", "show", "0")  # click's own range error
    _refused(saved, "reports", "show", "x")
    with sqlite3.connect(saved.db) as conn:
        conn.execute("INSERT INTO reports(kind, name, created, body) VALUES ('leaderboard', 'x', 'now', '{}')")
        conn.execute("INSERT INTO reports(kind, name, created, body) VALUES ('score', 'broken', 'now', '{\"a\": 1}')")
    rows = json.loads(saved("reports", "list", "--format", "json").stdout)
    assert [(r["id"], r["kind"]) for r in rows][3:] == [(4, "leaderboard"), (5, "score")]  # listed all the same
    assert "a 'leaderboard' report, which this qrelkit cannot show" in _refused(saved, "reports", "show", "4")
    assert "does not read as a score report" in _refused(saved, "reports", "show", "5")


def test_no_store_is_a_one_line_error(run_cli: Cli) -> None:
    _refused(run_cli, "reports", "list")
    assert not run_cli.db.exists()  # listing creates no store


def test_names_from_data_are_shown_not_obeyed(run_cli: Cli, tmp_path: Path) -> None:
    run_cli("import", "version", str(GOLDEN / "1.0"))
    evil = tmp_path / "a\x1b[2Jb[red].run"
    evil.write_text((GOLDEN / "runs" / "bm25.run").read_text(encoding="utf-8"), encoding="utf-8")
    said = run_cli("score", str(evil), "--save").stderr
    assert "\x1b" not in said and "a\\x1b[2Jb[red].run" in said
    table = run_cli("reports", "list").stdout
    assert "\x1b" not in table and "a\\x1b[2Jb[red].run" in table
