"""import queries / docs / qrels / judgments / beir / version (and hub, from `hub`): each import is one
transaction."""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from ..formats.paths import display
from ..models import DEFAULT_STRATUM
from ..render.styles import data
from ..workflows import importing, versions
from ._common import open_store, say
from .hub import import_hub
from .label_studio import import_label_studio


def _source(file: Path) -> str:
    """How a message names the file read (`-`: `<stdin>`, as the errors name it)."""
    return display(file)


NAMED = 3
"""Queries a summary names of those whose lines `--skip-unknown` skipped (the first ones met)."""

skip_unknown_option = click.option(
    "--skip-unknown",
    is_flag=True,
    help="Skip (and count) the lines of queries not in the golden set; without it such a file is refused.",
)


def _skipped(unknown: importing.UnknownQueries) -> tuple[str | Text, ...]:
    """`; skipped 12 lines for 3 queries not in the golden set: q9, q10, …` (the ids as plain text)."""
    if not unknown.lines:
        return ()
    ids = list(unknown.queries)
    more = ", …" if len(ids) > NAMED else ""
    return f"; skipped {unknown.counted()} not in the golden set: ", data(", ".join(ids[:NAMED])), more


LAZY = {"ir-datasets": "irds"}
"""Subcommand -> the module of this package that defines it (in its `IMPORT_COMMANDS`), imported
only when the subcommand runs or `import --help` lists it (`tests/test_cli.py` holds this table
equal to the modules)."""


class ImportGroup(click.Group):
    """The `import` group: its own commands, and those of `LAZY`, loaded when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY and cmd_name not in self.commands:
            from importlib import import_module

            module = import_module(f".{LAZY[cmd_name]}", __package__)
            for command in module.IMPORT_COMMANDS:
                self.add_command(command)
        return super().get_command(ctx, cmd_name)


@click.group("import", cls=ImportGroup)
def import_() -> None:
    """Import queries, documents, qrels, judgments, a BEIR folder, a Hugging Face dataset folder, an
    ir_datasets dataset, a Label Studio export or a frozen version (each import is one transaction)."""


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
@skip_unknown_option
@click.pass_context
def import_qrels(ctx: click.Context, file: Path, assessor: str, skip_unknown: bool) -> None:
    """Import qrels as judgment events; negative grades go to the pool as unjudged.

    FILE is TREC qrels (QUERY_ID ITERATION DOC_ID GRADE), a BEIR-style TSV with a header
    (query-id corpus-id score), JSON Lines as `export qrels --format jsonl` writes them, or a
    JSON dict ({"q1": {"d1": 2}}); `-` reads standard input. Every query must be in the golden
    set (documents need not be); a file naming others is refused, counting them, unless
    --skip-unknown."""
    unknown = importing.unknown_queries(skip_unknown)
    labels, pooled = importing.import_qrels(open_store(ctx), file, assessor=assessor, unknown=unknown)
    say(f"imported {labels} labels and {pooled} pooled-unjudged pairs from ", data(_source(file)), *_skipped(unknown))


@import_.command("judgments")
@click.argument("file", type=click.Path(path_type=Path))
@skip_unknown_option
@click.pass_context
def import_judgments(ctx: click.Context, file: Path, skip_unknown: bool) -> None:
    """Import a judgments JSONL event log (as `export judgments` writes it).

    \b
    Each line is one JSON object with these fields:
      query_id   the query (required; it must be in the golden set, or the line is
                 skipped with --skip-unknown)
      doc_id     the document (required)
      state      graded | skipped | retracted | cleared | adjudicated | noted (required)
      grade      an integer on the store's scale (not 2.0, not true): required for graded
                 and adjudicated, absent otherwise
      assessor   who made the event (required; a name is one word, as ids are)
      timestamp  when: an ISO 8601 date and time with its time zone, to the second
                 (2026-01-31T12:00:00Z, 2026-01-31T12:00:00.5+01:00; default: now)
      note       free text (required for noted)
      seconds    time spent on the document before the event (a finite number >= 0)
      evidence   the passage the assessor marked as the evidence for the vote (graded and
                 skipped events only)
    A bad line is refused with its line number and field; nothing is imported then. An event
    identical to one already in the log (every field the same, the timestamp too) or to one
    earlier in the file is skipped and counted: importing a file again adds nothing (a line
    without a timestamp is timed at its import, so it is never a repeat)."""
    unknown = importing.unknown_queries(skip_unknown)
    done = importing.import_judgments(open_store(ctx), file, unknown=unknown)
    skipped = [
        f"{n} events {where}"
        for n, where in ((done.in_log, "already in the log"), (done.in_file, "repeated in the file"))
        if n
    ]
    tail = f"; {', '.join(skipped)} (skipped)" if skipped else ""
    say(f"imported {done.written} judgment events from ", data(_source(file)), tail, *_skipped(unknown))


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
import_.add_command(import_label_studio)

COMMANDS = [import_]
