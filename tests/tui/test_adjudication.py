"""The adjudication screen: guidelines, the adjudicator's own vote, settling without running
ahead (a fast second key never settles another pair), skip, note, back, priority order."""

from __future__ import annotations

from textual.widgets import Static

from qrelkit.models import Judgment, JudgmentState
from qrelkit.scoring.arrays import RunLists
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.confirm import ConfirmScreen
from qrelkit.tui.modals.reading import ReadingScreen
from qrelkit.tui.screens.adjudication import AdjudicationScreen

from .conftest import judge_app, make_store


def _grade(store: Store, q: str, d: str, who: str, g: int) -> None:
    store.log.record(Judgment(query_id=q, doc_id=d, state=JudgmentState.GRADED, grade=g, assessor=who))


def disputed() -> Store:
    """Runs pooled (so that impacts, and priorities, differ) and three disagreements on q1; the
    lead voted on d4."""
    store = make_store()
    runs = [RunLists("a", {"q1": ["d3", "d1", "d2", "d4"]}), RunLists("b", {"q1": ["d4", "d3", "d2", "d1"]})]
    store.pool.add_runs(runs, depth=4, paths=["a.run", "b.run"])
    for doc, (ann, bob) in {"d1": (0, 3), "d3": (1, 2), "d4": (0, 2)}.items():
        _grade(store, "q1", doc, "ann", ann)
        _grade(store, "q1", doc, "bob", bob)
    _grade(store, "q1", "d4", "lead", 1)
    return store


def _screen(app: JudgeApp) -> AdjudicationScreen:
    screen = app.screen
    assert isinstance(screen, AdjudicationScreen)
    return screen


def _votes(app: JudgeApp) -> str:
    return str(app.screen.query_one("#votes", Static).render())


def _adjudicated(store: Store) -> list[tuple[str, int | None]]:
    return [(e.doc_id, e.grade) for e in store.log.events() if e.state is JudgmentState.ADJUDICATED]


async def test_items_come_by_a_priority_that_differs_and_is_shown_with_the_guidelines() -> None:
    app = judge_app(disputed(), "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)):
        screen = _screen(app)
        priorities = [i.priority for i in screen.items]
        assert len(priorities) == 3 and priorities == sorted(priorities, reverse=True)
        assert len(set(priorities)) == 3  # they really differ: the order is the priority's
        assert f"priority {priorities[0]:.4g}" in _votes(app)
        assert "1/3 by priority" in str(screen.sub_title)
        assert "The assert reference." in str(screen.query_one("#query", Static).render())


async def test_the_adjudicators_own_vote_is_pointed_out() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        for _ in screen.items:
            if screen.items[screen.position].doc_id == "d4":
                assert "lead: 1 (related)" in _votes(app) and "you voted 1 on this pair" in _votes(app)
            else:
                assert "you voted" not in _votes(app)
            await pilot.press("n")


async def test_a_fast_second_key_never_settles_the_next_pair() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        first, second = screen.items[0].doc_id, screen.items[1].doc_id
        await pilot.press("2", "3")  # a double press
        assert _adjudicated(store) == [(first, 2)]
        assert screen.items[screen.position].doc_id == first and "settled: 2 (relevant)" in _votes(app)
        await pilot.press("n")  # only n goes on
        assert screen.items[screen.position].doc_id == second and "settled" not in _votes(app)
        assert len(screen.items) == 2 and "1 settled" in str(screen.sub_title)
        await pilot.press("3")
        assert _adjudicated(store) == [(first, 2), (second, 3)]


async def test_s_skips_without_settling_and_wraps_round() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        order = [i.doc_id for i in screen.items]
        seen = []
        for _ in range(4):
            seen.append(screen.items[screen.position].doc_id)
            await pilot.press("s")
        assert seen == [*order, order[0]] and _adjudicated(store) == []


async def test_e_notes_the_pair_without_a_vote() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        doc = screen.items[0].doc_id
        labels = [(x.doc_id, x.grade) for x in store.reads.labels()]
        await pilot.press("e", *"ask ann", "ctrl+s")
        last = store.log.events()[-1]
        assert (last.doc_id, last.state, last.assessor, last.note) == (doc, JudgmentState.NOTED, "lead", "ask ann")
        assert [(x.doc_id, x.grade) for x in store.reads.labels()] == labels and len(screen.items) == 3


async def test_g_shows_the_guidelines_and_esc_goes_back() -> None:
    app = judge_app(disputed(), "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, ReadingScreen)
        assert "The assert reference." in str(app.screen.query_one("#text", Static).render())
        await pilot.press("escape")
        assert isinstance(app.screen, AdjudicationScreen)
        await pilot.press("escape")  # adjudication is all there is: back is quitting
        await pilot.pause()
        assert not app.is_running


async def test_clearing_asks_first_names_every_real_vote_and_is_recorded_as_who_did_it() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _screen(app)
        first = screen.items[0]
        await pilot.press("X")
        assert isinstance(app.screen, ConfirmScreen)
        asked = app.screen.message.plain
        await pilot.press("escape")  # asked, refused: nothing recorded
        assert store.log.events()[-1].state is JudgmentState.GRADED
        real = set(screen.session.votes_on(first.query_id, first.doc_id))
        assert real >= {f"{w} {g}" for w, g in first.votes.items()}
        await pilot.press("X", "y")
        last = store.log.events()[-1]
        assert (last.state, last.doc_id, last.assessor) == (JudgmentState.CLEARED, first.doc_id, "lead")
        assert len(screen.items) == 2 and first.doc_id not in {i.doc_id for i in screen.items}
    assert all(f"{w} {g}" in asked for w, g in first.votes.items()) and "recorded as yours, lead" in asked
    assert (first.query_id, first.doc_id) not in {(x.query_id, x.doc_id) for x in store.reads.labels()}
