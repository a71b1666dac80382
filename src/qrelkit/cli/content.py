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


@queries.command("show")
@click.argument("query_id")
@click.pass_context
def queries_show(ctx: click.Context, query_id: str) -> None:
    """Show a query: text, stratum, guidelines, its labels, skips and unlabeled pooled documents."""
    from ..workflows import browsing

    view = browsing.query(open_store(ctx), query_id)
    q = view.query
    say("query ", data(q.id, "bold"), " (", data(q.stratum), "): ", data(q.text))
    if q.description:
        say("guidelines: ", data(q.description))
    labels = ", ".join(f"{d} {g}" for d, g in view.labels) or "none"
    say(f"labels ({len(view.labels)}): ", data(labels))
    if view.skipped:
        say(f"skipped ({len(view.skipped)}): ", data(", ".join(view.skipped)))
    say(f"pooled, unlabeled ({len(view.unlabeled)}): ", data(", ".join(view.unlabeled) or "none"))


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


@docs.command("list")
@click.option("--limit", type=click.IntRange(1, 10**12), help="The first N documents only (by id).")
@click.pass_context
def docs_list(ctx: click.Context, limit: int | None) -> None:
    """List the documents: id, title, the start of the text."""
    from rich.table import Table

    from ..workflows import browsing

    table = Table("document", "title", "text")
    for d in browsing.documents(open_store(ctx), limit):
        table.add_row(data(d.id), data(d.title or ""), data(d.text[:60] + ("…" if len(d.text) > 60 else "")))
    show(table)


@docs.command("show")
@click.argument("doc_id")
@click.pass_context
def docs_show(ctx: click.Context, doc_id: str) -> None:
    """Show a document: title, text, and every query's label of it."""
    from ..workflows import browsing

    view = browsing.document(open_store(ctx), doc_id)
    say("document ", data(doc_id, "bold"))
    if view.document is None:
        say("(no text: judged or pooled by id only; `qrelkit import docs` adds it)")
    else:
        if view.document.title:
            say("title: ", data(view.document.title))
        say(data(view.document.text))
    labels = ", ".join(f"{q} {g}" for q, g in view.labels) or "none"
    say(f"labels ({len(view.labels)}): ", data(labels))


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
