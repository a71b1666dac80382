"""BEIR folders: `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Document, Query
from .ids import check_id, refuse_repeat
from .jsonl import document_from, read_objects, validate
from .paths import PathLike, display
from .reading import read_lines
from .trec import QrelRecord

QRELS_HINT = "BEIR qrels lines are 'query-id<TAB>corpus-id<TAB>score' after a header line"
QRELS_ROW_HINT = 'qrels records are {"query-id": "...", "corpus-id": "...", "score": 2} (an integer score)'


def _gz(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.exists():
            return candidate
    raise InputError(
        f"no {name} in this BEIR folder",
        "a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv",
        path=display(folder),
    )


def _id(obj: dict[str, object], what: str, name: str, lineno: int) -> str:
    value = obj.get("_id", obj.get("id"))
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise InputError("missing '_id'", "each line needs an '_id' string", path=name, line=lineno)
    return check_id(str(value), what, name, lineno)


def corpus_path(folder: PathLike) -> Path:
    return _gz(Path(folder), "corpus.jsonl")


def corpus_document(obj: dict[str, Any], name: str, lineno: int) -> Document:
    """A document from one corpus record (a JSON line, a Parquet row): `_id`, `title`, `text`;
    the other fields (a `metadata` object, `url`) are kept as the document's metadata."""
    fields = {k: v for k, v in obj.items() if k not in ("_id", "id", "title", "text")}
    known = {"id": _id(obj, "document", name, lineno), "title": str(obj.get("title") or ""),
             "text": str(obj.get("text") or "")}  # fmt: skip
    return document_from({**fields, **known}, name, lineno)  # other fields: metadata


def read_corpus_lines(folder: PathLike) -> Iterator[tuple[int, Document]]:
    """(line number, document) for each line of the corpus (see `corpus_document`)."""
    path = corpus_path(folder)
    name = display(path)
    for lineno, obj in read_objects(path):
        yield lineno, corpus_document(obj, name, lineno)


QUERY_HINT = "each line needs an '_id' and a 'text'"


def query_from(obj: dict[str, Any], name: str, lineno: int, stratum: str, **more: Any) -> Query:
    """A query from one queries record: `_id`, `text`, in `stratum`; `more` (a description) as given."""
    given = {"id": _id(obj, "query", name, lineno), "text": str(obj.get("text") or ""), "stratum": stratum, **more}
    return validate(Query, given, QUERY_HINT, name, lineno)


def read_queries(folder: PathLike, stratum: str) -> Iterator[tuple[int, Query]]:
    """(line number, query) for each line of `queries.jsonl`, every query in `stratum`."""
    path = queries_path(folder)
    name = display(path)
    for lineno, obj in read_objects(path):
        yield lineno, query_from(obj, name, lineno, stratum)


def queries_path(folder: PathLike) -> Path:
    return _gz(Path(folder), "queries.jsonl")


def split_path(folder: PathLike, split: str) -> Path:
    return _gz(Path(folder) / "qrels", f"{split}.tsv")


def read_qrels(path: PathLike) -> Iterator[QrelRecord]:
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, text in read_lines(path):
        if not text.strip():
            continue
        fields = text.split("\t")
        if lineno == 1 and not fields[-1].strip().lstrip("-").isdigit():
            continue  # header line
        if len(fields) != 3:
            raise InputError(
                f"expected 3 tab-separated fields, found {len(fields)}", QRELS_HINT, path=name, line=lineno
            )
        qid, docid, grade_text = (f.strip() for f in fields)
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        try:
            grade = int(grade_text)
        except ValueError:
            raise InputError(f"score {grade_text!r} is not an integer", QRELS_HINT, path=name, line=lineno) from None
        refuse_repeat(
            seen,
            (qid, docid),
            lineno,
            f"duplicate judgment for query {qid!r} doc {docid!r}",
            "keep one line per (query, doc) pair",
            name,
        )
        yield QrelRecord(qid, docid, grade, lineno)


def qrel_from(obj: dict[str, Any], name: str, lineno: int) -> QrelRecord:
    """A qrels record as JSON Lines and Parquet qrels hold them (MTEB's `default` config): `query-id`,
    `corpus-id` and an integer `score` (a whole float, as a Parquet double column holds it, too)."""
    ids = []
    for key, what in (("query-id", "query"), ("corpus-id", "document")):
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            raise InputError(f"field {key!r} must be a non-empty string", QRELS_ROW_HINT, path=name, line=lineno)
        ids.append(check_id(value, what, name, lineno))
    score = obj.get("score")
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    if not isinstance(score, int) or isinstance(score, bool):
        raise InputError(f"field 'score' must be an integer (found {score!r:.40})", QRELS_ROW_HINT,
                         path=name, line=lineno)  # fmt: skip
    return QrelRecord(ids[0], ids[1], score, lineno)
