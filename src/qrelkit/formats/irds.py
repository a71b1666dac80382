"""Records of an `ir_datasets` dataset (its named tuples) as qrelkit's queries, documents, qrels
and grade levels. Nothing here imports ir_datasets: the records are read by their fields.

Queries: `query_id`; the text is what the record's `default_text()` gives (a TREC topic's title),
else its `text`; `description`, and `narrative` after it, become the query's description (the
assessors' guidelines). Documents: `doc_id`, `title`, the text from `text` (else `body`, else
`default_text()`); every other field whose value is text, a number, true/false or a list of them
is kept as the document's metadata (`url`, ...), the rest is left out and named. Qrels:
`query_id`, `doc_id`, `relevance`; any other field (TREC's `iteration`) is ignored.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any, TypeGuard, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InputError, UsageError
from ..models import DEFINITION_MAX, LEVEL_NAME_MAX, Document, GradeLevel, Query, is_identifier
from .trec import QrelRecord
from .validation import describe

QREL_FIELDS = ("query_id", "doc_id", "relevance")
QUERY_FIELDS = ("query_id", "text", "title", "description", "narrative")
DOC_FIELDS = ("doc_id", "title", "text", "body")
NAME_WORDS = 4
"""A grade definition's head (before its `:`, or the whole of a short one) of at most this many
words, and at most `LEVEL_NAME_MAX` characters, names its level; a longer one is `grade G`."""


def fields_of(cls: Any) -> list[str]:
    """The fields of an ir_datasets record class (a named tuple)."""
    return list(getattr(cls, "_fields", ()))


def clipped(text: str, limit: int = 120) -> str:
    """`text` on one line (white space runs made one space, control characters dropped), cut at
    `limit` characters."""
    flat = " ".join("".join(c for c in str(text) if unicodedata.category(c) != "Cc" or c.isspace()).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def grade_definitions(defs: Any) -> dict[int, str]:
    """`qrels_defs()` as grade -> text (an integer-valued key only; a dataset without any gives {})."""
    if not isinstance(defs, dict):
        return {}
    return {int(g): str(text) for g, text in defs.items() if isinstance(g, int) and not isinstance(g, bool)}


def level(grade: int, text: str) -> GradeLevel:
    """The level `grade` defined by `text`: the whole text (on one line) is its definition; its
    name is the text before a `:` ("Nav: This page ..." -> Nav), or the whole text when short
    ("highly relevant"), else `grade G`."""
    definition = clipped(text, DEFINITION_MAX)
    head, colon, _ = definition.partition(":")
    name = head.strip() if colon else definition
    if not (0 < len(name) <= LEVEL_NAME_MAX and len(name.split()) <= NAME_WORDS):
        name = f"grade {grade}"
    try:
        return GradeLevel(grade=grade, name=name, definition=definition or None)
    except ValueError:  # a character a level's name may not hold (a format control)
        return GradeLevel(grade=grade, name=f"grade {grade}", definition=definition or None)


def qrel(record: Any, source: str, n: int) -> QrelRecord:
    """Record `n` of the dataset's qrels: its query, document and relevance (an integer)."""
    query_id, doc_id, relevance = (getattr(record, name, None) for name in QREL_FIELDS)
    for name, value in (("query_id", query_id), ("doc_id", doc_id)):
        if not isinstance(value, str) or not is_identifier(value):
            raise InputError(
                f"field {name!r} is {value!r:.60}, not a single word", "qrelkit's ids have no white space", path=source,
                line=n,
            )  # fmt: skip
    if isinstance(relevance, float) and relevance.is_integer():
        relevance = int(relevance)
    if not isinstance(relevance, int) or isinstance(relevance, bool):
        raise InputError(
            f"relevance {relevance!r:.40} of query {query_id!r} doc {doc_id!r} is not an integer",
            "qrelkit's grades are integers", path=source, line=n,
        )  # fmt: skip
    return QrelRecord(str(query_id), str(doc_id), relevance, n)


class Queries:
    """Reads a dataset's queries (`read`), each with its stratum: the value of `stratum_field`,
    else `stratum`. Keeps the ids read (`ids`) and names the fields left out (`ignored`)."""

    def __init__(self, cls: Any, stratum_field: str | None, stratum: str, source: str) -> None:
        fields = fields_of(cls)
        if stratum_field is not None and stratum_field not in fields:
            raise UsageError(
                f"--stratum-field {stratum_field!r}: the dataset's queries have no such field",
                f"their fields: {', '.join(fields) or '(none)'}",
            )
        try:
            Query(id="q", text="", stratum=stratum)
        except ValueError:
            raise UsageError(f"invalid stratum {stratum!r}", "names have no spaces or control characters") from None
        self.stratum_field, self.stratum, self.source = stratum_field, stratum, source
        self.ids: set[str] = set()
        self.ignored = [name for name in fields if name not in QUERY_FIELDS and name != stratum_field]

    def read(self, items: Iterable[Any]) -> Iterator[tuple[int, Query]]:
        for n, record in enumerate(items, start=1):
            query = self.query(record, n)
            self.ids.add(query.id)
            yield n, query

    def query(self, record: Any, n: int) -> Query:
        stratum = self.stratum
        if self.stratum_field is not None:
            value = getattr(record, self.stratum_field, None)
            if value is None or str(value).strip() == "":
                raise InputError(
                    f"query {getattr(record, 'query_id', '?')!r} has no {self.stratum_field!r}, so no stratum",
                    "pass --stratum S instead, or import a dataset whose queries all have it",
                    path=self.source, line=n,
                )  # fmt: skip
            stratum = str(value)
        guidelines = [t for f in ("description", "narrative") if _text(t := getattr(record, f, None))]
        fields = {
            "id": getattr(record, "query_id", None),
            "text": _record_text(record, ("text",), prefer_default=True),
            "stratum": stratum,
            "description": "\n\n".join(guidelines) or None,
        }
        return _validated(Query, fields, self.source, n, "query")


class Documents:
    """Reads a dataset's documents (`read`); `seen`: the ids of `wanted` read, `ignored`: the
    fields left out of some document's metadata (not text, a number or a list of them)."""

    def __init__(self, source: str, wanted: set[str]) -> None:
        self.source, self.wanted = source, wanted
        self.seen: set[str] = set()
        self.ignored: set[str] = set()

    def read(self, items: Iterable[Any]) -> Iterator[tuple[int, Document]]:
        for n, record in enumerate(items, start=1):
            doc = self.document(record, n)
            if doc.id in self.wanted:
                self.seen.add(doc.id)
            yield n, doc

    def document(self, record: Any, n: int) -> Document:
        text_field = next((f for f in ("text", "body") if _text(getattr(record, f, None))), None)
        metadata: dict[str, Any] = {}
        for name in fields_of(type(record)):
            if name in DOC_FIELDS[:2] or name == text_field:
                continue
            value = _json(getattr(record, name))
            if value is _LEFT_OUT:
                self.ignored.add(name)
            else:
                metadata[name] = value
        title = getattr(record, "title", "")
        fields = {
            "id": getattr(record, "doc_id", None),
            "title": title if isinstance(title, str) else "",
            "text": _record_text(record, (text_field,) if text_field else (), prefer_default=False),
            "metadata": metadata or None,
        }
        return _validated(Document, fields, self.source, n, "document")


_LEFT_OUT = object()


def _json(value: Any) -> Any:
    """`value` as document metadata keeps it, or `_LEFT_OUT` (bytes, a nested record, NaN...)."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _LEFT_OUT
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        items = [_json(v) for v in value]
        ok = all(not isinstance(v, list) and v is not _LEFT_OUT for v in items)
        return items if ok else _LEFT_OUT
    return _LEFT_OUT


def _text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and value.strip() != ""


def _record_text(record: Any, fields: tuple[str, ...], *, prefer_default: bool) -> str:
    """The record's text: its `default_text()` first when `prefer_default`, else the first of
    `fields` that holds text, else `default_text()`, else ""."""
    default = getattr(record, "default_text", None)
    if prefer_default and callable(default) and isinstance(found := default(), str):
        return found
    for name in fields:
        value = getattr(record, name, None)
        if isinstance(value, str):
            return value
    if callable(default) and isinstance(found := default(), str):
        return found
    return ""


M = TypeVar("M", bound=BaseModel)


def _validated(model: type[M], fields: dict[str, Any], source: str, n: int, what: str) -> M:
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise InputError(
            f"{what} {fields.get('id')!r:.60}: {describe(exc)}", "fix the dataset's record", path=source, line=n
        ) from None
