"""The judging app (`qrelkit judge`): opens the query list (with one query's judging screen on
top of it for `--query`), or adjudication. It owns what the screens share: the session's pace
(seconds per document), the judging queue (computed by a worker off the UI thread when a screen
posts `QueueStale`, announced to every screen with `QueueReady`), WAL checkpoints (a worker every
`CHECKPOINT_SECONDS`, so that no keystroke waits for one) and the garbage collector (frozen after
start-up, collected on that timer between frames). Quitting waits until every judgment is
committed; started by `qrelkit serve` (`served`), the app ends when its server is gone."""

from __future__ import annotations

import asyncio
import gc
import os
import signal

from textual import events, on, work
from textual.app import App
from textual.worker import WorkerFailed

from ..render.styles import visible
from ..workflows import pacing
from ..workflows.judging import JudgingSession
from ..workflows.settle_watch import SettleWatch
from .messages import HeldSaved, QueueReady, QueueStale
from .screens.query_list import QueryListScreen, adjudication_screen, judging_screen
from .sight import Sighted


class JudgeApp(App[None]):
    """qrelkit judge."""

    CSS_PATH = "qrelkit.tcss"
    TITLE = "qrelkit judge"
    CHECKPOINT_SECONDS = 2.0
    """How often committed judgments are checkpointed into the database file, off the UI thread."""

    PARENT_SECONDS = 1.0
    """How often a served app (`qrelkit serve`) checks that its server still runs."""

    HANGUP_WAIT_MS = 5_000
    """How long the held judgments wait for a busy store when the terminal goes (SIGHUP) or the
    process is asked to end (SIGTERM); what still waits then is written to a file by `judge`."""

    def __init__(
        self,
        session: JudgingSession,
        *,
        query: str | None = None,
        adjudicate: bool = False,
        served: bool = False,
        signals: bool = False,
        break_after: float = pacing.BREAK_AFTER,
    ) -> None:
        super().__init__()
        self.session = session
        self.signals = signals
        self.hung_up = False
        """Ended by SIGHUP or SIGTERM (`hangup`)."""
        """End on SIGHUP and SIGTERM as on `q`, committing first (`qrelkit judge`; not in tests)."""
        self.served = served
        """Started by `qrelkit serve` for one browser: the app ends when that server does."""
        self._server_pid = os.getppid()
        self.start_query = query
        self.adjudicate = adjudicate
        self._ticks = 0
        self._queue_ready = False
        self._seeded = False
        """A queue computation has reached the screens."""
        self.settle_watch = SettleWatch.of(session)
        """Whether the comparisons `judge --for` names are settled (None: none named), for the
        judging screens' settle line (`widgets.settle_line`)."""
        self.pace = pacing.Pace(break_after=break_after)
        """The session's pace across its judging screens: active seconds per document, the
        median, the stretch of work since the last break (`workflows.pacing`)."""

    @property
    def crash(self) -> BaseException | None:
        """What stopped the app, when an unexpected error did (None otherwise): for a worker, what
        the worker raised (Textual's `WorkerFailed` around it has no traceback of its own)."""
        error = self._exception
        return error.error if isinstance(error, WorkerFailed) else error

    def _fatal_error(self) -> None:
        """Textual's report of an unexpected error (`App._fatal_error`, which `_handle_exception`
        calls inside the `except` that caught it), drawn without the frames' local variables:
        they can hold documents, notes and access tokens. The whole traceback, without them too,
        goes to the crash log (`command.crash_log`)."""
        import rich
        from rich.traceback import Traceback

        self.bell()
        self.panic(Traceback(show_locals=False, width=None, suppress=[rich]))

    async def action_quit(self) -> None:
        """Quit, once every judgment is committed: a busy store gets a few seconds more, and if it
        is still busy the app stays open (nothing held in memory is dropped)."""
        if self.session.waiting and self.session.flush(wait_ms=5_000):
            self.notify(
                f"{self.session.waiting} judgment(s) still wait for the busy store: quit again once it is free",
                title="not quitting",
                severity="error",
                timeout=8,
            )
            return
        self.exit()

    WORK = (events.Key, events.MouseScrollDown, events.MouseScrollUp, events.MouseDown, events.Paste)
    """The inputs that are work (`Pace.touch`): keys, scrolls, clicks, pastes, on any screen."""

    def on_mount(self) -> None:
        self.title = f"{visible(self.session.name)} · {visible(self.session.assessor)}"
        # the screens load as they are first shown (`screens.query_list`): the list's
        # first row is not kept waiting for the judging and adjudication screens' imports
        if self.adjudicate:
            self.push_screen(adjudication_screen()(self.session))
        else:
            self.push_screen(QueryListScreen(self.session, self.pace))
            if self.start_query is not None:
                self.push_screen(judging_screen()(self.session, self.start_query, pace=self.pace))
        # keystroke latency: commits never stop to checkpoint the WAL (a worker does, every few
        # seconds), and the objects made at startup are left out of the garbage collector's scans
        self.session.defer_checkpoints()
        self.set_interval(self.CHECKPOINT_SECONDS, self.checkpoint)
        self.load_queue()
        if self.served:
            self.set_interval(self.PARENT_SECONDS, self._orphaned)
        if self.signals:  # the default action of SIGHUP (terminal closed) ends the process at once
            loop = asyncio.get_running_loop()
            for number in (signal.SIGHUP, signal.SIGTERM):
                loop.add_signal_handler(number, self.hangup)
        gc.collect()
        gc.freeze()
        gc.disable()  # collections run on the timer below, between frames, not inside a keystroke

    async def on_event(self, event: events.Event) -> None:
        """Every key first meets the shown screen's `Sight`: a key typed before what it would act
        on was drawn is dropped, and the screen says so (`tui.sight`). Every input that is work
        keeps the pace's clock running (`Pace.touch`)."""
        if isinstance(event, self.WORK) and not event.is_forwarded:
            self.pace.touch()
        if isinstance(event, events.Key) and not event.is_forwarded and isinstance(self.screen, Sighted):
            sight = self.screen.sight_for(event)
            if sight is not None and sight.refuses(event):
                return
        await super().on_event(event)

    def hangup(self) -> None:
        """The terminal is gone (or the process was asked to end): commit the judgments a busy
        store still holds back (waiting a few seconds for it), then end; `judge` writes what
        still waits to a file. Nothing shown as saved or held is dropped."""
        self.hung_up = True
        if self.session.waiting:
            self.session.flush(wait_ms=self.HANGUP_WAIT_MS)
        self.exit()

    def checkpoint(self) -> None:
        # held judgments are retried here as well as by the judging screen: also while the
        # assessor is on another screen (the query list, help, a note); once they are all in,
        # every screen re-reads its counts
        if self.session.waiting and not self.session.flush():
            for screen in self.screen_stack:
                screen.post_message(HeldSaved())
        self._checkpoint()
        self._ticks += 1
        # young objects every tick (a few ms); everything once a minute: always between frames
        gc.collect(2 if self._ticks % 30 == 0 else 1)

    def _orphaned(self) -> None:
        """The server was killed (this process has a new parent): nothing is left to show to, and
        every judgment shown as saved is committed; the judge command commits what still waits."""
        if os.getppid() != self._server_pid:
            self.exit()

    @work(thread=True, exclusive=True, group="checkpoint", exit_on_error=False)
    def _checkpoint(self) -> None:
        self.session.checkpoint()

    # -- the judging queue: one worker, asked for with QueueStale, announced with QueueReady ----

    @on(QueueStale)
    def queue_stale(self, message: QueueStale) -> None:
        self.load_queue()

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def load_queue(self) -> None:
        """The judging queue, computed off the UI thread (seconds on a large store); the first
        time, my recorded seconds from the store too (the median from the first document)."""
        if not self._seeded:
            self._seeded = True
            self.call_from_thread(self.pace.seed, pacing.recent_seconds(self.session))
        self.session.refresh_queue()
        self.call_from_thread(self._queue_loaded)

    def _queue_loaded(self) -> None:
        first, self._queue_ready = not self._queue_ready, True
        for screen in self.screen_stack:
            screen.post_message(QueueReady(first=first))

    def on_unmount(self) -> None:
        self.session.stop_queue()  # a computation under way ends with the app, not seconds after it
        if self.settle_watch is not None:
            self.settle_watch.close()
        gc.enable()
        gc.unfreeze()
