"""Run and qrels files as scoring takes them: columns and sha256 from one read of the file.

A TREC file goes through the fast columnar parser (`formats.columns`) while the same read hashes
it; when that parser gives up (a comment, an irregular line, a duplicate), the exact line reader
reads the file again, names any bad line, and hashes what it reads. A JSON Lines run goes
straight to the exact reader. numpy loads on the first read, not on import.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..errors import InputError
from . import jsonl, trec
from ._io import HashedPath, PathLike, read_blocks
from .trec import RunRecord

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .columns import Columns

JSONL_SUFFIXES = (".jsonl", ".ndjson")
"""A run file with one of these suffixes (before an optional `.gz`) is JSON Lines; else TREC."""
REPORT_SUFFIX = ".json"
"""A `.json` file (or `.json.gz`) is one JSON document: a saved score report, never a run."""
_RUN_SUFFIXES = (".run", ".trec", ".txt", ".tsv", ".jsonl", ".json", ".ndjson")


def _format_suffix(path: Path) -> str:
    """The last suffix that is not `.gz` ("" when there is none)."""
    suffixes = [s for s in path.suffixes if s != ".gz"]
    return suffixes[-1] if suffixes else ""


def is_jsonl(path: Path) -> bool:
    """A `.jsonl` or `.ndjson` file (optionally `.gz`): JSON Lines, one record a line."""
    return _format_suffix(path) in JSONL_SUFFIXES


def is_report(path: Path) -> bool:
    """A `.json` file (optionally `.gz`): a saved score report (see `formats.reports`)."""
    return _format_suffix(path) == REPORT_SUFFIX


def run_name(path: Path) -> str:
    """A run's name: its file name without .gz and the format suffix (bm25.run.gz -> bm25)."""
    name = path.name.removesuffix(".gz")
    for suffix in _RUN_SUFFIXES:
        name = name.removesuffix(suffix)
    return name or path.name


def read_run_records(path: PathLike) -> Iterator[RunRecord]:
    """A run's lines through the exact reader its suffix calls for (JSON Lines or TREC), streamed;
    a bad line or a repeated (query, doc) pair is an `InputError` naming the line."""
    return jsonl.read_run(path) if is_jsonl(Path(path)) else trec.read_run(path)


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


Rows = Callable[[HashedPath], Iterable[tuple[str, str, float]]]


def _run_rows(source: HashedPath) -> Iterable[tuple[str, str, float]]:
    return ((r.query_id, r.doc_id, r.score) for r in read_run_records(source))


def _qrels_rows(source: HashedPath) -> Iterable[tuple[str, str, float]]:
    return ((r.query_id, r.doc_id, r.grade) for r in trec.read_qrels(source))


def _read(
    path: Path, kind: Literal["run", "qrels"], rows: Rows, *, fast: bool
) -> tuple[Columns, npt.NDArray[np.uint64] | None, str]:
    """Columns, doc hashes (fast path only) and sha256; the fast parser first when `fast`."""
    from .columns import Columns, trec_columns  # numpy loads here, when a file is scored

    source = HashedPath(path)
    parsed = None
    if fast:
        with contextlib.closing(read_blocks(source)) as blocks:
            parsed = trec_columns(blocks, kind)
    if parsed is None:  # JSONL or irregular: the exact reader names any bad line; its read is hashed
        columns, doc_hash = Columns.from_rows(list(rows(source)), integer=kind == "qrels"), None
    else:
        columns, doc_hash = parsed.columns, parsed.doc_hash
    if len(columns.query) == 0:
        raise InputError(f"no {kind} lines in the file", "is this the right file?", path=str(path))
    return columns, doc_hash, source.sha256()


def read_run_file(path: Path) -> RunFile:
    """Read a run (TREC, or JSON Lines by suffix; `.gz` either way) for scoring. A bad line or a
    repeated (query, doc) pair is an `InputError` naming the line; so is a file with no run line."""
    columns, doc_hash, sha256 = _read(path, "run", _run_rows, fast=not is_jsonl(path))
    return RunFile(path=path, name=run_name(path), columns=columns, doc_hash=doc_hash, sha256=sha256)


def read_qrels_file(path: Path) -> QrelsFile:
    """Read a TREC qrels file (`.gz` or not) for scoring. A bad line or a repeated (query, doc)
    pair is an `InputError` naming the line; so is a file with no qrels line."""
    columns, doc_hash, sha256 = _read(path, "qrels", _qrels_rows, fast=True)
    return QrelsFile(path=path, columns=columns, doc_hash=doc_hash, sha256=sha256)
