"""Removed means removed everywhere (issue 30): once a query or a document leaves the golden set,
no screen, session or command records an event on it, and nothing it held comes back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from conftest import Cli
from qrelkit.errors import NotInGoldenSet
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.workflows.judging import JudgingSession, open_session

QUERIES = "q1\thello\tnav\nq2\tworld\tnav\n"
DOCS = '{"id": "d1", "text": "one"}\n{"id": "d2", "text": "two"}\n'
QRELS = "q1 0 d1 2\nq2 0 d2 1\nq2 0 d1 1\n"


def _setup(run_cli: Cli) -> JudgingSession:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", QUERIES)))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", DOCS)))
    run_cli("import", "qrels", str(run_cli.write("r.qrels", QRELS)))
    return open_session(run_cli.db, "ann")  # a judging screen's session, open before the removals


def _log_size(run_cli: Cli) -> int:
    with sqlite3.connect(run_cli.db) as conn:
        return int(conn.execute("SELECT count(*) FROM judgments").fetchone()[0])


def test_no_event_is_recorded_on_a_query_removed_while_a_session_shows_it(run_cli: Cli) -> None:
    session = _setup(run_cli)
    run_cli("queries", "remove", "q1", "--with-labels")
    size = _log_size(run_cli)
    attempts: list[Callable[[], object]] = [
        lambda: session.judge("q1", "d1", JudgmentState.GRADED, 3),
        lambda: session.judge("q1", "d1", JudgmentState.SKIPPED),
        lambda: session.note("q1", "d1", "still here?"),
        lambda: session.clear("q1", "d1"),
        lambda: session.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=1, assessor="a")),
    ]
    for attempt in attempts:
        with pytest.raises(NotInGoldenSet, match="query 'q1' is not in the golden set"):
            attempt()
    assert _log_size(run_cli) == size and session.undo() is None  # nothing recorded, nothing to undo
    sets = run_cli.tmp / "sets"
    run_cli("freeze", "g", "1", "--out", str(sets))  # freeze never meets one
    assert run_cli("export", "qrels").output == "q2 0 d1 1\nq2 0 d2 1\n"
    run_cli("import", "queries", str(run_cli.write("back.tsv", "q1\thello again\tnav\n")))
    assert run_cli("export", "qrels").output == "q2 0 d1 1\nq2 0 d2 1\n"  # added back, it starts unlabeled
    session.close()


def test_no_event_is_recorded_on_a_document_removed_while_a_session_shows_it(run_cli: Cli) -> None:
    session = _setup(run_cli)
    assert [d.doc_id for d in session.documents("q2")] == ["d2", "d1"]
    run_cli("docs", "remove", "d2", "--with-labels")
    size = _log_size(run_cli)
    with pytest.raises(NotInGoldenSet, match="document 'd2' was removed from the golden set"):
        session.judge("q2", "d2", JudgmentState.GRADED, 2)
    with pytest.raises(NotInGoldenSet):
        session.note("q2", "d2", "x")
    assert _log_size(run_cli) == size
    assert [d.doc_id for d in session.documents("q2")] == ["d1"]  # no longer listed
    session.judge("q2", "d1", JudgmentState.GRADED, 0)  # the rest of the query is judged as before
    assert run_cli("export", "qrels").output == "q1 0 d1 2\nq2 0 d1 0\n"
    # added back (its text imported again), it is judged again, from unlabeled
    run_cli("import", "docs", str(run_cli.write("back.jsonl", '{"id": "d2", "text": "two again"}\n')))
    session.judge("q2", "d2", JudgmentState.GRADED, 2)
    assert run_cli("export", "qrels").output == "q1 0 d1 2\nq2 0 d1 0\nq2 0 d2 2\n"
    session.close()


def test_a_removed_document_comes_back_through_an_import_of_its_labels(run_cli: Cli) -> None:
    """A document judged from a qrels file only (no text) is in the set; removed, a later import
    of a label for it adds the pair back (and the screen may judge it again)."""
    session = _setup(run_cli)
    run_cli("import", "qrels", str(run_cli.write("more.qrels", "q2 0 d9 1\n")))
    session.judge("q2", "d9", JudgmentState.GRADED, 2)  # no document row: judged from qrels alone
    run_cli("docs", "remove", "d9", "--with-labels")
    with pytest.raises(NotInGoldenSet):
        session.judge("q2", "d9", JudgmentState.GRADED, 2)
    run_cli("import", "qrels", str(run_cli.write("again.qrels", "q2 0 d9 0\n")))
    session.judge("q2", "d9", JudgmentState.GRADED, 1)
    assert "q2 0 d9" in run_cli("export", "qrels").output
    session.close()


def test_a_held_judgment_whose_query_went_meanwhile_is_refused_and_said(run_cli: Cli) -> None:
    session = _setup(run_cli)
    session.lock_wait_ms = 50
    session.store.wait_for_lock(50)
    blocker = sqlite3.connect(run_cli.db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    held = session.judge("q1", "d1", JudgmentState.GRADED, 3)
    assert held.waiting and session.waiting == 1
    blocker.execute("ROLLBACK")
    blocker.close()
    run_cli("queries", "remove", "q1", "--with-labels")
    assert session.flush() == 0 and session.waiting == 0
    (refusal,) = session.take_refused()
    assert "query 'q1' is not in the golden set" in refusal.message
    assert session.take_refused() == []
    session.close()


def test_labels_of_an_event_recorded_before_this_rule_stay_out_of_exports_and_freeze(run_cli: Cli) -> None:
    """A store written by an older qrelkit may hold a vote recorded after its query's removal:
    export and freeze leave it out (freeze used to fail with KeyError: 'default')."""
    _setup(run_cli).close()
    run_cli("queries", "remove", "q1", "--with-labels")
    with sqlite3.connect(run_cli.db) as conn:
        conn.execute(
            "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) "
            "VALUES ('q1', 'd1', 'graded', 2, 'ann', '2026-01-01T00:00:00+00:00')"
        )
    assert "q1" not in run_cli("export", "qrels").output
    run_cli("freeze", "g", "1", "--out", str(run_cli.tmp / "sets"))
    qrels = (run_cli.tmp / "sets" / "g" / "1" / "qrels.txt").read_text(encoding="utf-8")
    assert "q1" not in qrels and "q2 0 d1 1" in qrels
    assert Store.open(run_cli.db).reads.skipped() == []
