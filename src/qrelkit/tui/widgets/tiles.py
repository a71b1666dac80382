"""The dashboard's two tiles: a metric of a saved comparison (its delta, interval, p-value, means,
wins / ties / losses, coverage) or of a saved score report (its mean, interval, coverage)."""

from __future__ import annotations

from rich.text import Text

from ...models import TILES, MetricComparison, ScoreReport
from ...render.styles import DIRECTION_STYLE, VERDICT, data, interval, number
from ..palette import css


def score_tiles(report: ScoreReport) -> tuple[str, str]:
    """The headline and recall metrics of a score report's tiles: the two tiles (`models.TILES`)
    when it has them, else its first two (a comparison names its own)."""
    names = list(report.metrics)
    headline, recall = TILES
    return (
        headline if headline in report.metrics else names[0],
        recall if recall in report.metrics else names[min(1, len(names) - 1)],
    )


def _head(role: str, name: str) -> Text:
    return Text.assemble((role, "dim"), "\n", data(name, "bold"))


def comparison_tile(role: str, name: str, m: MetricComparison) -> Text:
    """`name` falls / rises / holds, by how the 95% interval of its delta lies around 0."""
    change = data(number(m.delta, 4, sign=True), css(f"bold {DIRECTION_STYLE[m.direction]}"))
    return Text.assemble(
        _head(role, name),
        f" {VERDICT[m.direction]}\n\n",
        change,
        "\n",
        ("95% CI", "dim"),
        f" {interval(m.ci95, 4, sign=True)}\n",
        ("p", "dim"),
        f" {m.p_value:.4f}\n\n",
        ("A → B", "dim"),
        f"      {m.mean_a:.4f} → {m.mean_b:.4f}\n",
        ("W / T / L", "dim"),
        f"  {m.wins} / {m.ties} / {m.losses}\n",
        ("coverage", "dim"),
        f"   {number(m.coverage_a)} / {number(m.coverage_b)}",
    )


def report_tile(role: str, name: str, report: ScoreReport) -> Text:
    """`name`'s mean, interval and coverage in a score report (or that the report lacks it)."""
    m = report.metrics.get(name)
    if m is None:
        return Text.assemble(_head(role, name), "\n\nnot in this report")
    return Text.assemble(
        _head(role, name),
        "\n\n",
        (f"{m.mean:.4f}", "bold"),
        "\n",
        ("95% CI", "dim"),
        f" {interval(m.ci95, 4)}\n\n",
        ("coverage", "dim"),
        f"   {number(m.coverage)}",
    )
