"""import queries / docs / qrels / judgments / beir / version (and hub, from `hub`): each import is one
transaction."""

from __future__ import annotations

from pathlib import Path

import click

from ..models import DEFAULT_STRATUM
from ..render.styles import data
from ..workflows import importing, versions
from ._common import open_store, say
from .hub import import_hub


def _source(file: Path) -> str:
    """How a message names the file read (`-`: standard input)."""
    return "standard input" if str(file) == "-" else str(file)


@click.group("import")
def import_() -> None:
    """Import queries, documents, qrels, judgments, a BEIR folder, a Hugging Face dataset folder or a
    frozen version (each import is one transaction)."""


@import_.command("queries")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "jsonl", "tsv"]),
    default="auto",
    show_default=True,
    help="auto: .jsonl / .ndjson (or a first line that is a JSON object with an id) is JSON Lines, anything else TSV.",
)
@click.option("--create-strata", is_flag=True, help="Create unknown strata with weight 1.")
@click.option("--stratum", help="The stratum of every query whose line gives none.")
@click.pass_context
def import_queries(
    ctx: click.Context, file: Path, fmt: importing.QueryFormat, create_strata: bool, stratum: str | None
) -> None:
    """Import queries from JSONL (id, text, stratum, description) or TSV (id, text[, stratum]).
    A query already in the store keeps its stratum and description when its line gives none; an
    id given on two lines of the file is refused."""
    store = open_store(ctx, create=True)
    n = importing.import_queries(store, file, fmt=fmt, create_strata=create_strata, stratum=stratum)
    say(f"imported {n} queries from ", data(_source(file)))


@import_.command("docs")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_docs(ctx: click.Context, file: Path) -> None:
    """Import documents from JSONL: id (or _id), title, text. Any other field (url, a metadata
    object, ...) is kept as the document's metadata, through the store and frozen versions."""
    n = importing.import_documents(open_store(ctx, create=True), file)
    say(f"imported {n} documents from ", data(_source(file)))


@import_.command("qrels")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--assessor",
    default="qrels",
    show_default=True,
    help="Who made these judgments (one assessor: a later file's grade replaces an earlier one's).",
)
@click.pass_context
def import_qrels(ctx: click.Context, file: Path, assessor: str) -> None:
    """Import qrels as judgment events; negative grades go to the pool as unjudged.

    FILE is TREC qrels (QUERY_ID ITERATION DOC_ID GRADE), a BEIR-style TSV with a header
    (query-id corpus-id score), JSON Lines as `export qrels --format jsonl` writes them, or a
    JSON dict ({"q1": {"d1": 2}}); `-` reads standard input."""
    labels, pooled = importing.import_qrels(open_store(ctx), file, assessor=assessor)
    say(f"imported {labels} labels and {pooled} pooled-unjudged pairs from ", data(_source(file)))


@import_.command("judgments")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_judgments(ctx: click.Context, file: Path) -> None:
    """Import a judgments JSONL event log (as `export judgments` writes it).

    \b
    Each line is one JSON object with these fields:
      query_id   the query (required; it must be in the store)
      doc_id     the document (required)
      state      graded | skipped | retracted | cleared | adjudicated | noted (required)
      grade      an integer on the store's scale (not 2.0, not true): required for graded
                 and adjudicated, absent otherwise
      assessor   who made the event (required; a name is one word, as ids are)
      timestamp  when: an ISO 8601 date and time with its time zone, to the second
                 (2026-01-31T12:00:00Z, 2026-01-31T12:00:00.5+01:00; default: now)
      note       free text (required for noted)
      seconds    time spent on the document before the event (a finite number >= 0)
    A bad line is refused with its line number and field; nothing is imported then. An event
    identical to one already in the log (every field the same, the timestamp too) or to one
    earlier in the file is skipped and counted: importing a file again adds nothing (a line
    without a timestamp is timed at its import, so it is never a repeat)."""
    done = importing.import_judgments(open_store(ctx), file)
    skipped = [
        f"{n} events {where}"
        for n, where in ((done.in_log, "already in the log"), (done.in_file, "repeated in the file"))
        if n
    ]
    tail = f"; {', '.join(skipped)} (skipped)" if skipped else ""
    say(f"imported {done.written} judgment events from ", data(_source(file)), tail)


@import_.command("beir")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to import.")
@click.option("--stratum", default=DEFAULT_STRATUM, show_default=True, help="Stratum for every query.")
@click.option("--assessor", default="beir", show_default=True)
@click.pass_context
def import_beir(ctx: click.Context, folder: Path, split: str, stratum: str, assessor: str) -> None:
    """Import a BEIR folder: corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv, in one transaction."""
    r = importing.import_beir(open_store(ctx, create=True), folder, split=split, stratum=stratum, assessor=assessor)
    say(
        f"imported {r.documents} documents, {r.queries} queries, {r.labels} labels ({r.pooled} pooled) from ",
        data(folder),
    )


@import_.command("version")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--verify/--no-verify", default=True, show_default=True, help="Refuse an altered version.")
@click.pass_context
def import_version(ctx: click.Context, folder: Path, verify: bool) -> None:
    """Load a frozen version into the store (one transaction)."""
    m, already = versions.load_version_again(open_store(ctx, create=True), folder, check=verify)
    if already:
        say("the store already holds ", data(f"{m.name} {m.version} ({m.content_hash[:19]})"), ": nothing to do")
        return
    say("imported ", data(f"{m.name} {m.version} ({m.content_hash[:19]})"), " from ", data(folder))


import_.add_command(import_hub)

COMMANDS = [import_]
