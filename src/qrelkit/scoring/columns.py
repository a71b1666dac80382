"""Fast columnar parsing of TREC text into numpy arrays.

`trec_columns(data, kind)` tokenises the bytes of a whole TREC run or qrels file with numpy and
returns its columns, or None when anything is irregular (a comment, a line with the wrong number
of fields, a value that does not parse, a duplicate pair): the caller then falls back to the
line-by-line readers of `qrelkit.formats.trec`, which name the offending line. So this path never
decides what is an error; it only makes the regular case fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

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
    buf: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64], *, hashed: bool
) -> tuple[npt.NDArray[np.bytes_], npt.NDArray[np.uint64] | None]:
    """Tokens as a fixed-width bytes array, and (if `hashed`) a 64-bit FNV-1a hash of each."""
    n = len(starts)
    lengths = ends - starts
    width = int(lengths.max(initial=1))
    out = np.zeros((n, width), dtype=np.uint8)
    hashes = np.empty(n, dtype=np.uint64) if hashed else None
    cols = np.arange(width, dtype=np.int64)
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        chars = buf.take(starts[lo:hi, None] + cols[None, :], mode="clip")
        chars[cols[None, :] >= lengths[lo:hi, None]] = 0
        out[lo:hi] = chars
        if hashes is not None:
            hashes[lo:hi] = _fnv(chars, lengths[lo:hi])
    return out.view(f"S{width}").ravel(), hashes


def _fnv(chars: npt.NDArray[np.uint8], lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """FNV-1a over each row's first `length` bytes (independent of the padded width)."""
    h = np.full(len(chars), _FNV_OFFSET, dtype=np.uint64)
    for j in range(chars.shape[1]):
        live = j < lengths
        h = np.where(live, (h ^ chars[:, j].astype(np.uint64)) * _FNV_PRIME, h)
    return h


def _group_codes(values: npt.NDArray[np.bytes_]) -> npt.NDArray[np.int64]:
    """An integer per distinct value, computed where the value changes (files are grouped)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.concatenate(([True], values[1:] != values[:-1]))
    heads = np.flatnonzero(change)
    _, head_codes = np.unique(values[heads], return_inverse=True)
    return np.asarray(head_codes.ravel()[np.cumsum(change) - 1], dtype=np.int64)


@dataclass(frozen=True)
class Parsed:
    columns: Columns
    doc_hash: npt.NDArray[np.uint64]


def _tokens(buf: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Start and end offsets of the white-space separated tokens."""
    space = buf <= 32
    seps = np.flatnonzero(space)
    # the common layout: one separator byte between tokens, no blank lines, no leading space
    if len(seps) and seps[0] > 0 and not (np.diff(seps) == 1).any():
        ends = seps if space[-1] else np.concatenate((seps, [len(buf)]))
        starts = np.concatenate(([0], seps[: len(ends) - 1] + 1))
        return starts, ends
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        edges = np.concatenate(([0], edges))
    if not space[-1]:
        edges = np.concatenate((edges, [len(buf)]))
    return edges[0::2], edges[1::2]


def trec_columns(data: bytes, kind: str) -> Parsed | None:
    """Columns of a TREC run (`kind="run"`, 6 fields) or qrels (`kind="qrels"`, 4 fields)."""
    nfields, doc_field, value_field = (6, 2, 4) if kind == "run" else (4, 2, 3)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    buf = np.frombuffer(data, dtype=np.uint8)
    if len(buf) == 0 or buf.max() > 127:
        return None  # empty, or non-ASCII: the exact reader checks and reports
    starts, ends = _tokens(buf)
    if len(starts) == 0 or len(starts) % nfields:
        return None
    # one record per line: a newline (or the end) after each record's last token, none inside
    padded = np.append(buf, [np.uint8(10), np.uint8(10)])
    after = padded[ends]
    crlf = np.flatnonzero(after == 13)
    after[crlf] = padded[ends[crlf] + 1]  # CRLF ends a line too
    gaps = after.reshape(-1, nfields) == 10
    if not gaps[:, -1].all() or gaps[:, :-1].any():
        return None
    del gaps
    if (buf[starts[0::nfields]] == ord("#")).any():
        return None
    query, _ = _cut(buf, starts[0::nfields], ends[0::nfields], hashed=False)
    doc, doc_hash = _cut(buf, starts[doc_field::nfields], ends[doc_field::nfields], hashed=True)
    raw_value, _ = _cut(buf, starts[value_field::nfields], ends[value_field::nfields], hashed=False)
    del starts, ends
    try:
        value = raw_value.astype(np.float64) if kind == "run" else raw_value.astype(np.int64)
    except (ValueError, OverflowError):
        return None
    if kind == "run" and not np.isfinite(value).all():
        return None
    if kind == "qrels" and (np.abs(value) > 1_000_000).any():
        return None
    doc_hash = cast(npt.NDArray[np.uint64], doc_hash)  # hashed=True
    pair = np.sort(doc_hash + _group_codes(query).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    if len(pair) > 1 and (pair[1:] == pair[:-1]).any():
        return None  # a duplicate (query, doc), or a hash collision: the exact reader decides
    return Parsed(Columns(query=query, doc=doc, value=value), doc_hash)


def hash_docs(doc: npt.NDArray[np.bytes_]) -> npt.NDArray[np.uint64]:
    """The same FNV-1a hash as `trec_columns` computes, for columns built another way."""
    width = max(doc.dtype.itemsize, 1)
    chars = np.frombuffer(doc.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(len(doc), width)
    lengths = np.char.str_len(doc).astype(np.int64) if len(doc) else np.zeros(0, np.int64)
    return _fnv(chars, lengths)
