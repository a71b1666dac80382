"""Every key and flow of the judging UI, driven with Textual's Pilot, checked on the store."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Static

from qrelkit.models import JudgmentState, QueueOrder
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.next_query import NextQueryScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen
from qrelkit.workflows.queue import ordered_queue

from .conftest import drawn, judge_app, until


def events(store: Store) -> list[tuple[str, str, str, int | None, str]]:
    return [(e.query_id, e.doc_id, e.state.value, e.grade, e.assessor) for e in store.log.events()]


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
    labels = {(x.query_id, x.doc_id): x.grade for x in tiny_store.reads.labels()}
    assert labels == {("q1", "d1"): 3, ("q1", "d2"): 1, ("q1", "d4"): 0}
    assert tiny_store.reads.skipped() == [("q1", "d3")]
    assert all(e.seconds is not None and e.seconds >= 0 for e in tiny_store.log.events() if e.assessor == "ann")


async def test_next_query_is_offered_and_opened(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        await pilot.press("1", "1", "1")
        assert isinstance(app.screen, NextQueryScreen)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.query_id == "q2"
        await pilot.press("2")
        assert events(tiny_store)[-1] == ("q2", "d3", "graded", 2, "ann")


async def test_u_retracts_the_assessors_own_vote_and_stays(tiny_store: Store) -> None:
    """`u` on bob's pair, where ann has no vote, records nothing and says so (it wrote an event and
    counted as judged): bob's grade stands; on ann's own grade it takes that grade back."""
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # d2, bob's grade 1
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.docs[screen.position].doc_id == "d2"
        await pilot.press("u")
        assert events(tiny_store)[-1] == ("q1", "d2", "graded", 1, "bob")
        assert "you have no vote on d2 to retract" in str(screen.query_one("#saved").render())
        assert screen.docs[screen.position].doc_id == "d2"
        await pilot.press("p", "2")  # ann grades d1, moves on
        await pilot.press("p", "p", "u")  # back over d2 to d1: take it back
        assert events(tiny_store)[-1] == ("q1", "d1", "retracted", None, "ann")
        assert "retracted your vote on d1" in str(screen.query_one("#saved").render())
    labels = {(x.query_id, x.doc_id): x.grade for x in tiny_store.reads.labels()}
    assert labels == {("q1", "d2"): 1}  # bob's vote is untouched; ann's is gone
    assert [e.state for e in tiny_store.log.events("q1") if e.doc_id == "d2"] == [JudgmentState.GRADED]


async def test_undo_takes_back_the_last_judgment_and_returns_to_it(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await pilot.press("3")  # d1 -> 3, moves to d3
        await pilot.press("p", "p", "1")  # regrade d1 -> 1
        assert "saved 1 (related) for d1" in str(screen.query_one("#saved").render())
        await pilot.press("n", "n")  # away from d1
        await pilot.press("z")  # undo: d1 back to ann's previous 3, shown
        assert screen.docs[screen.position].doc_id == "d1"
        assert (screen.docs[screen.position].grade, events(tiny_store)[-1]) == (3, ("q1", "d1", "graded", 3, "ann"))
        await pilot.press("z")  # undo the first: ann had no vote on d1
        assert events(tiny_store)[-1] == ("q1", "d1", "retracted", None, "ann")
        await pilot.press("z")
        assert "nothing to undo" in str(screen.query_one("#saved").render())
    assert ("q1", "d1") not in {(x.query_id, x.doc_id) for x in tiny_store.reads.labels()}


async def test_moving_does_not_judge_and_stops_at_the_ends(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        before = len(tiny_store.log.events())
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await pilot.press("p", "left")
        assert screen.position == 0
        await pilot.press("n", "right", "n", "n", "n")
        assert screen.position == 3
        await pilot.press("p")
        assert screen.position == 2
        assert len(tiny_store.log.events()) == before


async def test_a_note_is_its_own_event_and_changes_no_vote(tiny_store: Store) -> None:
    """`e` on bob's graded pair: a `noted` event by ann; bob's grade, the label and the agreement
    units are as before, and the screen shows the note with its author."""
    before = ([(x.doc_id, x.grade) for x in tiny_store.reads.labels()], tiny_store.log.votes())
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n")  # d2, bob's grade 1
        await pilot.press("e")
        await pilot.press(*"too short")
        await pilot.press("ctrl+s")
        last = tiny_store.log.events()[-1]
        assert (last.doc_id, last.state.value, last.grade, last.note, last.assessor) == (
            "d2", "noted", None, "too short", "ann",
        )  # fmt: skip
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        shown = screen.docs[screen.position]
        assert [(n.assessor, n.text) for n in shown.notes] == [("ann", "too short")]
        assert (shown.grade, shown.assessor) == (1, "bob")
        await pilot.press("e", "escape")  # cancelled: nothing recorded
        assert tiny_store.log.events()[-1] == last
    assert ([(x.doc_id, x.grade) for x in tiny_store.reads.labels()], tiny_store.log.votes()) == before


async def test_grades_outside_the_scale_are_ignored(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        before = len(tiny_store.log.events())
        await pilot.press("7", "9")
        assert len(tiny_store.log.events()) == before


async def test_help_shows_every_key(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        console = Console(width=80, file=io.StringIO(), record=True)
        console.print(app.screen.query_one(Static).content)  # the help is a grid: its drawn text
        text = console.export_text()
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
    store.pool.add_runs(runs, depth=4, paths=["a.run", "b.run"])


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
        await app.workers.wait_for_complete()
        listing = app.screen_stack[-2]
        assert isinstance(listing, QueryListScreen) and listing.rows == []
        shown: QueryListScreen = listing
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is shown and {r.query_id for r in shown.rows} == {"q1", "q2"})


async def test_a_busy_store_delays_a_key_and_the_screen_says_so(tmp_path: Path) -> None:
    """Another process holds the write lock: the grade is held in memory ("store busy,
    retrying"), the screen moves on, and the poll commits it once the lock is gone."""
    import sqlite3

    from qrelkit.workflows.judging import JudgingSession

    from .conftest import make_store

    make_store(str(tmp_path / "s.db")).close()
    session = JudgingSession(Store.open(tmp_path / "s.db"), "ann", lock_wait_ms=50)
    app = JudgeApp(session, query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        other = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        await pilot.press("2")
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        assert "store busy, retrying: 1 judgment" in str(screen.query_one("#saved").render())
        assert screen.docs[screen.position].doc_id == "d3"  # moved on
        other.execute("COMMIT")
        screen.poll()
        assert "every judgment is saved" in str(screen.query_one("#saved").render())
    with Store.open(tmp_path / "s.db") as store:
        assert [(e.doc_id, e.grade, e.assessor) for e in store.log.events("q1")][-1] == ("d1", 2, "ann")


async def test_a_held_judgment_is_saved_while_the_assessor_is_on_another_screen(tmp_path: Path) -> None:
    """Only the judging screen's poll used to retry held judgments: back on the query list, a
    judgment waited (and was lost to a hang-up) until a judging screen opened again."""
    import sqlite3

    from qrelkit.workflows.judging import JudgingSession

    from .conftest import make_store

    make_store(str(tmp_path / "s.db")).close()
    session = JudgingSession(Store.open(tmp_path / "s.db"), "ann", lock_wait_ms=50)
    app = JudgeApp(session, query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        other = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        await pilot.press("2")
        assert session.waiting == 1
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, QueryListScreen))
        other.execute("COMMIT")
        await until(pilot, lambda: session.waiting == 0)  # the app's timer, with no judging screen shown
        other.close()
    with Store.open(tmp_path / "s.db") as store:
        assert [(e.doc_id, e.grade, e.assessor) for e in store.log.events("q1")][-1] == ("d1", 2, "ann")


async def test_an_unexpected_error_ends_the_app_with_a_status_and_a_traceback_log(tiny_store: Store) -> None:
    from qrelkit.tui.command import crash_log

    app = judge_app(tiny_store, "ann", query="q1")
    with pytest.raises(RuntimeError, match="a bug"):  # the test harness re-raises what stopped the app
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, JudgingScreen)

            def broken() -> None:
                raise RuntimeError("a bug")

            screen.refresh_view = broken  # type: ignore[method-assign]
            await pilot.press("n")
            await pilot.pause()
    assert app.return_code == 1 and isinstance(app.crash, RuntimeError)
    log = crash_log(app.crash)
    assert "RuntimeError: a bug" in log.read_text() and "Traceback" in log.read_text()
    log.unlink()


async def test_the_judging_screen_clears_nothing(tiny_store: Store) -> None:
    """Clearing is an adjudicator's (issue 25): `X` on the judging screen, also through `serve`,
    records nothing (it cleared bob's hidden vote on a blind pair)."""
    app = judge_app(tiny_store, "lead", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n")  # d2, bob's grade 1
        await pilot.press("X", "y")
        assert events(tiny_store)[-1] == ("q1", "d2", "graded", 1, "bob")
    assert ("q1", "d2") in {(x.query_id, x.doc_id) for x in tiny_store.reads.labels()}


async def test_the_screen_shows_another_assessors_new_grade_and_leases_what_it_shows(tmp_path: Path) -> None:
    from qrelkit.workflows.judging import JudgingSession

    from .conftest import make_store

    make_store(str(tmp_path / "s.db")).close()
    app = JudgeApp(JudgingSession(Store.open(tmp_path / "s.db"), "ann"), query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen) and screen.docs[screen.position].doc_id == "d1"
        bob = JudgingSession(Store.open(tmp_path / "s.db"), "bob")
        # shown for a moment: leased
        await until(pilot, lambda: {d.doc_id: d.held_by for d in bob.documents("q1")}["d1"] == "ann")
        bob.judge("q1", "d1", JudgmentState.GRADED, 3)
        screen.poll()
        shown = screen.docs[screen.position]
        assert (shown.doc_id, shown.grade, shown.assessor) == ("d1", 3, "bob")
        bob.close()


async def test_x_on_the_judging_screen_clears_nothing_and_says_where_clearing_is(tiny_store: Store) -> None:
    """Clearing a pair for everyone is the adjudication screen's (an adjudicator's): `X` here, on
    bob's graded pair, writes no event and says where it is, instead of doing nothing silently."""
    app = judge_app(tiny_store, "ann", query="q1")
    before = events(tiny_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        await pilot.press("n")  # d2, bob's grade 1
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, JudgingScreen)
        assert any("adjudication screen" in str(n.message) for n in app._notifications)
    assert events(tiny_store) == before
