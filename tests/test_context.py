"""The context of a document (issue 25, item 6): where each pooled run ranked it, with the run's
score, kept in the store when runs are pooled (the judging screen's `c` shows it)."""

from __future__ import annotations

from conftest import ROOT, Cli
from qrelkit.models import RunRank
from qrelkit.workflows import pooling
from qrelkit.workflows.judging import open_session

RUNS = ROOT / "goldensets" / "pydocs" / "runs"
VERSION = ROOT / "goldensets" / "pydocs" / "1.0"


def test_pooling_keeps_each_runs_rank_and_score_of_a_document(run_cli: Cli) -> None:
    run_cli("import", "version", str(VERSION))
    run_cli("pool", str(RUNS / "bm25.run"), str(RUNS / "bm25-title.run"), "--depth", "5")
    session = open_session(run_cli.db, "ann")
    ranks = pooling.document_ranks(session, "nav-01")
    session.close()
    assert ranks["assert-01"][0] == RunRank(run="bm25", rank=1, score=11.795832)
    assert {r.run for r in ranks["assert-01"]} == {"bm25", "bm25-title"}
    assert all(r.rank <= 5 and r.score is not None for rs in ranks.values() for r in rs)
    assert all(rs == sorted(rs, key=lambda r: (r.rank, r.run)) for rs in ranks.values())


def test_a_run_of_ranks_keeps_no_score(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\thello\tnav\n")))
    run_cli("pool", str(run_cli.write("m.tsv", "q1\td1\t1\nq1\td2\t2\n")), "--depth", "10")
    session = open_session(run_cli.db, "ann")
    assert pooling.document_ranks(session, "q1") == {
        "d1": [RunRank(run="m", rank=1, score=None)],
        "d2": [RunRank(run="m", rank=2, score=None)],
    }
    session.close()
