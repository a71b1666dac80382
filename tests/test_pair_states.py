"""What a judging screen shows of a pair is the resolved state (issue 25, first part), tested over
random event histories of two assessors: the grade is `resolution.resolve`'s, its author is an
assessor whose vote gave that state (a skip by ann never authors bob's grade), a blind pair shows
its viewer nothing of the other assessor's (grade, author, note, count) until the viewer has
*graded* it (a skip does not lift the blind), and texts qrelkit writes (undo, clear, adjudication)
are never shown as someone's note."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, Cli
from qrelkit import resolution
from qrelkit.models import GradeScale, Judgment, JudgmentState, LabelState
from qrelkit.storage.base import GoldenSettings
from qrelkit.storage.log import Pairs
from qrelkit.tui.widgets.label_line import label_line
from qrelkit.workflows.pairs import UNDO_TEXT, states

Q, D = "q1", "d1"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
SETTINGS = GoldenSettings(name="g", scale=GradeScale(), label_policy="median")


@st.composite
def event(draw: st.DrawFn) -> Judgment:
    who = draw(st.sampled_from(["ann", "bob"]))
    state = draw(st.sampled_from(list(JudgmentState)))
    grade = draw(st.integers(0, 3)) if state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) else None
    note = draw(st.sampled_from([None, f"{who} thinks so", UNDO_TEXT]))
    if state is JudgmentState.NOTED and note is None:
        note = f"{who} wrote this"
    voted = state in (JudgmentState.GRADED, JudgmentState.SKIPPED)
    evidence = draw(st.sampled_from([None, f"{who}'s passage"])) if voted else None
    return Judgment(
        query_id=Q, doc_id=D, state=state, grade=grade, assessor=who, note=note, timestamp=T0, evidence=evidence
    )


def _pairs(events: list[Judgment], shared: bool) -> Pairs:
    timed = [(n, e.model_copy(update={"timestamp": T0 + timedelta(seconds=n)})) for n, e in enumerate(events, 1)]
    return Pairs(events=timed, shared={D: {"ann", "bob"}} if shared else {}, held={}, settings=SETTINGS)


@settings(max_examples=400, deadline=None)
@given(st.lists(event(), max_size=8), st.booleans())
def test_the_screen_shows_the_resolved_state_and_nothing_blind(events: list[Judgment], shared: bool) -> None:
    pairs = _pairs(events, shared)
    shown = states(pairs, Q, [D], assessor="ann", blind=True)[0]
    votes, adjudicated = resolution.votes_of(pairs.events).get((Q, D), ([], None))
    line = label_line(shown, SETTINGS.scale, "median").plain
    ann_graded = any(v.assessor == "ann" and v.grade is not None for v in votes)
    if shared and adjudicated is None and not ann_graded:
        assert shown.blind and shown.grade is None and not shown.votes and not shown.notes
        assert shown.assessor in (None, "ann") and "bob" not in line
        assert set(shown.evidence) <= {"ann"}  # bob's evidence passage stays hidden as his grade does
        own = [v for v in votes if v.assessor == "ann"]
        assert shown.state is (LabelState.SKIPPED if own and own[0].state == "skipped" else LabelState.UNLABELED)
        return
    state, grade = resolution.resolve(votes, adjudicated, "median")
    assert (shown.state, shown.grade, shown.blind) == (state, grade, False)
    if shown.assessor is not None:
        kind = "skipped" if state is LabelState.SKIPPED else "graded"
        assert any(v.assessor == shown.assessor and v.state == kind for v in votes), (shown, votes)
    if adjudicated is not None:
        assert shown.assessor is None and "adjudicated" in line
    assert shown.evidence == {v.assessor: v.evidence for v in votes if v.evidence is not None}
    for note in shown.notes:
        assert note.text != UNDO_TEXT or any(
            e.state is JudgmentState.NOTED and e.note == UNDO_TEXT for _, e in pairs.events
        )
        assert not note.text.startswith(("cleared for everyone", "adjudicated over"))


def test_a_skip_by_ann_does_not_author_bobs_grade() -> None:
    """The case found: bob grades 2, ann skips; her screen said `grade 2 (relevant) by ann`."""
    bob = Judgment(query_id=Q, doc_id=D, state=JudgmentState.GRADED, grade=2, assessor="bob", timestamp=T0)
    ann = Judgment(query_id=Q, doc_id=D, state=JudgmentState.SKIPPED, assessor="ann", timestamp=T0)
    open_pair = states(_pairs([bob, ann], shared=False), Q, [D], assessor="ann", blind=True)[0]
    assert (open_pair.grade, open_pair.assessor) == (2, "bob")
    assert "by bob" in label_line(open_pair, SETTINGS.scale, "median").plain
    blind = states(_pairs([bob, ann], shared=True), Q, [D], assessor="ann", blind=True)[0]
    line = label_line(blind, SETTINGS.scale, "median").plain
    assert blind.grade is None and "2" not in line and "bob" not in line and line.startswith("skipped by you")


def test_a_note_names_its_author() -> None:
    bob = Judgment(query_id=Q, doc_id=D, state=JudgmentState.GRADED, grade=1, assessor="bob", timestamp=T0)
    note = Judgment(query_id=Q, doc_id=D, state=JudgmentState.NOTED, assessor="ann", note="[b]stale[/b]", timestamp=T0)
    shown = states(_pairs([bob, note], shared=False), Q, [D], assessor="ann", blind=True)[0]
    line = label_line(shown, SETTINGS.scale, "median", width=200).plain
    assert "by bob" in line and "ann: “[b]stale[/b]”" in line


def test_retracting_without_a_vote_of_ones_own_writes_nothing(run_cli: Cli) -> None:
    """`u` on a pair the assessor never voted on wrote a `retracted` event (and counted as judged)."""
    from qrelkit.errors import NothingToRetract
    from qrelkit.storage import Store
    from qrelkit.workflows.judging import JudgingSession

    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    with Store.open(run_cli.db) as store:
        label = store.reads.labels()[0]
        session = JudgingSession(store, "newcomer")
        before = len(store.log.events())
        with pytest.raises(NothingToRetract, match="no vote on"):
            session.judge(label.query_id, label.doc_id, JudgmentState.RETRACTED)
        assert len(store.log.events()) == before
        session.judge(label.query_id, label.doc_id, JudgmentState.GRADED, 1)
        session.judge(label.query_id, label.doc_id, JudgmentState.RETRACTED)
        assert [e.state for e in store.log.events()[before:]] == [JudgmentState.GRADED, JudgmentState.RETRACTED]


def test_judged_counts_documents_not_events(run_cli: Cli) -> None:
    """ "judged N" counted events: a regrade or a note counted again."""
    from qrelkit.storage import Store
    from qrelkit.workflows.judging import JudgingSession

    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    with Store.open(run_cli.db) as store:
        (q, d1), (_, d2) = [(x.query_id, x.doc_id) for x in store.reads.labels() if x.query_id == "con-02"][:2]
        session = JudgingSession(store, "counter")
        session.judge(q, d1, JudgmentState.GRADED, 1)
        session.judge(q, d1, JudgmentState.GRADED, 2)
        session.note(q, d1, "a second look")
        assert (session.judged, session.events) == (1, 3)
        session.judge(q, d2, JudgmentState.SKIPPED)
        assert session.judged == 2
        session.judge(q, d2, JudgmentState.RETRACTED)
        assert (session.judged, session.events) == (1, 5)
