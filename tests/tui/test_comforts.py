"""What an assessor can read and do on the judging screen besides grading: the whole guidelines,
long notes, the session panel, scrolling, grades above 9, the grade definitions, every key."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from qrelkit.models import Document, GradeScale, Judgment, JudgmentState, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.help import KEYS as HELP_KEYS
from qrelkit.tui.modals.next_query import NextQueryScreen
from qrelkit.tui.modals.reading import ReadingScreen
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.dashboard import DashboardScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen
from qrelkit.tui.widgets.document import DocumentView
from qrelkit.tui.widgets.query_header import CUT
from qrelkit.tui.widgets.session_panel import SessionPanel
from qrelkit.workflows.pacing import Pace

from .conftest import judge_app, make_store, until

GUIDE = [f"Guideline line {n}: judge by what the page says about it." for n in range(1, 31)]


def _text(app: JudgeApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def _judging(app: JudgeApp) -> JudgingScreen:
    screen = app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


def long_store() -> Store:
    """`make_store` plus q3: thirty lines of guidelines over one document of 300 lines."""
    store = make_store()
    store.imports.queries(
        [(3, Query(id="q3", text="long read", stratum="nav", description="\n".join(GUIDE)))], source="t"
    )
    body = "\n".join(f"line {n} of the long document" for n in range(1, 301))
    store.imports.documents([Document(id="long", title="Long", text=body)])
    store.imports.pool_entries([PoolEntry(query_id="q3", doc_id="long", best_rank=1)])
    return store


# -- 1. the whole guidelines -------------------------------------------------------------------


async def test_cut_guidelines_say_so_and_g_shows_them_whole_in_a_scrolling_modal() -> None:
    app = judge_app(long_store(), "ann", query="q3")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        header = _text(app, "#query")
        assert header.splitlines()[-1] == CUT and len(header.splitlines()) == 5
        assert GUIDE[0] in header and GUIDE[-1] not in header
        await pilot.press("g")
        modal = app.screen
        assert isinstance(modal, ReadingScreen)
        body = _text(app, "#text")
        assert all(line in body for line in GUIDE)  # every line, the cut ones too
        scroll = modal.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        await pilot.press("end")
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("escape")
        assert isinstance(app.screen, JudgingScreen)


async def test_guidelines_that_fit_are_not_marked_cut() -> None:
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert CUT not in _text(app, "#query") and "The assert reference." in _text(app, "#query")
        await pilot.press("g")
        assert "The assert reference." in _text(app, "#text")


# -- 2. notes of several lines -----------------------------------------------------------------


async def test_a_note_of_several_lines_is_saved_whole_and_read_whole_with_N() -> None:
    store = make_store()
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    store.log.record(
        Judgment(query_id="q1", doc_id="d1", state=JudgmentState.NOTED, assessor="bob", note="bob's", timestamp=when)
    )
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _judging(app).docs[_judging(app).position].doc_id == "d1"
        await pilot.press("e", *"first line", "enter", *"second line", "ctrl+s")
        last = store.log.events()[-1]
        assert (last.doc_id, last.state, last.assessor, last.note) == (
            "d1", JudgmentState.NOTED, "ann", "first line\nsecond line",
        )  # fmt: skip
        label = _text(app, "#label")
        assert "“first line" in label and "second line" not in label and "+1 more · N: notes" in label
        await pilot.press("N")
        assert isinstance(app.screen, ReadingScreen)
        notes = _text(app, "#text")
        assert "bob · 2026-01-02 03:04\nbob's" in notes
        assert "\nfirst line\nsecond line" in notes and notes.index("bob") < notes.index("ann ·")
        await pilot.press("escape", "e", *"never saved", "escape")  # esc cancels
        assert store.log.events()[-1] == last


async def test_a_note_too_long_for_the_line_is_cut_to_the_width_and_says_how_to_read_it() -> None:
    store = make_store()
    long_note = "this page only mentions the statement in passing, " * 4
    store.log.record(Judgment(query_id="q1", doc_id="d2", state=JudgmentState.NOTED, assessor="bob", note=long_note))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # d2
        label = app.screen.query_one("#label", Static)
        shown = str(label.render())
        assert "\n" not in shown and len(shown) <= label.content_size.width
        assert shown.endswith("… N: notes") and "“this page only" in shown
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(300, 24)) as pilot:  # room enough: the note as it is, no hint
        await pilot.press("n")
        assert f"“{long_note}”" in _text(app, "#label") and "N: notes" not in _text(app, "#label")


# -- 3. the session panel ----------------------------------------------------------------------


async def test_the_session_panel_counts_times_and_ticks_across_screens() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    clock = [1000.0]
    app.pace = Pace(now=lambda: clock[0])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = _judging(app)
        clock[0] += 5  # five seconds on d1
        await pilot.press("2")
        clock[0] += 9  # nine on d3
        await pilot.press("s")
        panel = screen.query_one(SessionPanel)
        assert "judged 2 this session · median 7.0 s/doc" in str(panel.render())
        recorded = [e.seconds for e in store.log.events() if e.assessor == "ann"]
        assert [round(s or 0) for s in recorded] == [5, 9]  # what the events record, as the panel
        for _ in range(13):  # 65 s of work on d4, a key every 5 s
            clock[0] += 5
            app.pace.touch()
        clock[0] += 0.5  # (+ 65 alone can come back as 64.999...: floating point)
        await until(pilot, lambda: "1:05 on this document" in str(panel.render()))  # it ticks by itself, once a second
        await pilot.press("escape")  # the list, then another query: the same session's figures
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, QueryListScreen)
        await pilot.press("down", "enter")
        other = _judging(app)
        assert other.query_id == "q2"
        await pilot.pause()
        assert "judged 2 this session · median 7.0 s/doc" in str(other.query_one(SessionPanel).render())


# -- 6. scroll keys ----------------------------------------------------------------------------


async def test_the_document_scrolls_with_the_documented_keys_whatever_has_the_focus() -> None:
    app = judge_app(long_store(), "ann", query="q3")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        document = app.screen.query_one(DocumentView)
        for focused in (True, False):
            if not focused:
                app.screen.set_focus(None)
                await pilot.pause()
            assert (app.focused is document) is focused
            await pilot.press("home", "down", "down")
            assert document.scroll_y == 2
            await pilot.press("up")
            assert document.scroll_y == 1
            await pilot.press("pagedown")
            page = document.scroll_y
            assert page > 10
            await pilot.press("pageup")
            assert document.scroll_y == 1
            await pilot.press("end")
            assert document.scroll_y == document.max_scroll_y > page
            await pilot.press("home")
            assert document.scroll_y == 0
    assert [e for e in app.session.store.log.events() if e.assessor == "ann"] == []  # scrolling judges nothing


# -- 7. grades above 9 -------------------------------------------------------------------------


def _grades(store: Store) -> list[int | None]:
    return [e.grade for e in store.log.events() if e.assessor == "ann"]


async def test_on_a_scale_above_9_digits_make_one_grade() -> None:
    store = make_store()
    store.settings.configure(scale=GradeScale.from_max(12))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = _judging(app)
        panel = screen.query_one(SessionPanel)
        entry = screen.grade_keys.entry
        await pilot.press("1")
        assert _grades(store) == [] and "grade 1_" in str(panel.render())  # shown while pending
        await pilot.press("2")  # 12: no digit can extend it, saved at once
        assert _grades(store) == [12] and "grade 1" not in str(panel.render())
        await pilot.press("3")  # 30 is off the scale: 3 is saved at once
        assert _grades(store) == [12, 3]
        await pilot.press("p", "1", "enter")  # back to d3: enter saves what was typed; on to d4
        assert _grades(store) == [12, 3, 1] and screen.docs[screen.position].doc_id == "d4"
        await pilot.press("1", "5")  # 15 is no grade: nothing saved, nothing pending
        assert _grades(store) == [12, 3, 1] and entry.typed == ""
        await pilot.press("1", "p")  # another key cancels what was typed, then does its work
        assert entry.typed == "" and _grades(store) == [12, 3, 1] and screen.docs[screen.position].doc_id == "d3"
        await pilot.press("n", "1", "backspace")  # backspace drops the digit
        assert entry.typed == "" and _grades(store) == [12, 3, 1]
        await pilot.press("1", "escape")  # esc cancels what was typed (and stays)
        assert entry.typed == "" and app.screen is screen and _grades(store) == [12, 3, 1]
        await pilot.press("1")
        await asyncio.sleep(1.5)  # a pause saves nothing: a lone digit waits for enter or a digit
        await pilot.pause()
        assert _grades(store) == [12, 3, 1] and entry.typed == "1" and "grade 1_" in str(panel.render())
        await pilot.press("1")  # 11: saved at once
        assert _grades(store) == [12, 3, 1, 11] and entry.typed == ""
        assert isinstance(app.screen, NextQueryScreen)  # d4 was the last unlabeled


async def test_a_digit_typed_on_one_document_is_never_saved_on_another() -> None:
    store = make_store()
    store.settings.configure(scale=GradeScale.from_max(12))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = _judging(app)
        await pilot.press("1")
        screen.position += 1  # the screen moves on by itself (another assessor's judgment, say)
        screen.refresh_view()
        await pilot.pause()  # drawn (a key before that is refused whatever it is: `tui.sight`)
        await pilot.press("enter")  # the digit was typed on another document: refused
        assert screen.grade_keys.entry.typed == "" and _grades(store) == []


async def test_on_a_scale_up_to_9_a_digit_judges_at_once() -> None:
    store = make_store()
    store.settings.configure(scale=GradeScale.from_max(9))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        assert _grades(store) == [1]
        await pilot.press("9")
        assert _grades(store) == [1, 9]


# -- 8. grade definitions ----------------------------------------------------------------------


async def test_G_lists_every_grade_and_what_counts_as_relevant() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("G")
        assert isinstance(app.screen, ReadingScreen)
        text = _text(app, "#text")
        for level in store.settings.scale.levels:
            assert f"{level.grade:>3}  {level.name}" in text
        assert "0  irrelevant   not relevant" in text and "1  related      counts as relevant" in text
        assert "3  perfect      counts as relevant" in text
        assert "count grade 1 and above as relevant" in text
        await pilot.press("escape")
        assert isinstance(app.screen, JudgingScreen)


# -- 11. every key in the help -----------------------------------------------------------------

SHOWN_AS = {
    "question_mark": "?",
    "slash": "/",
    "right": "→",
    "left": "←",
    "up": "↑",
    "down": "↓",
    "pageup": "pgup",
    "pagedown": "pgdn",
    "escape": "esc",
    "exclamation_mark": "!",
}


def _help_lines(app: JudgeApp) -> list[str]:
    """The help's lines as drawn (wrapped at the box's width)."""
    static = app.screen.query_one(Static)
    return [strip.text for strip in static.render_lines(Region(0, 0, *static.size))]


def test_the_help_lists_every_key_of_every_screen() -> None:
    listed = {word for keys, _ in HELP_KEYS for word in keys.split()}
    missing = []
    for screen in (JudgingScreen, QueryListScreen, AdjudicationScreen, DashboardScreen):
        for binding in screen.BINDINGS:
            assert isinstance(binding, Binding)
            for key in binding.key.split(","):
                if SHOWN_AS.get(key, key) not in listed:
                    missing.append((screen.__name__, key))
    assert missing == []


async def test_help_shows_the_keys_and_scrolls_on_a_small_terminal() -> None:
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        text = "\n".join(_help_lines(app))
        for what in ("full guidelines", "every note", "pgup pgdn", "search query ids", "pending assignments"):
            assert what in text
        scroll = app.screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0
        await pilot.press("end")
        assert scroll.scroll_y == scroll.max_scroll_y


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_help_descriptions_wrap_under_their_column(size: tuple[int, int]) -> None:
    """A description too long for the box goes on under itself, not under the keys."""
    app = judge_app(make_store(), "ann", query="q1")
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        lines = _help_lines(app)
        keys = {key for key, _ in HELP_KEYS}
        titles = {"Keys", "esc closes", "Judging a query", "The query list", "Everywhere"}
        stray = [line for line in lines if line.strip() and not line.startswith(" " * 13)
                 and not any(line.startswith(k + " ") for k in keys if k) and line.strip() not in titles
                 and not line.startswith("Adjudication")]  # fmt: skip
        assert stray == []
