"""Qrels and runs given from Python (`qrelkit.evaluate`) as rows, whatever shape they come in:

- a dict of dicts, as pytrec_eval and ranx take them: `{"q1": {"d1": 2}}`;
- a data frame (pandas, or anything with `columns` and `itertuples`) with ir_measures' columns
  `query_id`, `doc_id`, `relevance` / `score`, or PyTerrier's `qid`, `docno`, `label` / `score`;
  a `state` column (`qrelkit.load(...).qrels_frame(states=True)`) marks the pooled-unjudged and
  skipped rows, read as pooled, not judged (grade -1);
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
from typing import Any, Protocol, cast

from ..errors import UsageError
from .trec import GRADE_MAX, GRADE_MIN

Row = tuple[str, str, float]


class FrameLike(Protocol):
    """A data frame (pandas'): named columns, rows."""

    @property
    def columns(self) -> Any: ...

    def itertuples(self, *args: Any, **kwargs: Any) -> Any: ...


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


def _ids(query: Any, doc: Any, at: int, hint: str, *, what: str = "record") -> tuple[str, str]:
    if not isinstance(query, str | int) or not isinstance(doc, str | int) or isinstance(query, bool):
        raise UsageError(f"{what} {at}: query_id and doc_id must be strings (found {query!r:.40}, {doc!r:.40})", hint)
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


_FRAME_IDS = (("query_id", "doc_id"), ("qid", "docno"))


def _frame(data: Any, values: tuple[str, ...], hint: str) -> list[tuple[Any, Any, Any, Any]] | None:
    """A data frame's (query, doc, value, state) cells by row (None: `data` is no frame)."""
    columns = getattr(data, "columns", None)
    if columns is None or not hasattr(data, "itertuples"):
        return None
    have = [str(c) for c in columns]
    for query, doc in _FRAME_IDS:
        value = next((v for v in values if v in have), None)
        if query in have and doc in have and value is not None:
            state = data["state"].tolist() if "state" in have else [None] * len(data)
            cells = (data[query].tolist(), data[doc].tolist(), data[value].tolist(), state)
            return list(zip(*cells, strict=True))
    raise UsageError(f"a data frame with columns {have!r:.80} has no query, document and {values[0]} columns", hint)


def _frame_qrels(cells: list[tuple[Any, Any, Any, Any]]) -> list[Row]:
    rows = []
    for at, (query, doc, value, state) in enumerate(cells, 1):
        q, d = _ids(query, doc, at, _QRELS_HINT, what="row")
        if state is not None and state != "graded":
            if state not in ("unlabeled", "skipped"):
                raise UsageError(f"row {at}: state {state!r:.40} is not graded, unlabeled or skipped", _QRELS_HINT)
            rows.append((q, d, -1.0))  # pooled, not judged
        else:
            rows.append((q, d, float(_grade(value, f"row {at}"))))
    return rows


def qrels_rows(qrels: Mapping[Any, Mapping[Any, Any]] | Iterable[Any] | FrameLike) -> tuple[list[Row], list[str]]:
    """(query, doc, grade) rows and the queries in first-seen order (a query with an empty dict
    of judgments counts as a query)."""
    cells = _frame(qrels, ("relevance", "label", "grade"), _QRELS_HINT)
    if cells is not None:
        rows = _frame_qrels(cells)
        return rows, list(dict.fromkeys(r[0] for r in rows))
    if isinstance(qrels, Mapping):
        _nested(qrels, _QRELS_HINT)
        rows = [
            (str(q), str(d), float(_grade(g, f"query {q!r:.40} doc {d!r:.40}")))
            for q, docs in qrels.items()
            for d, g in docs.items()
        ]
        return rows, [str(q) for q in qrels]
    rows = []
    for at, record in enumerate(cast(Iterable[Any], qrels), 1):
        found = _fields(record, ("relevance", "grade"))
        if found is None:
            raise UsageError(f"record {at}: {record!r:.60} is no (query_id, doc_id, relevance) record", _QRELS_HINT)
        query, doc = _ids(found[0], found[1], at, _QRELS_HINT)
        rows.append((query, doc, float(_grade(found[2], f"record {at}"))))
    return rows, list(dict.fromkeys(r[0] for r in rows))


def run_rows(run: Mapping[Any, Mapping[Any, Any]] | Iterable[Any] | FrameLike) -> list[Row]:
    """(query, doc, score) rows."""
    cells = _frame(run, ("score",), _RUN_HINT)
    if cells is not None:
        return [
            (*_ids(q, d, at, _RUN_HINT, what="row"), _score(s, f"row {at}")) for at, (q, d, s, _) in enumerate(cells, 1)
        ]
    if isinstance(run, Mapping):
        _nested(run, _RUN_HINT)
        return [
            (str(q), str(d), _score(s, f"query {q!r:.40} doc {d!r:.40}"))
            for q, docs in run.items()
            for d, s in docs.items()
        ]
    rows = []
    for at, record in enumerate(cast(Iterable[Any], run), 1):
        found = _fields(record, ("score",))
        if found is None:
            raise UsageError(f"record {at}: {record!r:.60} is no (query_id, doc_id, score) record", _RUN_HINT)
        query, doc = _ids(found[0], found[1], at, _RUN_HINT)
        rows.append((query, doc, _score(found[2], f"record {at}")))
    return rows
