"""A comparison as a terminal table: diagnosis, every metric, per-stratum tiles, warnings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..models import Comparison, StratumDelta
from .html import evidence_note
from .queries import missing_notes, paired_note, unlabeled_notes
from .styles import DIAGNOSIS_STYLE, column, data, delta, interval, number

TABLE_WIDTH = 120


def comparison_table(c: Comparison) -> RenderableType:
    """The comparison as rich renderables (printed, or written as plain text)."""
    style = DIAGNOSIS_STYLE[c.diagnosis]
    head = Text.assemble(
        ("A", "bold"), " ", data(c.baseline.run.name), "  vs  ", ("B", "bold"), " ", data(c.candidate.run.name),
        f": {c.queries} queries paired ({paired_note(c)}), {c.resamples:,} resamples, seed {c.seed}",
    )  # fmt: skip
    diagnosis = Text.assemble((f"diagnosis: {c.diagnosis.value}", f"bold {style}"), "  ", data(c.diagnosis_text))
    table = Table("metric", "A", "B", "B - A", "95% CI", "p", "W/T/L", "weighted", "cov A", "cov B")
    for name, m in c.metrics.items():
        table.add_row(
            data(name + (" *" if name in (c.headline, c.recall) else "")),
            f"{m.mean_a:.4f}",
            f"{m.mean_b:.4f}",
            delta(m.delta, m.direction),
            interval(m.ci95, 4, sign=True),
            f"{m.p_value:.4f}",
            f"{m.wins}/{m.ties}/{m.losses}",
            number(m.weighted_delta, 4, sign=True),
            number(m.coverage_a),
            number(m.coverage_b),
        )
    parts: list[RenderableType] = [head, diagnosis, table]
    parts += [data(note, "yellow") for note in missing_notes(c)]
    parts += [data(note, "dim") for note in unlabeled_notes([("A", c.baseline_queries), ("B", c.candidate_queries)])]
    strata = sorted({s for m in c.metrics.values() for s in m.by_stratum})
    if len(strata) > 1:
        parts.append(_strata_table(c, strata))
    for name, m in c.metrics.items():
        if m.warning:
            parts.append(Text.assemble(data(name, "yellow"), Text(": "), data(m.warning, "yellow")))
    for name, m in c.metrics.items():
        if note := evidence_note(m):  # the interval and the test disagree: say so, in one sentence
            parts.append(Text.assemble(data(name, "yellow"), Text(": "), Text(note, style="yellow")))
    for col in c.collisions:
        parts.append(
            data(
                f"{col.side}: {col.metrics[0]} and {col.metrics[1]} both average {col.mean:.4f} but differ "
                f"on {col.queries_differ} of {col.n} queries",
                "yellow",
            )
        )
    return Group(*parts)


def _cell(x: StratumDelta | None) -> str:
    if x is None:
        return "-"
    return f"{x.delta:+.4f}" + (f" {interval(x.ci95, 3, sign=True)}" if x.ci95 else "")


def _strata_table(c: Comparison, strata: list[str]) -> Table:
    tiles = (c.metrics[c.headline], c.metrics[c.recall])
    table = Table("stratum", "n", *[column(f"{t} B - A [95% CI]") for t in (c.headline, c.recall)], title="per stratum")
    for s in strata:
        subs = [t.by_stratum.get(s) for t in tiles]
        table.add_row(data(s), str(subs[0].n if subs[0] else 0), *[_cell(x) for x in subs])
    weighted = [
        "-" if t.weighted_delta is None else f"{t.weighted_delta:+.4f}" + (
            f" {interval(t.weighted_ci95, 3, sign=True)}" if t.weighted_ci95 else ""
        )
        for t in tiles
    ]  # fmt: skip
    table.add_row(Text("traffic-weighted", style="bold"), "", *weighted)
    return table
