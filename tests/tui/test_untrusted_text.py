"""Text from data (ids, query text, guidelines, documents, notes, assessor and store names) is shown
as it is: never read as markup (no crash on `[/]`, no action from `[@click=...]`), and control
characters are shown as escapes instead of reaching the terminal."""

from __future__ import annotations

import re

from textual.widgets import DataTable, Static, TextArea

from qrelkit.models import Document, GradeLevel, GradeScale, Judgment, JudgmentState, PoolEntry, Query, to_model
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.modals.next_query import NextQueryScreen
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.screens.query_list import QueryListScreen

from .conftest import drawn, judge_app, make_store

NASTY = "[/] [@click=app.quit] \x1b[2J"
SHOWN = "[/] [@click=app.quit] \\x1b[2J"
"""What the screens show for NASTY."""
QUERY, DOC, BOB = "q[/]", "d[@click=app.quit]", "bob[/]"


def nasty_store() -> Store:
    """`make_store` plus a query, a document, notes and names made of markup and an escape
    sequence; ann and bob[/] disagree on the document."""
    store = make_store()
    store.settings.configure(name=f"tiny{NASTY}")
    levels = [GradeLevel(grade=g, name=f"g{g}[/]") for g in range(4)]
    store.settings.configure(scale=GradeScale(levels=levels))
    query = Query(id=QUERY, text=NASTY, stratum="nav", description=f"guide {NASTY}")
    store.imports.queries([(3, query)], source="t")
    store.imports.documents([Document(id=DOC, title=f"title {NASTY}", text=f"body {NASTY}")])
    store.imports.pool_entries([PoolEntry(query_id=QUERY, doc_id=DOC, best_rank=1)])
    for who, grade in (("ann", 0), (BOB, 3)):
        store.log.record(
            Judgment(query_id=QUERY, doc_id=DOC, state=JudgmentState.GRADED, grade=grade, assessor=who, note=NASTY)
        )
    return store


def _shown(app: JudgeApp, selector: str) -> str:
    text = str(app.screen.query_one(selector, Static).render())
    assert "\x1b" not in text
    return text


async def test_the_judging_screen_shows_data_as_it_is() -> None:
    app = judge_app(nasty_store(), "ann", query=QUERY)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, JudgingScreen)
        assert SHOWN in app.title and "\x1b" not in app.title
        query = _shown(app, "#query")
        assert f"{QUERY} (nav)  {SHOWN}" in query and f"guide {SHOWN}" in query
        text = _shown(app, "#text")
        assert DOC in text and f"title {SHOWN}" in text and f"body {SHOWN}" in text
        label = _shown(app, "#label")
        # the note, with its author before it, cut to the line (N shows it whole)
        assert f"votes ann 0, {BOB} 3" in label and f"{BOB}: “{SHOWN[:20]}" in label
        assert "g0[/]" in _shown(app, "#keys")
        await pilot.press("N")  # every note on the pair, as it is
        notes = _shown(app, "#text")
        assert notes.count(SHOWN) == 2 and BOB in notes
        await pilot.press("escape", "g")  # the whole guidelines
        assert f"guide {SHOWN}" in _shown(app, "#text")
        await pilot.press("escape")
        await pilot.press("e")  # ann's own note in the editor, prefilled: never markup, no escape sequence
        area = app.screen.query_one(TextArea)
        assert area.text == SHOWN and app.screen.focused is area
        line = "".join(segment.text for segment in area.render_line(0))
        assert "[@click=app.quit]" in line and "\x1b" not in line
        assert f"Your note on {DOC}" in _shown(app, "#note-hint")
        await pilot.press("ctrl+s")  # left as shown: no edit (its control character was shown made visible)
        assert [e.note for e in app.session.store.log.events()][-1] == NASTY
        assert "note unchanged" in _shown(app, "#saved")
        app.push_screen(NextQueryScreen(QUERY, QUERY, NASTY))
        await pilot.pause()
        assert f"Next with unlabeled documents: {QUERY}  {SHOWN}" in _shown(app, "Static")
        assert app.is_running


async def test_the_query_list_shows_data_as_it_is() -> None:
    app = judge_app(nasty_store(), "ann")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, QueryListScreen)
        row = app.screen.query_one(DataTable).get_row(QUERY)
        assert [str(c) for c in row[:3]] == [QUERY, "nav", SHOWN[:21] + "…"]
        assert app.is_running


async def test_the_adjudication_screen_shows_data_as_it_is() -> None:
    app = judge_app(nasty_store(), "lead", adjudicate=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, AdjudicationScreen)
        query = _shown(app, "#query")
        assert f"{QUERY} (nav)  {SHOWN}" in query and f"guide {SHOWN}" in query
        assert f"body {SHOWN}" in _shown(app, "#text")
        votes = _shown(app, "#votes")
        assert f"ann: 0 (g0[/])  ·  {BOB}: 3 (g3[/])" in votes
        assert re.search(rf"\nann · [\d-]+ [\d:]+: “{re.escape(SHOWN)}”\n{re.escape(BOB)} · ", votes)  # the notes
        await pilot.press("N")  # every note, as it is
        assert _shown(app, "#text").count(SHOWN) == 2 and BOB in _shown(app, "#text")
        await pilot.press("escape", "3", "n")
        assert "No disagreement left" in _shown(app, "#query")
        assert app.is_running


async def test_the_dashboard_shows_run_and_set_names_as_they_are() -> None:
    """A saved comparison whose run names (file names) are markup and an escape sequence."""
    from conftest import ROOT
    from qrelkit.render.styles import visible
    from qrelkit.scoring import paired
    from qrelkit.tui.screens.dashboard import DashboardScreen
    from qrelkit.workflows.scoring import score_run
    from qrelkit.workflows.sources import ScoringSource, plan

    folder = ROOT / "goldensets" / "pydocs"
    source = ScoringSource.from_version(folder / "1.0")
    chosen = plan(source)
    a, b = (score_run(source, folder / "runs" / f"{n}.run", chosen, per_query=True, name=f"{n}{NASTY}")
            for n in ("bm25", "bm25-title"))  # fmt: skip
    comparison = paired.compare(to_model(a), to_model(b))
    store = make_store()
    store.reports.save(comparison, "x")
    app = judge_app(store, "ann")
    async with app.run_test(size=(120, 36)) as pilot:
        await drawn(pilot, app)
        await pilot.press("d")
        assert isinstance(app.screen, DashboardScreen)
        source_line = _shown(app, "#source")
        assert visible(f"bm25{NASTY}") in source_line and visible(f"bm25-title{NASTY}") in source_line
