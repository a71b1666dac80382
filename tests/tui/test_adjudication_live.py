"""The adjudication screen shows the pair as the store holds it now: another assessor's new vote
or note appears while the adjudicator looks, a pair settled elsewhere leaves the list, and a grade
key pressed on votes that changed since they were drawn records nothing."""

from __future__ import annotations

import pytest

from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens import adjudication
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.workflows.disagreements import disagreement_on, disagreements

from .conftest import judge_app, make_store, until
from .test_adjudication import _adjudicated, _votes


def _event(
    store: Store,
    doc: str,
    who: str,
    grade: int | None,
    *,
    state: JudgmentState = JudgmentState.GRADED,
    note: str | None = None,
) -> None:
    store.log.record(Judgment(query_id="q1", doc_id=doc, state=state, grade=grade, assessor=who, note=note))


def two_disputes() -> Store:
    store = make_store()
    for doc, (ann, bob) in {"d1": (0, 3), "d2": (1, 2)}.items():
        _event(store, doc, "ann", ann)
        _event(store, doc, "bob", bob)
    return store


def _screen(app: JudgeApp) -> AdjudicationScreen:
    assert isinstance(app.screen, AdjudicationScreen)
    return app.screen


def test_disagreement_on_reads_the_pair_as_it_is_now() -> None:
    store = two_disputes()
    item = next(i for i in disagreements(store) if i.doc_id == "d1")
    assert disagreement_on(store, item) == item  # nothing new: the same
    _event(store, "d1", "bob", 2)
    _event(store, "d1", "cat", 1, note="the second paragraph answers it")
    now = disagreement_on(store, item)
    assert now is not None and now.votes == {"ann": 0, "bob": 2, "cat": 1} and now.distance == 2
    assert [(n.assessor, n.text) for n in now.notes] == [("cat", "the second paragraph answers it")]
    assert now.priority == pytest.approx(item.priority / 3 * 2)
    _event(store, "d1", "ann", 2)
    _event(store, "d1", "cat", 2)
    assert disagreement_on(store, item) is None  # they agree now
    _event(store, "d2", "lead", 1, state=JudgmentState.ADJUDICATED)
    assert disagreement_on(store, next(i for i in disagreements(two_disputes()) if i.doc_id == "d2")) is None


async def test_a_grade_on_votes_that_changed_records_nothing_and_shows_them() -> None:
    store = two_disputes()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        doc = screen.items[0].doc_id
        before = _votes(app)
        _event(store, doc, "bob", 1)  # bob changes his mind while the lead reads
        _event(store, doc, "cat", 3, note="[bold]see the table[/bold]")
        await pilot.press("2")
        await pilot.pause()
        assert _adjudicated(store) == []  # what was drawn was not what the store held
        assert _votes(app) != before and "cat: 3" in _votes(app) and "[bold]see the table[/bold]" in _votes(app)
        await pilot.press("2")  # now on what the screen shows
        await pilot.pause()
        assert _adjudicated(store) == [(doc, 2)]
        note = next(e.note for e in store.log.events() if e.state is JudgmentState.ADJUDICATED)
        assert note is not None and "bob 1" in note and "cat 3" in note


async def test_the_poll_shows_a_new_vote_and_drops_a_pair_settled_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adjudication, "POLL_SECONDS", 0.05)
    store = two_disputes()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        first, second = screen.items[0].doc_id, screen.items[1].doc_id
        _event(store, first, "cat", 2)
        await until(pilot, lambda: "cat: 2" in _votes(app), limit=10)
        _event(store, first, "boss", 1, state=JudgmentState.ADJUDICATED)  # another adjudicator
        await until(pilot, lambda: len(screen.items) == 1, limit=10)
        assert screen.items[0].doc_id == second and "1/1" in str(screen.sub_title)
        await pilot.press("3")
        await pilot.pause()
        assert _adjudicated(store) == [(first, 1), (second, 3)]
