"""The dashboard: the two tiles (headline and recall at candidate depth) of the latest saved
comparison (`qrelkit compare A B --save`), or of the latest saved score report."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from ...models import Comparison, ScoreReport
from ...render.styles import DIAGNOSIS_STYLE, data
from ...workflows.judging import JudgingSession
from ..palette import css
from ..widgets.scale_bar import key_text
from ..widgets.tiles import comparison_tile, report_tile, score_tiles
from ..widgets.title_header import TitleHeader

KEYS = [("esc", "back"), ("q", "quit")]
RECALL = "recall at candidate depth"
"""The role of the second tile."""


class DashboardScreen(Screen[None]):
    """Two tiles and the diagnosis; esc returns to the query list."""

    CSS_PATH = "dashboard.tcss"
    BINDINGS = [
        Binding("escape,d", "app.pop_screen", "back"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield Static(id="diagnosis", classes="bar")
        with Horizontal(id="tiles"):
            yield Static(id="headline", classes="tile")
            yield Static(id="recall", classes="tile")
        yield Static(id="source")
        yield Static(key_text(KEYS), id="keys")

    def on_mount(self) -> None:
        self.sub_title = "dashboard"
        saved = self.session.latest_report()
        if saved is not None and saved.comparison is not None:
            self.show_comparison(saved.comparison, saved.created)
        elif saved is not None and saved.score is not None:
            self.show_report(saved.score, saved.name, saved.created)
        else:
            self.query_one("#diagnosis", Static).update(
                "No saved reports yet. Save one with [b]qrelkit compare A B --save[/b] or "
                "[b]qrelkit score RUN --save[/b]."
            )
            for tile in ("#headline", "#recall"):
                self.query_one(tile, Static).display = False

    def show_comparison(self, c: Comparison, created: str) -> None:
        self.query_one("#diagnosis", Static).update(
            Text.assemble(
                (c.diagnosis.replace("_", " ").upper(), css(f"bold {DIAGNOSIS_STYLE[c.diagnosis]}")),
                "  ",
                data(c.diagnosis_text),
            )
        )
        self.query_one("#headline", Static).update(comparison_tile("headline", c.headline, c.metrics[c.headline]))
        self.query_one("#recall", Static).update(comparison_tile(RECALL, c.recall, c.metrics[c.recall]))
        golden = c.baseline.golden
        against = f"{golden.name} {golden.version or 'working copy'}" if golden else "a qrels file"
        self.query_one("#source", Static).update(
            Text.assemble(
                ("A", "dim"),
                " ",
                data(c.baseline.run.name),
                "  ",
                ("B", "dim"),
                " ",
                data(c.candidate.run.name),
                "  ",
                ("over", "dim"),
                f" {c.queries} queries of ",
                data(against),
                "  ",
                ("saved", "dim"),
                f" {created[:19]}",
            )
        )

    def show_report(self, r: ScoreReport, name: str, created: str) -> None:
        self.query_one("#diagnosis", Static).update(
            Text.assemble(
                data(name, "bold"),
                ": no saved comparison; the latest score report. ",
                ("Save one with qrelkit compare A B --save.", "dim"),
            )
        )
        headline, recall = score_tiles(r)
        self.query_one("#headline", Static).update(report_tile("headline", headline, r))
        self.query_one("#recall", Static).update(report_tile(RECALL, recall, r))
        self.query_one("#source", Static).update(Text.assemble(("saved", "dim"), f" {created[:19]}"))
