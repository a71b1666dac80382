"""The judging app: opens the query list, or one query's judging screen."""

from __future__ import annotations

from textual.app import App

from ..storage import Store
from .judging import JudgingScreen
from .query_list import QueryListScreen
from .state import Session


class JudgeApp(App[None]):
    """qrelkit judge."""

    CSS_PATH = "app.tcss"
    TITLE = "qrelkit judge"

    def __init__(self, store: Store, assessor: str, *, stratum: str | None = None, query: str | None = None) -> None:
        super().__init__()
        self.session = Session(store=store, assessor=assessor, stratum=stratum)
        self.start_query = query

    def on_mount(self) -> None:
        self.title = f"{self.session.store.name} · {self.session.assessor}"
        self.push_screen(QueryListScreen(self.session))
        if self.start_query is not None:
            self.push_screen(JudgingScreen(self.session, self.start_query))
