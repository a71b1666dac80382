"""No blind key (issue 25, item 4): a key typed before the screen, or the document it would act
on, was drawn is refused with a message naming it, never applied to a document the assessor did
not see (`2` 0.3 s after `judge --query` was saved on a document never shown; keys landed in the
query list's search box before the list was on screen)."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from textual import events
from textual.widgets import Input, Static

from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen

from .conftest import judge_app, make_store, until
from .pty import Terminal


def _send(app: JudgeApp, key: str, character: str | None = None) -> None:
    """A key as the terminal sends it, at once: no wait for the app to draw or go idle."""
    event = events.Key(key, character if character is not None else (key if len(key) == 1 else None))
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


def _saved_line(screen: JudgingScreen) -> str:
    return str(screen.query_one("#saved", Static).render())


def _events(store: Store) -> list[tuple[str, str, int | None]]:
    return [(e.doc_id, e.state.value, e.grade) for e in store.log.events() if e.assessor == "ann"]


async def test_a_grade_typed_before_the_judging_screen_is_drawn_is_refused(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, QueryListScreen))
        app.push_screen(JudgingScreen(app.session, "q1"))
        _send(app, "2")  # in the same instant: nothing of the screen is drawn yet
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await until(pilot, screen.sight.drawn)
        await pilot.pause()
        assert _events(tiny_store) == []  # nothing saved ...
        assert "not applied: 2" in _saved_line(screen)  # ... and the screen says so
        await pilot.press("2")  # typed again, on what is drawn now
        assert _events(tiny_store) == [("d1", "graded", 2)]


async def test_keys_typed_before_the_next_document_is_drawn_are_refused(tiny_store: Store) -> None:
    """A burst (`3s` at once): the grade moves to d3, and the skip came before d3 was drawn."""
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await until(pilot, screen.sight.drawn)
        _send(app, "3")
        _send(app, "s")
        await until(pilot, lambda: screen.docs[screen.position].doc_id == "d3" and screen.sight.drawn())
        await pilot.pause()
        assert _events(tiny_store) == [("d1", "graded", 3)]
        assert "not applied: s" in _saved_line(screen)
        await pilot.press("s")
        assert _events(tiny_store) == [("d1", "graded", 3), ("d3", "skipped", None)]


async def test_moving_and_reading_keys_pass_before_the_drawing(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        await until(pilot, screen.sight.drawn)
        _send(app, "n")
        _send(app, "n")  # before d2 is drawn: moving judges nothing, so it goes on to d3
        await until(pilot, lambda: screen.docs[screen.position].doc_id == "d3")
        assert _events(tiny_store) == []


async def test_a_search_typed_before_the_query_list_is_drawn_is_refused(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, JudgingScreen))
        listing = QueryListScreen(app.session)
        app.push_screen(listing)
        for key, char in (("slash", "/"), ("2", "2")):
            _send(app, key, char)
        await until(pilot, lambda: app.screen is listing and listing.sight.drawn() and bool(listing.rows))
        await pilot.pause()
        search = listing.query_one("#search", Input)
        assert search.value == "" and app.focused is not search
        assert any("not applied: / 2" in str(n.message) for n in app._notifications)
        await pilot.press("slash", "2")  # on the list as drawn: taken
        assert search.value == "2"


async def test_enter_before_the_rows_are_drawn_opens_nothing(tiny_store: Store) -> None:
    app = judge_app(tiny_store, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        listing = app.screen
        assert isinstance(listing, QueryListScreen)
        await until(pilot, lambda: bool(listing.rows) and listing.rows_sight.drawn())
        listing.show(list(reversed(listing.rows)))  # the rows change (a search, new counts) ...
        _send(app, "enter")  # ... and enter comes before they are drawn
        await until(pilot, listing.rows_sight.drawn)
        await pilot.pause()
        assert app.screen is listing
        assert any("not applied: enter" in str(n.message) for n in app._notifications)
        await pilot.press("enter")
        assert isinstance(app.screen, JudgingScreen)


def test_a_grade_typed_as_judge_starts_in_a_terminal_is_not_saved_on_an_unseen_document(tmp_path: Path) -> None:
    """The real `qrelkit judge --query` on a pseudo-terminal, `2` written the moment it starts:
    whenever the key is read, it acts only on a document already drawn, or is refused with a
    message (here it comes before anything was drawn)."""
    db = tmp_path / "s.db"
    make_store(str(db)).close()
    env = {**os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "ann", "COLUMNS": "80", "LINES": "24"}
    term = Terminal([sys.executable, "-m", "qrelkit", "--db", str(db), "judge", "--query", "q1"], env)
    try:
        term.send(b"2")
        assert term.read_until("judged"), term.output[-2000:]
        refused = term.read_until("not applied: 2", timeout=10)
    finally:
        term.close()
    conn = sqlite3.connect(db)
    saved = conn.execute("SELECT doc_id, grade FROM judgments WHERE assessor = 'ann'").fetchall()
    conn.close()
    assert refused and saved == [], (saved, term.output[-2000:])
