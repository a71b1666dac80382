"""compare: a baseline and a candidate, paired over the same queries, with the CI gates."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import click
from rich.text import Text

from ..models import Comparison
from ..render import text
from ..render.compare import TABLE_WIDTH, comparison_table
from ..render.styles import data
from ..workflows import compare as workflow
from ..workflows import exporting
from ._common import check_out, emit, err, open_store, options, out_option, seed_option, source_options, store_opener

HELP = """Compare baseline A with candidate B, paired over the same queries.

A and B are run files (scored here against the store, --golden or --qrels) or JSON reports
saved with `score --format json --per-query` (a .json file); one report file holding two runs'
reports is A and B. Reports must be comparable (same golden content, metrics, cutoffs,
threshold and queries) unless --allow-mismatch.

\b
Per metric: both means, B - A, a 95% paired bootstrap interval, a paired randomization test,
wins / ties / losses, per-stratum and traffic-weighted deltas, coverage of each side and a
warning when unlabeled documents could reverse the delta. The diagnosis reads the two tiles
(headline nDCG@10, recall R@50; "falls" = the interval lies below 0):
  stable         neither moved
  ordering       headline falls, recall holds: look at the reranker or fusion
  upstream       both fall: analyzer, chunking, ingestion changed
  early_warning  recall falls, headline holds: an upstream problem is coming
  improved       nothing fell, something rose

Exit status: 0 compared (and every gate passed), 1 a gate failed, 2 bad input (a gate on a
measure the reports do not both hold included).
"""

CompareFormat = Literal["table", "json", "html"]

OPTIONS = options(
    click.argument("inputs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="A [B]"),
    source_options,
    click.option("--metrics", help="Comma-separated measures (the two tiles are always added)."),
    click.option("--profile", help="Use a scoring profile's metrics and strata (runs only)."),
    click.option("--headline", default="nDCG@10", show_default=True, help="The headline tile."),
    click.option("--recall", default="R@50", show_default=True, help="The recall tile (recall at candidate depth)."),
    click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]), default="table", show_default=True),
    out_option,
    click.option(
        "--resamples", type=click.IntRange(1, 10**8), default=10_000, show_default=True, help="Bootstrap and test."
    ),
    seed_option("Seed of the resampling."),
    click.option("--fail-if-worse", "fail_if_worse", multiple=True, metavar="METRIC[:TOL]", help="Exit 1 if worse."),
    click.option("--gate-pair", metavar="M1,M2", help="Exit 1 if the gain on one is less than the loss on the other."),
    click.option("--allow-mismatch", is_flag=True, help="Compare anyway, over the queries both share."),
    click.option("--save", is_flag=True, help="Keep the comparison in the store (the TUI dashboard shows it)."),
)


@click.command(help=HELP)
@OPTIONS
@click.pass_context
def compare(
    ctx: click.Context,
    inputs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    metrics: str | None,
    profile: str | None,
    headline: str,
    recall: str,
    fmt: CompareFormat,
    out_path: Path | None,
    resamples: int,
    seed: int,
    fail_if_worse: tuple[str, ...],
    gate_pair: str | None,
    allow_mismatch: bool,
    save: bool,
) -> None:
    opts = workflow.CompareOptions(
        metrics=metrics, profile=profile, headline=headline, recall=recall, resamples=resamples, seed=seed,
        gates=[workflow.Gate.parse(g) for g in fail_if_worse],
        gate_pair=workflow.parse_gate_pair(gate_pair) if gate_pair is not None else None,
        allow_mismatch=allow_mismatch, golden=golden, qrels=qrels, verify=verify,
    )  # fmt: skip
    check_out(ctx, out_path, *inputs, golden, qrels)
    outcome = workflow.compare(inputs, opts, store_opener(ctx))
    c = outcome.comparison
    emit(lambda width, color: render(c, fmt, width, color), out_path)
    if outcome.mismatches:
        err.print(Text.assemble(("compared despite:", "bold yellow"), " ", data("; ".join(outcome.mismatches))))
        err.print(f"over the {c.queries} queries both reports share")
    if save:
        exporting.save_reports(open_store(ctx), [c])
    if outcome.failures:
        for f in outcome.failures:
            err.print(Text.assemble(("gate failed:", "bold red"), " ", data(f)))
        ctx.exit(1)


def render(c: Comparison, fmt: CompareFormat, width: int, color: bool) -> str:
    if fmt == "json":
        return c.model_dump_json(indent=2) + "\n"
    if fmt == "html":
        from ..render.html import render as html

        return html(c)
    return text(comparison_table(c), width=max(width, TABLE_WIDTH), color=color)


COMMANDS = [compare]
