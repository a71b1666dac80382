"""A judging session with other processes and assessors on the same store: a busy store delays
a judgment and never drops it, others' new events show, open documents are leased, notes and
retractions touch no one else's vote."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Cli
from qrelkit.models import Judgment, JudgmentState, LabelState, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.workflows.judging import JudgingSession


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        store.imports.queries([(1, Query(id="q1", text="x"))], source="t")
        store.imports.pool_entries([PoolEntry(query_id="q1", doc_id=d, best_rank=r) for r, d in enumerate("abc", 1)])
    yield path


def _locked(db: Path) -> sqlite3.Connection:
    """Another process's write transaction, held until the caller commits."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def test_a_busy_store_holds_judgments_in_order_and_commits_them_later(db: Path) -> None:
    session = JudgingSession(Store.open(db), "ann", lock_wait_ms=50)
    other = _locked(db)
    first = session.judge("q1", "a", JudgmentState.GRADED, 2)
    second = session.judge("q1", "b", JudgmentState.SKIPPED)
    assert first.waiting and second.waiting and session.waiting == 2
    assert session.flush() == 2  # still locked: nothing lost, nothing reordered
    other.execute("COMMIT")
    assert session.flush() == 0
    events = [(e.doc_id, e.state) for e in session.store.log.events("q1")]
    assert events == [("a", JudgmentState.GRADED), ("b", JudgmentState.SKIPPED)]
    assert session.doc_state("q1", "a").grade == 2
    session.close()


def test_closing_with_a_busy_store_refuses_and_keeps_the_judgments(db: Path) -> None:
    from qrelkit.errors import StoreBusy

    session = JudgingSession(Store.open(db), "ann", lock_wait_ms=50)
    other = _locked(db)
    session.judge("q1", "a", JudgmentState.GRADED, 1)
    import qrelkit.workflows.judging as judging

    with pytest.MonkeyPatch.context() as patch:  # the wait of the store's close, where judging uses it
        patch.setattr(judging, "BUSY_TIMEOUT_MS", 100)
        with pytest.raises(StoreBusy):
            session.close()
    kept = session.save_waiting()
    assert [json.loads(line)["doc_id"] for line in kept.read_text().splitlines()] == ["a"]
    other.execute("COMMIT")
    session.close()  # now it commits
    with Store.open(db) as again:
        assert [(x.doc_id, x.grade) for x in again.reads.labels()] == [("a", 1)]


def test_the_cli_waits_a_bounded_time_then_says_the_store_is_busy(
    run_cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli("init")
    other = _locked(run_cli.db)
    monkeypatch.setenv("QRELKIT_LOCK_WAIT_MS", "100")
    result = run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\n")), ok=False)
    other.execute("COMMIT")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and "the store is busy" in result.output


def test_another_assessors_new_events_are_noticed(db: Path) -> None:
    ann = JudgingSession(Store.open(db), "ann")
    bob = JudgingSession(Store.open(db), "bob")
    assert not ann.changed("q1")  # first look
    bob.judge("q1", "a", JudgmentState.GRADED, 3)
    assert ann.changed("q1") and not ann.changed("q1")
    assert ann.doc_state("q1", "a").grade == 3
    ann.judge("q1", "b", JudgmentState.GRADED, 1)
    assert not ann.changed("q1")  # its own judgment is no news
    ann.close()
    bob.close()


def test_an_open_document_is_leased_and_skipped_by_the_others(db: Path) -> None:
    ann = JudgingSession(Store.open(db), "ann")
    bob = JudgingSession(Store.open(db), "bob")
    ann.hold("q1", "b")
    docs = bob.documents("q1")
    assert {d.doc_id: d.held_by for d in docs} == {"a": None, "b": "ann", "c": None}
    assert bob.next_open(docs, 0) == 2  # after a: b is open on ann's screen, so c
    assert ann.documents("q1")[1].held_by is None  # not held from ann's own view
    bob.store.log.assign([("q1", "b", "ann"), ("q1", "b", "bob")])  # assigned to both: each judges it
    assert bob.documents("q1")[1].held_by is None
    ann.hold("q1", None)
    ann.close()
    bob.close()


def test_a_note_changes_no_vote_no_label_no_agreement(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    votes = [
        {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 2, "assessor": "ann"},
        {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "cy"},
    ]
    run_cli("import", "judgments", str(run_cli.write("v.jsonl", "\n".join(map(json.dumps, votes)))))
    before = (run_cli("export", "qrels").output, run_cli("agreement", "--format", "json").output)
    note = {"query_id": "q1", "doc_id": "a", "state": "noted", "assessor": "bob", "note": "is this current?"}
    run_cli("import", "judgments", str(run_cli.write("n.jsonl", json.dumps(note))))
    assert (run_cli("export", "qrels").output, run_cli("agreement", "--format", "json").output) == before
    assert '"state":"noted"' in run_cli("export", "judgments").output.replace(" ", "")
    bad = {**note, "note": ""}
    refused = run_cli("import", "judgments", str(run_cli.write("b.jsonl", json.dumps(bad))), ok=False)
    assert refused.exit_code == 2 and "needs its note" in refused.output


def test_retracting_and_undoing_touch_only_the_assessors_own_vote(db: Path) -> None:
    ann = JudgingSession(Store.open(db), "ann")
    ann.store.log.record(Judgment(query_id="q1", doc_id="a", state=JudgmentState.GRADED, grade=3, assessor="bob"))
    ann.judge("q1", "a", JudgmentState.GRADED, 1)
    assert ann.doc_state("q1", "a").votes == {"ann": 1, "bob": 3}
    ann.judge("q1", "a", JudgmentState.RETRACTED)
    state = ann.doc_state("q1", "a")
    assert (state.state, state.grade, state.votes) == (LabelState.GRADED, 3, {})
    assert ann.undo() == ("q1", "a")  # back to ann's 1
    assert ann.doc_state("q1", "a").votes == {"ann": 1, "bob": 3}
    assert ann.undo() == ("q1", "a") and ann.doc_state("q1", "a").votes == {}  # ann had no vote before
    assert ann.undo() is None
    assert [e.assessor for e in ann.store.log.events("q1") if e.assessor == "bob"] == ["bob"]
    ann.close()


def test_an_adjudication_and_a_clear_wait_for_a_busy_store_too(db: Path) -> None:
    from qrelkit.models import Disagreement

    lead = JudgingSession(Store.open(db), "lead", lock_wait_ms=50)
    other = _locked(db)
    item = Disagreement(query_id="q1", doc_id="a", votes={"ann": 1, "bob": 3}, distance=2, priority=2.0)
    assert not lead.settle(item, 2)
    lead.clear("q1", "b")
    assert lead.waiting == 2
    other.execute("COMMIT")
    assert lead.flush() == 0
    assert [e.state for e in lead.store.log.events("q1")] == [JudgmentState.ADJUDICATED, JudgmentState.CLEARED]
    lead.close()
