"""Several assessors in the TUI: own assignments first, blind overlap, adjudication."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.widgets import Static

from qrelkit.formats import trec
from qrelkit.models import Judgment, JudgmentState, LabelState
from qrelkit.storage import Store
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.judging import disagreements
from qrelkit.workflows.pairs import documents

from .conftest import judge_app, make_store


def _grade(store: Store, q: str, d: str, who: str, g: int) -> None:
    store.log.record(Judgment(query_id=q, doc_id=d, state=JudgmentState.GRADED, grade=g, assessor=who))


def _export(store: Store) -> str:
    import io

    out = io.StringIO()
    trec.write_qrels(store.reads.labels(), out)
    return out.getvalue()


async def test_adjudicating_a_disagreement_changes_the_exported_label_and_keeps_both_events() -> None:
    store = make_store()
    _grade(store, "q2", "d3", "ann", 0)
    _grade(store, "q2", "d3", "bob", 2)
    assert "q2 0 d3 0\n" in _export(store)  # the lower median of 0 and 2
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen) and len(screen.items) == 1
        votes = str(screen.query_one("#votes", Static).render())
        assert "ann: 0" in votes and "bob: 2" in votes
        await pilot.press("2")  # settled: the pair stays on screen, marked so
        assert "settled: 2 (relevant)" in str(screen.query_one("#votes", Static).render())
        await pilot.press("n")
        assert "No disagreement left" in str(screen.query_one("#query", Static).render())
    assert "q2 0 d3 2\n" in _export(store)
    events = [(e.assessor, e.state.value, e.grade) for e in store.log.events("q2") if e.doc_id == "d3"]
    assert events == [("ann", "graded", 0), ("bob", "graded", 2), ("lead", "adjudicated", 2)]
    adjudication = [e for e in store.log.events("q2") if e.state is JudgmentState.ADJUDICATED][0]
    assert adjudication.note == "adjudicated over ann 0, bob 2"
    assert disagreements(store) == []


async def test_disagreements_come_most_distant_first() -> None:
    store = make_store()
    _grade(store, "q2", "d3", "ann", 1)
    _grade(store, "q2", "d3", "bob", 2)
    _grade(store, "q2", "d5", "ann", 0)
    _grade(store, "q2", "d5", "bob", 3)
    assert [(x.doc_id, x.distance) for x in disagreements(store)] == [("d5", 3), ("d3", 1)]


async def test_overlap_pairs_are_blind_and_come_first() -> None:
    store = make_store()
    store.log.assign([("q2", "d5", "ann"), ("q2", "d5", "bob")])
    _grade(store, "q2", "d5", "bob", 3)  # bob judged first; ann must not see his grade
    app = judge_app(store, "ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        # ann's assignment heads her queue, though q1 comes first in the list and in depth order
        assert app.session.next_query() == "q2"
        await pilot.press("down", "enter")  # open q2 from the list
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.query_id == "q2"
        screen.position = next(i for i, d in enumerate(screen.docs) if d.doc_id == "d5")
        screen.refresh_view()
        doc = screen.docs[screen.position]
        assert doc.blind and doc.grade is None
        line = str(screen.query_one("#label", Static).render())
        assert "hidden" in line and "3" not in line
        await pilot.press("1")
        after = {d.doc_id: d for d in screen.docs}["d5"]
        assert not after.blind and after.votes == {"ann": 1, "bob": 3}
    # bob sees no blind pair: he has judged it
    assert not {d.doc_id: d for d in documents(store, "q2", assessor="bob", blind=True)}["d5"].blind


async def test_u_retracts_only_the_assessors_own_vote_on_an_overlap_pair() -> None:
    """A vote is only its assessor's: ann's `u` takes back ann's grade; bob's stands."""
    store = make_store()
    store.log.assign([("q2", "d5", "ann"), ("q2", "d5", "bob")])
    _grade(store, "q2", "d5", "bob", 3)
    _grade(store, "q2", "d5", "ann", 1)
    app = judge_app(store, "ann", query="q2")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()  # the queue arrives and may reorder the documents
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        screen.position = next(i for i, d in enumerate(screen.docs) if d.doc_id == "d5")
        await pilot.press("u")
        assert (
            store.log.events("q2")[-1].state is JudgmentState.RETRACTED and store.log.events("q2")[-1].assessor == "ann"
        )
    d5 = {d.doc_id: d for d in documents(store, "q2")}["d5"]
    assert d5.votes == {} and (d5.state, d5.grade, d5.assessor) == (LabelState.GRADED, 3, "bob")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_adjudication_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    """The votes, then the notes on the pair as a conversation: author, time, text (issue 25)."""
    store = make_store()
    at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    for minute, who, state, grade, note in [
        (0, "ann", JudgmentState.GRADED, 0, "off topic"),
        (5, "bob", JudgmentState.GRADED, 3, None),
        (7, "bob", JudgmentState.NOTED, None, "the second paragraph answers it"),
    ]:
        store.log.record(
            Judgment(query_id="q1", doc_id="d4", state=state, grade=grade, assessor=who, note=note,
                     timestamp=at + timedelta(minutes=minute))
        )  # fmt: skip
    assert snap_compare(judge_app(store, "lead", adjudicate=True), terminal_size=size)
