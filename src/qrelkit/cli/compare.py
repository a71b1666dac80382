"""compare: a baseline and a candidate, paired over the same queries, with the CI gates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import click
from rich.text import Text

from ..formats.trec import RunFormat
from ..models import CORRECTIONS, HEADLINE, RECALL, Comparison, Correction, Leaderboard
from ..render import text
from ..render.compare import TABLE_WIDTH, comparison_table
from ..render.styles import data
from ..workflows import compare as workflow
from ..workflows import settling
from ._common import (
    F,
    check_out,
    emit,
    err,
    open_store,
    options,
    out_option,
    run_format_option,
    seed_option,
    source_options,
    store_opener,
)
from .score import KEEP_UNLABELED_OPTION

HELP = f"""Compare baseline A with candidate B (or with several candidates), paired over the same queries.

Inputs are run files (scored here against the store, --golden or --qrels) or JSON reports
saved with `score --format json --per-query` (a .json file); one report file holding several
runs' reports counts as those runs. Reports must be comparable (same golden content, metrics,
cutoffs, threshold and queries) unless --allow-mismatch.

\b
Three or more inputs (or --leaderboard) make a leaderboard: one row per run, per metric its
mean, 95% interval, coverage and bounds, the paired delta to the baseline (the first input)
with its bootstrap interval and randomization p-value, corrected by --correction (default holm:
Holm over each candidate's test against the baseline; bonferroni; tukey: the randomized Tukey
HSD over every pair of runs; none), significance marks, and the sensitivity of each metric
(SD, SE, minimum detectable effect, queries needed for --delta, discriminative power). Gates
then apply to every candidate, on the corrected interval.

\b
Per metric: both means, B - A, a 95% paired bootstrap interval, a paired randomization test,
wins / ties / losses, per-stratum and traffic-weighted deltas, coverage of each side and a
warning when unlabeled documents may reverse the delta. The diagnosis reads the two tiles
(headline {HEADLINE}, recall {RECALL}; "falls" = the interval lies below 0):
  stable         neither moved
  ordering       headline falls, recall holds: look at the reranker or fusion
  upstream       both fall: analyzer, chunking, ingestion changed
  early_warning  recall falls, headline holds: an upstream problem is coming
  improved       nothing fell, something rose

Runs are scored as `score` scores them: a query a run lacks scores 0 (each side's count is
reported and its queries named), a golden-set query with no label is left out
(--keep-unlabeled-queries: scored 0), a run that shares no query with the golden set is an error.

Exit status: 0 compared (and every gate passed), 1 a gate failed, 2 bad input (a gate on a
measure the reports do not both hold included).
"""

CompareFormat = Literal["table", "json", "html", "csv", "latex"]
DELTA = click.FloatRange(1e-6, 1e6)
"""--delta: a change in metric units (a count metric's can exceed 1)."""
MIN_RESAMPLES = 1_000
"""Fewer resamples make the 2.5th/97.5th percentiles and p-values too coarse to read."""


def _inputs(metavar: str) -> Callable[[F], F]:
    return click.argument(
        "inputs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path), metavar=metavar
    )


def _resamples(help: str) -> Callable[[F], F]:
    return click.option(
        "--resamples", type=click.IntRange(MIN_RESAMPLES, 10**8), default=10_000, show_default=True, help=help
    )


PROFILE = click.option("--profile", help="Use a scoring profile's metrics and strata (runs only).")
DELTA_OPTION = click.option(
    "--delta", type=DELTA, help="The change that matters (> 0): how many queries would detect it."
)

OPTIONS = options(
    _inputs("A [B...]"),
    source_options,
    click.option(
        "--metrics",
        help="Measures, comma- or space-separated, ir_measures or trec_eval names (the two tiles are always added).",
    ),
    PROFILE,
    KEEP_UNLABELED_OPTION,
    click.option("--headline", default=HEADLINE, show_default=True, help="The headline tile."),
    click.option("--recall", default=RECALL, show_default=True, help="The recall tile (recall at candidate depth)."),
    click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "json", "html", "csv", "latex"]),
        default="table",
        show_default=True,
        help="csv and latex write a leaderboard.",
    ),
    out_option,
    _resamples("Bootstrap and randomization resamples."),
    seed_option("Seed of the resampling."),
    click.option("--fail-if-worse", "fail_if_worse", multiple=True, metavar="METRIC[:TOL]", help="Exit 1 if worse."),
    click.option("--gate-pair", metavar="M1,M2", help="Exit 1 if the gain on one is less than the loss on the other."),
    click.option("--allow-mismatch", is_flag=True, help="Compare anyway, over the queries both share."),
    click.option(
        "--allow-mixed-labels",
        is_flag=True,
        help="Compare a report scored with human labels against one scored with machine labels.",
    ),
    click.option(
        "--correction",
        type=click.Choice(CORRECTIONS),
        default="holm",
        show_default=True,
        help="Multiple-comparison correction of a leaderboard.",
    ),
    click.option("--leaderboard", "as_leaderboard", is_flag=True, help="A leaderboard even for two inputs."),
    DELTA_OPTION,
    click.option("--save", is_flag=True, help="Keep a two-run comparison in the store (the TUI dashboard shows it)."),
    run_format_option,
)


SAVE_LEADERBOARD = "--save keeps a two-run comparison; keep a leaderboard with --format json --out FILE"


@click.command(help=HELP)
@OPTIONS
@click.pass_context
def compare(
    ctx: click.Context,
    inputs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    max_grade: int | None,
    relevance_level: int | None,
    metrics: str | None,
    profile: str | None,
    keep_unlabeled: bool,
    headline: str,
    recall: str,
    fmt: CompareFormat,
    out_path: Path | None,
    resamples: int,
    seed: int,
    fail_if_worse: tuple[str, ...],
    gate_pair: str | None,
    allow_mismatch: bool,
    allow_mixed_labels: bool,
    correction: Correction,
    as_leaderboard: bool,
    delta: float | None,
    save: bool,
    run_format: RunFormat,
) -> None:
    opts = workflow.CompareOptions(
        metrics=metrics, profile=profile, headline=headline, recall=recall, resamples=resamples, seed=seed,
        gates=[workflow.Gate.parse(g) for g in fail_if_worse],
        gate_pair=workflow.parse_gate_pair(gate_pair) if gate_pair is not None else None,
        allow_mismatch=allow_mismatch, allow_mixed_labels=allow_mixed_labels, golden=golden, qrels=qrels,
        verify=verify, correction=correction, max_grade=max_grade, relevance_level=relevance_level,
        leaderboard=as_leaderboard or fmt in ("csv", "latex"), delta=delta, keep_unlabeled=keep_unlabeled,
        run_format=run_format, settled=fmt == "table",
    )  # fmt: skip
    check_out(ctx, out_path, *inputs, golden, qrels)
    if save and (len(inputs) > 2 or opts.leaderboard):
        raise click.UsageError(SAVE_LEADERBOARD)
    outcome = workflow.compare_any(inputs, opts, store_opener(ctx))
    for note in outcome.notes:
        err.print(Text.assemble(("note:", "bold"), " ", data(note)))
    if isinstance(outcome, workflow.LeaderboardOutcome):
        board = outcome.leaderboard
        if save:
            raise click.UsageError(SAVE_LEADERBOARD)
        emit(lambda width, color: render_leaderboard(board, fmt, width, color), out_path)
    else:
        c = outcome.comparison
        emit(lambda width, color: render(c, fmt, width, color), out_path)
        _say_mismatches(outcome.mismatches, c.queries)
        _say_settled(outcome.settled)
        if save:
            from .reports import save_and_say

            save_and_say(open_store(ctx), [c])
    _fail_gates(ctx, outcome.failures)


def _say_settled(rows: list[settling.SettledRow]) -> None:
    """Two run files: one `settled:` line per measure the stopping rule covers (`qrelkit settled`)."""
    for row in rows:
        err.print(Text.assemble(("settled:", "bold"), " ", data(settling.settled_line(row))))


def _say_mismatches(mismatches: list[str], queries: int) -> None:
    """What differed between two reports compared with --allow-mismatch."""
    if mismatches:
        err.print(Text.assemble(("compared despite:", "bold yellow"), " ", data("; ".join(mismatches))))
        err.print(f"over the {queries} queries both reports share")


def _fail_gates(ctx: click.Context, failures: list[str]) -> None:
    """Each failed gate on standard error, then exit 1."""
    if failures:
        for f in failures:
            err.print(Text.assemble(("gate failed:", "bold red"), " ", data(f)))
        ctx.exit(1)


def render_leaderboard(board: Leaderboard, fmt: CompareFormat, width: int, color: bool) -> str:
    from ..render import leaderboard as lb

    if fmt == "json":
        return board.model_dump_json(indent=2) + "\n"
    if fmt == "csv":
        return lb.leaderboard_csv(board)
    if fmt == "latex":
        return lb.leaderboard_latex(board)
    if fmt == "html":
        from ..render.html_leaderboard import render_leaderboard as page

        return page(board)
    return text(lb.leaderboard_tables(board), width=max(width, TABLE_WIDTH), color=color)


def render(c: Comparison, fmt: CompareFormat, width: int, color: bool) -> str:
    if fmt == "json":
        return c.model_dump_json(indent=2) + "\n"
    if fmt == "html":
        from ..render.html import render as html

        return html(c)
    return text(comparison_table(c), width=max(width, TABLE_WIDTH), color=color)


SENSITIVITY_HELP = """How sensitive each metric is on this golden set, from RUNS (files or saved reports).

\b
Per metric, over every query and per stratum: the SD of the first run's per-query values and the
SE of its mean; with two or more runs, the SD of the paired differences with the first run (the
median over the other runs, so one very different run does not set it) and the minimum
detectable effect of a paired t-test (alpha 0.05, power 0.8) on the queries at hand; with
--delta D, the queries needed to detect D; with three or more runs, the discriminative power
(the share of run pairs a paired randomization test finds different at alpha 0.05, Sakai 2006).
A metric whose MDE is larger than the change that matters cannot tell "no change" from "cannot
tell" on this set.
"""


@click.command(help=SENSITIVITY_HELP)
@options(
    _inputs("RUNS..."),
    source_options,
    click.option(
        "--metrics", help="Measures, comma- or space-separated, ir_measures or trec_eval names (default: the defaults)."
    ),
    PROFILE,
    KEEP_UNLABELED_OPTION,
    DELTA_OPTION,
    click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True),
    out_option,
    _resamples("Resamples of the pairwise tests (discriminative power)."),
    seed_option("Seed of the resampling."),
    click.option("--allow-mismatch", is_flag=True, help="Go on over the queries every report holds."),
    run_format_option,
)  # fmt: skip
@click.pass_context
def sensitivity(
    ctx: click.Context,
    inputs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    max_grade: int | None,
    relevance_level: int | None,
    metrics: str | None,
    profile: str | None,
    keep_unlabeled: bool,
    delta: float | None,
    fmt: str,
    out_path: Path | None,
    resamples: int,
    seed: int,
    allow_mismatch: bool,
    run_format: RunFormat,
) -> None:
    from ..render import leaderboard as lb

    opts = workflow.CompareOptions(
        metrics=metrics, profile=profile, resamples=resamples, seed=seed, allow_mismatch=allow_mismatch,
        golden=golden, qrels=qrels, verify=verify, delta=delta, keep_unlabeled=keep_unlabeled, max_grade=max_grade,
        relevance_level=relevance_level, run_format=run_format,
    )  # fmt: skip
    check_out(ctx, out_path, *inputs, golden, qrels)
    rep = workflow.sensitivity(inputs, opts, store_opener(ctx))
    if fmt == "json":
        emit(lambda _w, _c: rep.model_dump_json(indent=2) + "\n", out_path)
    elif fmt == "csv":
        emit(lambda _w, _c: lb.sensitivity_csv(rep), out_path)
    else:
        emit(lambda width, color: text(lb.sensitivity_table(rep), width=max(width, 100), color=color), out_path)


COMMANDS = [compare, sensitivity]
