"""Imports into the store, each one transaction: queries (JSONL or TSV), documents, qrels,
judgment logs and BEIR folders. An input with nothing in it is an error (usually the wrong file)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import InputError, UsageError
from ..formats import beir, jsonl, tsv
from ..formats.paths import display
from ..formats.reading import is_stream, read_blocks
from ..models import DEFAULT_STRATUM, Judgment, Query, check_assessor
from ..storage import JudgmentsImported, Store
from ..storage import UnknownQueries as UnknownQueries  # for the CLI's summary of what was skipped

QueryFormat = Literal["auto", "jsonl", "tsv"]


def refuse_empty(n: int, path: Path, what: str) -> int:
    """`n`, unless it is 0: then the input held no `what` (nothing was written)."""
    if n == 0:
        raise InputError(f"no {what} in the file", "is this the right file?", path=display(path))
    return n


def import_queries(
    store: Store, path: Path, *, fmt: QueryFormat = "auto", create_strata: bool = False, stratum: str | None = None
) -> int:
    """Queries from JSONL (id, text, stratum, description) or TSV (id, text[, stratum]); `auto`:
    .jsonl / .ndjson, or a first line that is a JSON object with an `id`, is JSON Lines, anything
    else TSV. A line without a stratum takes `stratum`,
    else keeps the stored query's; a new query without one is an error naming the line."""
    if stratum is not None:
        try:
            Query(id="q", text="", stratum=stratum)
        except ValueError:
            raise UsageError(f"invalid stratum {stratum!r}", "names have no spaces or control characters") from None
    from ..formats.runs import has_json_suffix, is_jsonl, looks_like_json_lines

    if fmt == "auto" and has_json_suffix(path):
        raise InputError(
            "a .json file is one JSON document; queries are JSON Lines or TSV",
            "pass --format jsonl",
            path=display(path),
        )
    use_jsonl = fmt == "jsonl" or (fmt == "auto" and (is_jsonl(path) or looks_like_json_lines(path, "id")))
    items: Iterator[tuple[int, Query]] = jsonl.read_queries(path) if use_jsonl else tsv.read_queries(path)
    items = _with_strata(store, items, stratum, display(path))
    done = store.imports.queries(items, source=display(path), create_strata=create_strata)
    return refuse_empty(done, path, "queries")


def _with_strata(
    store: Store, items: Iterator[tuple[int, Query]], stratum: str | None, source: str
) -> Iterator[tuple[int, Query]]:
    """Each query with a stratum: its own, else `stratum`, else the stored query's."""
    stored = store.settings.query_strata()
    for lineno, q in items:
        if "stratum" not in q.model_fields_set:
            fill = stratum if stratum is not None else stored.get(q.id)
            if fill is None:
                raise InputError(
                    f"query {q.id!r} has no stratum",
                    'give each line one (a third TSV column, a JSON "stratum" field), '
                    "or pass --stratum S for the whole file",
                    path=source,
                    line=lineno,
                )
            q = q.model_copy(update={"stratum": fill})
        yield lineno, q


def import_documents(store: Store, path: Path) -> int:
    """Documents from JSONL: `id` (or `_id`), `title`, `text`; any other field is kept as the
    document's metadata (see `formats.jsonl.document_from`)."""
    docs = jsonl.read_documents(path)
    return refuse_empty(store.imports.documents(docs, source=display(path)), path, "documents")


SKIP_HINT = "import their queries first (qrelkit import queries FILE), or pass --skip-unknown to skip their lines"


def unknown_queries(skip: bool) -> UnknownQueries:
    """What `import qrels` and `import judgments` (`--skip-unknown`) do with lines of queries not
    in the golden set: skip them, or refuse the file with a hint of the option; counted either way."""
    return UnknownQueries(skip=skip, hint=SKIP_HINT)


def import_qrels(
    store: Store, path: Path, *, assessor: str = "qrels", unknown: UnknownQueries | None = None
) -> tuple[int, int]:
    """Qrels (TREC; 3-field TSV after a header; JSONL as `export qrels` writes it; a JSON dict;
    `-` for standard input) as graded events by `assessor`; negative grades go to the pool as
    unjudged. (labels, pooled). The store finds repeated pairs (streaming), so the reader does not.
    Lines of queries not in the golden set are refused or skipped, and counted, as `unknown`
    says (`unknown_queries`; default: refused).

    A TREC file goes first through the columnar parser, a block of rows at a time; on anything
    that parser or the store's bulk import gives up on (nothing is written then), the exact reader
    reads it again and names the line. Standard input and pipes go to the exact reader only: the
    parser finds a repeated pair after the last block, and such an input may never end."""
    from ..formats.runs import file_kind, read_qrels_records

    check_assessor(assessor, "--assessor")
    kind = file_kind(path)
    unknown = UnknownQueries() if unknown is None else unknown
    counts = _import_trec_qrels(store, path, assessor, unknown) if kind == "trec" and not is_stream(path) else None
    if counts is None:
        records = read_qrels_records(path, check_repeats=False, kind=kind)
        counts = store.imports.qrels(records, source=display(path), assessor=assessor, unknown=unknown)
    labels, pooled = counts
    refuse_empty(labels + pooled + unknown.lines, path, "qrels lines")
    return labels, pooled


QRELS_BLOCK_BYTES = 1 << 20
"""The columnar qrels import reads this much at a time (about 50,000 lines): small temporaries."""


def _import_trec_qrels(store: Store, path: Path, assessor: str, unknown: UnknownQueries) -> tuple[int, int] | None:
    """The fast path of `import_qrels`: None when it gave up (an unreadable file too: the exact
    reader says so, naming the line; a query not in the golden set that `unknown` does not skip:
    the exact reader counts them, naming the first line)."""
    from ..formats.qrels_rows import qrels_rows  # numpy loads here, for a bulk import

    try:
        blocks = read_blocks(path, QRELS_BLOCK_BYTES)
        with contextlib.closing(blocks), contextlib.closing(qrels_rows(blocks)) as rows:
            return store.imports.qrel_rows(rows, source=display(path), assessor=assessor, unknown=unknown)
    except InputError:
        return None


JUDGMENT_HINT = 'lines are {"query_id": ..., "doc_id": ..., "state": "graded", "grade": 2, "assessor": ...}'


def import_judgments(store: Store, path: Path, *, unknown: UnknownQueries | None = None) -> JudgmentsImported:
    """A judgments JSONL event log (as `export judgments` writes it). Events already in the log,
    or repeated in the file, are skipped and counted (`Imports.judgments`); events on queries not
    in the golden set are refused or skipped, and counted, as `unknown` says (default: refused)."""
    unknown = UnknownQueries() if unknown is None else unknown
    events = jsonl.read_models(path, Judgment, JUDGMENT_HINT)
    done = store.imports.judgments(events, source=display(path), unknown=unknown)
    refuse_empty(done.written + done.in_log + done.in_file + unknown.lines, path, "judgment events")
    return done


@dataclass(frozen=True)
class BeirImport:
    documents: int
    queries: int
    labels: int
    pooled: int


def import_beir(
    store: Store, folder: Path, *, split: str = "test", stratum: str = DEFAULT_STRATUM, assessor: str = "beir"
) -> BeirImport:
    """A BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv), all in one transaction."""
    check_assessor(assessor, "--assessor")
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "no such folder"
        raise InputError(
            what, "give a BEIR folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv", path=str(folder)
        )
    qrels_path = beir.split_path(folder, split)
    with store.transaction():
        nd = store.imports.documents(beir.read_corpus_lines(folder), source=str(beir.corpus_path(folder)))
        nq = store.imports.queries(
            beir.read_queries(folder, stratum), source=display(beir.queries_path(folder)), create_strata=True
        )
        nl, npool = store.imports.qrels(beir.read_qrels(qrels_path), source=str(qrels_path), assessor=assessor)
    return BeirImport(documents=nd, queries=nq, labels=nl, pooled=npool)
