"""Qrels and runs given from Python (`qrelkit.evaluate`) as rows, whatever shape they come in:

- a dict of dicts, as pytrec_eval and ranx take them: `{"q1": {"d1": 2}}`;
- any iterable of records: ir_measures' `Qrel(query_id, doc_id, relevance)` and
  `ScoredDoc(query_id, doc_id, score)` namedtuples, `qrelkit.Label`, plain tuples
  `(query_id, doc_id, relevance)` / `(query_id, doc_id, score)` (extra items ignored), or dicts
  with `query_id`, `doc_id` and `relevance` (or `grade`) / `score`.

A record that fits none of these, or a grade that is not an integer, is a `UsageError` naming
the record's position.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import UsageError
from .trec import GRADE_MAX, GRADE_MIN

Row = tuple[str, str, float]

_QRELS_HINT = "give qrels as {query: {doc: grade}}, or (query_id, doc_id, relevance) records"
_RUN_HINT = "give a run as {query: {doc: score}}, or (query_id, doc_id, score) records"


def _fields(record: Any, value_names: tuple[str, ...]) -> tuple[Any, Any, Any] | None:
    """(query, doc, value) of one record, by name (attributes or keys) or by position."""
    if isinstance(record, Mapping):
        value = next((record[n] for n in value_names if n in record), None)
        return record.get("query_id"), record.get("doc_id"), value
    if hasattr(record, "query_id") and hasattr(record, "doc_id"):
        value = next((getattr(record, n) for n in value_names if hasattr(record, n)), None)
        return record.query_id, record.doc_id, value
    if isinstance(record, tuple | list) and len(record) >= 3:
        return record[0], record[1], record[2]
    return None


def _ids(query: Any, doc: Any, at: int, hint: str) -> tuple[str, str]:
    if not isinstance(query, str | int) or not isinstance(doc, str | int) or isinstance(query, bool):
        raise UsageError(f"record {at}: query_id and doc_id must be strings (found {query!r:.40}, {doc!r:.40})", hint)
    return str(query), str(doc)


def _grade(value: Any, where: str) -> int:
    grade: int | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, numbers.Integral):
        grade = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        grade = int(float(value))  # 2.0, as pandas gives integer columns with gaps
    if grade is None:
        raise UsageError(f"{where}: the grade {value!r:.40} is not an integer", _QRELS_HINT)
    if not GRADE_MIN <= grade <= GRADE_MAX:
        raise UsageError(f"{where}: the grade {grade!r:.40} is out of range", "grades fit a signed 32-bit int")
    return grade


def _score(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise UsageError(f"{where}: the score {value!r:.40} is not a finite number", _RUN_HINT)
    return float(value)


def _nested(data: Mapping[Any, Any], hint: str) -> None:
    """A dict of dicts: each query maps to a dict of documents."""
    for q, docs in data.items():
        if not isinstance(docs, Mapping):
            raise UsageError(f"query {q!r:.40} maps to {type(docs).__name__}, not a dict of documents", hint)


def qrels_rows(qrels: Mapping[Any, Mapping[Any, Any]] | Iterable[Any]) -> tuple[list[Row], list[str]]:
    """(query, doc, grade) rows and the queries in first-seen order (a query with an empty dict
    of judgments counts as a query)."""
    if isinstance(qrels, Mapping):
        _nested(qrels, _QRELS_HINT)
        rows = [
            (str(q), str(d), float(_grade(g, f"query {q!r:.40} doc {d!r:.40}")))
            for q, docs in qrels.items()
            for d, g in docs.items()
        ]
        return rows, [str(q) for q in qrels]
    rows = []
    for at, record in enumerate(qrels, 1):
        found = _fields(record, ("relevance", "grade"))
        if found is None:
            raise UsageError(f"record {at}: {record!r:.60} is no (query_id, doc_id, relevance) record", _QRELS_HINT)
        query, doc = _ids(found[0], found[1], at, _QRELS_HINT)
        rows.append((query, doc, float(_grade(found[2], f"record {at}"))))
    return rows, list(dict.fromkeys(r[0] for r in rows))


def run_rows(run: Mapping[Any, Mapping[Any, Any]] | Iterable[Any]) -> list[Row]:
    """(query, doc, score) rows."""
    if isinstance(run, Mapping):
        _nested(run, _RUN_HINT)
        return [
            (str(q), str(d), _score(s, f"query {q!r:.40} doc {d!r:.40}"))
            for q, docs in run.items()
            for d, s in docs.items()
        ]
    rows = []
    for at, record in enumerate(run, 1):
        found = _fields(record, ("score",))
        if found is None:
            raise UsageError(f"record {at}: {record!r:.60} is no (query_id, doc_id, score) record", _RUN_HINT)
        query, doc = _ids(found[0], found[1], at, _RUN_HINT)
        rows.append((query, doc, _score(found[2], f"record {at}")))
    return rows
