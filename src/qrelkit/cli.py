"""The `qrelkit` command line. Thin: parses options, calls the layers below, prints results.

Errors raised below (`QrelkitError`) become one line on stderr and exit status 2.
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from . import __version__
from .errors import QrelkitError, UsageError
from .formats import beir, jsonl, trec, tsv
from .formats._io import atomic_write
from .models import GradeScale, Query, Stratum
from .storage import Store

F = TypeVar("F", bound=Callable[..., Any])

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class QrelkitGroup(click.Group):
    """A click group that turns `QrelkitError` into a one-line message and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except QrelkitError as exc:
            _print_error(exc)
            ctx.exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            ctx.exit(130)


def _print_error(exc: QrelkitError) -> None:
    from rich.markup import escape

    hint = f" [dim](hint: {escape(exc.hint)})[/dim]" if exc.hint else ""
    err.print(f"[bold red]error:[/bold red] {escape(exc.message)}{hint}")


@click.group(cls=QrelkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default="qrelkit.db",
    envvar="QRELKIT_DB",
    show_default=True,
    show_envvar=True,
    help="The golden-set store (a SQLite file).",
)
@click.version_option(__version__, prog_name="qrelkit")
@click.pass_context
def cli(ctx: click.Context, db: Path) -> None:
    """Golden sets for retrieval evaluation: judge, version and score with coverage."""
    ctx.obj = {"db": db}


def _store(ctx: click.Context, *, create: bool = False) -> Store:
    path: Path = ctx.obj["db"]
    if not create and not path.exists():
        raise UsageError(f"no store at {path}", "create one with `qrelkit init`, or pass --db PATH")
    store = Store.open(path)
    ctx.call_on_close(store.close)
    return store


# -- init / strata ---------------------------------------------------------------------------


@cli.command()
@click.option("--name", default="golden", show_default=True, help="Name of the golden set.")
@click.option(
    "--max-grade",
    type=click.IntRange(1, 100),
    default=3,
    show_default=True,
    help="Highest grade of the scale 0..N (grade 0 = confirmed irrelevant).",
)
@click.option(
    "--threshold",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Lowest grade that binary metrics count as relevant.",
)
@click.pass_context
def init(ctx: click.Context, name: str, max_grade: int, threshold: int) -> None:
    """Create the store (or update its name and grade scale)."""
    if threshold > max_grade:
        raise UsageError(f"--threshold {threshold} is above --max-grade {max_grade}")
    store = _store(ctx, create=True)
    store.configure(name=name, scale=GradeScale.from_max(max_grade, threshold))
    out.print(
        f"store {ctx.obj['db']} ready: golden set [bold]{name}[/bold], grades 0..{max_grade}, "
        f"relevant at >= {threshold}"
    )


@cli.group()
def strata() -> None:
    """Query strata and their traffic weights."""


@strata.command("set")
@click.argument("name")
@click.argument("weight", type=float)
@click.pass_context
def strata_set(ctx: click.Context, name: str, weight: float) -> None:
    """Set the traffic WEIGHT of stratum NAME (weights are renormalised when aggregating)."""
    try:
        stratum = Stratum(name=name, weight=weight)
    except ValueError:
        raise UsageError(
            f"invalid stratum {name!r} with weight {weight}",
            "names have no spaces; weights are finite and >= 0",
        ) from None
    _store(ctx, create=True).set_stratum(stratum)
    out.print(f"stratum {name}: weight {weight:g}")


@strata.command("list")
@click.pass_context
def strata_list(ctx: click.Context) -> None:
    """List strata, their weights and query counts."""
    status = _store(ctx).status()
    total = sum(s.weight or 0 for s in status.strata if s.queries)
    table = Table("stratum", "weight", "share", "queries")
    for s in status.strata:
        share = f"{(s.weight or 0) / total:.1%}" if total and s.queries else "-"
        table.add_row(s.name, "-" if s.weight is None else f"{s.weight:g}", share, str(s.queries))
    out.print(table)


# -- import ----------------------------------------------------------------------------------


@cli.group("import")
def import_() -> None:
    """Import queries, documents, qrels, judgments or a BEIR folder (each import is one transaction)."""


def _is_jsonl(path: Path) -> bool:
    suffixes = [s for s in path.suffixes if s != ".gz"]
    return bool(suffixes) and suffixes[-1] in (".jsonl", ".json", ".ndjson")


@import_.command("queries")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "jsonl", "tsv"]),
    default="auto",
    show_default=True,
    help="auto: .jsonl is JSON Lines, anything else TSV.",
)
@click.option("--create-strata", is_flag=True, help="Create unknown strata with weight 1.")
@click.pass_context
def import_queries(ctx: click.Context, file: Path, fmt: str, create_strata: bool) -> None:
    """Import queries from JSONL (id, text, stratum, description) or TSV (id, text[, stratum])."""
    use_jsonl = fmt == "jsonl" or (fmt == "auto" and _is_jsonl(file))
    items: Iterator[tuple[int, Query]] = (
        jsonl.read_models(file, Query, 'lines are {"id": ..., "text": ..., "stratum": ...}')
        if use_jsonl
        else tsv.read_queries(file)
    )
    n = _store(ctx, create=True).import_queries(items, source=str(file), create_strata=create_strata)
    out.print(f"imported {n} queries from {file}")


@import_.command("docs")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_docs(ctx: click.Context, file: Path) -> None:
    """Import documents from JSONL (id, title, text)."""
    from .models import Document

    docs = (
        d for _, d in jsonl.read_models(file, Document, 'lines are {"id": ..., "title": ..., "text": ...}')
    )
    n = _store(ctx, create=True).import_documents(docs)
    out.print(f"imported {n} documents from {file}")


def default_assessor() -> str:
    env = os.environ.get("QRELKIT_ASSESSOR")
    if env:
        return env
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


@import_.command("qrels")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--assessor", help="Who made these judgments (default: qrels:FILENAME).")
@click.pass_context
def import_qrels(ctx: click.Context, file: Path, assessor: str | None) -> None:
    """Import TREC qrels as judgment events; negative grades go to the pool as unjudged."""
    store = _store(ctx)
    labels, pooled = store.import_qrels(
        trec.read_qrels(file), source=str(file), assessor=assessor or f"qrels:{file.name}"
    )
    out.print(f"imported {labels} labels and {pooled} pooled-unjudged pairs from {file}")


@import_.command("judgments")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_judgments(ctx: click.Context, file: Path) -> None:
    """Import a judgments JSONL event log (as `export judgments` writes it)."""
    from .models import Judgment

    n = _store(ctx).import_judgments(jsonl.read_models(file, Judgment), source=str(file))
    out.print(f"imported {n} judgment events from {file}")


@import_.command("beir")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to import.")
@click.option("--stratum", default="default", show_default=True, help="Stratum for every query.")
@click.option("--assessor", default="beir", show_default=True)
@click.pass_context
def import_beir(ctx: click.Context, folder: Path, split: str, stratum: str, assessor: str) -> None:
    """Import a BEIR folder: corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv, in one transaction."""
    store = _store(ctx, create=True)
    qrels_path = beir.split_path(folder, split)
    queries_path = str(folder / "queries.jsonl")
    with store.transaction():
        nd = store.import_documents(beir.read_corpus(folder))
        nq = store.import_queries(
            ((0, q) for q in beir.read_queries(folder, stratum)), source=queries_path, create_strata=True
        )
        nl, npool = store.import_qrels(beir.read_qrels(qrels_path), source=str(qrels_path), assessor=assessor)
    out.print(f"imported {nd} documents, {nq} queries, {nl} labels ({npool} pooled) from {folder}")


# -- status / export -------------------------------------------------------------------------


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_context
def status(ctx: click.Context, fmt: str) -> None:
    """Counts of queries, documents, labels per grade, skipped and unlabeled pool, per stratum."""
    store = _store(ctx)
    st = store.status()
    if fmt == "json":
        click.echo(st.model_dump_json(indent=2))
        return
    scale = store.scale
    grades = [str(level.grade) for level in scale.levels]
    out.print(
        f"[bold]{st.name}[/bold]: {st.queries} queries, {st.documents} documents, "
        f"{st.judgment_events} judgment events"
    )
    caption = "grades: " + " · ".join(f"{g} {scale.name_of(int(g))}" for g in grades)
    table = Table("stratum", "weight", "queries", *grades, "skipped", "unlabeled", caption=caption)
    for s in st.strata:
        table.add_row(
            s.name,
            "-" if s.weight is None else f"{s.weight:g}",
            str(s.queries),
            *[str(s.labels.get(g, 0)) for g in grades],
            str(s.skipped),
            str(s.unlabeled_pool),
        )
    table.add_row(
        "[bold]all[/bold]",
        "",
        str(st.queries),
        *[str(st.labels.get(g, 0)) for g in grades],
        str(st.skipped),
        str(st.unlabeled_pool),
    )
    out.print(table)


@cli.group()
def export() -> None:
    """Export labels or the judgment log (written to a temporary file, then renamed)."""


@export.command("qrels")
@click.option("--format", "fmt", type=click.Choice(["trec", "jsonl"]), default="trec", show_default=True)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here instead of standard output.",
)
@click.pass_context
def export_qrels(ctx: click.Context, fmt: str, out_path: Path | None) -> None:
    """Current labels only: unlabeled and skipped pairs never appear (grade 0 does)."""
    labels = _store(ctx).labels()

    def write(stream: Any) -> int:
        if fmt == "trec":
            return trec.write_qrels(labels, stream)
        return jsonl.write_models(labels, stream)

    if out_path is None:
        write(sys.stdout)
        return
    with atomic_write(out_path) as stream:
        n = write(stream)
    err.print(f"wrote {n} labels to {out_path}")


@export.command("judgments")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def export_judgments(ctx: click.Context, out_path: Path | None) -> None:
    """The full append-only event log as JSONL."""
    events = _store(ctx).events()
    if out_path is None:
        jsonl.write_models(events, sys.stdout)
        return
    with atomic_write(out_path) as stream:
        n = jsonl.write_models(events, stream)
    err.print(f"wrote {n} events to {out_path}")


# -- demo ------------------------------------------------------------------------------------


def bundled_golden(name: str = "pydocs") -> Path:
    """The golden set shipped with qrelkit (inside the wheel, or in the source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_bundled" / name, here.parents[1] / "goldensets" / name):
        if (candidate / "golden.json").exists():
            return candidate
    raise UsageError(
        f"the bundled golden set {name!r} is missing from this installation", "reinstall qrelkit"
    )


@cli.command()
@click.option(
    "--keep",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Leave the demo store here (then: qrelkit --db PATH judge).",
)
def demo(keep: Path | None) -> None:
    """Load the bundled `pydocs` golden set into a scratch store and report on it."""
    folder = bundled_golden()
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or Path(tmp) / "demo.db"
        if path.exists():
            raise UsageError(f"{path} already exists", "choose a new path for --keep")
        store = Store.open(path)
        try:
            store.load_golden(folder)
            _demo_report(store, folder)
        finally:
            store.close()
    if keep:
        out.print(f"\nthe demo store is at {keep}: try `qrelkit --db {keep} status`")


def _demo_report(store: Store, folder: Path) -> None:
    st = store.status()
    out.print(
        f"[bold]{st.name}[/bold] ({folder}): {st.queries} queries in {len(st.strata)} strata, "
        f"{st.documents} passages, {sum(st.labels.values())} labels, {st.skipped} skipped, "
        f"{st.unlabeled_pool} pooled but unlabeled"
    )


def main() -> None:
    cli(prog_name="qrelkit")
