"""The order of tied rows: a query's documents of equal score ranked as trec_eval ranks them, by
document id descending in byte order (`tie_order`), and the keys that order ids as bytes compare
(`byte_order_keys`). Tie blocks come small and many (two-decimal scores: 70 sizes a block of
shared msmarco), so they are sorted as the rows of a few matrices, not one by one."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


def distinct(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """`np.unique(values)` of a 1-d array of ints or bytes: its distinct values, ascending. Plain
    `np.unique` imports numpy.ma on first use (~15 ms), which a small score need not pay."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) else ordered


def tie_order(block: IntArray, docs: npt.NDArray[np.bytes_]) -> IntArray:
    """Order of tied rows: block ascending, then document id descending in byte order. `block`
    numbers the tie blocks, ascending and contiguous."""
    keys = byte_order_keys(docs)
    if len(keys) == 1 and keys[0].dtype == np.uint64:
        return order_within_blocks(block, np.invert(cast(npt.NDArray[np.uint64], keys[0])))
    return np.asarray(np.lexsort((*keys, -block))[::-1], dtype=np.int64)


EXACT_TIE_SIZES = 8
"""Tie blocks up to this size are sorted with the blocks of their own size; larger ones with the
blocks of up to the next power of two, padded (`order_within_blocks`)."""


def order_within_blocks(block: IntArray, key: npt.NDArray[np.uint64]) -> IntArray:
    """Rows ordered by `key` ascending inside each block (blocks stay where they are): the blocks
    of one size at a time, as rows of a matrix sorted along its rows (tie blocks are small and
    many, so this beats one sort of (block, key) pairs by about 3x). Blocks larger than
    `EXACT_TIE_SIZES` go by powers of two, padded with the largest key (no id has it: it is the
    complement of an empty id), which sorts after every real one: a few matrices, not one per
    size (msmarco's ties come in 70 sizes a block). `key` holds no duplicate within a block."""
    n = len(block)
    starts = np.flatnonzero(np.concatenate(([True], block[1:] != block[:-1])))
    sizes = np.diff(np.append(starts, n))
    out = np.empty(n, dtype=np.int64)
    largest = int(sizes.max(initial=0))
    widths = [int(w) for w in distinct(sizes[sizes <= EXACT_TIE_SIZES])]
    width = EXACT_TIE_SIZES
    while width < largest:
        width *= 2
        widths.append(width)
    for width in widths:
        chosen = (sizes == width) if width <= EXACT_TIE_SIZES else (sizes > width // 2) & (sizes <= width)
        chosen &= sizes > (EXACT_TIE_SIZES if width > EXACT_TIE_SIZES else 0)
        if not chosen.any():
            continue
        rows = starts[chosen][:, None] + np.arange(width)
        inside = np.arange(width)[None, :] < sizes[chosen][:, None]
        keys = np.where(inside, key[np.minimum(rows, n - 1)], np.uint64(np.iinfo(np.uint64).max))
        ranked = np.take_along_axis(rows, np.argsort(keys, axis=1, kind="stable"), axis=1)
        out[rows[inside]] = ranked[inside]  # the padding sorts last: each row's first cells are its own
    return out


def byte_order_keys(
    docs: npt.NDArray[np.bytes_],
) -> tuple[npt.NDArray[np.uint64] | npt.NDArray[np.bytes_], ...]:
    """Sort keys that order ids as bytes compare (strcmp): big-endian 64-bit words when ids are
    short, the bytes themselves otherwise. Least significant key first, as `np.lexsort` wants."""
    width = docs.dtype.itemsize
    if width > 16:
        return (docs,)
    if width <= 8:
        return (np.frombuffer(docs.astype("S8").tobytes(), dtype=">u8").astype(np.uint64),)
    words = np.frombuffer(docs.astype("S16").tobytes(), dtype=">u8").reshape(len(docs), 2).astype(np.uint64)
    return (words[:, 1], words[:, 0])
