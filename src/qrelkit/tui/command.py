"""`qrelkit judge`, registered through the `qrelkit.commands` entry point (the CLI never imports
the TUI, and the TUI never imports the CLI)."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

import click

from ..errors import StoreError, UsageError
from ..models import QUEUE_ORDERS, default_assessor
from ..storage import Store


def _login() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return None


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
    order: str,
    seed: int,
    adjudicate: bool,
) -> None:
    """Judge documents in a terminal UI: 0-3 grade, s skip, u clear, n/p move, e note, ? keys."""
    from .app import JudgeApp  # textual loads only for this command

    db: Path = ctx.obj["db"]
    if not db.exists():
        raise UsageError(f"no store at {db}", "create one with `qrelkit init`, or `qrelkit demo --keep PATH`")
    store = Store.open(db)
    try:
        if query_id is not None and store.query(query_id) is None:
            raise StoreError(f"query {query_id!r} is not in the golden set", "see `qrelkit status`")
        store.check_stratum(stratum)
        who = assessor or default_assessor(dict(os.environ), _login())
        JudgeApp(store, who, stratum=stratum, query=query_id, order=order, seed=seed, adjudicate=adjudicate).run()
    finally:
        store.close()
