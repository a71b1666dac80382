"""Removing queries, documents, strata and profiles: refused while labels (or queries, or
profiles) reference them, recorded, atomic, and the judgment log stays append-only."""

from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import Cli

QUERIES = "q1\thello\tnav\nq2\tworld\tnav\nq3\tthree\thow\n"
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\nq3 0 d3 -1\n"


def _setup(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", QUERIES)))
    run_cli("import", "qrels", str(run_cli.write("r.qrels", QRELS)))


def _log(run_cli: Cli) -> list[tuple[object, ...]]:
    with sqlite3.connect(run_cli.db) as conn:
        return conn.execute("SELECT * FROM judgments ORDER BY seq").fetchall()


def _qrels(run_cli: Cli) -> str:
    return str(run_cli("export", "qrels").output)


def test_a_query_with_labels_is_refused_without_with_labels_and_nothing_changes(run_cli: Cli) -> None:
    _setup(run_cli)
    before, qrels = _log(run_cli), _qrels(run_cli)
    refused = run_cli("queries", "remove", "q3", "q1", ok=False)
    assert refused.exit_code == 2 and "query 'q1' holds 2 labels" in refused.output
    assert "--with-labels" in refused.output and "Traceback" not in refused.output
    assert _log(run_cli) == before and _qrels(run_cli) == qrels  # q3 (no labels) was not removed either
    unknown = run_cli("queries", "remove", "q3", "nosuch", ok=False)
    assert unknown.exit_code == 2 and "no query 'nosuch'" in unknown.output
    assert run_cli("removals", "--format", "jsonl").output == ""


def test_removing_a_query_with_labels_clears_them_in_the_log_and_records_it(run_cli: Cli) -> None:
    _setup(run_cli)
    before = _log(run_cli)
    done = run_cli("queries", "remove", "q1", "--with-labels")
    assert "removed query q1, 2 labeled pair(s) cleared" in done.output
    after = _log(run_cli)
    assert after[: len(before)] == before  # append-only: every earlier event is still there, unchanged
    added = after[len(before) :]
    assert sorted((e[1], e[2], e[3], e[9]) for e in added) == [
        ("q1", "d1", "cleared", "removal"),
        ("q1", "d2", "cleared", "removal"),
    ]
    assert _qrels(run_cli) == "q2 0 d1 1\n"
    (record,) = [json.loads(line) for line in run_cli("removals", "--format", "jsonl").output.splitlines()]
    assert (record["kind"], record["name"], record["body"]["judged_pairs"]) == ("query", "q1", 2)
    assert record["body"]["query"] == {"id": "q1", "text": "hello", "stratum": "nav", "description": None}
    # added back, it starts unlabeled: the clears stop the old votes counting
    run_cli("import", "queries", str(run_cli.write("back.tsv", "q1\thello again\tnav\n")))
    assert _qrels(run_cli) == "q2 0 d1 1\n"


def test_a_version_frozen_after_a_removal_verifies_and_imports(run_cli: Cli) -> None:
    _setup(run_cli)
    run_cli("queries", "remove", "q1", "q3", "--with-labels")
    sets = run_cli.tmp / "sets"
    run_cli("freeze", "g", "1", "--out", str(sets))
    run_cli("verify", str(sets / "g" / "1"))
    events = (sets / "g" / "1" / "judgments.jsonl").read_text(encoding="utf-8")
    assert '"q1"' not in events and '"q3"' not in events  # a removed query's events are not the golden set's
    fresh = Cli(run_cli.tmp / "fresh")
    (run_cli.tmp / "fresh").mkdir()
    fresh("import", "version", str(sets / "g" / "1"))
    assert fresh("export", "qrels").output == "q2 0 d1 1\n"


def test_removing_a_document_clears_its_labels_and_drops_its_pooled_pairs(run_cli: Cli) -> None:
    _setup(run_cli)
    run_cli("import", "docs", str(run_cli.write("d.jsonl", '{"id": "d3", "text": "x"}\n')))
    refused = run_cli("docs", "remove", "d3", "d1", ok=False)
    assert refused.exit_code == 2 and "document 'd1' holds 2 labels" in refused.output
    done = run_cli("docs", "remove", "d3")
    assert "removed document d3, 1 pooled pair(s) dropped" in done.output
    assert "d3" not in run_cli("export", "qrels", "--format", "jsonl").output
    run_cli("docs", "remove", "d1", "--with-labels")
    assert _qrels(run_cli) == "q1 0 d2 0\n"
    missing = run_cli("docs", "remove", "d9", ok=False)
    assert missing.exit_code == 2 and "no document 'd9'" in missing.output


def test_a_stratum_goes_only_once_no_query_and_no_profile_uses_it(run_cli: Cli) -> None:
    _setup(run_cli)
    held = run_cli("strata", "remove", "how", ok=False)
    assert held.exit_code == 2 and "holds 1 query" in held.output and "queries remove --stratum how" in held.output
    run_cli("queries", "remove", "--stratum", "how")
    run_cli("profiles", "set", "p", "--metrics", "RR", "--strata", "how,nav")
    named = run_cli("strata", "remove", "how", ok=False)
    assert named.exit_code == 2 and "named by the profiles p" in named.output
    run_cli("profiles", "remove", "p")
    assert "removed stratum how" in run_cli("strata", "remove", "how").output
    assert "how" not in run_cli("strata", "list").output
    assert run_cli("profiles", "remove", "p", ok=False).exit_code == 2
    kinds = [json.loads(x)["kind"] for x in run_cli("removals", "--format", "jsonl").output.splitlines()]
    assert kinds == ["query", "profile", "stratum"]
    profile = json.loads(run_cli("removals", "--format", "jsonl").output.splitlines()[1])["body"]["profile"]
    assert profile == {"name": "p", "metrics": ["RR"], "strata": ["how", "nav"]}


def test_a_removal_is_recorded_under_the_name_of_who_removed(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QRELKIT_ASSESSOR", "owner")
    _setup(run_cli)
    run_cli("queries", "remove", "q1", "--with-labels")
    (record,) = [json.loads(x) for x in run_cli("removals", "--format", "jsonl").output.splitlines()]
    assert record["assessor"] == "owner"
    assert {e[5] for e in _log(run_cli) if e[3] == "cleared"} == {"owner"}
