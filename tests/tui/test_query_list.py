"""The query list: search as you type, the assessor's own assignments, and keys that work from
the first moment on a big golden set (5,000 queries, 200,000 pooled pairs)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from qrelkit.models import PoolEntry, Query, Stratum
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen

from .conftest import judge_app, make_store, until


async def _listing(app: JudgeApp, pilot: Pilot[Any]) -> tuple[QueryListScreen, DataTable[object]]:
    """The list, once its counts and the judging queue have arrived, every row added and no
    worker running."""

    def arrived() -> bool:
        screen = app.screen
        return (
            isinstance(screen, QueryListScreen)
            and bool(screen.rows)
            and screen.queue_known
            and not screen._pending
            and all(w.is_finished for w in app.workers)
        )

    await until(pilot, arrived)
    screen = app.screen
    assert isinstance(screen, QueryListScreen)
    return screen, screen.query_one(DataTable)


def _ids(table: DataTable[object]) -> list[str]:
    return [str(key.value) for key in table.rows]


def _filters(screen: QueryListScreen) -> str:
    return str(screen.query_one("#filters", Static).render())


# -- 4. search ---------------------------------------------------------------------------------


async def test_slash_searches_ids_and_text_as_you_type_and_esc_clears() -> None:
    app = judge_app(make_store(), "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen, table = await _listing(app, pilot)
        search = screen.query_one("#search", Input)
        assert not search.display and _ids(table) == ["q1", "q2"]
        await pilot.press("slash")
        assert search.display and app.focused is search
        await pilot.press(*"SORT")  # the text, whatever the case
        assert _ids(table) == ["q2"] and "1 queries" in _filters(screen) and "matching “SORT”" in _filters(screen)
        await pilot.press(*["backspace"] * 4, "q", "1")  # an id; `q` is typed, it does not quit
        assert app.is_running and _ids(table) == ["q1"]
        await pilot.press("enter")  # to the rows found; the search stays
        assert app.focused is table and _ids(table) == ["q1"]
        await pilot.press("enter")
        assert isinstance(app.screen, JudgingScreen) and app.screen.query_id == "q1"
        await pilot.press("escape")
        screen, table = await _listing(app, pilot)
        assert _ids(table) == ["q1"]  # still searched on return
        await pilot.press("escape")
        assert _ids(table) == ["q1", "q2"] and not search.display and "matching" not in _filters(screen)
        await pilot.press("slash", *"nothing like it")
        assert _ids(table) == [] and "0 queries" in _filters(screen)


# -- 5. my assignments -------------------------------------------------------------------------


async def test_queries_holding_my_pending_assignments_are_marked_and_a_filters_to_them() -> None:
    store = make_store()
    store.log.assign([("q2", "d5", "ann"), ("q2", "d3", "ann"), ("q1", "d1", "bob")])
    app = judge_app(store, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen, table = await _listing(app, pilot)
        assert [str(table.get_row(q)[-1]) for q in ("q1", "q2")] == ["", "●2"]  # bob's is not ann's
        await pilot.press("a")
        assert _ids(table) == ["q2"] and "your assignments" in _filters(screen)
        await pilot.press("enter", "1", "1")  # ann judges both her pairs of q2
        await pilot.press("escape", "escape")  # (the next query offer, then the list)
        screen, table = await _listing(app, pilot)
        # the list asked for the queue again (it has changed): ann's assignments are gone
        await until(pilot, lambda: _ids(table) == [] and screen.assigned == {})
        await pilot.press("a")
        assert _ids(table) == ["q1", "q2"] and [str(table.get_row(q)[-1]) for q in ("q1", "q2")] == ["", ""]


# -- 9. a big golden set -----------------------------------------------------------------------


def big_store() -> Store:
    """5,000 queries and 200,000 pooled pairs (40 a query), through the store's own API."""
    store = Store.memory()
    store.settings.configure(name="big")
    store.settings.set_stratum(Stratum(name="nav", weight=1.0))
    store.imports.queries(
        ((n, Query(id=f"q{n:04d}", text=f"query {n} about topic {n % 97}", stratum="nav")) for n in range(5000)),
        source="t",
    )
    store.imports.pool_entries(
        PoolEntry(query_id=f"q{n:04d}", doc_id=f"d{(n * 31 + r) % 100_000:06d}", best_rank=r + 1)
        for n in range(5000)
        for r in range(40)
    )
    return store


def _send(app: JudgeApp, key: str, character: str | None = None) -> None:
    """A key as the terminal sends it, without Pilot's wait for an idle app (workers keep it
    busy here: that wait alone would take a second)."""
    event = events.Key(key, character)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def _until(check: Callable[[], bool], limit: float = 60.0) -> float:
    """Seconds until `check()` holds (polling every 2 ms)."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < limit
        await asyncio.sleep(0.002)
    return time.monotonic() - start


async def test_on_5000_queries_a_search_typed_at_start_loses_no_key() -> None:
    """Right after start (the counts, the rows and the judging queue still loading in workers and
    frame by frame), a search typed is taken whole and finds its rows. How fast: measured by
    `benchmarks/bench_query_list.py`, not here."""
    app = judge_app(big_store(), "ann")
    async with app.run_test(size=(80, 24)):
        screen = app.screen
        assert isinstance(screen, QueryListScreen)
        table = screen.query_one(DataTable)
        search = screen.query_one("#search", Input)
        for key, char in (("slash", "/"), ("4", "4"), ("2", "2"), ("1", "1")):
            _send(app, key, char)
        await _until(lambda: search.value == "421")  # every key taken (none lost)
        await _until(lambda: _ids(table)[:1] == ["q0421"])
        await _until(lambda: not screen._pending)
        assert _ids(table) == [f"q{n:04d}" for n in range(5000) if "421" in str(n)]  # 15 of them


async def test_on_5000_queries_a_cursor_moved_while_rows_arrive_stays_where_it_was_put() -> None:
    app = judge_app(big_store(), "ann")
    async with app.run_test(size=(80, 24)):
        screen = app.screen
        assert isinstance(screen, QueryListScreen)
        table = screen.query_one(DataTable)
        await _until(lambda: table.row_count > 0)
        assert table.row_count < 5000  # the rows are still arriving
        for _ in range(3):
            _send(app, "down")
        await _until(lambda: table.cursor_row == 3)
        await _until(lambda: table.row_count == 5000)
        for _ in range(20):  # the last batches arrived: the cursor is where the assessor put it
            await asyncio.sleep(0.01)
        assert table.cursor_row == 3


async def test_the_cursor_comes_back_to_the_query_opened() -> None:
    app = judge_app(make_store(), "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        screen, table = await _listing(app, pilot)
        await pilot.press("down", "enter")
        assert isinstance(app.screen, JudgingScreen) and app.screen.query_id == "q2"
        await pilot.press("escape")
        screen, table = await _listing(app, pilot)
        assert table.row_count == 2 and table.cursor_row == 1


async def test_counts_arriving_after_the_app_quit_are_dropped() -> None:
    """The counts are read in a worker; when they arrive after the app began to quit (its screens
    already taken down), they are dropped, not a crash at exit (`WorkerFailed: NoMatches`, seen
    once in the full suite on a busy machine)."""
    app = judge_app(make_store(), "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, QueryListScreen) and app.screen.rows != [])
        listed = app.screen
        assert isinstance(listed, QueryListScreen)
        rows = listed.rows
    with pytest.raises(NoMatches):  # what the worker used to call then
        listed.show(rows)
    listed._arrived(rows)  # the app is gone: nothing to show them on, and no error
