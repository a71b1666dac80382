"""Fast columnar parsing of TREC text into numpy arrays.

`trec_columns(data, kind)` tokenises the bytes of a whole TREC run or qrels file with numpy and
returns its columns, or None when anything is irregular (a comment, a line with the wrong number
of fields, a value that does not parse, a duplicate pair): the caller then falls back to the
line-by-line readers of `qrelkit.formats.trec`, which name the offending line. So this path never
decides what is an error; it only makes the regular case fast.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

CHUNK = 1 << 20
"""Rows gathered per step when cutting tokens out of the buffer (bounds temporary memory)."""

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@dataclass(frozen=True)
class Columns:
    """(query, doc, value) rows: value is a score (run) or a grade (qrels)."""

    query: npt.NDArray[np.bytes_]
    doc: npt.NDArray[np.bytes_]
    value: npt.NDArray[np.float64] | npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.query)

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, float]], *, integer: bool = False) -> Columns:
        query = np.array([r[0].encode("utf-8") for r in rows] or [b""], dtype=np.bytes_)[: len(rows)]
        doc = np.array([r[1].encode("utf-8") for r in rows] or [b""], dtype=np.bytes_)[: len(rows)]
        if integer:
            return cls(query=query, doc=doc, value=np.array([int(r[2]) for r in rows], dtype=np.int64))
        return cls(query=query, doc=doc, value=np.array([r[2] for r in rows], dtype=np.float64))


def _cut(
    buf: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.bytes_], npt.NDArray[np.uint64]]:
    """Tokens as a fixed-width bytes array, and a 64-bit FNV-1a hash of each."""
    n = len(starts)
    lengths = ends - starts
    width = int(lengths.max(initial=1))
    out = np.zeros((n, width), dtype=np.uint8)
    hashes = np.empty(n, dtype=np.uint64)
    cols = np.arange(width)
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        idx = starts[lo:hi, None] + cols[None, :]
        mask = cols[None, :] < lengths[lo:hi, None]
        chars = np.where(mask, buf[np.minimum(idx, len(buf) - 1)], 0).astype(np.uint8)
        out[lo:hi] = chars
        hashes[lo:hi] = _fnv(chars, lengths[lo:hi])
    return out.view(f"S{width}").ravel(), hashes


def _fnv(chars: npt.NDArray[np.uint8], lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """FNV-1a over each row's first `length` bytes (independent of the padded width)."""
    h = np.full(len(chars), _FNV_OFFSET, dtype=np.uint64)
    for j in range(chars.shape[1]):
        live = j < lengths
        h = np.where(live, (h ^ chars[:, j].astype(np.uint64)) * _FNV_PRIME, h)
    return h


@dataclass(frozen=True)
class Parsed:
    columns: Columns
    doc_hash: npt.NDArray[np.uint64]


def trec_columns(data: bytes, kind: str) -> Parsed | None:
    """Columns of a TREC run (`kind="run"`, 6 fields) or qrels (`kind="qrels"`, 4 fields)."""
    nfields, doc_field, value_field = (6, 2, 4) if kind == "run" else (4, 2, 3)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    buf = np.frombuffer(data, dtype=np.uint8)
    if len(buf) == 0:
        empty = Columns(np.array([], dtype="S1"), np.array([], dtype="S1"), np.array([], dtype=np.float64))
        return Parsed(empty, np.array([], dtype=np.uint64))
    if (buf > 127).any():
        return None  # non-ASCII: let the exact reader check the encoding
    space = buf <= 32
    prev_space = np.concatenate(([True], space[:-1]))
    next_space = np.concatenate((space[1:], [True]))
    starts = np.flatnonzero(~space & prev_space)
    ends = np.flatnonzero(~space & next_space) + 1
    newlines = np.flatnonzero(buf == 10)
    line_of = np.searchsorted(newlines, starts)
    per_line = np.bincount(line_of)
    if per_line[per_line > 0].min(initial=nfields) != nfields or per_line.max(initial=0) != nfields:
        return None
    if (buf[starts[0::nfields]] == ord("#")).any():
        return None
    query, _ = _cut(buf, starts[0::nfields], ends[0::nfields])
    doc, doc_hash = _cut(buf, starts[doc_field::nfields], ends[doc_field::nfields])
    raw_value, _ = _cut(buf, starts[value_field::nfields], ends[value_field::nfields])
    try:
        value = raw_value.astype(np.float64) if kind == "run" else raw_value.astype(np.int64)
    except (ValueError, OverflowError):
        return None
    if kind == "run" and not np.isfinite(value).all():
        return None
    if kind == "qrels" and (np.abs(value) > 1_000_000).any():
        return None
    _, query_hash = _cut(buf, starts[0::nfields], ends[0::nfields])
    pair = np.sort(doc_hash + query_hash * np.uint64(0x9E3779B97F4A7C15))
    if len(pair) > 1 and (pair[1:] == pair[:-1]).any():
        return None  # a duplicate (query, doc), or a hash collision: the exact reader decides
    return Parsed(Columns(query=query, doc=doc, value=value), doc_hash)


def hash_docs(doc: npt.NDArray[np.bytes_]) -> npt.NDArray[np.uint64]:
    """The same FNV-1a hash as `trec_columns` computes, for columns built another way."""
    width = max(doc.dtype.itemsize, 1)
    chars = np.frombuffer(doc.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(len(doc), width)
    lengths = np.char.str_len(doc).astype(np.int64) if len(doc) else np.zeros(0, np.int64)
    return _fnv(chars, lengths)
