"""The judging app: opens the query list, or one query's judging screen."""

from __future__ import annotations

import gc

from textual import work
from textual.app import App

from ..storage import Store
from .adjudication import AdjudicationScreen
from .judging import JudgingScreen
from .query_list import QueryListScreen
from .state import Session


class JudgeApp(App[None]):
    """qrelkit judge."""

    CSS_PATH = "app.tcss"
    TITLE = "qrelkit judge"

    def __init__(
        self,
        store: Store,
        assessor: str,
        *,
        stratum: str | None = None,
        query: str | None = None,
        order: str = "impact",
        seed: int = 0,
        adjudicate: bool = False,
    ) -> None:
        super().__init__()
        self.session = Session(store=store, assessor=assessor, stratum=stratum, order=order, seed=seed)
        self.start_query = query
        self.adjudicate = adjudicate
        self._ticks = 0

    CHECKPOINT_SECONDS = 2.0
    """How often committed judgments are checkpointed into the database file, off the UI thread."""

    def on_mount(self) -> None:
        self.title = f"{self.session.store.name} · {self.session.assessor}"
        if self.adjudicate:
            self.push_screen(AdjudicationScreen(self.session))
        else:
            self.push_screen(QueryListScreen(self.session))
        if self.start_query is not None and not self.adjudicate:
            self.push_screen(JudgingScreen(self.session, self.start_query))
        # keystroke latency: commits never stop to checkpoint the WAL (a worker does, every few
        # seconds), and the objects made at startup are left out of the garbage collector's scans
        self.session.store.defer_checkpoints()
        self.set_interval(self.CHECKPOINT_SECONDS, self.checkpoint)
        self.load_queue()
        gc.collect()
        gc.freeze()
        gc.disable()  # collections run on the timer below, between frames, not inside a keystroke

    def checkpoint(self) -> None:
        self._checkpoint()
        self._ticks += 1
        # young objects every tick (a few ms); everything once a minute: always between frames
        gc.collect(2 if self._ticks % 30 == 0 else 1)

    @work(thread=True, exclusive=True, group="checkpoint", exit_on_error=False)
    def _checkpoint(self) -> None:
        self.session.store.checkpoint()

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def load_queue(self) -> None:
        """The judging queue, computed off the UI thread (seconds on a large store)."""
        self.session.refresh_queue()
        self.call_from_thread(self._queue_loaded)

    def _queue_loaded(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, JudgingScreen):
                screen.queue_ready()

    def on_unmount(self) -> None:
        gc.enable()
        gc.unfreeze()
