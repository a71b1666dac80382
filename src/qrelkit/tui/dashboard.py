"""The dashboard: the two tiles (headline and recall at candidate depth) of the latest saved
comparison (`qrelkit compare A B --save`), or of the latest saved score report."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Header, Static

from ..models import Comparison, MetricComparison, ScoreReport
from .state import Session

VERDICT = {"down": ("falls", "red"), "up": ("rises", "green"), "flat": ("holds", "")}
DIAGNOSIS_STYLE = {
    "stable": "green",
    "improved": "green",
    "ordering": "yellow",
    "early_warning": "yellow",
    "upstream": "red",
}


def _direction(m: MetricComparison) -> str:
    return "down" if m.ci95[1] < 0 else "up" if m.ci95[0] > 0 else "flat"


def _cov(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def comparison_tile(role: str, name: str, m: MetricComparison) -> str:
    word, colour = VERDICT[_direction(m)]
    delta = f"[b {colour}]{m.delta:+.4f}[/]" if colour else f"[b]{m.delta:+.4f}[/b]"
    return (
        f"[dim]{role}[/dim]\n[b]{name}[/b] {word}\n\n{delta}\n"
        f"[dim]95% CI[/dim] [{m.ci95[0]:+.4f}, {m.ci95[1]:+.4f}]\n[dim]p[/dim] {m.p_value:.4f}\n\n"
        f"[dim]A → B[/dim]      {m.mean_a:.4f} → {m.mean_b:.4f}\n"
        f"[dim]W / T / L[/dim]  {m.wins} / {m.ties} / {m.losses}\n"
        f"[dim]coverage[/dim]   {_cov(m.coverage_a)} / {_cov(m.coverage_b)}"
    )


def report_tile(role: str, name: str, report: ScoreReport) -> str:
    m = report.metrics.get(name)
    if m is None:
        return f"[dim]{role}[/dim]\n[b]{name}[/b]\n\nnot in this report"
    return (
        f"[dim]{role}[/dim]\n[b]{name}[/b]\n\n[b]{m.mean:.4f}[/b]\n"
        f"[dim]95% CI[/dim] [{m.ci95[0]:.4f}, {m.ci95[1]:.4f}]\n\n[dim]coverage[/dim]   {_cov(m.coverage)}"
    )


class DashboardScreen(Screen[None]):
    """Two tiles and the diagnosis; esc returns to the query list."""

    CSS_PATH = "dashboard.tcss"
    BINDINGS = [
        Binding("escape,d", "app.pop_screen", "back"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="diagnosis")
        with Horizontal(id="tiles"):
            yield Static(id="headline", classes="tile")
            yield Static(id="recall", classes="tile")
        yield Static(id="source")
        yield Static("[b]esc[/b] back  [b]q[/b] quit", id="keys")

    def on_mount(self) -> None:
        self.sub_title = "dashboard"
        store = self.session.store
        comparisons = store.latest_reports("comparison")
        if comparisons:
            name, created, body = comparisons[0]
            self.show_comparison(Comparison.model_validate_json(body), name, created)
            return
        reports = store.latest_reports("score")
        if reports:
            name, created, body = reports[0]
            self.show_report(ScoreReport.model_validate_json(body), name, created)
            return
        self.query_one("#diagnosis", Static).update(
            "No saved reports yet. Save one with [b]qrelkit compare A B --save[/b] or [b]qrelkit score RUN --save[/b]."
        )
        for tile in ("#headline", "#recall"):
            self.query_one(tile, Static).display = False

    def show_comparison(self, c: Comparison, name: str, created: str) -> None:
        style = DIAGNOSIS_STYLE[c.diagnosis]
        self.query_one("#diagnosis", Static).update(
            f"[b {style}]{c.diagnosis.replace('_', ' ').upper()}[/]  {c.diagnosis_text}"
        )
        self.query_one("#headline", Static).update(comparison_tile("headline", c.headline, c.metrics[c.headline]))
        self.query_one("#recall", Static).update(
            comparison_tile("recall at candidate depth", c.recall, c.metrics[c.recall])
        )
        golden = c.baseline.golden
        against = f"{golden.name} {golden.version or 'working copy'}" if golden else "a qrels file"
        self.query_one("#source", Static).update(
            f"[dim]A[/dim] {c.baseline.run.name}  [dim]B[/dim] {c.candidate.run.name}  "
            f"[dim]over[/dim] {c.queries} queries of {against}  [dim]saved[/dim] {created[:19]}"
        )

    def show_report(self, r: ScoreReport, name: str, created: str) -> None:
        self.query_one("#diagnosis", Static).update(
            f"[b]{name}[/b]: no saved comparison; the latest score report. "
            "[dim]Save one with qrelkit compare A B --save.[/dim]"
        )
        names = list(r.metrics)
        headline = "nDCG@10" if "nDCG@10" in r.metrics else names[0]
        recall = "R@50" if "R@50" in r.metrics else names[min(1, len(names) - 1)]
        self.query_one("#headline", Static).update(report_tile("headline", headline, r))
        self.query_one("#recall", Static).update(report_tile("recall at candidate depth", recall, r))
        self.query_one("#source", Static).update(f"[dim]saved[/dim] {created[:19]}")
