"""settled: whether any labeling of the unlabeled documents could still change a comparison."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click
from rich.table import Table

from ..formats.trec import RunFormat
from ..models import HEADLINE
from ..render import text
from ..render.styles import data
from ..workflows import settling
from ._common import emit, err, format_option, options, run_format_option, source_options, store_opener
from .score import KEEP_UNLABELED_OPTION

TABLE_WIDTH = 128
"""The table's least width (a range and a verdict per row)."""

HELP = f"""Whether any labeling of the unlabeled documents could still change B - A.

Runs A and B are scored as `score` scores them (against the store, --golden or --qrels) over the
same queries. Per metric (default: the headline {HEADLINE}): the delta now (unlabeled documents
counted not relevant), its range [lo, hi] over every labeling of the unlabeled documents either
run retrieves (each may take any grade; a document only A retrieves still moves B's R), the sign
verdict (settled B>A, settled A>B, settled tie, or open), the verdict of the two-sided paired
t-test at alpha 0.05 (settled significant, settled not significant, open, or no test under 2
queries), the unlabeled pairs that can still move some query's delta, and an ESTIMATE of the
judgments the `settle` order needs until both verdicts are settled: its order replayed with
every judged pair at the grade nearest the mean of the current labels' grade prior.

\b
Exactness: P, R, Success, RR: exact (closed form). nDCG, AP, Rprec: exact per query while its
labelings number at most 4,096, else a sound outer interval (the exact column counts the
exact queries). The t-test verdict is sound, not exact: each query's delta ranges over its
interval independently, so "open" may be said where no labeling would change it.

Exit status 0 (whatever the verdict), 2 bad input.
"""


@click.command(help=HELP)
@options(
    click.argument("runs", nargs=2, type=click.Path(dir_okay=False, path_type=Path), metavar="A B"),
    source_options,
    click.option("--metric", "metrics", multiple=True, help=f"A measure (repeatable) [default: {HEADLINE}]."),
    KEEP_UNLABELED_OPTION,
    click.option(
        "--estimate/--no-estimate",
        default=True,
        show_default=True,
        help="Estimate the judgments until settled (the slow part on large sets).",
    ),
    format_option("table", "json", "tsv"),
    run_format_option,
)
@click.pass_context
def settled(
    ctx: click.Context,
    runs: tuple[Path, Path],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    max_grade: int | None,
    relevance_level: int | None,
    metrics: tuple[str, ...],
    keep_unlabeled: bool,
    estimate: bool,
    fmt: str,
    run_format: RunFormat,
) -> None:
    report = settling.settled(
        runs, metrics, store_opener(ctx), golden=golden, qrels=qrels, verify=verify, max_grade=max_grade,
        relevance_level=relevance_level, run_format=run_format, keep_unlabeled=keep_unlabeled, estimate=estimate,
    )  # fmt: skip
    if fmt == "json":
        click.echo(json.dumps(asdict(report), indent=2))
    elif fmt == "tsv":
        click.echo("\t".join(TSV_HEAD))
        for r in report.rows:
            click.echo("\t".join(_tsv(r)))
    else:
        emit(lambda width, color: text(_table(report), width=max(width, TABLE_WIDTH), color=color), None)
        if estimate:
            err.print(
                f"sign in, both in: judgments until the sign, and both verdicts, are settled: an estimate (the settle "
                f"order replayed, each pair judged {report.assumed_grade}, the grade nearest the prior's mean)"
            )


TSV_HEAD = (
    "metric", "now", "low", "high", "sign", "significance", "exact_queries", "queries", "open_pairs",
    "to_settle_sign", "to_settle",
)  # fmt: skip


def _n(x: int | None) -> str:
    return "" if x is None else str(x)


def _tsv(r: settling.SettledRow) -> list[str]:
    return [
        r.metric, f"{r.now:.6g}", f"{r.low:.6g}", f"{r.high:.6g}", r.sign, r.significance, str(r.exact_queries),
        str(r.queries), str(r.open_pairs), _n(r.to_settle_sign), _n(r.to_settle),
    ]  # fmt: skip


def _table(report: settling.SettledReport) -> Table:
    from rich.text import Text

    title = Text.assemble(data(report.candidate), " - ", data(report.baseline), f" over {report.queries} queries")
    table = Table(
        "metric", "B - A now", "range", "sign", "t-test", "exact", "open pairs", "sign in", "both in", title=title
    )
    for r in report.rows:
        table.add_row(
            data(r.metric), f"{r.now:+.4f}", f"[{r.low:+.4f}, {r.high:+.4f}]", r.sign, r.significance,
            f"{r.exact_queries}/{r.queries}", str(r.open_pairs), _estimate(r.to_settle_sign), _estimate(r.to_settle),
        )  # fmt: skip
    return table


def _estimate(n: int | None) -> str:
    return "0" if n == 0 else (f"~{n}" if n is not None else "n/a")


COMMANDS = [settled]
