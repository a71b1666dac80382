"""queries, docs, removals: taking queries and documents out of the golden set, and the record."""

from __future__ import annotations

import json

import click

from ..models import Removal
from ..render.styles import data
from ..render.tables import removals_table
from ..workflows import removing
from ._common import open_store, say, show

WITH_LABELS = click.option(
    "--with-labels",
    is_flag=True,
    help="Also remove one that holds labels: its labels are cleared (recorded in the log; frozen versions keep them).",
)


def _said(removals: list[Removal]) -> None:
    for r in removals:
        cleared = f", {r.judged_pairs} labeled pair(s) cleared" if r.judged_pairs else ""
        pooled = f", {r.pooled} pooled pair(s) dropped" if r.pooled else ""
        say(f"removed {r.kind} ", data(r.name), cleared + pooled)


@click.group()
def queries() -> None:
    """The golden set's queries (import them with `qrelkit import queries`)."""


@queries.command("list")
@click.option("--stratum", help="Only this stratum's queries.")
@click.pass_context
def queries_list(ctx: click.Context, stratum: str | None) -> None:
    """List the queries: id, stratum, text."""
    from rich.table import Table

    table = Table("query", "stratum", "text")
    for q in removing.queries(open_store(ctx)):
        if stratum is None or q.stratum == stratum:
            table.add_row(data(q.id), data(q.stratum), data(q.text))
    show(table)


@queries.command("remove")
@click.argument("query_ids", nargs=-1)
@click.option("--stratum", help="Remove every query of this stratum.")
@WITH_LABELS
@click.pass_context
def queries_remove(ctx: click.Context, query_ids: tuple[str, ...], stratum: str | None, with_labels: bool) -> None:
    """Remove QUERY_IDS (or every query of --stratum) from the golden set, recorded. A query with
    labels is refused unless --with-labels; nothing is removed if any one is refused."""
    store = open_store(ctx)
    chosen = list(query_ids) + (removing.queries_of_stratum(store, stratum) if stratum else [])
    if not chosen:
        raise click.UsageError(
            "name queries to remove, or --stratum S" if not stratum else f"no queries in stratum {stratum}"
        )
    _said(removing.remove_queries(store, chosen, with_labels=with_labels))


@click.group()
def docs() -> None:
    """The documents (import them with `qrelkit import docs`)."""


@docs.command("remove")
@click.argument("doc_ids", nargs=-1, required=True)
@WITH_LABELS
@click.pass_context
def docs_remove(ctx: click.Context, doc_ids: tuple[str, ...], with_labels: bool) -> None:
    """Remove DOC_IDS (text, pooled pairs), recorded. A document with labels is refused unless
    --with-labels; nothing is removed if any one is refused."""
    _said(removing.remove_documents(open_store(ctx), list(doc_ids), with_labels=with_labels))


@click.command()
@click.option("--format", "fmt", type=click.Choice(["table", "jsonl"]), default="table", show_default=True)
@click.pass_context
def removals(ctx: click.Context, fmt: str) -> None:
    """What `queries|docs|strata|profiles remove` took out: when, by whom, the removed rows."""
    rows = removing.removals(open_store(ctx))
    if fmt == "jsonl":
        for row in rows:
            click.echo(json.dumps({**row, "body": json.loads(row["body"])}, ensure_ascii=False))
    else:
        show(removals_table(rows))


COMMANDS = [queries, docs, removals]
