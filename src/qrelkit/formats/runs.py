"""Run and qrels files as scoring takes them: columns and sha256 from one read of the file.

A TREC file goes through the fast columnar parser (`formats.columns`) while the same read hashes
it; when that parser gives up (a comment, an irregular line, a duplicate), the exact line reader
reads the file again, names any bad line, and hashes what it reads. A JSON Lines file (by
suffix) goes straight to the exact reader; a JSON dict (`{"q1": {"d1": 1.5}}`, found by the
first block's content) is parsed from the blocks that read took in. `-` is standard input, and a
named pipe (`<(zcat run.gz)`) is read as well: `formats._io` keeps a copy of what it read once,
so the readers may open it again. numpy loads on the first read, not on import.

Formats (`file_kind`): TREC text (runs of 3, 4 or 6+ fields, qrels of 4, or 3 after a header;
see `formats.trec`), JSON Lines (`.jsonl` / `.ndjson`, or a first line that is an object with a
`query_id`), a JSON dict (any other file starting with `{`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError
from ..models.reports import ScoreReport
from . import jsondict, jsonl, trec
from ._io import HashedPath, PathLike, PlainFile, display, is_stdin, peek, read_blocks
from .trec import QrelRecord, RunRecord

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .columns import Columns

JSONL_SUFFIXES = (".jsonl", ".ndjson")
"""A run file with one of these suffixes (before an optional `.gz`) is JSON Lines; else TREC."""
REPORT_SUFFIX = ".json"
"""A `.json` file (or `.json.gz`) is one JSON document: a saved score report, or a JSON dict run
or qrels (`{"q1": {"d1": 1.5}}`), told apart by their content (`is_report`)."""
_RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv", ".jsonl", ".json", ".ndjson")
_REPORT_KEYS = frozenset(ScoreReport.model_fields) | {"reports"}

FileKind = Literal["trec", "jsonl", "json"]
"""How a run or qrels file is written: TREC text (white-space separated, 3 to 6+ fields), JSON
Lines (one object a line), or one JSON object of objects (pytrec_eval / ranx style)."""


def _format_suffix(path: Path) -> str:
    """The last suffix that is not `.gz` ("" when there is none)."""
    suffixes = [s for s in path.suffixes if s != ".gz"]
    return suffixes[-1] if suffixes else ""


def is_jsonl(path: Path) -> bool:
    """A `.jsonl` or `.ndjson` file (optionally `.gz`): JSON Lines, one record a line."""
    return _format_suffix(path) in JSONL_SUFFIXES


def has_json_suffix(path: Path) -> bool:
    """A `.json` file (optionally `.gz`): one JSON document."""
    return _format_suffix(path) == REPORT_SUFFIX


def _first_key(head: bytes) -> tuple[str, bytes] | None:
    """The first key of the JSON object `head` starts with, and what follows its colon."""
    found = re.match(rb'\s*\{\s*"((?:[^"\\]|\\.)*)"\s*:\s*', head.removeprefix(b"\xef\xbb\xbf"))
    if found is None:
        return None
    try:
        return json.loads(b'"' + found.group(1) + b'"'), head[found.end() :]
    except ValueError:
        return None


def file_kind(path: PathLike) -> FileKind:
    """By suffix (`.jsonl`, `.ndjson`), else by content: a file whose first line is a JSON object
    with a `query_id` is JSON Lines, any other file starting with `{` and then `"` or `}` one JSON
    object, the rest TREC (a query id may start with `{`)."""
    return "jsonl" if is_jsonl(Path(path)) else kind_of(peek(path))


def kind_of(head: bytes) -> FileKind:
    """The format of a file that starts with `head` (see `file_kind`)."""
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not start.startswith(b"{"):
        return "trec"
    if start[1:].lstrip(b" \t\r")[:1] not in (b'"', b"}", b"\n", b""):
        return "trec"  # `{ 0 d1 1`: a TREC line whose query id is `{` (a JSON object goes on with `"` or `}`)
    first = start.split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return "json"
    return "jsonl" if isinstance(obj, dict) and isinstance(obj.get("query_id"), str) else "json"


def is_report(path: Path) -> bool:
    """A `.json` file (optionally `.gz`) that is a saved score report (see `formats.reports`), not
    a JSON dict run or qrels: its first key is a report's, or it is no JSON object of objects."""
    if not has_json_suffix(path):
        return False
    try:
        found = _first_key(peek(path))
    except InputError:
        return True  # the report reader names the problem
    return found is None or found[0] in _REPORT_KEYS or not found[1].startswith(b"{")


def run_name(path: Path) -> str:
    """A run's name: its file name without .gz and the format suffix (bm25.run.gz -> bm25);
    `stdin` for `-`."""
    if is_stdin(path):
        return "stdin"
    name = path.name.removesuffix(".gz")
    for suffix in _RUN_SUFFIXES:
        name = name.removesuffix(suffix)
    return name or path.name


def read_run_records(
    path: PathLike, kind: FileKind | None = None, *, check_repeats: bool = True
) -> Iterator[RunRecord]:
    """A run's lines through the exact reader its format (`kind`, default `file_kind`) calls for,
    streamed; a bad line or a repeated (query, doc) pair is an `InputError` naming the line.
    `check_repeats=False` leaves repeats to the caller (a JSON dict refuses a repeated key as
    it parses, either way)."""
    kind = kind or file_kind(path)
    if kind == "jsonl":
        return jsonl.read_run(path, check_repeats=check_repeats)
    return jsondict.read_run(path) if kind == "json" else trec.read_run(path, check_repeats=check_repeats)


def read_qrels_records(
    path: PathLike, *, check_repeats: bool = True, kind: FileKind | None = None
) -> Iterator[QrelRecord]:
    """A qrels file's lines through the exact reader its format (`kind`, default `file_kind`)
    calls for: TREC (or 3 fields after a `query-id corpus-id score` header), JSON Lines as
    `export qrels` writes them, or a JSON dict."""
    kind = kind or file_kind(path)
    if kind == "jsonl":
        return jsonl.read_qrels(path, check_repeats=check_repeats)
    return jsondict.read_qrels(path) if kind == "json" else trec.read_qrels(path, check_repeats=check_repeats)


@dataclass(frozen=True, eq=False)
class RunFile:
    """A run file, read: its (query, doc, score) columns and the sha256 of its bytes."""

    path: Path
    name: str
    """`run_name(path)`."""
    columns: Columns
    doc_hash: npt.NDArray[np.uint64] | None
    """Per-row hash of the doc ids when the fast parser read the file (scoring reuses it), else None."""
    sha256: str
    """`sha256:<hex>` of the file's bytes (decompressed for `.gz`)."""


@dataclass(frozen=True, eq=False)
class QrelsFile:
    """A TREC qrels file, read: its (query, doc, grade) columns (negative grades: pooled, not
    judged) and the sha256 of its bytes."""

    path: Path
    columns: Columns
    doc_hash: npt.NDArray[np.uint64] | None
    sha256: str


Rows = Callable[[HashedPath, FileKind], Iterable[tuple[str, str, float, int]]]
"""The exact reader's (query, doc, value, line) records, without its repeat check (the fallback
finds repeats from hashes: `exact_columns`)."""


def _run_rows(source: HashedPath, kind: FileKind) -> Iterable[tuple[str, str, float, int]]:
    return read_run_records(source, kind, check_repeats=False)


def _qrels_rows(source: HashedPath, kind: FileKind) -> Iterable[tuple[str, str, float, int]]:
    return read_qrels_records(source, kind=kind, check_repeats=False)


def _json_rows(data: bytes, name: str, kind: Literal["run", "qrels"]) -> list[tuple[str, str, float]]:
    if kind == "run":
        return [(r.query_id, r.doc_id, r.score) for r in jsondict.run_from_bytes(data, name)]
    return [(r.query_id, r.doc_id, r.grade) for r in jsondict.qrels_from_bytes(data, name)]


BLOCK = 1 << 21
"""Bytes per block of a TREC file handed to the parser's threads (2 MiB: small files still make
several blocks for the two threads; 10-15% faster than 4 MiB on the 5 MB qrels and 250 MB run of
the acceptance data)."""


def _large(path: Path) -> bool:
    """At least `columns.COMPILED_FROM` bytes, or of a size not known before reading."""
    from .columns import COMPILED_FROM

    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return True
    return not stat.S_ISREG(info.st_mode) or path.suffix == ".gz" or info.st_size >= COMPILED_FROM


def _read(
    path: Path, kind: Literal["run", "qrels"], rows: Rows, source: HashedPath | None = None
) -> tuple[Columns, npt.NDArray[np.uint64] | None, str]:
    """Columns, doc hashes (fast path only) and sha256. The first block tells the format (unless
    the suffix did): TREC goes to the fast parser, a JSON dict is parsed from the blocks read; the
    exact reader reads again only when the fast parser gives up (or for JSON Lines)."""
    from .columns import Columns, trec_columns  # numpy loads here, when a file is scored
    from .exact_columns import exact_columns

    source = source if source is not None else HashedPath(path)
    parsed, data = None, None
    found: FileKind = "jsonl"
    if not is_jsonl(path):
        with contextlib.closing(read_blocks(source, BLOCK)) as blocks:
            head = next(blocks, b"")
            found = kind_of(head)
            if found == "trec":
                parsed = trec_columns(itertools.chain([head], blocks), kind, large=_large(path))
            elif found == "json":
                data = head + b"".join(blocks)
    if data is not None:
        columns, doc_hash = Columns.from_rows(_json_rows(data, display(path), kind), integer=kind == "qrels"), None
    elif parsed is None:  # JSONL or irregular: the exact reader names any bad line; its read is hashed
        columns, doc_hash = exact_columns(rows(source, found), kind, display(path)), None
    else:
        columns, doc_hash = parsed.columns, parsed.doc_hash
    if len(columns.query) == 0:
        raise InputError(f"no {kind} lines in the file", "is this the right file?", path=display(path))
    return columns, doc_hash, source.sha256()


def read_run_file(path: Path) -> RunFile:
    """Read a run (TREC, JSON Lines or a JSON dict, see `file_kind`; `.gz` either way; `-` for
    standard input) for scoring. A bad line or a repeated (query, doc) pair is an `InputError`
    naming the line; so is a file with no run line."""
    columns, doc_hash, sha256 = _read(path, "run", _run_rows)
    return RunFile(path=path, name=run_name(path), columns=columns, doc_hash=doc_hash, sha256=sha256)


def read_qrels_file(path: Path, *, plain_limit: int | None = None) -> QrelsFile:
    """Read a qrels file (TREC, 3-field TSV after a header, JSON Lines or a JSON dict; `.gz` or
    not; `-` for standard input) for scoring. A bad line or a repeated (query, doc) pair is an
    `InputError` naming the line; so is a file with no qrels line. With `plain_limit` the file
    must be a plain file of at most that many bytes, opened without following a symlink (a
    version's qrels.txt: `_io.PlainFile`)."""
    source = PlainFile(path, plain_limit) if plain_limit is not None else None
    columns, doc_hash, sha256 = _read(path, "qrels", _qrels_rows, source)
    return QrelsFile(path=path, columns=columns, doc_hash=doc_hash, sha256=sha256)
