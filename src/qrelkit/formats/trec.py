"""TREC qrels (`QID ITER DOCID GRADE`) and run files.

A run line is `QID Q0 DOCID RANK SCORE TAG`, trec_eval's layout: trec_eval reads the first six
fields and ignores any after them (its own test run `results.trunc` has lines of 6 to 9 fields);
ir_measures and pytrec_eval read exactly these six. qrelkit also reads two short layouts (see
`RUN_LAYOUTS`), which none of those three reads: 3 fields `QID DOCID SCORE` (the columns of a
score table or a BEIR-style TSV), and 4 fields `QID DOCID RANK SCORE` (the six without `Q0` and
the tag; the rank is ignored, as in the six). A 3-field file whose third column holds ranks (MS
MARCO's `qid pid rank`) is read as scores all the same: convert it first. The first line decides
the layout and every line follows it (6 stands for 6 or more). A first line that names its
columns (`qid docid score`, `query-id corpus-id score`) is a header and is skipped.

A qrels line is `QID ITER DOCID GRADE`; after a header row (`query-id corpus-id score`, as BEIR
writes them) a qrels file may have 3 fields, `QID DOCID GRADE`.

A negative grade in a qrels file is the TREC convention for "pooled but not judged": readers
return it as such and never as a label. Grades are integers that fit a signed 32-bit int (as
trec_eval stores them). The rank column of a run is ignored (trec_eval ranks by score); scores
must be finite numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from typing import IO, NamedTuple

from ..errors import InputError
from ..models import Label
from ._io import PathLike, check_id, display, read_lines, refuse_repeat

QRELS_HINT = (
    "qrels lines are 'QUERY_ID ITERATION DOC_ID GRADE' with an integer grade "
    "(or 'QUERY_ID DOC_ID GRADE' after a 'query-id corpus-id score' header)"
)
RUN_HINT = (
    "run lines are 'QUERY_ID Q0 DOC_ID RANK SCORE RUN_NAME' (extra fields ignored), "
    "'QUERY_ID DOC_ID SCORE' or 'QUERY_ID DOC_ID RANK SCORE', with a numeric score"
)
RUN_REPEAT_HINT = "a run lists each document at most once per query"
GRADE_MIN, GRADE_MAX = -(2**31), 2**31 - 1
"""The grades a reader accepts: a signed 32-bit int, what trec_eval stores."""

RUN_LAYOUTS: dict[int, tuple[int, int, int]] = {3: (0, 1, 2), 4: (0, 1, 3), 6: (0, 2, 4)}
"""Run fields -> the positions of (query, doc, score); 6 stands for 6 or more."""
QRELS_LAYOUTS: dict[int, tuple[int, int, int]] = {3: (0, 1, 2), 4: (0, 2, 3)}
"""Qrels fields -> the positions of (query, doc, grade); 3 only after a header row."""

HEADER_NAMES = frozenset({"qid", "query", "query_id", "query-id", "queryid", "topic", "topic_id", "topicid"})
"""A first line whose first field is one of these (any case) and whose value is no number is a
header row, skipped."""


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


def check_grade(text: str, path: str, line: int, hint: str = QRELS_HINT) -> int:
    """A grade as read from a file: ASCII digits that fit a signed 32-bit int."""
    grade = parse_grade(text)
    if grade is None:
        raise InputError(f"grade {text[:40]!r} is not an integer in ASCII digits", hint, path=path, line=line)
    if not GRADE_MIN <= grade <= GRADE_MAX:
        raise InputError(
            f"grade {text[:40]} is out of range", f"grades fit a signed 32-bit int ({GRADE_MIN}..{GRADE_MAX})",
            path=path, line=line,
        )  # fmt: skip
    return grade


def is_header(fields: list[str], value_field: int) -> bool:
    """Whether a first line names its columns (`qid docid score`): skipped, not read as data."""
    if not fields or fields[0].lower() not in HEADER_NAMES or len(fields) <= value_field:
        return False
    try:
        float(fields[value_field])
    except ValueError:
        return True
    return False


def run_layout(nfields: int) -> tuple[int, int, int] | None:
    """The (query, doc, score) positions of a run line with `nfields` fields; None if no layout."""
    return RUN_LAYOUTS.get(min(nfields, 6)) if nfields != 5 else None


def _skip(text: str) -> bool:
    return not text.strip() or text.lstrip().startswith("#")


def read_qrels(path: PathLike, *, check_repeats: bool = True) -> Iterator[QrelRecord]:
    """Stream a TREC qrels file (or a 3-field `query-id corpus-id score` file after its header
    row, as BEIR writes them); a duplicate (query, doc) is an error naming both lines.

    Finding duplicates keeps every pair in memory; `check_repeats=False` leaves that to the
    caller (the store's import finds them on disk, so a 10-million-line file stays streamed)."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, qid, docid, grade_text in _rows(path, "qrels"):
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        grade = check_grade(grade_text, name, lineno)
        if check_repeats:
            message = f"duplicate judgment for query {qid!r} doc {docid!r}"
            refuse_repeat(seen, (qid, docid), lineno, message, "keep one line per (query, doc) pair", name)
        yield QrelRecord(qid, docid, grade, lineno)


def layout_of(fields: list[str], kind: str) -> tuple[int, bool] | None:
    """The layout a first line sets: (field count, whether it is a header row to skip); None when
    no layout has that many fields. Runs: 3, 4 or 6 (6 or more); qrels: 4, or 3 after a header."""
    n = len(fields)
    if kind == "run":
        layout = run_layout(n)
        return None if layout is None else (min(n, 6), is_header(fields, layout[2]))
    if n in (3, 4) and is_header(fields, n - 1):
        return n, True
    return (4, False) if n == 4 else None


def _rows(path: PathLike, kind: str) -> Iterator[tuple[int, str, str, str]]:
    """(line, query, doc, value text) of each data line, the layout set by the first line."""
    name = display(path)
    layouts, hint = (RUN_LAYOUTS, RUN_HINT) if kind == "run" else (QRELS_LAYOUTS, QRELS_HINT)
    layout = 0
    for lineno, text in read_lines(path):
        if _skip(text):
            continue
        fields = split_fields(text)
        if not layout:
            found = layout_of(fields, kind)
            if found is None:
                want = "6 fields (or 3 or 4)" if kind == "run" else "4 fields"
                raise InputError(f"expected {want}, found {len(fields)}", hint, path=name, line=lineno)
            layout, header = found
            if header:
                continue
        if len(fields) != layout and not (layout == 6 and len(fields) > 6):
            more = " or more" if layout == 6 else ""
            raise InputError(
                f"expected {layout}{more} fields, found {len(fields)} (as the first line sets)",
                hint,
                path=name,
                line=lineno,
            )
        q_at, d_at, v_at = layouts[layout]
        yield lineno, fields[q_at], fields[d_at], fields[v_at]


def parse_score(text: str, name: str, lineno: int, hint: str = RUN_HINT) -> float:
    """A finite score, as read from a file."""
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"score {text[:40]!r} is not a number", hint, path=name, line=lineno) from None
    if not math.isfinite(score):
        raise InputError(f"score {text[:40]!r} is not finite", hint, path=name, line=lineno)
    return score


def read_run(path: PathLike, *, check_repeats: bool = True) -> Iterator[RunRecord]:
    """Stream a TREC run file (6 or more fields, or the 3- and 4-field layouts); a duplicate
    (query, doc) is an error naming both lines.

    Finding duplicates keeps every pair in memory; `check_repeats=False` leaves that to the
    caller (`formats.exact_columns` finds them from hashes)."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, qid, docid, score_text in _rows(path, "run"):
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        score = parse_score(score_text, name, lineno)
        if check_repeats:
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
