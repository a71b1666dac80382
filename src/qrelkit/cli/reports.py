"""reports: the score reports and comparisons kept with `--save`, listed and shown again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click
from rich.table import Table

from ..models import Comparison, PlainScoreReport, SavedReport, ScoreReport, to_plain
from ..render import text
from ..render.compare import TABLE_WIDTH, comparison_table
from ..render.score import ScoreFormat, render_reports
from ..render.styles import data
from ..workflows import saved
from ._common import check_out, emit, err, open_store, out_option, say

if TYPE_CHECKING:
    from ..storage import Store

ShowFormat = Literal["table", "json", "html"]


def save_and_say(store: Store, reports: Sequence[PlainScoreReport | ScoreReport | Comparison]) -> None:
    """`--save`: keep the reports, and say on stderr what was kept under which id."""
    for e in saved.save_reports(store, reports):
        say(f"saved {e.kind} report {e.id}: ", data(e.name), f" (qrelkit reports show {e.id})", console=err)


@click.group()
def reports() -> None:
    """Reports kept in the store by `score --save` and `compare --save`."""


@reports.command("list")
@click.option("--kind", type=click.Choice(["score", "comparison"]), help="Only reports of this kind.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_context
def list_(ctx: click.Context, kind: str | None, fmt: str) -> None:
    """Every saved report, oldest first: id, kind, name, when it was saved."""
    entries = saved.list_reports(open_store(ctx), kind)
    if fmt == "json":
        click.echo(json.dumps([asdict(e) for e in entries], indent=2))
        return
    table = Table("id", "kind", "name", "created", title=f"{len(entries)} saved reports")
    for e in entries:
        table.add_row(str(e.id), data(e.kind), data(e.name), data(e.created[:19].replace("T", " ")))
    emit(lambda width, color: text(table, width=width, color=color), None)


@reports.command("show")
@click.argument("report_id", type=click.IntRange(1), metavar="ID")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "html"]),
    default="table",
    show_default=True,
    help="As `score` or `compare` would print it (html: comparisons only).",
)
@out_option
@click.pass_context
def show(ctx: click.Context, report_id: int, fmt: ShowFormat, out_path: Path | None) -> None:
    """Show saved report ID (see `qrelkit reports list`) as `score` or `compare` shows it."""
    check_out(ctx, out_path)
    found = saved.show_report(open_store(ctx), report_id)
    if found.score is not None and fmt == "html":
        from ..errors import UsageError

        raise UsageError(f"report {report_id} is a score report: it has no HTML page", "use --format table or json")
    emit(lambda width, color: render(found, fmt, width, color), out_path)


def render(found: SavedReport, fmt: ShowFormat, width: int, color: bool) -> str:
    """A saved report as `score` (a score report) or `compare` (a comparison) renders it."""
    if found.comparison is not None:
        c = found.comparison
        if fmt == "json":
            return c.model_dump_json(indent=2) + "\n"
        if fmt == "html":
            from ..render.html import render as html

            return html(c)
        return text(comparison_table(c), width=max(width, TABLE_WIDTH), color=color)
    rep = found.score
    if rep is None:  # show_report returns one of the two
        return ""
    shown: ScoreFormat = "json" if fmt == "json" else "table"
    return render_reports([to_plain(rep)], shown, per_query=rep.per_query is not None, width=width, color=color)


COMMANDS = [reports]
