"""TREC qrels (`QID ITER DOCID GRADE`) and run files.

A run line is `QID Q0 DOCID RANK SCORE TAG`, trec_eval's layout: trec_eval reads the first six
fields and ignores any after them (its own test run `results.trunc` has lines of 6 to 9 fields);
ir_measures and pytrec_eval read exactly these six. qrelkit also reads two short layouts (see
`RUN_LAYOUTS`), which none of those three reads: 3 fields `QID DOCID SCORE` (the columns of a
score table or a BEIR-style TSV) or `QID PID RANK` (MS MARCO's), and 4 fields
`QID DOCID RANK SCORE` (the six without `Q0` and the tag). The first line decides the layout and
every line follows it (6 stands for 6 or more). A first line that names its columns
(`qid docid score`, `query-id corpus-id score`) is a header and is skipped.

Where a layout has a rank (6 and 4 fields) it is an integer in ASCII digits and is otherwise
ignored: trec_eval ranks by score. A 4-field line whose second field is `Q0` is a TREC line that
lost two fields (`q1 Q0 d1 1`) and is refused. The third column of a 3-field file holds scores,
unless it reads as ranks: every value ASCII digits and each query's values, in file order,
1, 2, ..., n (MS MARCO's `qid pid rank`); such a file is ranked by rank (score = -rank, rank 1
first) and the score report says so (`RankCheck`). `RUN_FORMATS` say the layout outright:
`trec` (6 or more fields), `scores` (3 fields, scores), `msmarco` (3 fields, ranks: integers
that rise within each query, not necessarily from 1 or without gaps), `auto` (the default: as
above).

A qrels line is `QID ITER DOCID GRADE`; after a header row (`query-id corpus-id score`, as BEIR
writes them) a qrels file may have 3 fields, `QID DOCID GRADE`.

A negative grade in a qrels file is the TREC convention for "pooled but not judged": readers
return it as such and never as a label. Grades are integers that fit a signed 32-bit int (as
trec_eval stores them); scores must be finite numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Literal, NamedTuple

from ..errors import InputError
from .ids import check_id, refuse_repeat
from .paths import PathLike, display
from .reading import read_lines

if TYPE_CHECKING:
    from ..models import Label

QRELS_HINT = (
    "qrels lines are 'QUERY_ID ITERATION DOC_ID GRADE' with an integer grade "
    "(or 'QUERY_ID DOC_ID GRADE' after a 'query-id corpus-id score' header)"
)
RUN_HINT = (
    "run lines are 'QUERY_ID Q0 DOC_ID RANK SCORE RUN_NAME' (extra fields ignored), "
    "'QUERY_ID DOC_ID SCORE', 'QUERY_ID DOC_ID RANK' (MS MARCO) or 'QUERY_ID DOC_ID RANK SCORE', "
    "with a numeric score and an integer rank"
)
Q0_HINT = "a TREC run line has 6 fields: qid Q0 docid rank score tag"
RANK_HINT = (
    "write the rank as an integer (qid Q0 docid RANK score tag, or qid docid RANK score); qrelkit ranks by the score"
)
MSMARCO_HINT = (
    "an MS MARCO run is 'qid pid rank' with integer ranks rising within each query "
    "(--run-format scores reads the third column as scores)"
)
RUN_REPEAT_HINT = "a run lists each document at most once per query"
GRADE_MIN, GRADE_MAX = -(2**31), 2**31 - 1
"""The grades a reader accepts: a signed 32-bit int, what trec_eval stores."""

RUN_LAYOUTS: dict[int, tuple[int, int, int]] = {3: (0, 1, 2), 4: (0, 1, 3), 6: (0, 2, 4)}
"""Run fields -> the positions of (query, doc, score); 6 stands for 6 or more. The third column
of 3 fields may hold ranks (`RankCheck`)."""
RANK_FIELDS: dict[int, int] = {4: 2, 6: 3}
"""Run fields -> the position of the rank (an integer, otherwise ignored), where a layout has one."""

RunFormat = Literal["auto", "trec", "scores", "msmarco"]
RUN_FORMATS: tuple[RunFormat, ...] = ("auto", "trec", "scores", "msmarco")
"""How a TREC text run is laid out: `auto` tells from the file; `trec` is 6 or more fields,
`scores` 3 fields `qid docid score`, `msmarco` 3 fields `qid pid rank`."""
FORMAT_FIELDS: dict[str, int] = {"trec": 6, "scores": 3, "msmarco": 3}
"""The layout an explicit run format calls for."""
MSMARCO_NOTE = "read as MS MARCO ranks (qid pid rank)"
"""What a score report says of a run whose third column was read as ranks."""
RANK_MAX = 2**31 - 1
"""The largest rank of an MS MARCO run (held exactly as the float score -rank)."""
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


@dataclass(frozen=True)
class QrelsRows:
    """A block of a qrels file's rows as plain data, what the store's bulk import writes
    (`formats.qrels_rows` makes them from the columnar parser's blocks)."""

    queries: frozenset[str]
    """The block's distinct query ids."""
    top: int
    """Its highest grade (-1: no row)."""
    query: list[str]
    doc: list[str]
    grade: list[int]
    """The graded rows (grade >= 0), in line order, as three columns."""
    pooled_query: list[str]
    pooled_doc: list[str]
    """The rows with a negative grade (pooled, not judged), in line order."""

    def __len__(self) -> int:
        return len(self.grade) + len(self.pooled_query)


class RunRecord(NamedTuple):
    query_id: str
    doc_id: str
    score: float
    line: int


_GRADE = re.compile(r"-?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")
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


def layout_of(fields: list[str], kind: str, run_format: RunFormat = "auto") -> tuple[int, bool] | None:
    """The layout a first line sets: (field count, whether it is a header row to skip); None when
    no layout has that many fields. Runs: 3, 4 or 6 (6 or more), or the one `run_format` names;
    qrels: 4, or 3 after a header."""
    n = len(fields)
    if kind == "run":
        layout = run_layout(n)
        if layout is None or FORMAT_FIELDS.get(run_format, min(n, 6)) != min(n, 6):
            return None
        return min(n, 6), is_header(fields, layout[2])
    if n in (3, 4) and is_header(fields, n - 1):
        return n, True
    return (4, False) if n == 4 else None


def _want(kind: str, run_format: RunFormat) -> str:
    """The fields a first line that fits no layout should have had."""
    if kind != "run":
        return "4 fields"
    if run_format == "trec":
        return "6 fields (qid Q0 docid rank score tag) as the run format trec says"
    if run_format in ("scores", "msmarco"):
        columns = "qid pid rank" if run_format == "msmarco" else "qid docid score"
        return f"3 fields ({columns}) as the run format {run_format} says"
    return "6 fields (or 3 or 4)"


def _rows(
    path: PathLike, kind: str, run_format: RunFormat = "auto", shape: list[int] | None = None
) -> Iterator[tuple[int, str, str, str]]:
    """(line, query, doc, value text) of each data line, the layout set by the first line (told
    to `shape`, when given, as its one item); a run's rank must be an integer."""
    name = display(path)
    layouts, hint = (RUN_LAYOUTS, RUN_HINT) if kind == "run" else (QRELS_LAYOUTS, QRELS_HINT)
    layout, rank_at = 0, None
    for lineno, text in read_lines(path):
        if _skip(text):
            continue
        fields = split_fields(text)
        if not layout:
            found = layout_of(fields, kind, run_format)
            if found is None:
                raise InputError(
                    f"expected {_want(kind, run_format)}, found {len(fields)}", hint, path=name, line=lineno
                )
            layout, header = found
            if shape is not None:
                shape.append(layout)
            rank_at = RANK_FIELDS.get(layout) if kind == "run" else None
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
        if rank_at is not None:
            _check_rank(fields, layout, rank_at, name, lineno)
        q_at, d_at, v_at = layouts[layout]
        yield lineno, fields[q_at], fields[d_at], fields[v_at]


def _check_rank(fields: list[str], layout: int, rank_at: int, name: str, lineno: int) -> None:
    """A 4-field line is not a TREC line that lost fields, and a rank is an integer."""
    if layout == 4 and fields[1] == "Q0":
        raise InputError(
            "a 4-field run line with Q0 as its second field: the document, rank or score is missing",
            Q0_HINT,
            path=name,
            line=lineno,
        )
    if parse_grade(fields[rank_at]) is None:
        raise InputError(
            f"rank {fields[rank_at][:40]!r} is not an integer in ASCII digits", RANK_HINT, path=name, line=lineno
        )


def parse_score(text: str, name: str, lineno: int, hint: str = RUN_HINT) -> float:
    """A finite score, as read from a file."""
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"score {text[:40]!r} is not a number", hint, path=name, line=lineno) from None
    if not math.isfinite(score):
        raise InputError(f"score {text[:40]!r} is not finite", hint, path=name, line=lineno)
    return score


class RankCheck:
    """Whether the third column of a 3-field run holds ranks, told line by line (`see`): for
    `msmarco` it must (integers rising within each query, else an `InputError` naming the line);
    for `auto` it does when every value is ASCII digits and each query's values run 1, 2, ..., n
    in file order, known only at the end (`ranks`); for other layouts and `scores` it does not.
    A reader yields the value column as written; `score` turns a value into the score to rank by."""

    def __init__(self, run_format: RunFormat = "auto") -> None:
        self.run_format = run_format
        self.layout = 0
        self.possible = run_format in ("auto", "msmarco")
        """Still maybe ranks (auto), or ranks (msmarco)."""
        self.last: dict[str, int] = {}
        self.rows = 0

    def start(self, layout: int) -> None:
        self.layout = layout
        self.possible = self.possible and layout == 3

    @property
    def pending(self) -> bool:
        """`auto` has not decided yet: the values seen so far read as ranks."""
        return self.possible and self.run_format == "auto"

    @property
    def ranks(self) -> bool:
        """The value column holds ranks (for `auto`: once every line was seen)."""
        return self.possible and self.rows > 0

    def see(self, qid: str, text: str, name: str, lineno: int) -> float:
        """The value of one line, checked as a rank while it may be one."""
        self.rows += 1
        if self.run_format == "msmarco":
            return self._rank(qid, text, name, lineno)
        value = parse_score(text, name, lineno)
        if self.possible:
            if _DIGITS.fullmatch(text) and int(text) == self.last.get(qid, 0) + 1:
                self.last[qid] = int(text)
            else:
                self.possible = False
                self.last = {}
        return value

    def _rank(self, qid: str, text: str, name: str, lineno: int) -> float:
        if not _DIGITS.fullmatch(text):
            raise InputError(
                f"rank {text[:40]!r} is not an integer in ASCII digits", MSMARCO_HINT, path=name, line=lineno
            )
        rank = int(text)
        if rank > RANK_MAX:
            raise InputError(f"rank {text[:40]} is too large", f"ranks are at most {RANK_MAX}", path=name, line=lineno)
        before = self.last.get(qid)
        if before is not None and rank <= before:
            raise InputError(
                f"rank {rank} follows rank {before} for query {qid!r}: ranks rise within each query",
                MSMARCO_HINT,
                path=name,
                line=lineno,
            )
        self.last[qid] = rank
        return float(rank)

    def score(self, value: float) -> float:
        """The score to rank by: -rank for ranks (rank 1 first, no ties), else the value."""
        return -value if self.ranks else value


def run_lines(path: PathLike, check: RankCheck, *, check_repeats: bool = True) -> Iterator[RunRecord]:
    """A TREC run's records with the value column as written (a rank, when `check.ranks` says
    so at the end); `read_run` gives the scores to rank by."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    shape: list[int] = []
    for lineno, qid, docid, value_text in _rows(path, "run", check.run_format, shape):
        if not check.layout:
            check.start(shape[0])
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        value = check.see(qid, value_text, name, lineno)
        if check_repeats:
            message = f"document {docid!r} appears twice for query {qid!r}"
            refuse_repeat(seen, (qid, docid), lineno, message, RUN_REPEAT_HINT, name)
        yield RunRecord(qid, docid, value, lineno)


def read_run(path: PathLike, *, check_repeats: bool = True, run_format: RunFormat = "auto") -> Iterator[RunRecord]:
    """Stream a TREC run file (6 or more fields, or the 3- and 4-field layouts; `run_format` to
    say which) with the scores to rank by; a duplicate (query, doc) is an error naming both lines.
    A 3-field file whose values may still be ranks is held until its end decides.

    Finding duplicates keeps every pair in memory; `check_repeats=False` leaves that to the
    caller (`formats.exact_columns` finds them from hashes)."""
    check = RankCheck(run_format)
    held: list[RunRecord] = []
    for record in run_lines(path, check, check_repeats=check_repeats):
        if check.pending:
            held.append(record)
            continue
        if held:  # `auto` just decided: scores
            yield from held
            held = []
        yield record._replace(score=check.score(record.score))
    yield from (r._replace(score=check.score(r.score)) for r in held)


def write_qrels(labels: Iterable[Label], out: IO[str], *, presorted: bool = False) -> int:
    """Write graded labels as TREC qrels, sorted by query then doc (`presorted`: they come so,
    and stream); returns the line count."""
    n = 0
    ordered = labels if presorted else sorted(labels, key=lambda lab: (lab.query_id, lab.doc_id))
    for label in ordered:
        out.write(f"{label.query_id} 0 {label.doc_id} {label.grade}\n")
        n += 1
    return n
