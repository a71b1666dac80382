"""BEIR folders: `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..models import Document, Query
from .ids import check_id, refuse_repeat
from .jsonl import document_from, read_objects, validate
from .paths import PathLike, display
from .reading import read_lines
from .trec import QrelRecord

QRELS_HINT = "BEIR qrels lines are 'query-id<TAB>corpus-id<TAB>score' after a header line"


def _gz(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder / f"{name}.gz"):
        if candidate.exists():
            return candidate
    raise InputError(
        f"no {name} in this BEIR folder",
        "a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv",
        path=display(folder),
    )


def _id(obj: dict[str, object], path: Path, lineno: int) -> str:
    value = obj.get("_id", obj.get("id"))
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise InputError("missing '_id'", "each line needs an '_id' string", path=display(path), line=lineno)
    return check_id(str(value), "document" if path.name.startswith("corpus") else "query", display(path), lineno)


def corpus_path(folder: PathLike) -> Path:
    return _gz(Path(folder), "corpus.jsonl")


def read_corpus_lines(folder: PathLike) -> Iterator[tuple[int, Document]]:
    """(line number, document) for each line of the corpus; fields besides `_id`, `title` and
    `text` (a `metadata` object, `url`) are kept as the document's metadata."""
    path = corpus_path(folder)
    name = display(path)
    for lineno, obj in read_objects(path):
        fields = {k: v for k, v in obj.items() if k not in ("_id", "id", "title", "text")}
        known = {"id": _id(obj, path, lineno), "title": str(obj.get("title") or ""), "text": str(obj.get("text") or "")}
        yield lineno, document_from({**fields, **known}, name, lineno)  # other fields: metadata


def read_queries(folder: PathLike, stratum: str) -> Iterator[tuple[int, Query]]:
    """(line number, query) for each line of `queries.jsonl`, every query in `stratum`."""
    path = queries_path(folder)
    for lineno, obj in read_objects(path):
        given = {"id": _id(obj, path, lineno), "text": str(obj.get("text") or ""), "stratum": stratum}
        yield lineno, validate(Query, given, "each line needs an '_id' and a 'text'", display(path), lineno)


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
