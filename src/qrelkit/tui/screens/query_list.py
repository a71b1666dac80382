"""The query list: every query with its progress; enter opens it for judging."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from ...models import QueryProgress
from ...render.styles import data, visible
from ...workflows.judging import JudgingSession
from ..modals.help import HelpScreen
from ..widgets.scale_bar import key_text
from .dashboard import DashboardScreen
from .judging import JudgingScreen

BAR = 6
BATCH = 500
"""Rows added to the table per frame."""
TEXT = 22
"""Characters of query text shown in the list."""

KEYS = [("enter", "judge"), ("f", "stratum"), ("h", "only unlabeled"), ("d", "dashboard"), ("?", "keys"), ("q", "quit")]


def progress_bar(p: QueryProgress) -> str:
    total = p.total
    if not total:
        return "[dim]" + "·" * BAR + "   -[/dim]"
    done = (p.labeled + p.skipped) / total
    filled = round(done * BAR)
    return f"[green]{'█' * filled}[/green][dim]{'░' * (BAR - filled)}[/dim] {done:4.0%}"


def clip(text: str, width: int = TEXT) -> str:
    """`text` (control characters made visible) cut to `width` characters, `…` marking a cut."""
    shown = visible(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


class QueryListScreen(Screen[None]):
    """Queries with labeled / skipped / unlabeled counts; filters by stratum and by open work."""

    CSS_PATH = "query_list.tcss"
    BINDINGS = [
        Binding("f", "cycle_stratum", "stratum"),
        Binding("h", "toggle_open", "has unlabeled"),
        Binding("d", "dashboard", "dashboard"),
        Binding("question_mark", "help", "keys"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session
        self.rows: list[QueryProgress] = []
        self.only_open = False
        self._pending: list[QueryProgress] = []
        self._selected = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="filters", classes="bar")
        yield DataTable(id="queries", cursor_type="row", zebra_stripes=True)
        yield Static(key_text(KEYS), id="keys")

    def on_mount(self) -> None:
        self.title = self.app.title
        table = self.query_one(DataTable)
        table.add_columns("query", "stratum")
        # known widths, so the layout is settled before any row arrives (and does not jump)
        table.add_column("text", width=TEXT)
        for label in ("done", "skip", "todo"):
            table.add_column(label, width=4)
        table.add_column("progress", width=BAR + 5)

    def on_screen_resume(self) -> None:
        """Load whenever the list is shown: first push, and each return from judging (so it
        never loads while hidden under a judging screen opened with `judge --query`)."""
        self.call_after_refresh(self._load_if_shown)

    def _load_if_shown(self) -> None:
        # `is_current` is also true for a screen under the top one (Textual counts background
        # screens as current): only the top of the stack is shown
        if self.app.screen is self:
            self.load()

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Counts come from the store in a worker thread: the UI stays responsive on big stores."""
        rows = self.session.progress()
        self.app.call_from_thread(self.show, rows)

    def show(self, rows: list[QueryProgress]) -> None:
        """Fill the table BATCH rows per frame, so that a big golden set never blocks the UI."""
        self.rows = rows
        table = self.query_one(DataTable)
        self._selected = table.cursor_row
        table.clear()
        stratum = self.session.stratum
        visible_rows = [
            r for r in rows if (stratum is None or r.stratum == stratum) and (not self.only_open or r.unlabeled)
        ]
        self._pending = visible_rows
        labeled = sum(r.labeled for r in visible_rows)
        todo = sum(r.unlabeled for r in visible_rows)
        self.query_one("#filters", Static).update(
            data(
                f"{len(visible_rows)} queries · {stratum or 'all strata'}"
                f"{' · with unlabeled only' if self.only_open else ''}"
                f" · {labeled} labeled · {todo} unlabeled in the pool"
            )
        )
        self.sub_title = f"judged {self.session.judged} this session"
        self._add_batch()

    def _add_batch(self) -> None:
        table = self.query_one(DataTable)
        batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
        for r in batch:
            table.add_row(
                data(r.query_id),
                data(r.stratum),
                data(clip(r.text)),
                str(r.labeled),
                str(r.skipped),
                str(r.unlabeled),
                progress_bar(r),
                key=r.query_id,
            )
        if self._pending:
            self.call_after_refresh(self._add_batch)
        elif table.row_count:
            table.move_cursor(row=min(self._selected, table.row_count - 1))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.app.push_screen(JudgingScreen(self.session, str(event.row_key.value)))

    def action_cycle_stratum(self) -> None:
        strata = sorted({r.stratum for r in self.rows})
        order = [None, *strata]
        current = order.index(self.session.stratum) if self.session.stratum in order else 0
        self.session.stratum = order[(current + 1) % len(order)]
        self.show(self.rows)

    def action_toggle_open(self) -> None:
        self.only_open = not self.only_open
        self.show(self.rows)

    def action_dashboard(self) -> None:
        self.app.push_screen(DashboardScreen(self.session))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
