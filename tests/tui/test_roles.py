"""Clearing and settling are an adjudicator's (issue 25): a `qrelkit serve` session is started in
its token's role, and the app built from that very command line opens adjudication (`A` on the
query list) for an adjudicator token only; an assessor's session never reaches it, and its
session refuses to settle or clear whatever calls it."""

from __future__ import annotations

from pathlib import Path

import pytest

from qrelkit.cli._server import JudgingServer
from qrelkit.errors import NotAdjudicator, UsageError
from qrelkit.models import Judgment, JudgmentState, Role
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.command import judge, make_app
from qrelkit.tui.screens.adjudication import AdjudicationScreen
from qrelkit.tui.screens.query_list import QueryListScreen
from qrelkit.workflows import serving
from qrelkit.workflows.judging import disagreements

from .conftest import make_store, until

HELP = ["-h", "--help"]
"""The help options `qrelkit` gives every command: a context made without them would make click
cache a `--help` alone on `judge`, and the generated pages would then read wrong (test_readme)."""


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store on disk where ann and bob disagree on q1/d1."""
    path = tmp_path / "team.db"
    store = make_store(str(path))
    for who, grade in (("ann", 0), ("bob", 3)):
        event = Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=grade, assessor=who)
        store.log.record(event)
    store.close()
    return path


def served_app(db: Path, name: str, role: Role) -> JudgeApp:
    """The app `qrelkit serve` starts for a session of `name`'s token: its command line, as the
    server writes it, parsed by `judge` itself."""
    argv = JudgingServer(db, host="127.0.0.1", port=8080, public_url="http://x").argv(
        serving.Access(token_id=1, assessor=name, role=role)
    )
    args = argv[argv.index("judge") + 1 :]
    ctx = judge.make_context("judge", args, obj={"db": db}, help_option_names=HELP)
    app = make_app(db, **ctx.params)
    app.signals = False  # the test's event loop keeps its own signal handlers
    return app


def _events(app: JudgeApp) -> list[tuple[str, str, int | None]]:
    return [(e.assessor, e.state.value, e.grade) for e in app.session.store.log.events()]


async def test_an_adjudicator_token_opens_adjudication_and_settles(db: Path) -> None:
    app = served_app(db, "lead", "adjudicator")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert isinstance(app.screen, QueryListScreen)
            assert "A adjudicate" in str(app.screen.query_one("#keys").render())
            await pilot.press("A")
            await until(pilot, lambda: isinstance(app.screen, AdjudicationScreen))
            await pilot.press("2")
            assert _events(app)[-1] == ("lead", "adjudicated", 2)
            await pilot.press("escape")
            assert isinstance(app.screen, QueryListScreen)  # back to the list
    finally:
        app.session.close()


async def test_an_assessor_token_never_reaches_adjudication(db: Path) -> None:
    app = served_app(db, "ann", "assessor")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert "adjudicate" not in str(app.screen.query_one("#keys").render())
            await pilot.press("A")
            await pilot.pause()
            assert isinstance(app.screen, QueryListScreen)
            assert any("adjudicator's" in str(n.message) for n in app._notifications)
            app.push_screen(AdjudicationScreen(app.session))  # even pushed, it has nothing to settle
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, AdjudicationScreen) and screen.items == []
            await pilot.press("2", "X")
            assert isinstance(app.screen, AdjudicationScreen)  # no confirmation asked
        with pytest.raises(NotAdjudicator):
            app.session.clear("q1", "d1")
        [item] = disagreements(app.session.store)
        with pytest.raises(NotAdjudicator):
            app.session.settle(item, 2)
        assert [s for _, s, _ in _events(app)] == ["graded", "graded", "graded"]
    finally:
        app.session.close()


def test_a_served_session_is_an_assessors_unless_told_and_adjudicate_needs_the_role(db: Path) -> None:
    ctx = judge.make_context("judge", ["--served", "--assessor", "ann"], obj={"db": db}, help_option_names=HELP)
    app = make_app(db, **ctx.params)
    assert app.session.role == "assessor"
    app.session.close()
    local = make_app(
        db, **judge.make_context("judge", ["--assessor", "ann"], obj={"db": db}, help_option_names=HELP).params
    )
    assert local.session.role == "adjudicator"  # whoever runs judge locally holds the store file
    local.session.close()
    args = ["--served", "--assessor", "ann", "--role", "assessor", "--adjudicate"]
    with pytest.raises(UsageError, match="adjudicator role"):
        make_app(db, **judge.make_context("judge", args, obj={"db": db}, help_option_names=HELP).params)
