"""calibrate: a machine assessor's labels measured against the human ones."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from ..formats.trec import RunFormat
from ..models import TILES
from ..render.calibration import calibration_table
from ..workflows import calibration as workflow
from ._common import format_option, open_store, run_format_option, seed_option, show

HELP = """How far a machine assessor's labels can be trusted, measured against the humans'.

On the pairs both graded (the resolved human label; the machine's latest row, when it parsed),
overall and per stratum: Cohen's kappa with linear and quadratic weights, Krippendorff's alpha
(ordinal), the share given the same grade, how often the machine rates above or below the
humans, the confusion matrix (human rows, machine columns) and each human grade's row. Human
skips, machine replies that did not parse, and pairs one side alone labeled are counted apart,
never as a grade. Self-consistency: over each pair's latest --samples parsed rows (assess
--refresh asks again), the share of pairs asked twice or more whose grades differ.

\b
With --runs RUN...: each run scored with the human labels and with the machine's, over the
queries both score (--metric); Kendall's tau-b between the two rankings, overall and among
the top --top runs by human score; of the run pairs compare's paired randomization test
finds different at alpha 0.05 under human labels, the share still different (the same way
round) under machine labels; each run's inflation (machine - human), "looks favoured" when
it stands more than 2 standard errors above the runs' mean inflation.

The lexical judge is a weak baseline: expect low agreement. Nothing here changes any label.
"""


@click.command(help=HELP)
@click.argument("run_files", nargs=-1, type=click.Path(path_type=Path), metavar="[RUN]...")
@click.option("--machine-assessor", metavar="NAME", help="Whose labels (lexical, llm:MODEL) [default: the only one].")
@click.option("--runs", "with_runs", is_flag=True, help="Score the RUNs under both label sets; compare the rankings.")
@click.option("--metric", default=TILES[0], show_default=True, help="The measure the runs are ranked by.")
@click.option("--top", "-k", type=click.IntRange(2), default=5, show_default=True, help="Tau among the top K runs.")
@click.option(
    "--samples", type=click.IntRange(2), default=5, show_default=True, help="Latest rows per pair for self-consistency."
)
@click.option("--resamples", type=click.IntRange(1), default=10_000, show_default=True, help="Of the paired test.")
@seed_option("Seed of the paired test.")
@run_format_option
@format_option("table", "json")
@click.pass_context
def calibrate(
    ctx: click.Context,
    run_files: tuple[Path, ...],
    machine_assessor: str | None,
    with_runs: bool,
    metric: str,
    top: int,
    samples: int,
    resamples: int,
    seed: int,
    run_format: RunFormat,
    fmt: str,
) -> None:
    if run_files and not with_runs:
        raise UsageError("run files given without --runs", "write qrelkit calibrate --runs RUN...")
    if with_runs and not run_files:
        raise UsageError("--runs needs one or more run files", "write qrelkit calibrate --runs a.run b.run")
    opts = workflow.CalibrateOptions(
        machine_assessor=machine_assessor, runs=run_files, metric=metric, top=top, samples=samples,
        resamples=resamples, seed=seed, run_format=run_format,
    )  # fmt: skip
    report = workflow.calibrate(open_store(ctx), opts)
    if fmt == "json":
        click.echo(report.model_dump_json(indent=2))
        return
    show(calibration_table(report))


COMMANDS = [calibrate]
