"""The note box (issue 25): a panel under the document, which stays in view; `e` opens it on the
assessor's own note, prefilled (an edit), and saving it empty withdraws it ("note withdrawn");
another assessor's note is never in it. No key is lost: `e` and the note typed in one burst keep
every character (none of them reaches the judging keys), and `ctrl+s` right after typing keeps
the tail, on the judging and the adjudication screens."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.document import DocumentView
from qrelkit.tui.widgets.note_panel import NotePanel

from .conftest import judge_app, make_store, until

BURST = 'see 2 quotes, e.g. "nqz"'
"""A note made of judging keys: s skip, e note, 2 a grade, n next, q quit, z undo."""


def burst(app: JudgeApp, *keys: str) -> None:
    """Keys as a terminal sends a burst (one read, parsed into events at once): posted together,
    without Pilot's wait for the app between two keys."""
    assert app._driver is not None
    for key in keys:
        name = {" ": "space", ",": "comma", ".": "full_stop", '"': "quotation_mark"}.get(key, key)
        event = events.Key(name, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


def notes(store: Store, who: str = "ann") -> list[str | None]:
    return [e.note for e in store.log.events() if e.state is JudgmentState.NOTED and e.assessor == who]


async def ready(pilot: Pilot[Any]) -> JudgingScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, JudgingScreen)
    return screen


async def test_e_and_the_note_in_one_burst_keep_every_character() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ready(pilot)
        before = [(e.state, e.doc_id) for e in store.log.events()]
        burst(app, "e", *BURST, "ctrl+s")
        await until(pilot, lambda: notes(store))
        assert notes(store) == [BURST]
        assert [(e.state, e.doc_id) for e in store.log.events()][:-1] == before  # no key judged anything
        assert app.screen is screen and screen.position == 0 and not screen.query_one(NotePanel).is_open


async def test_ctrl_s_right_after_typing_keeps_the_tail() -> None:
    store = make_store()
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("e", *"first ")
        burst(app, *"and the tail", "ctrl+s")  # still queued to the text when ctrl+s arrives
        await until(pilot, lambda: notes(store))
        assert notes(store) == ["first and the tail"]
        await pilot.press("e", *"!", "ctrl+s")  # Pilot's own presses keep everything too
        assert notes(store) == ["first and the tail", "first and the tail!"]


async def test_the_box_leaves_the_document_in_view_and_edits_my_note_only() -> None:
    store = make_store()
    store.log.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.NOTED, assessor="bob", note="bob's"))
    app = judge_app(store, "ann", query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(pilot)
        await pilot.press("e")
        panel, document = screen.query_one(NotePanel), screen.query_one(DocumentView)
        assert panel.is_open and app.screen is screen  # a panel, not a screen over the document
        assert document.region.height >= 5 and panel.region.y >= document.region.bottom
        assert screen.query_one(TextArea).text == ""  # bob's note is not mine to edit
        await pilot.press(*"mine", "ctrl+s")
        assert "note saved for d1" in str(screen.query_one("#saved", Static).render())
        await pilot.press("e")
        assert screen.query_one(TextArea).text == "mine"  # prefilled: an edit
        await pilot.press(*" too", "ctrl+s")
        assert "note edited for d1" in str(screen.query_one("#saved", Static).render())
        await pilot.press("e", "ctrl+u", "ctrl+s")  # emptied and saved: withdrawn
        assert "note withdrawn for d1" in str(screen.query_one("#saved", Static).render())
        assert [(n.assessor, n.text) for n in screen.docs[0].notes] == [("bob", "bob's")]
        await pilot.press("e", *"x", "escape")  # cancelled: nothing written, the screen's esc not run
        assert app.screen is screen and not screen.query_one(NotePanel).is_open
    assert notes(store) == ["mine", "mine too", "(note withdrawn)"] and notes(store, "bob") == ["bob's"]


def disputed() -> Store:
    store = make_store()
    for who, grade in (("ann", 0), ("bob", 3)):
        store.log.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=grade, assessor=who))
    store.log.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.NOTED, assessor="bob", note="see p. 2"))
    return store


async def test_the_adjudicator_reads_the_conversation_and_notes_in_a_burst() -> None:
    store = disputed()
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        assert "bob · " in str(screen.query_one("#votes", Static).render())
        burst(app, "e", *"ask 2 of them", "ctrl+s")  # a digit in the note settles nothing
        await until(pilot, lambda: notes(store, "lead"))
        assert notes(store, "lead") == ["ask 2 of them"]
        assert JudgmentState.ADJUDICATED not in {e.state for e in store.log.events()}
        shown = str(screen.query_one("#votes", Static).render())
        assert shown.index("bob · ") < shown.index("lead · ") and "“ask 2 of them”" in shown
