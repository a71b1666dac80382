"""`documents_sha256` of a documents file too large to sort in memory: the twin of
`snapshot.documents_hash`, in bounded memory.

The hash is the sha256 of the documents' canonical lines in sorted order (`snapshot._document_row`
as canonical JSON). Lines are kept in memory up to `limit` bytes; past it each batch is sorted and
spilled to a temporary file, and the batches are merged at the end (`heapq.merge`), so a 2.5 GB
documents.jsonl is hashed in about `limit` of memory. The merge also finds documents that appear
twice: a line starts with its id (`["id",`), and the lines that share a prefix are neighbours in
sorted order. `tests/test_version_check.py` holds the two hashes equal across the spill threshold.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import tempfile
from collections.abc import Iterator
from typing import IO

from ..models import Document
from .snapshot import _canonical, _document_row

SPILL_BYTES = 64 << 20
"""Canonical lines held in memory before a sorted batch goes to a temporary file."""


class SortedLinesHash:
    """Feed documents (`add`), then `finish()`: the documents hash, and the first id seen twice."""

    def __init__(self, limit: int = SPILL_BYTES) -> None:
        self.limit = limit
        self._lines: list[bytes] = []
        self._held = 0
        self._spilled: list[IO[bytes]] = []

    def add(self, doc: Document) -> None:
        line = _canonical(_document_row(doc))
        self._lines.append(line)
        self._held += len(line) + 64  # the list's and the bytes object's own cost, roughly
        if self._held > self.limit:
            self._spill()

    def _spill(self) -> None:
        fh = tempfile.TemporaryFile(prefix="qrelkit-docs-")  # gone when closed (or the process ends)
        self._lines.sort()
        fh.writelines(line + b"\n" for line in self._lines)  # canonical JSON holds no raw newline
        fh.seek(0)
        self._spilled.append(fh)
        self._lines, self._held = [], 0

    def finish(self) -> tuple[str, str | None]:
        """`snapshot.documents_hash` of every document added, and an id added twice (None: none)."""
        self._lines.sort()
        runs: list[Iterator[bytes]] = [iter(self._lines)] + [_lines_of(fh) for fh in self._spilled]
        h = hashlib.sha256()
        repeated: str | None = None
        previous: bytes | None = None
        try:
            for line in heapq.merge(*runs) if self._spilled else runs[0]:
                h.update(line + b"\n")
                if repeated is None and previous is not None and line.startswith(previous):
                    repeated = _id_of(line)
                if repeated is None:
                    previous = _id_prefix(line)
        finally:
            for fh in self._spilled:
                fh.close()
            self._spilled, self._lines = [], []
        return "sha256:" + h.hexdigest(), repeated


def _lines_of(fh: IO[bytes]) -> Iterator[bytes]:
    for line in fh:
        yield line[:-1]


HEAD = 1 << 16
"""Where a line's id ends at the latest (ids are far shorter): only that much is decoded."""


def _id_of(line: bytes) -> str:
    value, _ = json.decoder.scanstring(line[:HEAD].decode("utf-8", "ignore"), 2)  # type: ignore[attr-defined]
    return str(value)


def _id_prefix(line: bytes) -> bytes:
    """`["id",`: the bytes every line of that document starts with (and no other document's)."""
    head = line[:HEAD].decode("utf-8", "ignore")
    _, end = json.decoder.scanstring(head, 2)  # type: ignore[attr-defined]
    return head[: end + 1].encode("utf-8")
