"""What an unexpected error inside `qrelkit judge` leaves behind: on the terminal, Textual's
traceback without the frames' local variables (they can hold store contents and tokens); in the
crash log, the whole traceback, also without them, for a key handler and for a worker alike."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.worker import WorkerFailed

from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.command import crash_log
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.workflows.judging import JudgingSession

from .conftest import judge_app

SECRET = "token-5f3a9c"
"""A value a crashing frame holds in a local variable: it must show nowhere."""


def _printed(app: JudgeApp) -> io.StringIO:
    """What the app prints when it exits (Textual's error console), kept."""
    printed = io.StringIO()
    app.error_console = Console(file=printed, width=120, color_system=None, markup=False, highlight=False)
    return printed


def _check(app: JudgeApp, printed: str, where: str) -> None:
    assert app.return_code == 1
    assert "RuntimeError: a bug" in printed and where in printed, printed
    assert SECRET not in printed and "locals" not in printed, printed
    log = crash_log(app.crash)
    try:
        text = log.read_text()
    finally:
        log.unlink()
    assert text.startswith("Traceback (most recent call last):") and text.rstrip().endswith("RuntimeError: a bug")
    assert f"in {where}" in text and len(text.splitlines()) > 3, text
    assert SECRET not in text


async def test_a_key_handler_that_raises_prints_no_locals_and_logs_the_whole_traceback(
    tiny_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def action_move(self: JudgingScreen, step: int) -> None:
        token = SECRET
        raise RuntimeError("a bug" if token else "")

    monkeypatch.setattr(JudgingScreen, "action_move", action_move)
    app = judge_app(tiny_store, "ann", query="q1")
    printed = _printed(app)
    with pytest.raises(RuntimeError, match="a bug"):  # the test harness re-raises what stopped the app
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("n")
            await pilot.pause()
    _check(app, printed.getvalue(), "action_move")


async def test_a_worker_that_raises_logs_its_own_traceback_not_one_line(
    tiny_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The query list loads its counts in a worker: Textual wraps what it raises in a WorkerFailed
    that has no traceback, which made a one-line log."""

    def progress(self: JudgingSession) -> None:
        token = SECRET
        raise RuntimeError("a bug" if token else "")

    monkeypatch.setattr(JudgingSession, "progress", progress)
    app = judge_app(tiny_store, "ann")
    printed = _printed(app)
    with pytest.raises(WorkerFailed):
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.pause()
    _check(app, printed.getvalue(), "progress")
