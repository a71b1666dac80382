"""`import ir-datasets`: a dataset of the `ir_datasets` package into the store, in one transaction.

What it takes: the dataset's queries (all of them, those without qrels too: unlabeled is not
irrelevant), the documents its qrels name (through `docs_store().get_many`, never the whole
corpus unless `all_docs`), its qrels (query, document, relevance; any other field, TREC's
iteration among them, is ignored) and its `qrels_defs()` as the grade scale's definitions.

It reads only what ir_datasets already holds on this machine (under `$IR_DATASETS_HOME`, by
default ~/.ir_datasets): ir_datasets' download sources are stopped while it runs, so a file it
would fetch is named in a one-line error and nothing is fetched (nor written to the store).
ir_datasets may still build its own document index from the files it has.

A negative relevance (TREC's junk -2, a "no interest" -1) is refused by default: it is a
judgment of a kind the 0..max scale has no grade for. `negative="zero"` records it as grade 0
(judged, not relevant; the junk / non-relevant distinction is lost), `negative="unjudged"` as a
pooled pair that nobody judged (what `import qrels` does with a TREC file's negative grades).

The `ir_datasets` package is imported only here, when an import runs (`pip install 'qrelkit[irds]'`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import progress
from ..errors import InputError, QrelkitError, UsageError
from ..formats import irds as records
from ..formats.trec import QrelRecord
from ..models import DEFAULT_STRATUM, STORE_MAX_GRADE, check_assessor
from ..storage import Store
from .setup import set_scale

Negative = Literal["refuse", "zero", "unjudged"]
NEGATIVE_HINT = (
    "pass --negative zero (judged, not relevant: grade 0) or --negative unjudged "
    "(pooled, nobody judged it, as `import qrels` reads a TREC file's negative grades)"
)
INSTALL_HINT = "install it: pip install 'qrelkit[irds]' (or pip install ir-datasets)"
LOOKUP_BATCH = 10_000
"""Document ids asked of ir_datasets' docs_store at a time."""


@dataclass(frozen=True)
class IrdsImport:
    """What an ir_datasets import did."""

    dataset: str
    queries: int
    documents: int
    labels: int
    pooled: int
    missing_documents: int
    """Documents the qrels name that the corpus lacks (their labels are imported all the same)."""
    negative: int
    """Qrels whose relevance was negative, mapped as `negative` says."""
    max_grade: int
    changed: list[str] = field(default_factory=list)
    """What changed in the grade scale, as `init` says it."""
    ignored: list[str] = field(default_factory=list)
    """The dataset's fields left out: `qrels.iteration`, `queries.author`, `docs.marked_up_doc`..."""


def import_ir_dataset(
    store: Store,
    dataset_id: str,
    *,
    all_docs: bool = False,
    stratum: str | None = None,
    stratum_field: str | None = None,
    negative: Negative = "refuse",
    assessor: str = "ir_datasets",
) -> IrdsImport:
    """Import `dataset_id` (see the module's docstring): the grade scale, queries, documents and
    qrels, in one transaction. Queries take `stratum_field`'s value as their stratum, else
    `stratum`, else `default`; a stratum new to the store gets weight 1."""
    check_assessor(assessor, "--assessor")
    if stratum is not None and stratum_field is not None:
        raise UsageError("--stratum and --stratum-field both given", "give one: a stratum for all, or a query field")
    irds = _package()
    with _local_only(irds) as wanted:
        try:
            strata = (stratum_field, stratum or DEFAULT_STRATUM)
            return _import(
                store, irds, dataset_id, all_docs=all_docs, strata=strata, negative=negative, assessor=assessor
            )
        except QrelkitError:
            raise
        except Exception as exc:  # ir_datasets' own failure, met while it read the dataset
            import sqlite3

            if isinstance(exc, sqlite3.Error):  # the store's: the command names it
                raise
            raise _failure(exc, dataset_id, wanted) from None


def _import(
    store: Store,
    irds: Any,
    dataset_id: str,
    *,
    all_docs: bool,
    strata: tuple[str | None, str],
    negative: Negative,
    assessor: str,
) -> IrdsImport:
    source = f"ir_datasets:{dataset_id}"
    dataset = _dataset(irds, dataset_id)
    defs = _definitions(dataset)
    qrels, negatives = _qrels(dataset, defs, f"{source}/qrels", negative)
    top = max([1, *(g for g in defs if g >= 0), *(r.grade for r in qrels)])
    levels = [] if top > STORE_MAX_GRADE else [records.level(g, text) for g, text in sorted(defs.items()) if g >= 0]
    ignored = [f"qrels.{name}" for name in records.fields_of(dataset.qrels_cls()) if name not in records.QREL_FIELDS]
    queries = records.Queries(dataset.queries_cls(), *strata, f"{source}/queries")
    wanted = sorted({r.doc_id for r in qrels})
    docs = records.Documents(f"{source}/docs", set(wanted))
    with store.transaction():
        changed = set_scale(store, top, levels)
        nq = store.imports.queries(queries.read(dataset.queries_iter()), source=queries.source, create_strata=True)
        _refuse_unknown_queries(qrels, queries.ids, f"{source}/qrels")
        found = _all_docs(dataset) if all_docs else _named_docs(dataset, wanted, dataset_id)
        nd = store.imports.documents(docs.read(found), source=docs.source)
        labels, pooled = store.imports.qrels(qrels, source=f"{source}/qrels", assessor=assessor)
    ignored += [f"queries.{name}" for name in queries.ignored] + [f"docs.{name}" for name in sorted(docs.ignored)]
    return IrdsImport(
        dataset=dataset_id, queries=nq, documents=nd, labels=labels, pooled=pooled,
        missing_documents=len(wanted) - len(docs.seen), negative=negatives, max_grade=top,
        changed=changed, ignored=ignored,
    )  # fmt: skip


def _package() -> Any:
    """The ir_datasets package, or a `UsageError` saying how to install it."""
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(
            "`import ir-datasets` needs the ir-datasets package, which is not installed", INSTALL_HINT
        ) from None
    return ir_datasets


def _dataset(irds: Any, dataset_id: str) -> Any:
    """The dataset `dataset_id`, which must hold queries and qrels."""
    try:
        dataset = irds.load(dataset_id)
    except KeyError:
        raise InputError(
            f"ir_datasets has no dataset {dataset_id!r}",
            "see `ir_datasets list`, or register a dataset of your own files with ir_datasets first",
        ) from None
    for kind in ("queries", "qrels"):
        if not dataset.has(kind):
            raise InputError(f"ir_datasets dataset {dataset_id!r} has no {kind}", "import a dataset with both")
    return dataset


def _definitions(dataset: Any) -> dict[int, str]:
    """The dataset's `qrels_defs()` (none when its qrels define no grade)."""
    try:
        return records.grade_definitions(dataset.qrels_defs())
    except NotImplementedError:
        return {}


def _qrels(dataset: Any, defs: dict[int, str], source: str, negative: Negative) -> tuple[list[QrelRecord], int]:
    """The dataset's qrels as records numbered from 1 (negative relevance mapped as `negative`
    says, or refused), and how many were negative."""
    found: list[QrelRecord] = []
    negatives = 0
    for n, qrel in enumerate(dataset.qrels_iter(), start=1):
        rec = records.qrel(qrel, source, n)
        if rec.grade < 0:
            negatives += 1
            if negative == "refuse":
                meaning = f" ({records.clipped(defs[rec.grade])})" if rec.grade in defs else ""
                raise InputError(
                    f"relevance {rec.grade}{meaning} of query {rec.query_id!r} doc {rec.doc_id!r} is below 0",
                    NEGATIVE_HINT,
                    path=source,
                    line=n,
                )
            rec = rec._replace(grade=0 if negative == "zero" else -1)
        found.append(rec)
    if not found:
        raise InputError("the dataset's qrels are empty", "import a dataset that has judgments", path=source)
    return found, negatives


def _refuse_unknown_queries(qrels: list[QrelRecord], ids: set[str], source: str) -> None:
    for rec in qrels:
        if rec.query_id not in ids:
            raise InputError(
                f"query {rec.query_id!r} is not among the dataset's queries",
                "its qrels and queries disagree: import a dataset whose queries cover its qrels",
                path=source,
                line=rec.line,
            )


def _named_docs(dataset: Any, ids: list[str], dataset_id: str) -> Iterator[Any]:
    """The documents with these ids that the corpus holds, in the order of `ids`, looked up a
    batch at a time (ir_datasets builds its document index first, from the files it has)."""
    if not ids or not dataset.has("docs"):
        return
    try:
        docstore = dataset.docs_store()
    except NotImplementedError:
        raise InputError(
            f"ir_datasets looks up no document of {dataset_id} by its id", "pass --all-docs to read the whole corpus"
        ) from None
    task = f"looking up the judged documents of {dataset_id}"
    for at in range(0, len(ids), LOOKUP_BATCH):
        batch = ids[at : at + LOOKUP_BATCH]
        found = docstore.get_many(batch)
        yield from (found[doc_id] for doc_id in batch if doc_id in found)
        progress.report(task, at + len(batch), len(ids))


def _all_docs(dataset: Any) -> Iterator[Any]:
    """The whole corpus (none when the dataset has no documents), its progress reported when
    ir_datasets knows how many documents it holds."""
    if not dataset.has("docs"):
        return
    try:
        total = int(dataset.docs_count() or 0)
    except (NotImplementedError, TypeError, ValueError):
        total = 0
    for n, doc in enumerate(dataset.docs_iter(), start=1):
        yield doc
        if total and (n % LOOKUP_BATCH == 0 or n == total):
            progress.report("reading the corpus", min(n, total), total)


class _WouldDownload(Exception):
    """ir_datasets asked one of its download sources for a file."""


@contextlib.contextmanager
def _local_only(irds: Any) -> Iterator[list[str]]:
    """ir_datasets with its download sources stopped (each raises `_WouldDownload`, and what it
    would have fetched is added to the list yielded), and its log quiet but for errors (its
    "download failed" warnings would only repeat what the error says). All restored after."""
    wanted: list[str] = []

    def stop(what: str) -> Any:
        wanted.append(what)
        raise _WouldDownload(what)

    saved: list[tuple[Any, str, Any]] = []

    def replace(owner: Any, name: str, by: Any) -> None:
        if owner is not None and name in vars(owner):
            saved.append((owner, name, vars(owner)[name]))
            setattr(owner, name, by)

    download = getattr(irds.util, "download", None)
    for cls_name in ("RequestsDownload", "GoogleDriveDownload", "GoogleCloudBucketStream"):
        cls = getattr(download, cls_name, None)
        for method in ("stream", "__iter__"):
            replace(cls, method, lambda self, *a, **k: stop(str(getattr(self, "url", getattr(self, "uri", "a file")))))
    replace(irds.lazy_libs, "requests", lambda: stop("a file over the network"))  # every HTTP request they make
    bars = _reported_bars(irds.lazy_libs.tqdm())
    replace(irds.lazy_libs, "tqdm", lambda: bars)
    level = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield wanted
    finally:
        logging.disable(level)
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def _reported_bars(tqdm: Any) -> Any:
    """tqdm as ir_datasets uses it, drawing nothing itself (qrelkit owns standard error) and
    reporting each bar with a known total to `progress` instead: building its document index
    shows in qrelkit's bar."""
    import io
    from types import SimpleNamespace

    class Reported(tqdm.tqdm):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "file": io.StringIO()})

        def display(self, msg: str | None = None, pos: int | None = None) -> None:
            if self.total:
                progress.report(f"ir_datasets: {self.desc or 'reading'}", int(self.n), int(self.total))

    return SimpleNamespace(tqdm=Reported)


def _failure(exc: Exception, dataset_id: str, wanted: list[str]) -> InputError:
    """ir_datasets' failure as one line: a file it would download, a file it needs that is not
    there, or what it said."""
    fetch = (
        f"let ir_datasets download it where it may (`ir_datasets export {dataset_id} qrels`, "
        "then queries and docs), then import again"
    )
    if wanted:
        return InputError(f"{dataset_id} is not all on this machine: ir_datasets would download {wanted[0]}", fetch)
    if isinstance(exc, FileNotFoundError):
        missing = exc.filename or str(exc)
        return InputError(f"{dataset_id} is not all on this machine: ir_datasets needs {missing}", fetch)
    said = records.clipped(f"{type(exc).__name__}: {exc}")
    return InputError(f"ir_datasets could not read {dataset_id}: {said}", "check the dataset's files")
