"""Reading aids on the judging screen (issue 25, item 6): `h` turns the query terms' highlighting
off and on, for every document and query of the session; `m` marks the passage that is the
evidence for the grade, selected in the document (shift+arrows) or typed, kept for the vote to come
and saved in its event, or recorded again with the vote already cast; the passages show on the
judging and adjudication screens as plain text, control characters visible."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Static

from qrelkit.models import Judgment, JudgmentState
from qrelkit.render.styles import visible
from qrelkit.storage import Store
from qrelkit.tui.modals.evidence import EvidenceScreen
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.evidence_line import EvidenceLine

from .conftest import judge_app, make_store, until

HOSTILE = "[bold]x[/bold] \x1b[2J\x07 [@click=app.quit]q"


async def ready(pilot: Pilot[Any]) -> JudgingScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


def highlighted(screen: JudgingScreen) -> list[str]:
    """The words of the document on screen drawn as query terms."""
    text = screen.query_one("#text", Static).content
    assert isinstance(text, Text)
    return [text.plain[s.start : s.end] for s in text.spans if str(s.style) == "bold yellow on grey23"]


def evidence_of(store: Store, who: str = "ann") -> list[tuple[str, JudgmentState, int | None, str | None]]:
    return [(e.doc_id, e.state, e.grade, e.evidence) for e in store.log.events() if e.assessor == who]


async def test_h_toggles_the_highlighting_for_the_whole_session() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        assert "assert" in [w.lower() for w in highlighted(screen)]
        await pilot.press("h")
        assert highlighted(screen) == [] and "highlighting off" in str(screen.query_one("#saved", Static).render())
        await pilot.press("n")  # another document: still off
        assert highlighted(screen) == []
        await pilot.press("escape")
        app.push_screen(JudgingScreen(app.session, "q1", pace=app.pace))  # the query opened again: still off
        screen = await ready(pilot)
        assert highlighted(screen) == []
        await pilot.press("h")
        assert "assert" in [w.lower() for w in highlighted(screen)]


async def test_a_passage_selected_before_the_grade_is_saved_with_it() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        doc_id = screen.docs[screen.position].doc_id
        text = store.reads.document(doc_id)
        assert text is not None
        before = store.log.size()
        await pilot.press("m")
        assert isinstance(app.screen, EvidenceScreen)
        await pilot.press(*["shift+right"] * 6, "ctrl+s")  # the first six characters of the document
        assert store.log.size() == before  # kept for the vote, nothing written
        assert pilot.app.screen is screen
        line = str(screen.query_one(EvidenceLine).render())
        assert "saved with your grade" in line and text.text[:6] in line
        await pilot.press("2")
        await until(pilot, lambda: evidence_of(store))
        assert evidence_of(store) == [(doc_id, JudgmentState.GRADED, 2, text.text[:6])]


async def test_a_passage_typed_on_a_graded_document_records_the_vote_again() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        doc_id = screen.docs[screen.position].doc_id
        await pilot.press("1")
        await until(pilot, lambda: screen.docs[screen.position].doc_id != doc_id)
        while screen.docs[screen.position].doc_id != doc_id:  # back to it
            await pilot.press("p")
        await pilot.press("m", "tab")
        assert isinstance(app.screen, EvidenceScreen) and isinstance(app.focused, Input)
        await pilot.press(*"[bold]key[/bold]", "enter")
        await until(pilot, lambda: len(evidence_of(store)) == 2)
        assert evidence_of(store) == [
            (doc_id, JudgmentState.GRADED, 1, None),
            (doc_id, JudgmentState.GRADED, 1, "[bold]key[/bold]"),
        ]
        assert "ann: “[bold]key[/bold]”" in str(screen.query_one(EvidenceLine).render())
        await pilot.press("m")  # prefilled with it: cleared and saved, it is withdrawn
        app.screen.query_one(Input).value = ""
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(evidence_of(store)) == 3)
        assert evidence_of(store)[-1] == (doc_id, JudgmentState.GRADED, 1, None)
        assert not screen.query_one(EvidenceLine).display


def _disagreement(store: Store) -> None:
    for who, grade in (("bob", 0), ("cy", 2)):
        store.log.record(
            Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=grade, assessor=who,
                     evidence=f"{who}: {HOSTILE}")
        )  # fmt: skip


async def test_hostile_passages_show_as_plain_text_on_both_screens() -> None:
    store = make_store()
    _disagreement(store)
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await ready(pilot)
        at = next(i for i, d in enumerate(screen.docs) if d.doc_id == "d1")
        screen.position = at
        screen.refresh_view()
        await pilot.pause()
        line = str(screen.query_one(EvidenceLine).render())
        assert visible(f"bob: “bob: {HOSTILE}") in line and "\x1b" not in line and "\x07" not in line
    app = judge_app(store, "ann", adjudicate=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, AdjudicationScreen)
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
        for who in ("bob", "cy"):
            assert visible(f"{who}: “{who}: {HOSTILE}”") in shown
        assert "\x1b" not in shown and "\x07" not in shown


async def test_a_passage_pasted_over_several_lines_keeps_every_line() -> None:
    """A passage copied from a document usually spans line ends (CRLF too): the line it is pasted
    into keeps all of it, its lines joined by a space, not the first line alone."""
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        doc_id = screen.docs[screen.position].doc_id
        await pilot.press("m", "tab")
        box = app.screen.query_one(Input)
        box.post_message(events.Paste("first line\r\n  second line\nthird\n"))
        await until(pilot, lambda: box.value != "")
        assert box.value == "first line second line third"
        await pilot.press("ctrl+s", "2")
        await until(pilot, lambda: evidence_of(store))
        assert evidence_of(store) == [(doc_id, JudgmentState.GRADED, 2, "first line second line third")]
