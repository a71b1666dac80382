"""Notes as a conversation (issue 25): every assessor's note on a pair (their `noted` events and
the notes their votes carry), with author and time, in order, reaches the adjudicator; the texts
qrelkit writes (undo, clear, adjudication, withdrawal) never do; a note is edited or withdrawn by
its author only, each a new event (the log keeps every version); no vote, label or score moves;
and the log exported and imported again reads back as the same conversation."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conftest import Cli
from qrelkit.models import Judgment, JudgmentState, PairNote, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.workflows.exporting import export_judgments
from qrelkit.workflows.judging import JudgingSession, disagreements
from qrelkit.workflows.pairs import WITHDRAWN_TEXT, NoteChange, notes_by_pair

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _store() -> Store:
    store = Store.memory()
    store.imports.queries([(1, Query(id="q1", text="x"))], source="t")
    store.imports.pool_entries([PoolEntry(query_id="q1", doc_id=d, best_rank=r) for r, d in enumerate("ab", 1)])
    return store


def _event(who: str, state: JudgmentState, minute: int, grade: int | None = None, note: str | None = None) -> Judgment:
    at = T0 + timedelta(minutes=minute)
    return Judgment(query_id="q1", doc_id="a", state=state, grade=grade, assessor=who, note=note, timestamp=at)


def _said(notes: list[PairNote]) -> list[tuple[str, str, int | None]]:
    return [(n.assessor, n.text, n.timestamp.minute if n.timestamp else None) for n in notes]


def test_the_adjudicator_sees_every_assessors_note_in_order_and_no_system_text() -> None:
    store = _store()
    for event in [
        _event("ann", JudgmentState.GRADED, 1, 0, note="off topic"),  # a note carried by a vote
        _event("bob", JudgmentState.GRADED, 2, 3),
        _event("bob", JudgmentState.NOTED, 3, note="see the second paragraph"),
        _event("cy", JudgmentState.NOTED, 4, note="I cannot tell"),
        _event("ann", JudgmentState.GRADED, 5, 0, note="undo"),  # what an undo writes: qrelkit's
    ]:
        store.log.record(event)
    [item] = disagreements(store)
    assert _said(item.notes) == [
        ("ann", "off topic", 1),
        ("bob", "see the second paragraph", 3),
        ("cy", "I cannot tell", 4),
    ]
    store.log.record(_event("lead", JudgmentState.CLEARED, 6, note="cleared for everyone by lead"))
    assert notes_by_pair(store.log.numbered_events()) == {}  # a clear resets the notes with the votes


def test_a_note_is_edited_and_withdrawn_by_its_author_only(tmp_path: Path) -> None:
    path = tmp_path / "n.db"
    with Store.open(path) as store:
        store.imports.queries([(1, Query(id="q1", text="x"))], source="t")
        store.imports.pool_entries([PoolEntry(query_id="q1", doc_id="a", best_rank=1)])
    ann, bob = JudgingSession(Store.open(path), "ann"), JudgingSession(Store.open(path), "bob")
    assert ann.set_note("q1", "a", "  first thought ")[0] is NoteChange.SAVED
    assert bob.set_note("q1", "a", "bob's view")[0] is NoteChange.SAVED
    assert ann.set_note("q1", "a", "first thought")[0] is NoteChange.UNCHANGED  # nothing written
    change, shown = ann.set_note("q1", "a", "second thought")
    assert change is NoteChange.EDITED and shown is not None
    assert [(n.assessor, n.text) for n in shown.notes] == [("bob", "bob's view"), ("ann", "second thought")]
    assert [v.text for v in shown.notes[1].earlier] == ["first thought"]  # its history
    assert ann.my_note("q1", "a") == "second thought" and bob.my_note("q1", "a") == "bob's view"
    change, shown = ann.set_note("q1", "a", " \n ")  # empty: withdrawn
    assert change is NoteChange.WITHDRAWN and shown is not None
    assert [(n.assessor, n.text) for n in shown.notes] == [("bob", "bob's view")]  # bob's stands
    assert ann.my_note("q1", "a") is None and ann.set_note("q1", "a", "")[0] is NoteChange.NONE
    assert bob.set_note("q1", "a", WITHDRAWN_TEXT)[0] is NoteChange.WITHDRAWN  # his own, by him
    log = [(e.assessor, e.state.value, e.note) for e in ann.store.log.events()]
    assert log == [
        ("ann", "noted", "first thought"),
        ("bob", "noted", "bob's view"),
        ("ann", "noted", "second thought"),
        ("ann", "noted", WITHDRAWN_TEXT),
        ("bob", "noted", WITHDRAWN_TEXT),
    ]  # append-only: every version kept
    assert ann.doc_state("q1", "a").notes == [] and ann.doc_state("q1", "a").note is None
    ann.close()
    bob.close()


def test_notes_move_no_vote_label_or_score_and_read_back_after_export_and_import(run_cli: Cli) -> None:
    store = _store()
    for event in [
        _event("ann", JudgmentState.GRADED, 1, 0),
        _event("bob", JudgmentState.GRADED, 2, 3),
    ]:
        store.log.record(event)
    labels = store.reads.labels()
    session = JudgingSession(store, "ann")
    session.set_note("q1", "a", "one")
    session.set_note("q1", "a", "two")
    JudgingSession(store, "bob").set_note("q1", "a", "mine")
    session.set_note("q1", "a", "")
    session.set_note("q1", "a", "three")
    assert store.reads.labels() == labels and [i.votes for i in disagreements(store)] == [{"ann": 0, "bob": 3}]
    conversation = notes_by_pair(store.log.numbered_events())
    assert [(n.assessor, n.text, [v.text for v in n.earlier]) for n in conversation["q1", "a"]] == [
        ("bob", "mine", []),
        ("ann", "three", []),  # written again after its withdrawal: a new note
    ]
    out = io.StringIO()
    export_judgments(store, out)
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.jsonl", '{"id": "q1", "text": "x"}\n')))
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", out.getvalue())))
    with Store.open(run_cli.db) as again:
        assert notes_by_pair(again.log.numbered_events()) == conversation
        assert again.reads.labels() == labels
