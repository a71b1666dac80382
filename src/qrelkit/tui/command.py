"""`qrelkit judge`, registered through the `qrelkit.commands` entry point (the CLI never imports
the TUI, and the TUI never imports the CLI)."""

from __future__ import annotations

from pathlib import Path

import click

from ..models import QUEUE_ORDERS, QueueOrder


@click.command()
@click.option("--assessor", help="Who judges [default: $QRELKIT_ASSESSOR, else the login name].")
@click.option("--stratum", help="Only queries of this stratum.")
@click.option("--query", "query_id", help="Open this query's judging screen directly.")
@click.option(
    "--order",
    type=click.Choice(QUEUE_ORDERS),
    default="impact",
    show_default=True,
    help="Judging order of documents and next queries (see `qrelkit queue`).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random order.")
@click.option("--adjudicate", is_flag=True, help="Settle the pairs whose assessors disagree (most urgent first).")
@click.pass_context
def judge(
    ctx: click.Context,
    assessor: str | None,
    stratum: str | None,
    query_id: str | None,
    order: QueueOrder,
    seed: int,
    adjudicate: bool,
) -> None:
    """Judge documents in a terminal UI: 0-3 grade, s skip, u clear, n/p move, e note, ? keys."""
    from ..workflows.judging import open_session  # the store and textual load only for this command
    from .app import JudgeApp

    db: Path = ctx.obj["db"]
    session = open_session(db, assessor, stratum=stratum, query=query_id, order=order, seed=seed)
    try:
        JudgeApp(session, query=query_id, adjudicate=adjudicate).run()
    finally:
        session.close()
