"""Columns from the exact line readers, in memory close to the fast parser's.

When the fast parser (`formats.columns.trec_columns`) gives up, or for JSON Lines, the exact
readers (`trec.read_run`, `jsonl.read_run`, the qrels readers) read the file line by line and
name any bad line. `exact_columns` turns their records into `Columns` a block of `CHUNK_ROWS`
rows at a time (no Python object per row outlives its block) and finds repeated (query, doc)
pairs block by block without a dict of strings: the 64-bit hash of each pair (the fast parser's
id hash of the doc plus that of the query times a constant), looked up among the hashes of the
blocks before (`seen.SeenKeys`); only rows whose hashes are equal are compared as strings, so a
hash collision is never taken for a repeat. The error is the one the reader's own check gives:
the first line (in file order) that repeats a pair, named with the pair's first line; a bad line
after it is not reached, a bad line before it wins. So an endless input (standard input) stops
at the block that repeats a pair; the first blocks are small (`FIRST_ROWS`, doubling), so that
a repeat near the start is found after a few lines, not after a whole block.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..errors import InputError
from .columns import Columns, hash_docs
from .ids import refuse_repeat
from .seen import SeenKeys
from .trec import RUN_REPEAT_HINT

CHUNK_ROWS = 100_000
"""Records converted to arrays at a time (bounds the Python objects alive at once)."""
FIRST_ROWS = 1_000
"""Records in the first block; each next block twice as many, up to `CHUNK_ROWS`."""

_MIX = np.uint64(0x9E3779B97F4A7C15)
"""The fast parser's pair key: doc hash + query hash * _MIX."""

Record = tuple[str, str, float, int]
"""(query, doc, value, line): what the exact readers yield (`RunRecord`, `QrelRecord`)."""


def repeat_message(kind: str, query: str, doc: str) -> tuple[str, str]:
    """The message and hint of a repeated (query, doc) pair, as the exact readers word them."""
    if kind == "run":
        return f"document {doc!r} appears twice for query {query!r}", RUN_REPEAT_HINT
    return f"duplicate judgment for query {query!r} doc {doc!r}", "keep one line per (query, doc) pair"


@dataclass
class _Parts:
    """The blocks converted so far."""

    integer: bool
    query: list[npt.NDArray[np.bytes_]] = field(default_factory=list)
    doc: list[npt.NDArray[np.bytes_]] = field(default_factory=list)
    value: list[npt.NDArray[np.float64] | npt.NDArray[np.int64]] = field(default_factory=list)
    line: list[npt.NDArray[np.int64]] = field(default_factory=list)
    key: list[npt.NDArray[np.uint64]] = field(default_factory=list)
    seen: SeenKeys = field(default_factory=SeenKeys)

    def add(self, rows: list[Record]) -> npt.NDArray[np.uint64]:
        """Convert `rows`; the pair hashes among them that earlier rows (or two of them) share."""
        if not rows:
            return np.zeros(0, dtype=np.uint64)
        queries, docs, values, lines = zip(*rows, strict=True)
        query = _bytes_array([q.encode("utf-8") for q in queries])
        doc = _bytes_array([d.encode("utf-8") for d in docs])
        self.query.append(query)
        self.doc.append(doc)
        if self.integer:
            self.value.append(np.array(values, dtype=np.int64))
        else:
            self.value.append(np.array(values, dtype=np.float64))
        self.line.append(np.array(lines, dtype=np.int64))
        self.key.append(hash_docs(doc) + hash_docs(query) * _MIX)
        return self.seen.add(self.key[-1])

    def refuse_repeats(self, rows: list[Record], kind: str, name: str) -> None:
        """Convert `rows`; the reader's own error when a row repeats an earlier pair."""
        suspects = self.add(rows)
        if not len(suspects):
            return
        picked = [np.flatnonzero(np.isin(key, suspects)) for key in self.key]  # rows that hash alike, in order
        query = np.concatenate([q[at] for q, at in zip(self.query, picked, strict=True)])
        doc = np.concatenate([d[at] for d, at in zip(self.doc, picked, strict=True)])
        key = np.concatenate([k[at] for k, at in zip(self.key, picked, strict=True)])
        line = np.concatenate([n[at] for n, at in zip(self.line, picked, strict=True)])
        found = first_repeat(key, query, doc)
        if found is None:
            return  # hash collisions only
        row, earlier = found
        pair = (query[row].decode("utf-8"), doc[row].decode("utf-8"))
        message, hint = repeat_message(kind, *pair)
        refuse_repeat({pair: int(line[earlier])}, pair, int(line[row]), message, hint, name)


def _bytes_array(values: list[bytes]) -> npt.NDArray[np.bytes_]:
    return np.array(values or [b""], dtype=np.bytes_)[: len(values)]


def _join_bytes(parts: list[npt.NDArray[np.bytes_]]) -> npt.NDArray[np.bytes_]:
    """One array at the widest part's width; each part is dropped once copied."""
    width = max((p.dtype.itemsize for p in parts), default=1)
    out = np.empty(sum(len(p) for p in parts), dtype=f"S{max(width, 1)}")
    lo = 0
    parts.reverse()
    while parts:
        part = parts.pop()
        out[lo : lo + len(part)] = part
        lo += len(part)
    return out


def _join(parts: list[npt.NDArray[np.generic]], dtype: type[np.generic]) -> npt.NDArray[np.generic]:
    out = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    parts.clear()
    return out


def first_repeat(
    key: npt.NDArray[np.uint64], query: npt.NDArray[np.bytes_], doc: npt.NDArray[np.bytes_]
) -> tuple[int, int] | None:
    """(row, earlier row) of the first row (in row order) whose (query, doc) an earlier row has,
    the earlier one being the pair's first row; None when every pair is unique. `key` is any
    hash of the pair: only rows with equal keys are compared exactly."""
    if len(key) < 2:
        return None
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    if not same.any():
        return None
    cand = np.unique(np.concatenate((order[1:][same], order[:-1][same])))  # rows sharing a hash, in row order
    del order, same
    cand = cand[np.lexsort((doc[cand], query[cand], key[cand]))]  # stable: row order within a pair
    later, earlier = cand[1:], cand[:-1]
    equal = (key[later] == key[earlier]) & (query[later] == query[earlier]) & (doc[later] == doc[earlier])
    if not equal.any():
        return None  # hash collisions only
    starts = np.maximum.accumulate(np.where(np.concatenate(([True], ~equal)), np.arange(len(cand)), 0))
    repeats = np.flatnonzero(equal) + 1
    at = repeats[np.argmin(cand[repeats])]
    return int(cand[at]), int(cand[starts[at]])


def _joined(parts: _Parts) -> Columns:
    parts.key.clear()  # the repeat check's: done
    parts.line.clear()
    parts.seen.runs.clear()
    query, doc = _join_bytes(parts.query), _join_bytes(parts.doc)
    value = _join(parts.value, np.int64 if parts.integer else np.float64)  # type: ignore[arg-type]
    return Columns(query=query, doc=doc, value=value)  # type: ignore[arg-type]


def exact_columns(records: Iterable[Record], kind: Literal["run", "qrels"], name: str) -> Columns:
    """Columns (grades as int64 for qrels) of the records an exact reader yields without its own
    repeat check, the same as `Columns.from_rows` of them; a repeated (query, doc) pair is the
    `InputError` that check would raise, and so it is when a bad line follows it."""
    parts = _Parts(integer=kind == "qrels")
    source = iter(records)
    size = min(FIRST_ROWS, CHUNK_ROWS)
    while True:
        rows, error = _take(source, size)
        parts.refuse_repeats(rows, kind, name)  # a pair repeated before a bad line is what the reader met first
        if error is not None:
            raise error
        if len(rows) < size:
            return _joined(parts)
        size = min(2 * size, CHUNK_ROWS)


def _take(records: Iterator[Record], n: int) -> tuple[list[Record], InputError | None]:
    """The next `n` records (fewer at the end), and the reader's error if it stopped at a bad line."""
    rows: list[Record] = []
    try:
        for record in records:
            rows.append(record)
            if len(rows) >= n:
                break
    except InputError as exc:
        return rows, exc
    return rows, None
