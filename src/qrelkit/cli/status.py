"""status (with --runs: run coverage), agreement, flags."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import UsageError
from ..models import MIN_AGREEMENT_PAIRS
from ..render.styles import data
from ..render.tables import agreement_table, flags_table, machine_table, run_coverage_tables, status_table
from ..workflows import assess, assessors, pooling, setup
from ..workflows import flags as flags_workflow
from ._common import err, format_option, open_store, say, show, stratum_option


@click.command()
@click.argument("run_files", nargs=-1, type=click.Path(path_type=Path), metavar="[RUN]...")
@click.option("--runs", "with_runs", is_flag=True, help="Show how much of the RUNs' top k is labeled.")
@click.option(
    "--depth", "-k", type=click.IntRange(1, 1_000_000_000), default=10, show_default=True, help="k for --runs."
)
@click.option("--holes", type=click.IntRange(0), default=10, show_default=True, help="Largest holes listed per run.")
@click.option("--per-query", is_flag=True, help="With --runs: every query's coverage in the table.")
@format_option("table", "json")
@click.pass_context
def status(
    ctx: click.Context,
    run_files: tuple[Path, ...],
    with_runs: bool,
    depth: int,
    holes: int,
    per_query: bool,
    fmt: str,
) -> None:
    """Counts of queries, documents, labels per grade, skipped and unlabeled pool, per stratum.

    With `--runs RUN...`: the judged coverage of each run's top k per stratum (and per query),
    and the largest holes: the queries with the most unlabeled documents in the top k.
    """
    store = open_store(ctx)
    if with_runs or run_files:
        if not run_files:
            raise UsageError("--runs needs run files", "qrelkit status --runs RUN... [-k 10]")
        reports = pooling.run_coverage(store, run_files, depth)
        if fmt == "json":
            click.echo("[" + ",\n".join(r.model_dump_json(indent=2) for r in reports) + "]")
            return
        show(run_coverage_tables(reports, depth, holes=holes, per_query=per_query))
        return
    given = [f"--{name.replace('_', '-')}" for name in ("depth", "holes", "per_query") if _given(ctx, name)]
    if given:
        raise UsageError(
            f"{', '.join(given)}: for run coverage, given without run files",
            "qrelkit status RUN... [-k 10] [--per-query]",
        )
    view = setup.overview(store)
    machine = assess.machine_counts(store)
    if fmt == "json":
        if not machine:  # as before machine labels existed
            click.echo(view.status.model_dump_json(indent=2))
            return
        body = {**view.status.model_dump(mode="json"), "machine": [c.model_dump(mode="json") for c in machine]}
        click.echo(json.dumps(body, indent=2, ensure_ascii=False))
        return
    show(status_table(view.status, view.scale))
    if machine:
        show(machine_table(machine))
    raised = flags_workflow.flag_count(store)
    if raised:
        say(f"{raised} flag(s) from assessors on queries that cannot be judged as they stand: `qrelkit flags`")


@click.command()
@stratum_option("Only this stratum's pairs.")
@format_option("table", "json")
@click.pass_context
def agreement(ctx: click.Context, stratum: str | None, fmt: str) -> None:
    """Agreement between assessors over the pairs two or more of them graded, overall and per
    stratum: raw agreement, Krippendorff's alpha (ordinal) and Cohen's kappa (linear weights) per
    assessor pair. Skip / unsure votes are left out and counted."""
    rep = assessors.agreement(open_store(ctx), stratum)
    if fmt == "json":
        click.echo(rep.model_dump_json(indent=2))
        return
    show(agreement_table(rep))
    if rep.overall.n_pairs == 0:
        err.print("no pair has two graded votes yet: `qrelkit assign --overlap 2` makes some")
    elif rep.overall.n_pairs < MIN_AGREEMENT_PAIRS:
        err.print(
            f"too few pairs for alpha and kappa ({rep.overall.n_pairs}; at least {MIN_AGREEMENT_PAIRS} "
            "with two graded votes): "
            "`qrelkit assign --overlap 2` makes more"
        )


@click.command()
@click.option("--query", "query_id", help="Only this query's flags.")
@format_option("table", "json")
@click.pass_context
def flags(ctx: click.Context, query_id: str | None, fmt: str) -> None:
    """The flags assessors raised on queries (`!` on the judging screen): the query, the document
    on screen, who, when (UTC) and why, oldest first. A flag is no vote: it changes no label."""
    found = flags_workflow.flags(open_store(ctx), query_id)
    if fmt == "json":
        click.echo(json.dumps([f.model_dump(mode="json") for f in found], indent=2))
        return
    if not found:
        say("no flags", *((" on ", data(query_id)) if query_id else ()))
        return
    show(flags_table(found))


COMMANDS = [status, agreement, flags]


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the option was on the command line (not its default)."""
    return ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
