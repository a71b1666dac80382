"""Run and qrels files as scoring takes them: columns and sha256 from one read of the file.

A TREC file goes through the fast columnar parser (`formats.columns`) while the same read hashes
it; when that parser gives up (a comment, an irregular line, a duplicate), the exact line reader
reads the file again, names any bad line, and hashes what it reads. A JSON Lines file (by
suffix) goes straight to the exact reader; a JSON dict (`{"q1": {"d1": 1.5}}`, found by the
first block's content) is parsed from the blocks that read took in. `-` is standard input, and a
named pipe (`<(zcat run.gz)`) is read as well: `formats.spool` keeps a copy of what it read once,
so the readers may open it again. numpy loads on the first read, not on import.

Formats (`file_kind`): TREC text (runs of 3, 4 or 6+ fields, a 3-field one read as scores or as
MS MARCO ranks, `trec.RUN_FORMATS`; qrels of 4, or 3 after a header; see `formats.trec`), JSON
Lines (`.jsonl` / `.ndjson`, or a first line that is an object with a `query_id`), a JSON dict
(any other file starting with `{`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError
from ..models.plain import PlainScoreReport
from . import jsondict, jsonl, trec
from .hashing import HashedPath, PlainFile
from .paths import PathLike, display, is_stdin
from .reading import is_stream, peek, read_blocks
from .trec import QrelRecord, RankCheck, RunFormat, RunRecord

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .columns import Columns, RunBlock

JSONL_SUFFIXES = (".jsonl", ".ndjson")
"""A run file with one of these suffixes (before an optional `.gz`) is JSON Lines; else TREC."""
REPORT_SUFFIX = ".json"
"""A `.json` file (or `.json.gz`) is one JSON document: a saved score report, or a JSON dict run
or qrels (`{"q1": {"d1": 1.5}}`), told apart by their content (`is_report`)."""
_RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv", ".jsonl", ".json", ".ndjson")
_REPORT_KEYS = frozenset(f.name for f in fields(PlainScoreReport)) | {"reports"}

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


def looks_like_json_lines(path: PathLike, key: str) -> bool:
    """By content, for a file without a JSON suffix (standard input, `queries.txt`): its first
    non-blank line is a JSON object with a string `key` (a TSV line never parses as one)."""
    start = peek(path).removeprefix(b"\xef\xbb\xbf").lstrip()
    try:
        obj = json.loads(start.split(b"\n", 1)[0]) if start.startswith(b"{") else None
    except ValueError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get(key), str)


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
    path: PathLike, kind: FileKind | None = None, *, check_repeats: bool = True, run_format: RunFormat = "auto"
) -> Iterator[RunRecord]:
    """A run's lines through the exact reader its format (`kind`, default `file_kind`) calls for,
    streamed, with the scores to rank by (-rank for MS MARCO ranks); a bad line or a repeated
    (query, doc) pair is an `InputError` naming the line. `check_repeats=False` leaves repeats to
    the caller (a JSON dict refuses a repeated key as it parses, either way). `run_format` says
    how a TREC text run is laid out (`trec.RUN_FORMATS`)."""
    kind = kind or file_kind(path)
    _check_format(kind, run_format, display(path))
    if kind == "jsonl":
        return jsonl.read_run(path, check_repeats=check_repeats)
    if kind == "json":
        return jsondict.read_run(path)
    return trec.read_run(path, check_repeats=check_repeats, run_format=run_format)


_KIND_NAMES = {"jsonl": "JSON Lines", "json": "a JSON dict", "trec": "TREC text"}


def _check_format(kind: FileKind, run_format: RunFormat, name: str) -> None:
    """A run format other than `auto` names a TREC text layout: a JSON run has its keys instead."""
    if run_format != "auto" and kind != "trec":
        raise InputError(
            f"the run format {run_format} is for TREC text runs; this file is {_KIND_NAMES[kind]}",
            "leave the run format out (--run-format auto) for a JSON run",
            path=name,
        )


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
    ranks: bool = False
    """The third column of a 3-field file held ranks (MS MARCO): `columns.value` is -rank."""

    @property
    def read_as(self) -> str | None:
        """What a score report says of how the file was read, when not as scores."""
        return trec.MSMARCO_NOTE if self.ranks else None


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


def _run_rows(check: RankCheck) -> Rows:
    """The exact reader of a run, its values as written (ranks, when `check.ranks` says so)."""

    def rows(source: HashedPath, kind: FileKind) -> Iterable[tuple[str, str, float, int]]:
        _check_format(kind, check.run_format, display(source))
        if kind == "trec":
            return trec.run_lines(source, check, check_repeats=False)
        return read_run_records(source, kind, check_repeats=False)

    return rows


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


QRELS_BLOCK = 1 << 19
"""Bytes per block of a qrels file (512 KiB): the blocks parsed at once and their temporaries stay
small beside the columns (shared medium's 5 MB qrels read alone: 67 MiB at peak with `BLOCK`,
63 MiB with this, the same CPU)."""


def _large(path: Path) -> bool:
    """At least `columns.COMPILED_FROM` bytes, or of a size not known before reading."""
    from .columns import COMPILED_FROM

    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return True
    return not stat.S_ISREG(info.st_mode) or path.suffix == ".gz" or info.st_size >= COMPILED_FROM


def _read(
    path: Path,
    kind: Literal["run", "qrels"],
    rows: Rows,
    source: HashedPath | None = None,
    check: RankCheck | None = None,
    block: int | None = None,
) -> tuple[Columns, npt.NDArray[np.uint64] | None, str, bool]:
    """Columns, doc hashes (fast path only), sha256 and whether a run's values are ranks (then
    the columns hold -rank). The first block tells the format (unless the suffix did): TREC goes
    to the fast parser, a JSON dict is parsed from the blocks read; the exact reader reads again
    only when the fast parser gives up (or for JSON Lines)."""
    from .columns import Columns, trec_columns  # numpy loads here, when a file is scored
    from .exact_columns import exact_columns

    source = source if source is not None else HashedPath(path)
    run_format: RunFormat = check.run_format if check is not None else "auto"
    parsed, data = None, None
    found: FileKind = "jsonl"
    if not is_jsonl(path):
        with contextlib.closing(read_blocks(source, block or BLOCK)) as blocks:
            head = next(blocks, b"")
            found = kind_of(head)
            if found == "trec":
                parsed = trec_columns(
                    itertools.chain([head], blocks),
                    kind,
                    large=_large(path),
                    run_format=run_format,
                    endless=is_stream(source),
                )
            elif found == "json":
                _check_format(found, run_format, display(path))
                data = head + b"".join(blocks)
    ranks = False
    if data is not None:
        columns, doc_hash = Columns.from_rows(_json_rows(data, display(path), kind), integer=kind == "qrels"), None
    elif parsed is None:  # JSONL or irregular: the exact reader names any bad line; its read is hashed
        columns, doc_hash = exact_columns(rows(source, found), kind, display(path)), None
        if check is not None and check.ranks:
            ranks, columns = True, Columns(columns.query, columns.doc, -columns.value)
    else:
        columns, doc_hash, ranks = parsed.columns, parsed.doc_hash, parsed.ranks
    if len(columns.query) == 0:
        raise InputError(f"no {kind} lines in the file", "is this the right file?", path=display(path))
    return columns, doc_hash, source.sha256(), ranks


def read_run_file(path: Path, run_format: RunFormat = "auto") -> RunFile:
    """Read a run (TREC, JSON Lines or a JSON dict, see `file_kind`; `.gz` either way; `-` for
    standard input) for scoring; `run_format` says how a TREC text run is laid out
    (`trec.RUN_FORMATS`: by default told from the file). A bad line or a repeated (query, doc)
    pair is an `InputError` naming the line; so is a file with no run line."""
    check = RankCheck(run_format)
    columns, doc_hash, sha256, ranks = _read(path, "run", _run_rows(check), check=check)
    return RunFile(path=path, name=run_name(path), columns=columns, doc_hash=doc_hash, sha256=sha256, ranks=ranks)


def read_qrels_file(path: Path, *, plain_limit: int | None = None) -> QrelsFile:
    """Read a qrels file (TREC, 3-field TSV after a header, JSON Lines or a JSON dict; `.gz` or
    not; `-` for standard input) for scoring. A bad line or a repeated (query, doc) pair is an
    `InputError` naming the line; so is a file with no qrels line. With `plain_limit` the file
    must be a plain file of at most that many bytes, opened without following a symlink (a
    version's qrels.txt: `hashing.PlainFile`)."""
    source = PlainFile(path, plain_limit) if plain_limit is not None else None
    columns, doc_hash, sha256, _ = _read(path, "qrels", _qrels_rows, source, block=QRELS_BLOCK)
    return QrelsFile(path=path, columns=columns, doc_hash=doc_hash, sha256=sha256)


BLOCK_ROWS = 1 << 16
"""Rows per block of a streamed run (`stream_run_file`): whole queries, so a block holds at least
this many rows (more when a query runs past it), and memory holds about one block at a time."""


STREAM_BLOCK = 1 << 20
"""Bytes per read block of a streamed run that pyarrow tokenises (`columns.COMPILED_FROM` bytes
or more): half of `BLOCK`, so the blocks parsed at once (two threads) hold fewer temporaries
(medium: 140 MiB at peak, not 156)."""

SMALL_STREAM_BLOCK = 1 << 19
"""Bytes per read block of a smaller streamed run (numpy's tokeniser): the three blocks out at once
and their temporaries take 10 MiB less. Shared medium (35 MB), 5 runs each, 2026-12-04, load
under 1: peak RSS 74.7-76.4 MiB against 84.9-87.1 with `STREAM_BLOCK`, CPU 0.88-0.91 s against
0.87-0.92 s. Not for pyarrow's: on shared msmarco (266 MB) 512 KiB blocks took 2.0-2.07 s
against 1.8-2.16 s (more calls into pyarrow), for 149 MiB against 162-165."""


class NotStreamed(Exception):
    """The run cannot be read in query blocks (irregular, a query's lines apart, a repeated pair,
    or no line at all): read it whole (`read_run_file`), which names any bad line."""


class RunStream:
    """A TREC run of scores read in blocks of whole queries (`blocks`), ids kept as the parser
    cuts them (fixed-width bytes) and hashed. After `blocks` is read to its end, `queries` holds
    the run's query ids, `first_query` its first, and `sha256()` the file's hash."""

    def __init__(self, path: Path, run_format: RunFormat, block_rows: int, block_bytes: int) -> None:
        self.path, self.name, self.source = path, run_name(path), HashedPath(path)
        self.run_format, self.block_rows, self.block_bytes = run_format, max(block_rows, 1), block_bytes
        self.queries: set[str] = set()
        self.first_query: str | None = None

    def sha256(self) -> str:
        return self.source.sha256()

    def blocks(self) -> Iterator[tuple[Columns, npt.NDArray[np.uint64]]]:
        """(columns, doc hashes) of each block, queries in file order; raises `NotStreamed`."""
        import numpy as np

        from .columns import run_blocks
        from .fast_columns import id_changes

        seen: set[bytes] = set()
        parts: list[RunBlock] = []
        rows = tail = 0  # rows held, and of those the last query's (it may go on in the next block)
        with contextlib.closing(read_blocks(self.source, self.block_bytes)) as raw:
            for part in run_blocks(raw, self.run_format, large=_large(self.path)):
                if part is None:
                    raise NotStreamed
                if not len(part.query):
                    continue
                starts = np.flatnonzero(id_changes(part.query))
                heads = part.query[starts].tolist()
                if self.first_query is None:
                    self.first_query = heads[0].decode("ascii")
                goes_on = bool(parts) and heads[0] == parts[-1].query[-1]
                new = heads[1:] if goes_on else heads
                if len(set(new)) != len(new) or not seen.isdisjoint(new):
                    raise NotStreamed  # a query's lines apart: the whole-file path ranks them together
                seen.update(new)
                parts.append(part)
                rows += len(part.query)
                tail = tail + len(part.query) if goes_on and len(heads) == 1 else len(part.query) - int(starts[-1])
                if rows - tail >= self.block_rows:
                    done, rest = _split(parts, rows - tail)
                    yield done
                    parts, rows = [rest], tail
        if not seen:
            raise NotStreamed  # no run line: the whole-file path says so
        if rows:
            yield _split(parts, rows)[0]
        self.queries = {q.decode("ascii") for q in seen}


def _split(parts: list[RunBlock], at: int) -> tuple[tuple[Columns, npt.NDArray[np.uint64]], RunBlock]:
    """The first `at` rows of the parts as one block (refused when a (query, doc) pair repeats),
    and the rest as a part of its own."""
    import numpy as np

    from .columns import Columns, RunBlock, concat_ids, pair_repeats

    query, doc = concat_ids([p.query for p in parts]), concat_ids([p.doc for p in parts])
    score = np.concatenate([p.score for p in parts])
    doc_hash = np.concatenate([p.doc_hash for p in parts])
    query_hash = np.concatenate([p.query_hash for p in parts])
    if pair_repeats(doc_hash[:at], [query_hash[:at]]):
        raise NotStreamed  # a repeated pair (or a hash collision): the exact reader decides
    rest = RunBlock(query[at:].copy(), doc[at:].copy(), score[at:].copy(), doc_hash[at:].copy(), query_hash[at:].copy())
    return (Columns(query[:at], doc[:at], score[:at]), doc_hash[:at]), rest


def stream_run_file(
    path: Path, run_format: RunFormat = "auto", *, block_rows: int | None = None, block_bytes: int | None = None
) -> RunStream | None:
    """The run as a `RunStream` when it may be read in query blocks: a regular file (or `.gz`) of
    TREC text with scores (not a 3-field run that may hold ranks: that is told from every line).
    None otherwise; and `RunStream.blocks` raises `NotStreamed` when the file turns out not to be
    grouped by query or regular: either way `read_run_file` reads it whole. `block_rows` and
    `block_bytes` default to `BLOCK_ROWS` and `stream_block(path)`."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except (OSError, ValueError):
        return None
    if is_stdin(path) or is_jsonl(path) or file_kind(path) != "trec":
        return None
    _check_format("trec", run_format, display(path))
    return RunStream(path, run_format, block_rows or BLOCK_ROWS, block_bytes or stream_block(path))


def stream_block(path: Path) -> int:
    """The read block of a streamed run: `STREAM_BLOCK` where pyarrow tokenises it, else
    `SMALL_STREAM_BLOCK`."""
    return STREAM_BLOCK if _large(path) else SMALL_STREAM_BLOCK
