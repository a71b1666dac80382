"""Every key and flow of the judging UI, driven with Textual's Pilot, checked on the store."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from qrelkit.models import JudgmentState, QueueOrder
from qrelkit.storage import Store
from qrelkit.tui.modals.next_query import NextQueryScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen
from qrelkit.workflows.queue import ordered_queue

from .conftest import judge_app


def events(store: Store) -> list[tuple[str, str, str, int | None, str]]:
    return [(e.query_id, e.doc_id, e.state.value, e.grade, e.assessor) for e in store.events()]


async def test_grades_skip_and_advance_commit_before_moving(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        assert screen.docs[screen.position].doc_id == "d1"  # first unlabeled; d2 is bob's
        await pilot.press("3")
        assert events(tiny_store)[-1] == ("q1", "d1", "graded", 3, "ann")
        assert screen.docs[screen.position].doc_id == "d3"  # skips the labeled d2
        await pilot.press("s")
        assert events(tiny_store)[-1] == ("q1", "d3", "skipped", None, "ann")
        await pilot.press("0")
        assert events(tiny_store)[-1] == ("q1", "d4", "graded", 0, "ann")
        assert isinstance(app.screen, NextQueryScreen)  # nothing unlabeled left in q1
    labels = {(x.query_id, x.doc_id): x.grade for x in tiny_store.labels()}
    assert labels == {("q1", "d1"): 3, ("q1", "d2"): 1, ("q1", "d4"): 0}
    assert tiny_store.skipped() == [("q1", "d3")]
    assert all(e.seconds is not None and e.seconds >= 0 for e in tiny_store.events() if e.assessor == "ann")


async def test_next_query_is_offered_and_opened(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "1", "1")
        assert isinstance(app.screen, NextQueryScreen)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.query_id == "q2"
        await pilot.press("2")
        assert events(tiny_store)[-1] == ("q2", "d3", "graded", 2, "ann")


async def test_clear_records_an_event_and_stays(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # d2, bob's grade 1
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.docs[screen.position].doc_id == "d2"
        await pilot.press("u")
        assert events(tiny_store)[-1] == ("q1", "d2", "cleared", None, "ann")
        assert screen.docs[screen.position].doc_id == "d2"
    assert ("q1", "d2") not in {(x.query_id, x.doc_id) for x in tiny_store.labels()}
    # changing a label appends; bob's event is still in the log
    assert [e.state for e in tiny_store.events("q1") if e.doc_id == "d2"] == [
        JudgmentState.GRADED,
        JudgmentState.CLEARED,
    ]


async def test_moving_does_not_judge_and_stops_at_the_ends(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        before = len(tiny_store.events())
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await pilot.press("p", "left")
        assert screen.position == 0
        await pilot.press("n", "right", "n", "n", "n")
        assert screen.position == 3
        await pilot.press("p")
        assert screen.position == 2
        assert len(tiny_store.events()) == before


async def test_note_is_appended_with_the_current_grade(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2", "p", "p")  # grade d1 (jumps to d3, the next unlabeled), come back to d1
        await pilot.press("e")
        await pilot.press(*"too short")
        await pilot.press("enter")
        last = tiny_store.events()[-1]
        assert (last.doc_id, last.state.value, last.grade, last.note) == ("d1", "graded", 2, "too short")
        await pilot.press("e", "escape")  # cancelled: nothing recorded
        assert tiny_store.events()[-1] == last


async def test_grades_outside_the_scale_are_ignored(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        before = len(tiny_store.events())
        await pilot.press("7", "9")
        assert len(tiny_store.events()) == before


async def test_help_shows_every_key(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        text = str(app.screen.query_one("Static").render())
        for key in ("skip", "clear", "next / previous", "note", "stratum", "quit"):
            assert key in text
        await pilot.press("escape")
        assert isinstance(app.screen, JudgingScreen)


async def test_query_list_counts_filters_and_opens(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QueryListScreen)
        table = screen.query_one("DataTable", DataTable)
        assert table.row_count == 2
        assert [str(c) for c in table.get_row("q1")[3:6]] == ["1", "0", "3"]
        await pilot.press("f")  # stratum: howto (sorted first)
        assert table.row_count == 1 and screen.session.stratum == "howto"
        await pilot.press("f", "f")  # nav, then all
        assert table.row_count == 2
        await pilot.press("enter")
        assert isinstance(app.screen, JudgingScreen) and app.screen.query_id == "q1"
        await pilot.press("1", "escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, QueryListScreen)
        assert [str(c) for c in table.get_row("q1")[3:6]] == ["2", "0", "2"]  # reloaded on return
        await pilot.press("h")  # only queries with unlabeled documents
        assert table.row_count == 2


@pytest.mark.parametrize("stratum", ["nav"])
async def test_stratum_option_filters_the_list(tiny_store: Store, stratum: str) -> None:
    app = judge_app(tiny_store, "ann", stratum=stratum)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.query_one("DataTable", DataTable).row_count == 1


def _pool_two_runs(store: Store) -> None:
    from qrelkit.scoring.arrays import RunLists

    runs = [
        RunLists("a", {"q1": ["d3", "d1", "d2", "d4"], "q2": ["d5", "d3"]}),
        RunLists("b", {"q1": ["d4", "d3", "d2", "d1"], "q2": ["d3", "d5"]}),
    ]
    store.pool_runs(runs, depth=4, paths=["a.run", "b.run"])


@pytest.mark.parametrize("order", ["impact", "depth", "random"])
async def test_judging_follows_the_queue_order(tiny_store: Store, order: QueueOrder) -> None:
    _pool_two_runs(tiny_store)
    queue = [(i.query_id, i.doc_id) for i in ordered_queue(tiny_store, order, seed=3)]
    q1 = [d for q, d in queue if q == "q1"]
    if order == "impact":  # the orders really differ here: q2 has no label at all, so it comes first
        assert queue[0][0] == "q2" and q1 == ["d3", "d4", "d1"]
    app = judge_app(tiny_store, "ann", query="q1", order=order, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()  # the queue is computed in a worker at start
        await pilot.pause()
        seen = []
        for _ in q1:
            screen = app.screen
            assert isinstance(screen, JudgingScreen)
            seen.append(screen.docs[screen.position].doc_id)
            await pilot.press("1")
        assert seen == q1
        assert isinstance(app.screen, NextQueryScreen)
        await pilot.press("enter")
        opened = app.screen
        assert isinstance(opened, JudgingScreen) and opened.query_id == "q2"
        q2 = [d for q, d in queue if q == "q2"]
        assert opened.docs[opened.position].doc_id == q2[0]


async def test_answering_the_next_query_offer_recomputes_the_queue_once(
    tiny_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judging screen asks the app (QueueStale); the app's one worker recomputes the queue."""
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        refresh = app.session.refresh_queue
        calls: list[Store | None] = []

        def counted(store: Store | None = None) -> None:
            if store is None:  # a worker's call (it then recurses with a reader of its own)
                calls.append(store)
            refresh(store)

        monkeypatch.setattr(app.session, "refresh_queue", counted)
        await pilot.press("1", "1", "1")
        assert isinstance(app.screen, NextQueryScreen) and calls == []
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert calls == [None]  # once
        assert isinstance(app.screen, JudgingScreen) and app.screen.query_id == "q2"


async def test_the_query_list_under_a_judging_screen_loads_only_when_shown(tiny_store: Store) -> None:
    """`judge --query`: the list's counts (seconds on a big store, and a table filled frame by
    frame) are read only once the assessor goes back to it, never behind the judging screen."""
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        listing = app.screen_stack[-2]
        assert isinstance(listing, QueryListScreen) and listing.rows == []
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert app.screen is listing and {r.query_id for r in listing.rows} == {"q1", "q2"}
