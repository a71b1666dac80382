"""Blind by default: the judging screen never shows a machine assessor's grade (every line of it, on
every document of the query, in the disagreement order too); the adjudication screen shows it on a
line of its own, marked as a machine's, and never counts it as a vote."""

from __future__ import annotations

from functools import partial

import pytest
from textual.widgets import Static

from qrelkit.models import Judgment, JudgmentState, QueueOrder
from qrelkit.models.machine import MachineLabel
from qrelkit.models.reports import Disagreement
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.disagreements import disagreements

from .conftest import judge_app, make_store, until

MODEL = "llm:oracle-7b[/][@click=app.quit]"
"""A model name made of markup: shown as it is, never read as markup."""


def _machine(store: Store, rows: list[tuple[str, str, str, str, int | None]]) -> None:
    store.machine.record(
        MachineLabel.model_validate(
            {
                "assessor": who,
                "query_id": q,
                "doc_id": d,
                "status": status,
                "grade": grade,
                "reply": f"Grade: {grade}",
                "template_sha256": "sha256:t",
                "prompt_sha256": "sha256:p",
                "cache_key": f"k{n}",
            }
        )  # fmt: skip
        for n, (who, q, d, status, grade) in enumerate(rows)
    )


def _lines(app: JudgeApp) -> list[str]:
    """Every line of the screen as the terminal would show it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _on_screen(app: JudgeApp, text: str) -> bool:
    return any(text in line for line in _lines(app))


def _machine_store() -> Store:
    """`make_store`, and machine grades on q1's documents (bob graded d2 1; the machines say 3)."""
    store = make_store()
    _machine(
        store,
        [("lexical", "q1", d, "ok", 3) for d in ("d1", "d2", "d3", "d4")]
        + [(MODEL, "q1", "d1", "ok", 0), (MODEL, "q1", "d2", "ok", 3), (MODEL, "q1", "d4", "unparsed", None)],
    )
    return store


@pytest.mark.parametrize("order", ["impact", "disagreement"])
async def test_the_judging_screen_never_shows_a_machine_grade(order: QueueOrder) -> None:
    store = _machine_store()
    app = judge_app(store, "ann", query="q1", order=order)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JudgingScreen)
        seen = set()
        for _ in screen.docs:
            doc = screen.docs[screen.position]
            seen.add(doc.doc_id)
            await until(pilot, partial(_on_screen, app, doc.doc_id))
            for line in _lines(app):
                assert "lexical" not in line and "oracle" not in line and "machine" not in line, line
            if doc.doc_id != "d2":  # bob's 1 is a human vote, shown; no machine's 3 is
                assert doc.grade is None
            await pilot.press("n")
        assert seen == {"d1", "d2", "d3", "d4"}
    # the store is not closed here: the app's thread workers may still read it (an in-memory
    # store is their connection too), and closing a connection under a reading thread crashes


def _votes(app: JudgeApp) -> str:
    return str(app.screen.query_one("#votes", Static).render())


async def test_adjudication_shows_the_machines_marked_as_such_never_as_votes() -> None:
    store = _machine_store()
    for who, doc, grade in (("ann", "d1", 2), ("ann", "d2", 3), ("cy", "d4", 0), ("ann", "d4", 2)):
        store.log.record(Judgment(query_id="q1", doc_id=doc, state=JudgmentState.GRADED, grade=grade, assessor=who))
    before = {(x.query_id, x.doc_id): x.votes for x in disagreements(store)}
    bare = make_store()  # the same humans, no machine: the same disagreements
    for who, doc, grade in (("ann", "d1", 2), ("ann", "d2", 3), ("cy", "d4", 0), ("ann", "d4", 2)):
        bare.log.record(Judgment(query_id="q1", doc_id=doc, state=JudgmentState.GRADED, grade=grade, assessor=who))
    assert [_plain(x) for x in disagreements(bare)] == [_plain(x) for x in disagreements(store)]
    assert before == {("q1", "d2"): {"ann": 3, "bob": 1}, ("q1", "d4"): {"ann": 2, "cy": 0}}
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        assert {(i.query_id, i.doc_id): i.votes for i in screen.items} == before  # the machines are no votes
        shown = {}
        for _ in screen.items:
            item = screen.items[screen.position]
            shown[item.doc_id] = _votes(app)
            await pilot.press("n")
        d2, d4 = shown["d2"], shown["d4"]
        assert "ann: 3 (perfect)  ·  bob: 1 (related)" in d2
        assert "machines, not votes: lexical (machine): 3 (perfect)  ·  " in d2
        assert f"{MODEL} (machine): 3 (perfect)" in d2
        assert f"lexical (machine): 3 (perfect)  ·  {MODEL} (machine): unparsed" in d4
        assert "distance 2" in d2 and "distance 2" in d4  # the humans' alone
        assert any("lexical (machine): 3" in line for line in _lines(app))  # on the screen itself
    # the store is not closed here: the app's thread workers may still read it (an in-memory
    # store is their connection too), and closing a connection under a reading thread crashes
    bare.close()


def _plain(x: Disagreement) -> tuple[object, ...]:
    return (x.query_id, x.doc_id, x.votes, x.distance, x.priority)


async def test_adjudication_without_machine_labels_has_no_machine_line() -> None:
    store = make_store()
    store.log.record(Judgment(query_id="q1", doc_id="d2", state=JudgmentState.GRADED, grade=3, assessor="ann"))
    app = judge_app(store, "lead", adjudicate=True)
    async with app.run_test(size=(120, 36)):
        assert "bob: 1" in _votes(app) and "machine" not in _votes(app)
    # the store is not closed here: the app's thread workers may still read it (an in-memory
    # store is their connection too), and closing a connection under a reading thread crashes
