"""The query list: every query with its progress; enter opens it for judging."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from ...models import QueryProgress
from ...render.styles import data, visible
from ...workflows.judging import JudgingSession
from ...workflows.pacing import Pace
from ..messages import HeldSaved, QueueReady, QueueStale
from ..modals.help import HelpScreen
from ..sight import Sight, Watched
from ..widgets.scale_bar import key_text
from ..widgets.title_header import TitleHeader

if TYPE_CHECKING:
    from .adjudication import AdjudicationScreen
    from .dashboard import DashboardScreen
    from .judging import JudgingScreen

BAR = 6
BATCH = 250
"""Rows added to the table at a time (250 rows take the table ~30 ms to lay out)."""
FIRST = 60
"""Rows of the first batch: a tall terminal's screenful, drawn as soon as the counts arrive (the
list is usable from its first row on); the rest follow BATCH at a time."""
FRAME = 1 / 60
"""Seconds between two batches: the table lays out each batch, and keys are handled, in between
(batches chained on refreshes ran back to back once the cursor moved, and the table then laid
out thousands of rows at once, keys waiting half a second)."""
TEXT = 22
"""Characters of query text shown in the list."""
MINE = "●"
"""Marks a query holding pending assignments of this assessor."""
PASSING = frozenset({"escape", "q", "question_mark", "up", "down", "pageup", "pagedown", "home", "end"})
"""Keys that pass before the list is drawn (`tui.sight`): they open, type or filter nothing."""

KEYS = [
    ("enter", "judge"),
    ("/", "search"),
    ("a", "mine"),
    ("f", "stratum"),
    ("h", "only unlabeled"),
    ("d", "dashboard"),
    ("?", "keys"),
    ("q", "quit"),
]
ADJUDICATOR_KEYS = [*KEYS, ("A", "adjudicate")]
"""The keys of a session in the adjudicator role (`A` opens adjudication)."""

WARM_AFTER = 0.25
"""Seconds after the list's last rows are drawn when the other screens' modules are imported."""


# The other screens are imported when first shown: the judging and adjudication screens (note
# panel, text area, duplicates) took 0.2-0.3 s of imports that the list's first row waited for.
# The list imports them `WARM_AFTER` its rows are drawn, so the first `enter` does not wait either.


def judging_screen() -> type[JudgingScreen]:
    from .judging import JudgingScreen

    return JudgingScreen


def adjudication_screen() -> type[AdjudicationScreen]:
    from .adjudication import AdjudicationScreen

    return AdjudicationScreen


def dashboard_screen() -> type[DashboardScreen]:
    from .dashboard import DashboardScreen

    return DashboardScreen


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


def matches(row: QueryProgress, search: str) -> bool:
    """Whether the query's id or text contains `search`, ignoring case."""
    needle = search.casefold()
    return needle in row.query_id.casefold() or needle in row.text.casefold()


class QueryTable(Watched, DataTable[object]):
    """The list's table; `moved` says the assessor moved its cursor (keys or mouse) since the
    last `clear`, so that rows still arriving never move it back. Each frame it is drawn in marks
    the list's sights (`tui.sight`)."""

    moved = False

    def clear(self, columns: bool = False) -> Self:
        self.moved = False
        super().clear(columns)
        return self

    def _user(self) -> None:
        self.moved = True

    def action_cursor_up(self) -> None:
        self._user()
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self._user()
        super().action_cursor_down()

    def action_page_up(self) -> None:
        self._user()
        super().action_page_up()

    def action_page_down(self) -> None:
        self._user()
        super().action_page_down()

    def action_scroll_top(self) -> None:
        self._user()
        super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        self._user()
        super().action_scroll_bottom()

    def action_scroll_home(self) -> None:
        self._user()
        super().action_scroll_home()

    def action_scroll_end(self) -> None:
        self._user()
        super().action_scroll_end()

    def on_click(self, event: events.Click) -> None:
        self._user()


class QueryListScreen(Screen[None]):
    """Queries with labeled / skipped / unlabeled counts; filters by stratum, by open work, by
    the assessor's own assignments and by a search of ids and text."""

    CSS_PATH = "query_list.tcss"
    BINDINGS = [
        # a priority binding runs as the key arrives, before the keys typed after it are routed:
        # they reach the search box even when typed at once ("/421")
        Binding("slash", "search", "search", priority=True),
        Binding("a", "toggle_mine", "mine"),
        Binding("f", "cycle_stratum", "stratum"),
        Binding("h", "toggle_open", "has unlabeled"),
        Binding("d", "dashboard", "dashboard"),
        Binding("A", "adjudicate", "adjudicate"),
        Binding("escape", "clear_search", "clear search", show=False),
        Binding("question_mark", "help", "keys"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession, pace: Pace | None = None) -> None:
        super().__init__()
        self.session = session
        self.pace = pace or Pace()
        self.rows: list[QueryProgress] = []
        self.only_open = False
        self.only_mine = False
        self.search = ""
        self.assigned: Counter[str] = Counter()
        """Query -> this assessor's pending assignments in it (from the judging queue)."""
        self.queue_known = False
        self._judged_at_queue = 0
        self._pending: list[QueryProgress] = []
        self._next_batch: Timer | None = None
        self._keep: str | None = None
        self._warm = False
        """The query the cursor goes back to when its row arrives (unless the assessor moved it)."""
        self.sight = Sight(self.refused_keys, passing=PASSING)
        """Keys typed before the list is drawn (at start, back from judging) are refused."""
        self.rows_sight = Sight(self.refused_keys)
        """`enter` opens a query only once the rows it chooses from are drawn."""

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static(id="filters", classes="bar")
        yield Input(placeholder="search query ids and text (esc clears)", id="search")
        table = QueryTable(id="queries", cursor_type="row", zebra_stripes=True)
        table.sights = (self.sight, self.rows_sight)
        yield table
        yield Static(key_text(ADJUDICATOR_KEYS if self.session.may_adjudicate else KEYS), id="keys")

    def on_mount(self) -> None:
        self.title = self.app.title
        table = self.query_one(QueryTable)
        table.add_columns("query", "stratum")
        # known widths, so the layout is settled before any row arrives (and does not jump)
        table.add_column("text", width=TEXT)
        for label in ("done", "skip", "todo"):
            table.add_column(label, width=4)
        table.add_column("progress", width=BAR + 5)
        table.add_column("you", width=4, key="you")
        table.focus()

    def on_screen_resume(self) -> None:
        """Load whenever the list is shown: first push, and each return from judging (so it
        never loads while hidden under a judging screen opened with `judge --query`). Keys typed
        before it is drawn again act on nothing (`tui.sight`)."""
        self.sight.changed()
        self.call_after_refresh(self._load_if_shown)
        if self.assigned and self.session.events != self._judged_at_queue:
            self.post_message(QueueStale())  # judged since: the assignment marks may be stale

    def _load_if_shown(self) -> None:
        # `is_current` is also true for a screen under the top one (Textual counts background
        # screens as current): only the top of the stack is shown
        if self.app.screen is self:
            self.load()

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Counts come from the store in a worker thread: the UI stays responsive on big stores."""
        rows = self.session.progress()
        self.app.call_from_thread(self._arrived, rows)

    def _arrived(self, rows: list[QueryProgress]) -> None:
        """The counts arrived: shown, unless the list is gone meanwhile (the app quitting)."""
        try:
            table = self.query_one(QueryTable)
        except NoMatches:
            return
        if table.is_attached:
            self.show(rows)

    @on(HeldSaved)
    def held_saved(self, message: HeldSaved) -> None:
        """Judgments held for a busy store were committed: the counts shown are read again."""
        if self.app.screen is self:
            self.load()

    def refused_keys(self, keys: list[str]) -> None:
        """Keys typed before the list, or the rows `enter` would choose from, were drawn."""
        typed = visible(" ".join(keys))
        self.notify(f"not applied: {typed} (typed before the list was on screen as it is now; type it again)",
                    title="keys", severity="warning", markup=False)  # fmt: skip

    @on(QueueReady)
    def queue_ready(self, message: QueueReady) -> None:
        """The judging queue arrived: its `assigned` entries are this assessor's pending assignments."""
        before = self.assigned
        self.assigned = Counter(i.query_id for i in self.session.queue() if i.source == "assigned")
        self.queue_known, self._judged_at_queue = True, self.session.events
        if self.only_mine:
            self.show(self.rows)
            return
        table = self.query_one(QueryTable)
        for query_id in {q for q in before | self.assigned if before[q] != self.assigned[q]}:
            if query_id in table.rows:  # rows still to come get their mark when added
                table.update_cell(query_id, "you", self.mark(query_id))

    def mark(self, query_id: str) -> str:
        n = self.assigned.get(query_id, 0)
        return f"{MINE}{n}" if n else ""

    def visible_rows(self, rows: Sequence[QueryProgress]) -> list[QueryProgress]:
        stratum = self.session.stratum
        return [
            r
            for r in rows
            if (stratum is None or r.stratum == stratum)
            and (not self.only_open or r.unlabeled)
            and (not self.only_mine or r.query_id in self.assigned)
            and (not self.search or matches(r, self.search))
        ]

    def filters_line(self, shown: Sequence[QueryProgress]) -> str:
        parts = [f"{len(shown)} queries", self.session.stratum or "all strata"]
        if self.search:
            parts.append(f"matching “{self.search}”")
        if self.only_mine:
            parts.append("your assignments" if self.queue_known else "your assignments (still loading)")
        if self.only_open:
            parts.append("with unlabeled only")
        labeled = sum(r.labeled for r in shown)
        todo = sum(r.unlabeled for r in shown)
        return " · ".join(parts) + f" · {labeled} labeled · {todo} unlabeled in the pool"

    def show(self, rows: list[QueryProgress]) -> None:
        """Fill the table BATCH rows per frame, so that a big golden set never blocks the UI."""
        self.rows = rows
        table = self.query_one(QueryTable)
        if table.row_count and not (self._keep and not table.moved):
            self._keep = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        table.clear()
        if self._next_batch is not None:  # one chain of batches at a time (a search types fast)
            self._next_batch.stop()
        shown = self.visible_rows(rows)
        self._pending = shown
        self.query_one("#filters", Static).update(data(self.filters_line(shown)))
        self.sub_title = f"judged {self.session.judged} this session"
        self._add_batch(FIRST)

    def _add_batch(self, size: int = BATCH) -> None:
        self._next_batch = None
        table = self.query_one(QueryTable)
        batch, self._pending = self._pending[:size], self._pending[size:]
        for r in batch:
            table.add_row(
                data(r.query_id),
                data(r.stratum),
                data(clip(r.text)),
                str(r.labeled),
                str(r.skipped),
                str(r.unlabeled),
                progress_bar(r),
                self.mark(r.query_id),
                key=r.query_id,
            )
        keep = self._keep
        if keep is not None and (table.moved or keep in table.rows):
            if not table.moved:
                table.move_cursor(row=table.get_row_index(keep))
            self._keep = None
        if batch:
            self.rows_sight.changed()
        if self._pending:
            self._next_batch = self.set_timer(FRAME, self._add_batch)
        elif not self._warm:
            self._warm = True
            self.set_timer(WARM_AFTER, self._warm_screens)

    def _warm_screens(self) -> None:
        """Import the other screens once the list is drawn (one pause, between frames)."""
        judging_screen(), adjudication_screen(), dashboard_screen()

    def sight_for(self, event: events.Key) -> Sight:
        """`enter` on the table opens the row under the cursor: it needs the rows drawn; any
        other key, the list (`tui.sight`)."""
        return self.rows_sight if event.key == "enter" and self.focused is self.query_one(QueryTable) else self.sight

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.app.push_screen(judging_screen()(self.session, str(event.row_key.value), pace=self.pace))

    # -- filters --------------------------------------------------------------------------

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        if self.focused is search:  # a `/` in the search itself
            search.insert_text_at_cursor("/")
            return
        search.display = True
        self.set_focus(search)  # now, not after a refresh: the keys typed next go to the search

    @on(Input.Changed, "#search")
    def search_changed(self, event: Input.Changed) -> None:
        self.search = event.value.strip()
        self.show(self.rows)

    @on(Input.Submitted, "#search")
    def search_done(self, event: Input.Submitted) -> None:
        """enter: to the rows found (the search stays)."""
        self.query_one(QueryTable).focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#search", Input)
        if not search.display and not self.search:
            return
        search.display = False
        self.query_one(QueryTable).focus()
        if search.value:
            search.value = ""  # Input.Changed shows every row again

    def action_toggle_mine(self) -> None:
        self.only_mine = not self.only_mine
        self.show(self.rows)

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
        self.app.push_screen(dashboard_screen()(self.session))

    def action_adjudicate(self) -> None:
        """The adjudication screen, for a session in the adjudicator role only."""
        if not self.session.may_adjudicate:
            self.notify("adjudication is an adjudicator's: this session judges as an assessor", severity="warning")
            return
        self.app.push_screen(adjudication_screen()(self.session))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
