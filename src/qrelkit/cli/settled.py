"""settled: whether any labeling of the unlabeled documents could still change a comparison."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ..errors import UsageError
from ..formats.trec import RunFormat
from ..models import HEADLINE
from ..render import text
from ..render.styles import data
from ..workflows import settling
from ..workflows.comparisons import Comparisons, from_leaderboard
from ._common import emit, err, format_option, options, run_format_option, source_options, store_opener
from .score import KEEP_UNLABELED_OPTION

TABLE_WIDTH = 128
"""The table's least width (a range and a verdict per row)."""

HELP = f"""Whether any labeling of the unlabeled documents could still change B - A.

Runs A and B are scored as `score` scores them (against the store, --golden or --qrels) over the
same queries (--profile: its strata's). Per metric (default: the headline {HEADLINE}; repeat
--metric for several): the delta now (unlabeled documents counted not relevant), its range
[lo, hi] over every labeling of the unlabeled documents either run retrieves (each may take any
grade; a document only A retrieves still moves B's R), the sign verdict (settled B>A, settled
A>B, settled tie, or open), the verdict of the two-sided paired t-test at alpha 0.05 (settled
significant, settled not significant, open, or no test under 2 queries), the unlabeled pairs
that can still move some query's delta, and an ESTIMATE of the judgments the `settle` order
needs until both verdicts are settled: its order (over every metric named, as `queue --order
settle` serves them) replayed with every judged pair at the grade nearest the mean of the
current labels' grade prior.

--leaderboard FILE instead of A B: a leaderboard saved by `qrelkit compare A B C --format json
--out FILE`, its runs in ranking order (headline mean, best first) and each adjacent pair
compared, the run ranked below as A (settled B>A: that step of the ranking holds under every
labeling; adjacent steps chain, so the whole order of means is settled when every step is; the
chain is exact for P, Success and RR, while for nDCG, AP, R and Rprec a pair's range leaves a
document only other runs retrieve unlabeled); its metrics the stopping rule covers unless
--metric; refused if its run files are gone or changed. A table per pair; JSON: a list.

\b
Exactness: P, R, Success, RR, Rprec: exact (closed form). nDCG: exact per query while the
unlabeled documents of either top k take at most 50,000 multisets of gains; AP: while its
labelings number at most 4,096; else a sound outer interval (the exact column counts the exact
queries). The t-test verdict is sound, not exact: "not significant" is exact over the box of
per-query deltas, "significant" sound, so "open" may be said where no labeling would change it.

Exit status 0 (whatever the verdict), 2 bad input.
"""


@click.command(help=HELP)
@options(
    click.argument("runs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path), metavar="A B"),
    source_options,
    click.option("--metric", "metrics", multiple=True, help=f"A measure (repeatable) [default: {HEADLINE}]."),
    click.option(
        "--leaderboard",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Instead of A B: every adjacent pair of a saved leaderboard's ranking (`compare --format json --out`).",
    ),
    click.option(
        "--profile", help="A scoring profile: its strata's queries, and without --metric its measures (those covered)."
    ),
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
    runs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    max_grade: int | None,
    relevance_level: int | None,
    metrics: tuple[str, ...],
    leaderboard: Path | None,
    profile: str | None,
    keep_unlabeled: bool,
    estimate: bool,
    fmt: str,
    run_format: RunFormat,
) -> None:
    given = _comparisons(runs, metrics, leaderboard, run_format)
    found = settling.settled_all(
        given.pairs, metrics, store_opener(ctx), names=given.names, default_metrics=given.metrics,
        profile=profile, golden=golden, qrels=qrels, verify=verify, max_grade=max_grade,
        relevance_level=relevance_level, run_format=run_format, keep_unlabeled=keep_unlabeled, estimate=estimate,
    )  # fmt: skip
    several = leaderboard is not None
    if fmt == "json":
        reports = [asdict(r) for r in found.reports]
        click.echo(json.dumps(reports if several else reports[0], indent=2))
    elif fmt == "tsv":
        click.echo("\t".join((("baseline", "candidate") if several else ()) + TSV_HEAD))
        for report in found.reports:
            for r in report.rows:
                click.echo("\t".join(([report.baseline, report.candidate] if several else []) + _tsv(r)))
    else:
        emit(lambda width, color: text(_tables(found.reports), width=max(width, TABLE_WIDTH), color=color), None)
    _notes(found, [*given.left_out], estimate and fmt == "table")


def _comparisons(
    runs: tuple[Path, ...], metrics: tuple[str, ...], leaderboard: Path | None, run_format: RunFormat
) -> Comparisons:
    """A B, or the adjacent pairs of --leaderboard (with its metrics unless --metric)."""
    if leaderboard is not None:
        if runs:
            raise UsageError("give runs A B or --leaderboard FILE, not both", "leave out A B with --leaderboard")
        return from_leaderboard(leaderboard, metrics, run_format)
    if len(runs) != 2:
        raise UsageError(f"settled compares two runs, got {len(runs)}", "give a baseline A and a candidate B")
    return Comparisons([(runs[0], runs[1])])


def _notes(found: settling.Settled, left_out: list[str], estimate: bool) -> None:
    """On standard error: the measures left out, and what the estimate is."""
    skipped = list(dict.fromkeys([*left_out, *found.left_out]))
    if skipped:
        err.print(Text.assemble("not settled (the stopping rule does not cover them): ", data(", ".join(skipped))))
    if not estimate or not found.reports:
        return
    grade = found.reports[0].assumed_grade
    err.print(
        f"sign in, both in: judgments until the sign, and both verdicts, are settled: an estimate (the settle "
        f"order replayed, each pair judged {grade}, the grade nearest the prior's mean)"
    )
    rows = [r for report in found.reports for r in report.rows]
    if len(rows) > 1:
        steps = [r.to_settle for r in rows]
        most = max((s for s in steps if s is not None), default=0)
        every = "not within the open pairs" if None in steps else (f"~{most}" if most else "0")
        err.print(f"every comparison on every metric settled in: {every} (the same replay: one settle order for all)")


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


def _tables(reports: list[settling.SettledReport]) -> RenderableType:
    """A table per comparison (one: the table itself)."""
    from rich.console import Group

    tables = [_table(r) for r in reports]
    return tables[0] if len(tables) == 1 else Group(*tables)


def _table(report: settling.SettledReport) -> Table:
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
