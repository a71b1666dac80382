"""The `qrelkit` command line. Thin: parses options, calls the layers below, prints results.

Errors raised below (`QrelkitError`) become one line on stderr and exit status 2.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import __version__, versioning
from .errors import InputError, QrelkitError, UsageError
from .formats import beir, jsonl, trec, tsv
from .formats._io import atomic_write, read_blocks, read_text
from .models import (
    DEFAULT_STRATUM,
    QUEUE_ORDERS,
    Comparison,
    FileFingerprint,
    Fingerprint,
    GoldenFingerprint,
    GoldenSetInfo,
    GradeScale,
    Query,
    ScoreReport,
    ScoringProfile,
    Stratum,
    Summary,
)
from .resolution import POLICIES
from .scoring.measures import DEFAULT_METRICS

if TYPE_CHECKING:
    from .scoring import Columns
    from .scoring.impact import RunLists
    from .storage import Store

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class QrelkitGroup(click.Group):
    """A click group that turns `QrelkitError` into a one-line message and exit status 2, and
    finds commands that other parts of qrelkit register under the `qrelkit.commands` entry point
    (the terminal UI's `judge`), loading them only when asked for."""

    def _plugins(self) -> dict[str, Any]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group="qrelkit.commands")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or ctx.parent is not None:
            return found
        plugin = self._plugins().get(cmd_name)
        return plugin.load() if plugin is not None else None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with _progress_bar():
                return super().invoke(ctx)
        except QrelkitError as exc:
            _print_error(exc)
            ctx.exit(2)
        except OSError as exc:  # a file system refusal the layers below did not name themselves
            where = f"{exc.filename}: " if exc.filename else ""
            _print_error(QrelkitError(f"{where}{exc.strerror or exc}", "check the path and its permissions"))
            ctx.exit(2)
        except MemoryError:
            _print_error(QrelkitError("out of memory", "the input is larger than this machine can hold; split it"))
            ctx.exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            ctx.exit(130)


@contextlib.contextmanager
def _progress_bar(delay: float = 1.0) -> Iterator[None]:
    """Draw a bar on stderr (a terminal only) for whatever the layers below report, once the
    command has run for `delay` seconds: reading a large file, computing measures."""
    if not err.is_terminal:
        yield
        return
    from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

    from . import progress

    start = time.monotonic()
    bar: Progress | None = None
    tasks: dict[str, TaskID] = {}

    def update(task: str, done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            if time.monotonic() - start < delay:
                return
            bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            )
            bar.start()
        if task not in tasks:
            tasks[task] = bar.add_task(task, total=total)
        bar.update(tasks[task], completed=done, total=total)

    try:
        with progress.reporting(update):
            yield
    finally:
        if bar is not None:
            bar.stop()


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
    from .storage import Store  # sqlite_utils loads only for commands that use the store

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
@click.option(
    "--label-policy",
    type=click.Choice(POLICIES),
    default="median",
    show_default=True,
    help="How disagreeing assessors resolve without adjudication.",
)
@click.pass_context
def init(ctx: click.Context, name: str, max_grade: int, threshold: int, label_policy: str) -> None:
    """Create the store (or update its name, grade scale and label policy)."""
    if threshold > max_grade:
        raise UsageError(f"--threshold {threshold} is above --max-grade {max_grade}")
    store = _store(ctx, create=True)
    store.configure(name=name, scale=GradeScale.from_max(max_grade, threshold), label_policy=label_policy)
    out.print(
        f"store {ctx.obj['db']} ready: golden set [bold]{name}[/bold], grades 0..{max_grade}, "
        f"relevant at >= {threshold}, disagreements resolve by {label_policy}"
    )


@cli.command()
@click.argument("set_to", required=False, type=click.Choice(POLICIES), metavar="[median|latest]")
@click.pass_context
def policy(ctx: click.Context, set_to: str | None) -> None:
    """Show or set how disagreeing assessors' grades resolve when no one adjudicated.

    \b
    median  the lower median of the assessors' latest grades (default)
    latest  the most recent grade
    An adjudicated grade (`judge --adjudicate`) always wins; agreeing grades need no policy.
    The policy is part of the golden set: frozen versions record it in manifest.json."""
    store = _store(ctx)
    if set_to is not None:
        store.configure(label_policy=set_to)
    out.print(f"label policy: {store.label_policy}")


@cli.command()
@click.option("--overlap", type=click.IntRange(2), required=True, help="Assessors per sampled pair.")
@click.option("--assessors", help="Comma-separated names [default: everyone who judged in this store].")
@click.option("--pairs", "n_pairs", type=click.IntRange(1), default=50, show_default=True, help="Pairs to sample.")
@click.option("--stratum", help="Sample only this stratum's pairs.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.pass_context
def assign(ctx: click.Context, overlap: int, assessors: str, n_pairs: int, stratum: str | None, seed: int) -> None:
    """Have OVERLAP assessors judge the same pairs, for a seeded random sample of the unlabeled pool.

    Each sampled pair goes to OVERLAP of the assessors, in rotation so that the work is even.
    `qrelkit judge` shows every assessor their own assignments first, and hides the other
    assessors' grades on those pairs until they have judged them (blind). `qrelkit agreement`
    then measures how far they agree."""
    import random

    store = _store(ctx)
    if assessors is None:
        names = store.assessors()
        if len(names) < overlap:
            raise UsageError(
                f"--overlap {overlap} needs {overlap} assessors; {len(names)} judged in this store so far",
                "name them: --assessors ann,bob",
            )
    else:
        names = list(dict.fromkeys(a.strip() for a in assessors.split(",") if a.strip()))
    if len(names) < overlap:
        raise UsageError(f"--overlap {overlap} needs at least {overlap} assessors, got {len(names)}")
    store.check_stratum(stratum)
    stratum_of = {q.id: q.stratum for q in store.queries()}
    pool = [
        (e.query_id, e.doc_id)
        for e in store.unlabeled_pool()
        if stratum is None or stratum_of.get(e.query_id) == stratum
    ]
    if not pool:
        raise UsageError("the pool has no unlabeled pair to assign", "pool runs first: `qrelkit pool RUN --depth K`")
    sample = sorted(random.Random(seed).sample(pool, min(n_pairs, len(pool))))
    rows = [(q, d, names[(i + j) % len(names)]) for i, (q, d) in enumerate(sample) for j in range(overlap)]
    added = store.assign(rows)
    per = {n: sum(1 for *_, a in rows if a == n) for n in names}
    out.print(
        f"assigned {len(sample)} pairs to {overlap} assessors each ({added} new assignments): "
        + ", ".join(f"{n} {k}" for n, k in per.items())
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


@cli.group()
def profiles() -> None:
    """Scoring profiles: a consumer's metrics and strata (used by `score --profile`)."""


@profiles.command("set")
@click.argument("name")
@click.option("--metrics", required=True, help="Comma-separated measures, e.g. RR,Success@1.")
@click.option("--strata", help="Comma-separated strata (default: all).")
@click.pass_context
def profiles_set(ctx: click.Context, name: str, metrics: str, strata: str | None) -> None:
    """Create or replace profile NAME."""
    from .scoring.measures import parse_measures

    measures = [m.spelled for m in parse_measures(metrics)]
    chosen = [s.strip() for s in strata.split(",") if s.strip()] if strata else None
    store = _store(ctx)
    known = {s.name for s in store.strata()}
    unknown = sorted(set(chosen or []) - known)
    if unknown:
        raise UsageError(f"unknown strata: {', '.join(unknown)}", f"known strata: {', '.join(sorted(known))}")
    try:
        profile = ScoringProfile(name=name, metrics=measures, strata=chosen)
    except ValueError:
        raise UsageError(f"invalid profile name {name!r}", "names have no spaces") from None
    store.set_profile(profile)
    out.print(f"profile {name}: {', '.join(measures)} over {', '.join(chosen) if chosen else 'all strata'}")


@profiles.command("list")
@click.pass_context
def profiles_list(ctx: click.Context) -> None:
    """List the scoring profiles."""
    table = Table("profile", "metrics", "strata")
    for p in _store(ctx).profiles():
        table.add_row(p.name, ", ".join(p.metrics), ", ".join(p.strata) if p.strata else "all")
    out.print(table)


# -- import ----------------------------------------------------------------------------------


@cli.group("import")
def import_() -> None:
    """Import queries, documents, qrels, judgments or a BEIR folder (each import is one transaction)."""


def _refuse_empty(n: int, path: Path, what: str) -> None:
    """An input with nothing in it is an error (usually the wrong file); nothing was written."""
    if n == 0:
        raise InputError(f"no {what} in the file", "is this the right file?", path=str(path))


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
    _refuse_empty(n, file, "queries")
    out.print(f"imported {n} queries from {file}")


@import_.command("docs")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_docs(ctx: click.Context, file: Path) -> None:
    """Import documents from JSONL (id, title, text)."""
    from .models import Document

    docs = (d for _, d in jsonl.read_models(file, Document, 'lines are {"id": ..., "title": ..., "text": ...}'))
    n = _store(ctx, create=True).import_documents(docs)
    _refuse_empty(n, file, "documents")
    out.print(f"imported {n} documents from {file}")


@import_.command("qrels")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--assessor",
    default="qrels",
    show_default=True,
    help="Who made these judgments (one assessor: a later file's grade replaces an earlier one's).",
)
@click.pass_context
def import_qrels(ctx: click.Context, file: Path, assessor: str | None) -> None:
    """Import TREC qrels as judgment events; negative grades go to the pool as unjudged."""
    store = _store(ctx)
    labels, pooled = store.import_qrels(
        trec.read_qrels(file, check_repeats=False), source=str(file), assessor=assessor or "qrels"
    )
    _refuse_empty(labels + pooled, file, "qrels lines")
    out.print(f"imported {labels} labels and {pooled} pooled-unjudged pairs from {file}")


@import_.command("judgments")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def import_judgments(ctx: click.Context, file: Path) -> None:
    """Import a judgments JSONL event log (as `export judgments` writes it)."""
    from .models import Judgment

    n = _store(ctx).import_judgments(jsonl.read_models(file, Judgment), source=str(file))
    _refuse_empty(n, file, "judgment events")
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
@click.argument("run_files", nargs=-1, type=click.Path(path_type=Path), metavar="[RUN]...")
@click.option("--runs", "with_runs", is_flag=True, help="Show how much of the RUNs' top k is labeled.")
@click.option("--depth", "-k", type=click.IntRange(1), default=10, show_default=True, help="k for --runs.")
@click.option("--holes", type=click.IntRange(0), default=10, show_default=True, help="Largest holes listed per run.")
@click.option("--per-query", is_flag=True, help="With --runs: every query's coverage in the table.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
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
    if with_runs or run_files:
        if not run_files:
            raise UsageError("--runs needs run files", "qrelkit status --runs RUN... [-k 10]")
        _status_runs(_store(ctx), run_files, depth, holes, per_query, fmt)
        return
    store = _store(ctx)
    st = store.status()
    if fmt == "json":
        click.echo(st.model_dump_json(indent=2))
        return
    scale = store.scale
    grades = [str(level.grade) for level in scale.levels]
    out.print(
        f"[bold]{st.name}[/bold]: {st.queries} queries, {st.documents} documents, {st.judgment_events} judgment events"
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


def run_name(path: Path) -> str:
    """A run's name: its file name without .gz and the format suffix (bm25.run.gz -> bm25)."""
    name = path.name.removesuffix(".gz")
    for suffix in (".run", ".trec", ".txt", ".tsv", ".jsonl", ".json", ".ndjson"):
        name = name.removesuffix(suffix)
    return name or path.name


def _read_run_lists(paths: tuple[Path, ...], depth: int) -> list[RunLists]:
    """Each run's top `depth` documents per query (trec_eval order); run names must differ."""
    from .scoring.arrays import top_documents
    from .scoring.impact import RunLists

    names = [run_name(p) for p in paths]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"two runs are named {name!r}", "give every run file a distinct name")
    lists = []
    for path, name in zip(paths, names, strict=True):
        reader = jsonl.read_run(path) if _is_jsonl(path) else trec.read_run(path)
        lists.append(RunLists(name, top_documents(((r.query_id, r.doc_id, r.score) for r in reader), depth)))
    return lists


@cli.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--depth", "-k", type=click.IntRange(1), required=True, help="Pool each run's top K documents.")
@click.option("--stratum", help="Only pool the queries of this stratum.")
@click.pass_context
def pool(ctx: click.Context, runs: tuple[Path, ...], depth: int, stratum: str | None) -> None:
    """Add the unlabeled documents in each run's top K to the judging pool, for every query.

    Records which runs surfaced each pair and at which rank (the queue's impact order uses the
    runs' rankings). Labeled and skipped pairs are left out; pooling again is idempotent. Document
    ids the store has no text for are reported, and pooled by id all the same.
    """
    store = _store(ctx)
    store.check_stratum(stratum)
    lists = _read_run_lists(runs, depth)
    result = store.pool_runs(lists, depth=depth, paths=[str(p) for p in runs], stratum=stratum)
    err.print(
        f"pooled {', '.join(r.name for r in lists)} at depth {depth}: {result.added} pairs added, "
        f"{result.updated} already pooled updated, {result.labeled} already labeled or skipped"
    )
    if result.missing_documents:
        sample = ", ".join(result.missing_documents[:5]) + (" ..." if len(result.missing_documents) > 5 else "")
        err.print(
            f"[yellow]{len(result.missing_documents)} documents are not in the store[/yellow] ({sample}); "
            "pooled by id: import their text with `qrelkit import docs` to judge them"
        )
    if result.queries_not_in_runs:
        err.print(f"{len(result.queries_not_in_runs)} golden-set queries are in none of the runs")
    if result.run_only_queries:
        err.print(f"{len(result.run_only_queries)} run queries are not in the golden set (ignored)")


@cli.command()
@click.option("--order", type=click.Choice(QUEUE_ORDERS), default="impact", show_default=True, help="Queue order.")
@click.option("--limit", type=click.IntRange(1), help="Show the first N pairs only.")
@click.option("--stratum", help="Only pairs of this stratum's queries.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random order.")
@click.option("--metrics", help="Measures whose bounds the impact order narrows [default: nDCG@10,R@50].")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
@click.pass_context
def queue(
    ctx: click.Context, order: str, limit: int | None, stratum: str | None, seed: int, metrics: str | None, fmt: str
) -> None:
    """List the unlabeled pooled pairs in judging order.

    \b
    impact  pairs whose unknown grade holds the pooled runs' metric bounds open the most first:
            traffic share of the query x the expected narrowing of the nDCG@10 and R@50 bound
            widths once the pair is labeled, summed over the runs that rank it (README: "The
            judging queue")
    depth   best rank in any run, then query (the classic TREC order)
    random  a seeded permutation

    TSV lines are QUERY_ID<TAB>DOC_ID<TAB>PRIORITY; a higher priority comes first.
    """
    store = _store(ctx)
    store.check_stratum(stratum)
    items = store.ordered_queue(order, seed=seed, stratum=stratum, metrics=metrics)
    if limit is not None:
        items = items[:limit]
    if fmt == "tsv":
        click.echo("".join(f"{i.query_id}\t{i.doc_id}\t{i.priority:.6g}\n" for i in items), nl=False)
    elif fmt == "json":
        click.echo("[" + ",\n".join(i.model_dump_json() for i in items) + "]")
    else:
        table = Table("#", "query", "document", "priority", "best rank", "pooled by", caption=f"order: {order}")
        for n, i in enumerate(items, 1):
            rank = "-" if i.best_rank is None else str(i.best_rank)
            table.add_row(str(n), i.query_id, i.doc_id, f"{i.priority:.4g}", rank, i.source)
        out.print(table)
        if not items:
            err.print("the queue is empty: every pooled pair is labeled (pool more with `qrelkit pool`)")


def _status_runs(store: Store, paths: tuple[Path, ...], k: int, holes: int, per_query: bool, fmt: str) -> None:
    from .scoring.impact import run_coverage

    strata = {q.id: q.stratum for q in store.queries()}
    labels: dict[str, dict[str, int]] = {}
    for qid, doc_id, grade in store.label_rows():
        labels.setdefault(qid, {})[doc_id] = grade
    reports = [run_coverage(run, strata, labels, k) for run in _read_run_lists(paths, k)]
    if fmt == "json":
        click.echo("[" + ",\n".join(r.model_dump_json(indent=2) for r in reports) + "]")
        return

    def cell(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    names = sorted(set(strata.values()))
    table = Table("run", *names, "all", title=f"judged coverage @{k} (mean over queries)")
    for r in reports:
        table.add_row(r.run, *[cell(r.by_stratum.get(s)) for s in names], cell(r.coverage))
    out.print(table)
    for r in reports:
        rows = sorted(r.queries, key=lambda q: (-q.holes, q.query_id))
        listed = rows if per_query else [q for q in rows if q.holes > 0][:holes]
        if not listed:
            out.print(f"{r.run}: no unlabeled document in any query's top {k}")
            continue
        title = f"{r.run}: " + ("every query" if per_query else f"largest holes (unlabeled in the top {k})")
        t = Table("query", "stratum", "unlabeled", "labeled", "coverage", title=title)
        for q in listed:
            t.add_row(
                q.query_id,
                q.stratum,
                str(q.holes),
                str(q.labeled),
                cell(q.labeled / q.retrieved if q.retrieved else None),
            )
        out.print(t)


@cli.command()
@click.option("--stratum", help="Only this stratum's pairs.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_context
def agreement(ctx: click.Context, stratum: str | None, fmt: str) -> None:
    """Agreement between assessors over the pairs two or more of them graded, overall and per
    stratum: raw agreement, Krippendorff's alpha (ordinal) and Cohen's kappa (linear weights) per
    assessor pair. Skip / unsure votes are left out and counted."""
    from .scoring import agreement as agree

    store = _store(ctx)
    strata = {q.id: q.stratum for q in store.queries()}
    store.check_stratum(stratum)
    units, skipped = store.agreement_units()
    if stratum is not None:
        units = {p: v for p, v in units.items() if strata.get(p[0]) == stratum}
        skipped = {p: n for p, n in skipped.items() if strata.get(p[0]) == stratum}
    rep = agree.report(units, skipped, strata)
    if fmt == "json":
        click.echo(rep.model_dump_json(indent=2))
        return

    def cell(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    pairs = sorted({k for st in [rep.overall, *rep.by_stratum.values()] for k in st.kappa_linear})
    table = Table("stratum", "pairs", "skipped", "raw", "alpha (ordinal)", *[f"kappa {p}" for p in pairs])
    rows = [*rep.by_stratum.items(), ("[bold]all[/bold]", rep.overall)]
    for name, st in rows:
        table.add_row(
            name,
            str(st.n_pairs),
            str(st.skipped),
            cell(st.raw_agreement),
            cell(st.alpha_ordinal),
            *[cell(st.kappa_linear.get(p)) for p in pairs],
        )
    out.print(table)
    if rep.overall.n_pairs == 0:
        err.print("no pair has two graded votes yet: `qrelkit assign --overlap 2` makes some")


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


# -- score -----------------------------------------------------------------------------------


@dataclass
class Golden:
    """What a score is computed against: labels, the evaluated queries and their strata."""

    labels: Columns
    labels_hash: Any
    queries: list[str] | None
    """None: the queries of a qrels file, in file order."""
    strata: dict[str, str]
    info: GoldenSetInfo
    golden: GoldenFingerprint | None
    qrels: FileFingerprint | None


def _golden_from_store(store: Store, version: str | None = None) -> Golden:
    from .scoring import Columns

    info = store.info()
    queries = store.queries()
    labels = store.label_rows()
    digest = versioning.content_hash(info, queries, labels, versioning.documents_hash(store.documents()))
    return Golden(
        labels=Columns.from_rows(labels, integer=True),
        labels_hash=None,
        queries=[q.id for q in queries],
        strata={q.id: q.stratum for q in queries},
        info=info,
        golden=GoldenFingerprint(name=info.name, version=version, content_hash=digest),
        qrels=None,
    )


def _golden_from_version(folder: Path, *, check: bool) -> Golden:
    from .scoring import Columns

    snap = versioning.read(folder, check=check)
    manifest = versioning.read_manifest(folder)
    digest = snap.content_hash() if not check else manifest.content_hash
    return Golden(
        labels=Columns.from_rows([(x.query_id, x.doc_id, x.grade) for x in snap.labels], integer=True),
        labels_hash=None,
        queries=[q.id for q in snap.queries],
        strata={q.id: q.stratum for q in snap.queries},
        info=snap.info,
        golden=GoldenFingerprint(name=manifest.name, version=manifest.version, content_hash=digest),
        qrels=None,
    )


def _golden_from_qrels(path: Path) -> Golden:
    from .scoring import Columns, trec_columns

    digest = hashlib.sha256()
    parsed = trec_columns(_hashing(read_blocks(path), digest), "qrels")
    if parsed is None:  # irregular or compressed: the exact reader streams it and names any bad line
        labels = Columns.from_rows([(r.query_id, r.doc_id, r.grade) for r in trec.read_qrels(path)], integer=True)
        labels_hash = None
    else:
        labels, labels_hash = parsed.columns, parsed.doc_hash
    top = int(labels.value.max(initial=1))
    return Golden(
        labels=labels,
        labels_hash=labels_hash,
        queries=None,
        strata={},
        info=GoldenSetInfo(name="qrels", scale=GradeScale.from_max(max(top, 1))),
        golden=None,
        qrels=FileFingerprint(name=path.name, sha256=_file_sha256(path, digest, complete=parsed is not None)),
    )


def _hashing(blocks: Iterator[bytes], digest: Any) -> Iterator[bytes]:
    """Pass blocks through, feeding them to `digest` (one read serves parsing and hashing)."""
    for block in blocks:
        digest.update(block)
        yield block


def _file_sha256(path: Path, digest: Any, *, complete: bool) -> str:
    """The content's sha256: from `digest` if it saw every block, else by reading the file again."""
    if not complete:
        digest = hashlib.sha256()
        for block in read_blocks(path):
            digest.update(block)
    return "sha256:" + str(digest.hexdigest())


def _resolve_metrics(metrics: str | None, profile: str | None, info: GoldenSetInfo) -> tuple[str, list[str] | None]:
    if profile is None:
        return metrics or ",".join(DEFAULT_METRICS), None
    found = {p.name: p for p in info.profiles}
    if profile not in found:
        known = ", ".join(sorted(found)) or "none"
        raise UsageError(f"no scoring profile {profile!r} in this golden set", f"profiles: {known}")
    chosen = found[profile]
    return metrics or ",".join(chosen.metrics), chosen.strata


@cli.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--golden", type=click.Path(file_okay=False, path_type=Path), help="Score against a golden-set folder.")
@click.option("--qrels", type=click.Path(dir_okay=False, path_type=Path), help="Score against a TREC qrels file.")
@click.option("--metrics", help=f"Comma-separated measures [default: {','.join(DEFAULT_METRICS)}].")
@click.option("--profile", help="Use a scoring profile's metrics and strata.")
@click.option("--per-query", is_flag=True, help="Include every query's value, coverage and bounds.")
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "trec", "csv"]), default="table", show_default=True
)
@click.option("--min-coverage", type=click.FloatRange(0, 1), help="Exit 1 if any metric or stratum is below.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), help="Write here.")
@click.option("--bounds/--no-bounds", default=True, show_default=True, help="Compute bounds (slower).")
@click.option("--verify/--no-verify", default=True, show_default=True, help="Refuse an altered --golden version.")
@click.option("--save", is_flag=True, help="Keep the reports in the store (the TUI dashboard shows the latest).")
@click.pass_context
def score(
    ctx: click.Context,
    runs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    metrics: str | None,
    profile: str | None,
    per_query: bool,
    fmt: str,
    min_coverage: float | None,
    out_path: Path | None,
    bounds: bool,
    verify: bool,
    save: bool,
) -> None:
    """Score RUNS (TREC run files or JSONL) with coverage and bounds, against the store by default.

    \b
    Measures (ir_measures names, trec_eval semantics):
      P@k  R@k  Success@k (Hit@k)  RR  RR@k  nDCG  nDCG@k  AP  AP@k  Rprec  Judged@k
      P(rel=2)@5       relevance threshold 2 for this measure only
      nDCG(gain=exp)@10  gains 2^grade - 1 (default: gain = grade, as trec_eval)

    Ties are broken by score, then document id descending (byte order); the rank column is
    ignored. The golden set's queries are evaluated: a query missing from the run scores 0,
    run-only queries are ignored, and the counts are reported. Unlabeled and skipped documents
    count as not relevant for the value; coverage and bounds show what they leave open.
    """
    if golden and qrels:
        raise UsageError("give --golden or --qrels, not both")
    if qrels:
        source = _golden_from_qrels(qrels)
    elif golden:
        source = _golden_from_version(golden, check=verify)
    else:
        source = _golden_from_store(_store(ctx))
    metric_text, strata_filter = _resolve_metrics(metrics, profile, source.info)
    queries = source.queries
    if strata_filter is not None:
        queries = [q for q in queries or [] if source.strata.get(q, DEFAULT_STRATUM) in strata_filter]
    weights = {s.name: s.weight for s in source.info.strata}
    if strata_filter is not None:
        weights = {s: w for s, w in weights.items() if s in strata_filter}
    reports = [score_run(source, run, metric_text, queries, weights, per_query, bounds) for run in runs]

    text = render_reports(reports, fmt, per_query=per_query, min_coverage=min_coverage)
    _emit(text, fmt, out_path)
    if save:
        store = _store(ctx)
        for rep in reports:
            store.save_report("score", rep.fingerprint.run.name, rep.model_dump_json())
    if min_coverage is not None:
        low = coverage_violations(reports, min_coverage)
        if low:
            err.print(f"[bold red]coverage below {min_coverage:g}:[/bold red] " + "; ".join(low))
            ctx.exit(1)


def score_run(
    source: Golden,
    run_path: Path,
    metric_text: str,
    queries: list[str] | None,
    weights: dict[str, float],
    per_query: bool,
    bounds: bool = True,
) -> ScoreReport:
    """Score one run file against `source` and wrap the result in a fingerprinted report."""
    from .scoring import Columns, evaluate_columns, trec_columns  # numpy loads only when scoring

    scale = source.info.scale
    digest = hashlib.sha256()
    parsed = None if _is_jsonl(run_path) else trec_columns(_hashing(read_blocks(run_path), digest), "run")
    if parsed is None:  # JSONL, compressed or irregular: the exact reader names any bad line
        reader = jsonl.read_run(run_path) if _is_jsonl(run_path) else trec.read_run(run_path)
        run, run_hash = Columns.from_rows([(r.query_id, r.doc_id, r.score) for r in reader]), None
    else:
        run, run_hash = parsed.columns, parsed.doc_hash
    _refuse_empty(len(run.query), run_path, "run lines")
    ev = evaluate_columns(
        source.labels,
        run,
        metric_text,
        queries=queries,
        strata=source.strata,
        weights=weights,
        relevance_threshold=scale.relevance_threshold,
        max_grade=scale.max_grade,
        qrels_hash=source.labels_hash,
        run_hash=run_hash,
        run_unique=True,  # both readers refuse duplicate (query, doc) pairs
        bounds=bounds,
    )
    fingerprint = Fingerprint(
        golden=source.golden,
        qrels=source.qrels,
        run=FileFingerprint(name=run_path.name, sha256=_file_sha256(run_path, digest, complete=parsed is not None)),
        metrics=[m.canonical for m in ev.measures],
        relevance_threshold=scale.relevance_threshold,
        max_grade=ev.ranked.max_grade,
        qrelkit_version=__version__,
    )
    return ev.report(fingerprint, per_query=per_query)


def _emit(text: str, fmt: str, out_path: Path | None) -> None:
    """Print a rendered report, or write it (a table as plain text) atomically to `out_path`."""
    if out_path is None:
        if fmt == "table":
            out.print(text, end="")
        else:
            click.echo(text, nl=False)
        return
    with atomic_write(out_path) as stream:
        stream.write(text if fmt != "table" else Text.from_markup(text).plain)
    err.print(f"wrote {out_path}")


def coverage_violations(reports: list[ScoreReport], threshold: float) -> list[str]:
    """'run: metric (stratum) 0.71' for every mean coverage under the threshold."""
    found = []
    for rep in reports:
        for name, m in rep.metrics.items():
            if m.coverage is not None and m.coverage < threshold:
                found.append(f"{rep.fingerprint.run.name}: {name} (all) {m.coverage:.3f}")
            for s, sub in m.by_stratum.items():
                if sub.coverage is not None and sub.coverage < threshold:
                    found.append(f"{rep.fingerprint.run.name}: {name} ({s}) {sub.coverage:.3f}")
    return found


def render_reports(reports: list[ScoreReport], fmt: str, *, per_query: bool, min_coverage: float | None) -> str:
    if fmt == "json":
        if len(reports) == 1:
            return reports[0].model_dump_json(indent=2, exclude_none=False) + "\n"
        return "[" + ",\n".join(r.model_dump_json(indent=2) for r in reports) + "]\n"
    if fmt == "trec":
        return "".join(_trec_lines(r, per_query) for r in reports)
    if fmt == "csv":
        return _csv(reports, per_query)
    return "".join(_table(r, min_coverage) for r in reports)


def _trec_lines(rep: ScoreReport, per_query: bool) -> str:
    lines = []
    if per_query and rep.per_query:
        for qid, measures in rep.per_query.items():
            for name, qs in measures.items():
                lines.append(f"{name}\t{qid}\t{qs.value:.6f}")
    for name, m in rep.metrics.items():
        lines.append(f"{name}\tall\t{m.mean:.6f}")
    return "\n".join(lines) + "\n"


def _csv(reports: list[ScoreReport], per_query: bool) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if per_query:
        w.writerow(["run", "query", "metric", "value", "coverage", "bound_low", "bound_high"])
        for rep in reports:
            for qid, measures in (rep.per_query or {}).items():
                for name, qs in measures.items():
                    w.writerow([rep.fingerprint.run.name, qid, name, qs.value, qs.coverage, *(qs.bounds or ("", ""))])
        return buf.getvalue()
    w.writerow(
        [
            "run",
            "metric",
            "stratum",
            "n",
            "mean",
            "sd",
            "se",
            "ci_low",
            "ci_high",
            "coverage",
            "bound_low",
            "bound_high",
            "weighted_mean",
        ]
    )
    for rep in reports:
        for name, m in rep.metrics.items():
            w.writerow(
                [
                    rep.fingerprint.run.name,
                    name,
                    "all",
                    m.n,
                    m.mean,
                    m.sd,
                    m.se,
                    *m.ci95,
                    m.coverage,
                    *(m.bounds or ("", "")),
                    m.weighted_mean,
                ]
            )
            for s, sub in m.by_stratum.items():
                w.writerow(
                    [
                        rep.fingerprint.run.name,
                        name,
                        s,
                        sub.n,
                        sub.mean,
                        sub.sd,
                        sub.se,
                        *sub.ci95,
                        sub.coverage,
                        *(sub.bounds or ("", "")),
                        "",
                    ]
                )
    return buf.getvalue()


LOW_COVERAGE = 0.9
"""Coverage under this (or under --min-coverage) is flagged in the table."""


def _cov_cell(cov: float | None, threshold: float) -> str:
    if cov is None:
        return "[dim]n/a[/dim]"
    if cov < threshold:
        return f"[bold yellow]{cov:.0%} ![/bold yellow]"
    return f"{cov:.0%}"


def _table(rep: ScoreReport, min_coverage: float | None) -> str:
    from rich.console import Console as _Console

    threshold = min_coverage if min_coverage is not None else LOW_COVERAGE
    q = rep.queries
    fp = rep.fingerprint
    against = (
        f"{fp.golden.name} ({fp.golden.version or 'working copy'}, {fp.golden.content_hash[:19]})"
        if fp.golden
        else f"{fp.qrels.name if fp.qrels else '?'}"
    )
    table = Table(
        "metric",
        "mean",
        "95% CI",
        "weighted",
        "coverage",
        "bounds",
        title=f"[bold]{fp.run.name}[/bold] vs {against}",
    )
    for name, m in rep.metrics.items():
        table.add_row(
            name,
            f"{m.mean:.4f}",
            f"{m.ci95[0]:.3f}–{m.ci95[1]:.3f}",
            "-" if m.weighted_mean is None else f"{m.weighted_mean:.4f}",
            _cov_cell(m.coverage, threshold),
            "-" if m.bounds is None else f"{m.bounds[0]:.3f}–{m.bounds[1]:.3f}" + ("" if m.exact else " (outer)"),
        )
    strata = sorted({s for m in rep.metrics.values() for s in m.by_stratum})
    console = _Console(width=max(out.width, 110), record=True, force_terminal=out.is_terminal)
    notes = (
        f"macro mean over {q.evaluated} queries: {q.missing_from_run} missing from the run (scored 0), "
        f"{q.run_only} run-only ignored, {q.no_relevant} with no relevant document.\n"
        "weighted: traffic-weighted over strata. bounds: mean lowest/highest value over every labeling "
        f"of the unlabeled documents. [yellow]![/yellow] coverage < {threshold:.0%}"
    )
    with console.capture() as cap:
        console.print(table)
        console.print(notes, style="dim")
        if len(strata) > 1:
            by = Table("metric", *[f"{s} (n={_n(rep, s)})" for s in strata], title="by stratum: mean · coverage")
            for name, m in rep.metrics.items():
                by.add_row(name, *[_stratum_cell(m.by_stratum.get(s), threshold) for s in strata])
            console.print(by)
    return cap.get()


def _n(rep: ScoreReport, stratum: str) -> int:
    first = next(iter(rep.metrics.values()))
    sub = first.by_stratum.get(stratum)
    return sub.n if sub else 0


def _stratum_cell(sub: Summary | None, threshold: float) -> str:
    return "-" if sub is None else f"{sub.mean:.3f} · {_cov_cell(sub.coverage, threshold)}"


# -- schemas ---------------------------------------------------------------------------------


@cli.group()
def schemas() -> None:
    """JSON Schemas of qrelkit's files, generated from its models."""


_SCHEMA_DIR = click.option(
    "--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default="schemas", show_default=True
)


@schemas.command("write")
@_SCHEMA_DIR
def schemas_write(folder: Path) -> None:
    """Regenerate every schema file."""
    from . import schemas as generated

    for name, model in generated.SCHEMAS.items():
        with atomic_write(folder / name) as stream:
            stream.write(generated.render(model))
    out.print(f"wrote {len(generated.SCHEMAS)} schemas to {folder}")


@schemas.command("check")
@_SCHEMA_DIR
@click.pass_context
def schemas_check(ctx: click.Context, folder: Path) -> None:
    """Exit 1 if a committed schema differs from the models."""
    from . import schemas as generated

    stale = generated.drift(folder)
    if stale:
        err.print(f"[bold red]out of date:[/bold red] {', '.join(stale)} (run `{generated.FIX}`)")
        ctx.exit(1)
    out.print(f"{len(generated.SCHEMAS)} schemas up to date")


# -- versions --------------------------------------------------------------------------------


@cli.command()
@click.argument("name")
@click.argument("version")
@click.option("--note", help="What changed, for the manifest.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default="goldensets",
    show_default=True,
    help="Folder of golden sets.",
)
@click.pass_context
def freeze(ctx: click.Context, name: str, version: str, note: str | None, out_dir: Path) -> None:
    """Freeze the store as OUT/NAME/VERSION/: manifest, queries, documents, qrels, event log, pool."""
    if any(c.isspace() or c in "/\\" for c in name + version) or not name or not version:
        raise UsageError(f"invalid name or version {name!r} {version!r}", "no spaces or slashes")
    manifest = versioning.freeze(_store(ctx).snapshot(), out_dir, name, version, note=note)
    totals = manifest.counts["all"]
    out.print(
        f"froze {out_dir / name / version}: {totals.queries} queries, {sum(totals.labels.values())} labels, "
        f"{totals.skipped} skipped, {totals.unlabeled} pooled unlabeled; content {manifest.content_hash[:19]}"
        + (f" (parent {manifest.parent_version})" if manifest.parent_version else "")
    )


@cli.command("verify")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def verify_cmd(ctx: click.Context, folder: Path) -> None:
    """Check every file of a frozen version against its manifest; exit 1 naming what changed."""
    problems = versioning.verify(folder)
    if problems:
        for problem in problems:
            err.print(f"[bold red]altered:[/bold red] {folder / problem}")
        ctx.exit(1)
    manifest = versioning.read_manifest(folder)
    out.print(f"{folder}: {len(manifest.files)} files match the manifest ({manifest.content_hash[:19]})")


@cli.command("diff")
@click.argument("folder_a", type=click.Path(file_okay=False, path_type=Path))
@click.argument("folder_b", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def diff_cmd(folder_a: Path, folder_b: Path, fmt: str) -> None:
    """What changed between two frozen versions: queries, labels, regrades, weights, profiles, coverage."""
    a, b = versioning.read(folder_a), versioning.read(folder_b)
    ma, mb = versioning.read_manifest(folder_a), versioning.read_manifest(folder_b)
    d = versioning.diff(a, b, f"{ma.name}/{ma.version}", f"{mb.name}/{mb.version}")
    if fmt == "json":
        click.echo(d.model_dump_json(indent=2))
        return
    out.print(f"[bold]{d.from_version} -> {d.to_version}[/bold]" + ("" if d.content_changed else " (same content)"))
    q = d.queries
    out.print(
        f"queries: +{len(q['added'])} -{len(q['removed'])} moved {len(q['moved'])}"
        + "".join(f"\n  {k}: {', '.join(v)}" for k, v in q.items() if v)
    )
    lab = d.labels
    out.print(
        f"labels: +{lab['added']} -{lab['removed']}, regraded "
        + (", ".join(f"{k}: {n}" for k, n in lab["regraded"].items()) or "none")
    )
    for stratum, changes in lab["regraded_by_stratum"].items():
        out.print(f"  {stratum}: " + ", ".join(f"{k}: {n}" for k, n in changes.items()))
    for stratum, w in d.strata.items():
        out.print(f"stratum {stratum}: weight {w['from']} -> {w['to']}")
    for kind, names in d.profiles.items():
        if names:
            out.print(f"profiles {kind}: {', '.join(names)}")
    cov = d.coverage
    out.print(f"pool coverage: {_percent(cov['from'])} -> {_percent(cov['to'])}")


def _percent(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


@import_.command("version")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--verify/--no-verify", default=True, show_default=True, help="Refuse an altered version.")
@click.pass_context
def import_version(ctx: click.Context, folder: Path, verify: bool) -> None:
    """Load a frozen version into the store (one transaction)."""
    manifest = _store(ctx, create=True).load_version(folder, check=verify)
    out.print(f"imported {manifest.name} {manifest.version} ({manifest.content_hash[:19]}) from {folder}")


def _is_report(path: Path) -> bool:
    """A `.json` file is a saved score report; anything else is a run."""
    return path.suffix == ".json"


def _parse_tolerance(text: str) -> tuple[str, float]:
    name, _, tol = text.partition(":")
    try:
        value = float(tol) if tol else 0.0
    except ValueError:
        raise UsageError(f"--fail-if-worse {text!r}: tolerance {tol!r} is not a number", "write METRIC[:TOL]") from None
    if value < 0:
        raise UsageError(
            f"--fail-if-worse {text!r}: the tolerance must be >= 0", "write METRIC[:TOL], e.g. nDCG@10:0.01"
        )
    return name, value


@cli.command()
@click.argument("a", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("b", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--golden", type=click.Path(file_okay=False, path_type=Path), help="Score runs against a version.")
@click.option("--qrels", type=click.Path(dir_okay=False, path_type=Path), help="Score runs against a qrels file.")
@click.option("--metrics", help="Comma-separated measures (the two tiles are always added).")
@click.option("--profile", help="Use a scoring profile's metrics and strata (runs only).")
@click.option("--headline", default="nDCG@10", show_default=True, help="The headline tile.")
@click.option("--recall", default="R@50", show_default=True, help="The recall tile (recall at candidate depth).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "html"]), default="table", show_default=True)
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), help="Write here.")
@click.option("--resamples", type=click.IntRange(1), default=10_000, show_default=True, help="Bootstrap and test.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the resampling.")
@click.option("--fail-if-worse", "fail_if_worse", multiple=True, metavar="METRIC[:TOL]", help="Exit 1 if worse.")
@click.option("--gate-pair", metavar="M1,M2", help="Exit 1 if the gain on one is less than the loss on the other.")
@click.option("--allow-mismatch", is_flag=True, help="Compare anyway, over the queries both share.")
@click.option("--save", is_flag=True, help="Keep the comparison in the store (the TUI dashboard shows it).")
@click.option("--verify/--no-verify", default=True, show_default=True, help="Refuse an altered --golden version.")
@click.pass_context
def compare(
    ctx: click.Context,
    a: Path,
    b: Path,
    golden: Path | None,
    qrels: Path | None,
    metrics: str | None,
    profile: str | None,
    headline: str,
    recall: str,
    fmt: str,
    out_path: Path | None,
    resamples: int,
    seed: int,
    fail_if_worse: tuple[str, ...],
    gate_pair: str | None,
    allow_mismatch: bool,
    save: bool,
    verify: bool,
) -> None:
    """Compare baseline A with candidate B, paired over the same queries.

    A and B are run files (scored here against the store, --golden or --qrels) or JSON reports
    saved with `score --format json --per-query`, which must be comparable (same golden content,
    metrics, cutoffs and threshold) unless --allow-mismatch.

    \b
    Per metric: both means, B - A, a 95% paired bootstrap interval, a paired randomization test,
    wins / ties / losses, per-stratum and traffic-weighted deltas, coverage of each side and a
    warning when unlabeled documents could reverse the delta. The diagnosis reads the two tiles
    (headline nDCG@10, recall R@50; "falls" = the interval lies below 0):
      stable         neither moved
      ordering       headline falls, recall holds: look at the reranker or fusion
      upstream       both fall: analyzer, chunking, ingestion changed
      early_warning  recall falls, headline holds: an upstream problem is coming
      improved       nothing fell, something rose
    """
    from .scoring import paired
    from .scoring.measures import parse_measure

    headline, recall = parse_measure(headline).name, parse_measure(recall).name
    gates = [_parse_tolerance(g) for g in fail_if_worse]
    pair: list[str] = []
    if gate_pair is not None:
        pair = [parse_measure(x.strip()).name for x in gate_pair.split(",") if x.strip()]
        if len(pair) != 2:
            raise UsageError(f"--gate-pair {gate_pair!r} needs two metrics", "write --gate-pair nDCG@10,R@50")
    gates = [(parse_measure(name).name, tol) for name, tol in gates]
    wanted = [parse_measure(m).name for m in (metrics.split(",") if metrics else []) if m.strip()]
    extra = [headline, recall, *(name for name, _ in gates), *pair]

    reports: dict[str, ScoreReport] = {p.name: _read_report(p) for p in (a, b) if _is_report(p)}
    runs = [p for p in (a, b) if not _is_report(p)]
    if profile and not runs:
        raise UsageError(
            "--profile chooses what to score: it needs a run file", "use --metrics to pick from the reports"
        )
    scored: dict[Path, ScoreReport] = {}
    if runs:
        if golden and qrels:
            raise UsageError("give --golden or --qrels, not both")
        source = (
            _golden_from_qrels(qrels)
            if qrels
            else _golden_from_version(golden, check=verify)
            if golden
            else _golden_from_store(_store(ctx))
        )
        if metrics:
            metric_text, strata_filter = metrics, None
        elif reports:
            metric_text, strata_filter = ",".join(next(iter(reports.values())).fingerprint.metrics), None
        else:
            metric_text, strata_filter = _resolve_metrics(None, profile, source.info)
        names = [parse_measure(m).name for m in metric_text.split(",") if m.strip()]
        metric_text = ",".join(dict.fromkeys(names + extra))
        queries = source.queries
        weights = {s.name: s.weight for s in source.info.strata}
        if strata_filter is not None:
            queries = [q for q in queries or [] if source.strata.get(q, DEFAULT_STRATUM) in strata_filter]
            weights = {s: w for s, w in weights.items() if s in strata_filter}
        for run in runs:
            scored[run] = score_run(source, run, metric_text, queries, weights, per_query=True)
    base = scored.get(a) or _read_report(a)
    cand = scored.get(b) or _read_report(b)

    mismatches = versioning.comparability(base, cand)
    qa, qb = set(base.per_query or {}), set(cand.per_query or {})
    if base.per_query is not None and cand.per_query is not None and qa != qb:
        mismatches.append(f"the reports cover other queries (A {len(qa)}, B {len(qb)}, both {len(qa & qb)})")
    if mismatches and not allow_mismatch:
        raise UsageError("not comparable: " + "; ".join(mismatches), "pass --allow-mismatch to compare anyway")
    comparison = paired.compare(
        base,
        cand,
        metrics=list(dict.fromkeys(wanted + extra)) if wanted else None,
        headline=headline,
        recall=recall,
        resamples=resamples,
        seed=seed,
        mismatches=mismatches,
    )
    if fmt == "json":
        text = comparison.model_dump_json(indent=2) + "\n"
    elif fmt == "html":
        from .report_html import render

        text = render(comparison)
    else:
        text = _comparison_table(comparison)
    _emit(text, fmt, out_path)
    if mismatches:
        err.print("[bold yellow]compared despite:[/bold yellow] " + "; ".join(mismatches))
        err.print(f"over the {comparison.queries} queries both reports share")
    if save:
        name = f"{comparison.baseline.run.name} vs {comparison.candidate.run.name}"
        _store(ctx).save_report("comparison", name, comparison.model_dump_json())
    failures = [f for name, tol in gates if (f := paired.worse_than(comparison, name, tol))]
    if pair and (f := paired.gate_pair(comparison, pair[0], pair[1])):
        failures.append(f)
    if failures:
        for f in failures:
            err.print(f"[bold red]gate failed:[/bold red] {f}")
        ctx.exit(1)


def _comparison_table(c: Comparison) -> str:
    """The comparison as rich markup (printed, or written as plain text)."""
    console = Console(width=max(out.width, 120), highlight=False, force_terminal=out.is_terminal)
    colour = {
        "stable": "green",
        "improved": "green",
        "ordering": "yellow",
        "early_warning": "yellow",
        "upstream": "red",
    }
    with console.capture() as cap:
        _comparison_lines(console, c, colour)
    return cap.get()


def _comparison_lines(console: Console, c: Comparison, colour: dict[str, str]) -> None:
    console.print(
        f"[bold]A[/bold] {c.baseline.run.name}  vs  [bold]B[/bold] {c.candidate.run.name}: "
        f"{c.queries} queries paired, {c.resamples:,} resamples, seed {c.seed}"
    )
    console.print(
        f"[bold {colour[c.diagnosis]}]diagnosis: {c.diagnosis}[/bold {colour[c.diagnosis]}]  {c.diagnosis_text}"
    )
    table = Table("metric", "A", "B", "B - A", "95% CI", "p", "W/T/L", "weighted", "cov A", "cov B")
    for name, m in c.metrics.items():
        tile = " *" if name in (c.headline, c.recall) else ""
        style = "red" if m.ci95[1] < 0 else "green" if m.ci95[0] > 0 else ""
        delta = f"[{style}]{m.delta:+.4f}[/{style}]" if style else f"{m.delta:+.4f}"
        table.add_row(
            name + tile,
            f"{m.mean_a:.4f}",
            f"{m.mean_b:.4f}",
            delta,
            f"[{m.ci95[0]:+.4f}, {m.ci95[1]:+.4f}]",
            f"{m.p_value:.4f}",
            f"{m.wins}/{m.ties}/{m.losses}",
            "-" if m.weighted_delta is None else f"{m.weighted_delta:+.4f}",
            "-" if m.coverage_a is None else f"{m.coverage_a:.3f}",
            "-" if m.coverage_b is None else f"{m.coverage_b:.3f}",
        )
    console.print(table)
    strata = sorted({s for m in c.metrics.values() for s in m.by_stratum})
    if len(strata) > 1:

        def cell(delta: float | None, ci: tuple[float, float] | None) -> str:
            if delta is None:
                return "-"
            return f"{delta:+.4f}" + (f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "")

        tiles = (c.metrics[c.headline], c.metrics[c.recall])
        st = Table("stratum", "n", *[f"{t} B - A [95% CI]" for t in (c.headline, c.recall)], title="per stratum")
        for s in strata:
            subs = [t.by_stratum.get(s) for t in tiles]
            n = subs[0].n if subs[0] else 0
            st.add_row(s, str(n), *[cell(x.delta, x.ci95) if x else "-" for x in subs])
        st.add_row("[bold]traffic-weighted[/bold]", "", *[cell(t.weighted_delta, t.weighted_ci95) for t in tiles])
        console.print(st)
    for name, m in c.metrics.items():
        if m.warning:
            console.print(f"[yellow]{name}: {m.warning}[/yellow]")
    for col in c.collisions:
        console.print(
            f"[yellow]{col.side}: {col.metrics[0]} and {col.metrics[1]} both average {col.mean:.4f} but differ "
            f"on {col.queries_differ} of {col.n} queries[/yellow]"
        )


def _read_report(path: Path) -> ScoreReport:
    import json

    from pydantic import ValidationError

    from .formats.jsonl import describe_validation_error

    try:
        return ScoreReport.model_validate(json.loads(read_text(path)))
    except RecursionError:
        raise InputError("JSON nested too deeply", "give a report from `score --format json`", path=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg})",
            "give a report from `score --format json`",
            path=str(path),
            line=exc.lineno,
        ) from None
    except ValidationError as exc:
        raise InputError(
            describe_validation_error(exc), "give one report from `score --format json`", path=str(path)
        ) from None


# -- demo ------------------------------------------------------------------------------------


def bundled_golden(name: str = "pydocs") -> Path:
    """The newest frozen version of a golden set shipped with qrelkit (inside the wheel, or in
    the source checkout); its runs are in the `runs/` folder beside it."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_bundled" / name, here.parents[1] / "goldensets" / name):
        latest = versioning.latest_version(candidate)
        if latest is not None:
            return candidate / latest.version
    raise UsageError(f"the bundled golden set {name!r} is missing from this installation", "reinstall qrelkit")


@cli.command()
@click.option(
    "--keep",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Leave the demo store here (then: qrelkit --db PATH judge).",
)
def demo(keep: Path | None) -> None:
    """Load the bundled `pydocs` golden set into a scratch store and report on it."""
    from .storage import Store

    folder = bundled_golden()
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or Path(tmp) / "demo.db"
        if path.exists():
            raise UsageError(f"{path} already exists", "choose a new path for --keep")
        store = Store.open(path)
        try:
            manifest = store.load_version(folder)
            _demo_report(store, folder, manifest.version, keep=keep is not None)
        finally:
            store.close()
    if keep:
        out.print(f"\nthe demo store is at {keep}: try `qrelkit --db {keep} status`")


def _demo_report(store: Store, folder: Path, version: str, *, keep: bool) -> None:
    st = store.status()
    out.print(
        f"[bold]{st.name}[/bold] ({folder}): {st.queries} queries in {len(st.strata)} strata, "
        f"{st.documents} passages, {sum(st.labels.values())} labels, {st.skipped} skipped, "
        f"{st.unlabeled_pool} pooled but unlabeled\n"
    )
    from .scoring import paired

    source = _golden_from_store(store, version=version)  # verified, and equal, by load_version
    weights = {s.name: s.weight for s in source.info.strata}
    runs = sorted((folder.parent / "runs").glob("*.run"), key=lambda p: p.stem)  # baseline bm25 first
    reports = []
    for run_path in runs:
        report = score_run(source, run_path, ",".join(DEFAULT_METRICS), source.queries, weights, True)
        reports.append(report)
        out.print(_table(report, None), end="")
        out.print()
    if len(reports) == 2:
        comparison = paired.compare(reports[0], reports[1])
        out.print(_comparison_table(comparison), end="")
        if keep:  # for `judge`: the dashboard shows the comparison, the impact queue needs the runs
            store.save_report("comparison", f"{runs[0].name} vs {runs[1].name}", comparison.model_dump_json())
            store.pool_runs(_read_run_lists(tuple(runs), 10), depth=10, paths=[str(p) for p in runs])


def main() -> None:
    cli(prog_name="qrelkit")
