"""`qrelkit assign`, `qrelkit policy`, and the policy in frozen versions."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, Cli
from qrelkit import versioning
from qrelkit.storage import Store

DEMO = ROOT / "goldensets" / "pydocs"


def test_assign_overlap_rotates_assessors_over_a_seeded_sample(run_cli: Cli) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    result = run_cli("assign", "--overlap", "2", "--assessors", "ann,bob,cy", "--pairs", "9", "--seed", "3")
    assert "assigned 9 pairs to 2 assessors each (18 new assignments): ann 6, bob 6, cy 6" in result.output
    with Store.open(run_cli.db) as s:
        rows = s.conn.execute("SELECT query_id, doc_id, count(*) FROM assignments GROUP BY 1, 2").fetchall()
        pool = {(e.query_id, e.doc_id) for e in s.pool.unlabeled()}
        assert len(rows) == 9 and all(n == 2 for *_, n in rows)
        assert {(q, d) for q, d, _ in rows} <= pool
        assert len(s.log.pending_assignments("ann")) == 6
    again = run_cli("assign", "--overlap", "2", "--assessors", "ann,bob,cy", "--pairs", "9", "--seed", "3")
    assert "(0 new assignments)" in again.output  # the same seed picks the same pairs
    bad = run_cli("assign", "--overlap", "3", "--assessors", "ann,bob", ok=False)
    assert bad.exit_code == 2 and "needs at least 3 assessors" in bad.output


def test_policy_is_set_shown_and_frozen(run_cli: Cli, tmp_path: Path) -> None:
    run_cli("init", "--name", "p")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    events = [
        {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "ann"},
        {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 3, "assessor": "bob"},
    ]
    run_cli("import", "judgments", str(run_cli.write("e.jsonl", "\n".join(map(json.dumps, events)))))
    assert "label policy: median" in run_cli("policy").output
    assert run_cli("export", "qrels").output == "q1 0 a 1\n"
    run_cli("policy", "latest")
    assert run_cli("export", "qrels").output == "q1 0 a 3\n"
    run_cli("freeze", "p", "v1", "--out", str(tmp_path))
    manifest = versioning.read_manifest(tmp_path / "p" / "v1")
    assert manifest.label_policy == "latest"
    assert (tmp_path / "p" / "v1" / "qrels.txt").read_text() == "q1 0 a 3\n"
    # the version loads into a new store with its policy, and its log resolves to its qrels
    other = run_cli.tmp / "other.db"
    from click.testing import CliRunner

    from qrelkit.cli import cli

    loaded = CliRunner().invoke(cli, ["--db", str(other), "import", "version", str(tmp_path / "p" / "v1")])
    assert loaded.exit_code == 0, loaded.output
    with Store.open(other) as s:
        assert s.settings.label_policy == "latest" and [(x.doc_id, x.grade) for x in s.reads.labels()] == [("a", 3)]
    # judgments.jsonl keeps every assessor's events
    kept = [json.loads(x)["assessor"] for x in (tmp_path / "p" / "v1" / "judgments.jsonl").read_text().splitlines()]
    assert kept == ["ann", "bob"]


def test_assign_defaults_to_everyone_with_a_vote_in_the_log(run_cli: Cli) -> None:
    """Imported votes count as much as votes judged here (the demo version's are imported); a note
    is no vote, nor is a retraction or an adjudication."""
    from qrelkit.models import Judgment, JudgmentState

    run_cli("import", "version", str(DEMO / "1.0"))
    one = run_cli("assign", "--overlap", "2", ok=False)
    assert one.exit_code == 2
    assert "--overlap 2 needs 2 assessors; 1 has a vote in the log: qrelkit-authors" in one.output
    event = {"query_id": "con-01", "doc_id": "x", "assessor": "ann"}
    lines = [{**event, "state": "noted", "note": "n"}, {**event, "assessor": "bob", "state": "skipped"}]
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", "\n".join(map(json.dumps, lines)) + "\n")))
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id="con-01", doc_id="y", state=JudgmentState.RETRACTED, assessor="cy"))
        s.log.record(Judgment(query_id="con-01", doc_id="y", state=JudgmentState.ADJUDICATED, grade=1, assessor="dee"))
    result = run_cli("assign", "--overlap", "2", "--pairs", "4")
    assert "assigned 4 pairs to 2 assessors each (8 new assignments): bob 4, qrelkit-authors 4" in result.output
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id="con-01", doc_id="z", state=JudgmentState.GRADED, grade=0, assessor="eve"))
    three = run_cli("assign", "--overlap", "3", "--pairs", "3")
    assert "assigned 3 pairs to 3 assessors each" in three.output and "bob 3, eve 3, qrelkit-authors 3" in three.output


def test_profile_needs_a_run(run_cli: Cli, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    golden = str(DEMO / "1.0")
    run_cli(
        "score",
        str(DEMO / "runs" / "bm25.run"),
        "--golden",
        golden,
        "--format",
        "json",
        "--per-query",
        "--out",
        str(report),
    )
    result = run_cli("compare", str(report), str(report), "--profile", "x", ok=False)
    assert result.exit_code == 2 and "--profile chooses what to score" in result.output
