"""TREC qrels (`QID ITER DOCID GRADE`) and run (`QID Q0 DOCID RANK SCORE TAG`) files.

A negative grade in a qrels file is the TREC convention for "pooled but not judged": readers
return it as such and never as a label. The rank column of a run is ignored (trec_eval ranks by
score); scores must be finite numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from typing import IO, NamedTuple

from ..errors import InputError
from ..models import Label
from ._io import PathLike, check_id, display, read_lines, refuse_repeat

QRELS_HINT = "qrels lines are 'QUERY_ID ITERATION DOC_ID GRADE' with an integer grade"
RUN_HINT = "run lines are 'QUERY_ID Q0 DOC_ID RANK SCORE RUN_NAME' with a numeric score"
RUN_REPEAT_HINT = "a run lists each document at most once per query"


class QrelRecord(NamedTuple):
    query_id: str
    doc_id: str
    grade: int
    """Negative: pooled but not judged."""
    line: int


class RunRecord(NamedTuple):
    query_id: str
    doc_id: str
    score: float
    line: int


_GRADE = re.compile(r"-?[0-9]+")
_SEPARATOR = re.compile(r"[ \t\n\v\f\r]+")
"""What separates fields: C's isspace, as trec_eval reads them (Python's `str.split` also splits on
\\x1c-\\x1f and \\x85, which would let a control character pass as a separator)."""


def split_fields(text: str) -> list[str]:
    """The white-space separated fields of a TREC line."""
    return _SEPARATOR.split(text.strip(" \t\n\v\f\r")) if text.strip(" \t\n\v\f\r") else []


def parse_grade(text: str) -> int | None:
    """An integer grade written in ASCII digits with an optional minus (as trec_eval reads them);
    None for anything else (`+2`, `1_0`, `٣`, `2.0`)."""
    return int(text) if _GRADE.fullmatch(text) else None


def _skip(text: str) -> bool:
    return not text.strip() or text.lstrip().startswith("#")


def read_qrels(path: PathLike, *, check_repeats: bool = True) -> Iterator[QrelRecord]:
    """Stream a TREC qrels file; a duplicate (query, doc) is an error naming both lines.

    Finding duplicates keeps every pair in memory; `check_repeats=False` leaves that to the
    caller (the store's import finds them on disk, so a 10-million-line file stays streamed)."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, text in read_lines(path):
        if _skip(text):
            continue
        fields = split_fields(text)
        if len(fields) != 4:
            raise InputError(f"expected 4 fields, found {len(fields)}", QRELS_HINT, path=name, line=lineno)
        qid, _, docid, grade_text = fields
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        grade = parse_grade(grade_text)
        if grade is None:
            raise InputError(
                f"grade {grade_text!r} is not an integer in ASCII digits", QRELS_HINT, path=name, line=lineno
            )
        if abs(grade) > 1_000_000:
            raise InputError(f"grade {grade} is out of range", QRELS_HINT, path=name, line=lineno)
        if check_repeats:
            message = f"duplicate judgment for query {qid!r} doc {docid!r}"
            refuse_repeat(seen, (qid, docid), lineno, message, "keep one line per (query, doc) pair", name)
        yield QrelRecord(qid, docid, grade, lineno)


def read_run(path: PathLike) -> Iterator[RunRecord]:
    """Stream a TREC run file; a duplicate (query, doc) is an error naming both lines."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, text in read_lines(path):
        if _skip(text):
            continue
        fields = split_fields(text)
        if len(fields) != 6:
            raise InputError(f"expected 6 fields, found {len(fields)}", RUN_HINT, path=name, line=lineno)
        qid, _, docid, _, score_text, _ = fields
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        try:
            score = float(score_text)
        except ValueError:
            raise InputError(f"score {score_text!r} is not a number", RUN_HINT, path=name, line=lineno) from None
        if not math.isfinite(score):
            raise InputError(f"score {score_text!r} is not finite", RUN_HINT, path=name, line=lineno)
        message = f"document {docid!r} appears twice for query {qid!r}"
        refuse_repeat(seen, (qid, docid), lineno, message, RUN_REPEAT_HINT, name)
        yield RunRecord(qid, docid, score, lineno)


def write_qrels(labels: Iterable[Label], out: IO[str], *, presorted: bool = False) -> int:
    """Write graded labels as TREC qrels, sorted by query then doc (`presorted`: they come so,
    and stream); returns the line count."""
    n = 0
    ordered = labels if presorted else sorted(labels, key=lambda lab: (lab.query_id, lab.doc_id))
    for label in ordered:
        out.write(f"{label.query_id} 0 {label.doc_id} {label.grade}\n")
        n += 1
    return n
