"""score: runs against the store, a frozen version or a qrels file, with coverage and bounds."""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from ..render.score import ScoreFormat, render_reports
from ..render.styles import data
from ..scoring.measures import DEFAULT_METRICS
from ..workflows import scoring, sources
from ._common import check_out, emit, err, open_store, options, out_option, source_options, store_opener

HELP = """Score RUNS (TREC run files, or JSON Lines: .jsonl / .ndjson) with coverage and bounds,
against the store by default.

\b
Measures (ir_measures names, trec_eval semantics; reports use the canonical name):
  P@k  R@k  Success@k (Hit@k)  RR (MRR)  RR@k  nDCG  nDCG@k  AP (MAP)  AP@k  Rprec  Judged@k
  P(rel=2)@5       relevance threshold 2 for this measure only
  nDCG(gain=exp)@10  gains 2^grade - 1 (default: gain = grade, as trec_eval)

Ties are broken by score, then document id descending (byte order); the rank column is
ignored. The golden set's queries are evaluated: a query missing from the run scores 0,
run-only queries are ignored, and the counts are reported. Unlabeled and skipped documents
count as not relevant for the value; coverage and bounds show what they leave open.

\b
Output: --format json writes one object {"reports": [...]} (one report per run), which
`qrelkit compare` reads; --format trec writes trec_eval's MEASURE QUERY VALUE lines, with a
leading RUN column when several runs are scored. Runs whose file names collide are named
by their folders (a/bm25.run, b/bm25.run).
"""


@click.command(help=HELP)
@options(
    click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path)),
    source_options,
    click.option("--metrics", help=f"Comma-separated measures [default: {','.join(DEFAULT_METRICS)}]."),
    click.option("--profile", help="Use a scoring profile's metrics and strata."),
    click.option("--per-query", is_flag=True, help="Include every query's value, coverage and bounds."),
    click.option(
        "--format", "fmt", type=click.Choice(["table", "json", "trec", "csv"]), default="table", show_default=True
    ),
    click.option("--min-coverage", type=click.FloatRange(0, 1), help="Exit 1 if any metric or stratum is below."),
    out_option,
    click.option("--bounds/--no-bounds", default=True, show_default=True, help="Compute bounds (slower)."),
    click.option("--save", is_flag=True, help="Keep the reports in the store (the TUI dashboard shows the latest)."),
)
@click.pass_context
def score(
    ctx: click.Context,
    runs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    metrics: str | None,
    profile: str | None,
    per_query: bool,
    fmt: ScoreFormat,
    min_coverage: float | None,
    out_path: Path | None,
    bounds: bool,
    save: bool,
) -> None:
    check_out(ctx, out_path, *runs, golden, qrels)
    source = sources.choose_source(store_opener(ctx), golden=golden, qrels=qrels, verify=verify)
    chosen = sources.plan(source, metrics=metrics, profile=profile)
    reports = scoring.score_runs(source, runs, chosen, per_query=per_query, bounds=bounds)
    emit(
        lambda width, color: render_reports(
            reports, fmt, per_query=per_query, min_coverage=min_coverage, width=width, color=color
        ),
        out_path,
    )
    if save:
        from .reports import save_and_say

        save_and_say(open_store(ctx), reports)
    if min_coverage is not None:
        low = scoring.coverage_violations(reports, min_coverage)
        if low:
            err.print(Text.assemble((f"coverage below {min_coverage:g}:", "bold red"), " ", data("; ".join(low))))
            ctx.exit(1)


COMMANDS = [score]
