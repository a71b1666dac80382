"""What keeps the fast qrels join from missing a label: a prefilter on the ids' bytes.

The join (`arrays._join`) matches run rows to qrels labels by a key made of the query's code and
the document id's hash, and confirms every match by comparing the ids' bytes. A hash alone could
still *miss* a match: an id whose two hashes differ (two hashing paths that disagree, as when the
hash once depended on the column's width) would score a relevant document as unlabeled, a wrong
number and no error. So the rows the join looks at are not chosen by the hash: `candidates` picks
every run row whose *fold* (the XOR of the id's 8-byte words, zero-padded: the bytes themselves,
whatever the column's width) is a label's fold. A row that equals a label byte for byte is always
among them. The join then matches the candidates by hash, and `check_rest` compares the candidates
it did not match with the labels of the same fold and query, byte for byte: an equal pair means
the hash missed it, and `InternalError` is raised rather than a score reported.

The fold only filters: ids that fold alike but differ are sorted out by the byte comparison. It
costs what the hash prefilter it replaces cost (a pass over the run's ids and a bitmap probe). The
labels are folded and indexed once per qrels (`fold_index`), the run's ids once per run or block:
a run read in about 100 blocks (shared msmarco) had the labels folded and sorted again for each (about
1 s of CPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InternalError

IntArray = npt.NDArray[np.int64]

_SPREAD = np.uint64(0xD6E8FEB86659FD93)
_CODE_MIX = np.uint64(0x9E3779B97F4A7C15)
_BITS = 23
"""The bitmap has at most 2^23 slots (bits, 1 MiB)..."""
_SLOTS_PER_LABEL = 8
"""...and at least 8 per label (at most ~12% of the slots set: the ids that differ from every label
but are candidates cost less than probing a larger bitmap, which misses the cache; shared medium,
269k labels: 2 MiB, 0.02 s less CPU than 8 MiB). A small qrels' bitmap is small, not 8 MiB zeroed
for 10 labels."""
_MIN_BITS = 10
INT32_ORDER_BELOW = 2**31
"""Fewer labels than this keep the fold index's order as int32 (4 bytes a label, not 8)."""


def fold(doc: npt.NDArray[np.bytes_]) -> npt.NDArray[np.uint64]:
    """XOR of each id's 8-byte words, little-endian, zero-padded: a function of the bytes alone
    (a word of padding is zero and changes nothing)."""
    n = len(doc)
    size = doc.dtype.itemsize
    if n == 0 or size == 0:
        return np.zeros(n, dtype=np.uint64)
    if size % 8:
        size = -(-size // 8) * 8
        doc = doc.astype(f"S{size}")
    words = np.ascontiguousarray(doc).view(np.uint8).reshape(n, size).view("<u8")
    if words.shape[1] == 1:
        return np.asarray(words[:, 0], dtype=np.uint64)
    out = words[:, 0] ^ words[:, 1]
    for j in range(2, words.shape[1]):
        out ^= words[:, j]
    return np.asarray(out, dtype=np.uint64)


def _bits_for(n_labels: int) -> int:
    """The bitmap's size (as a power of two) for this many labels: `_SLOTS_PER_LABEL` slots each,
    between 2^`_MIN_BITS` and 2^`_BITS`."""
    return min(_BITS, max(_MIN_BITS, (n_labels * _SLOTS_PER_LABEL - 1).bit_length()))


def _slots(folded: npt.NDArray[np.uint64], bits: int) -> npt.NDArray[np.uint64]:
    slot = folded * _SPREAD
    slot >>= np.uint64(64 - bits)
    return slot


def _keys(folded: npt.NDArray[np.uint64], code: npt.NDArray[np.signedinteger[Any]]) -> npt.NDArray[np.uint64]:
    """The (query code, fold) key `missed` matches on."""
    key = code.astype(np.uint64)
    key *= _CODE_MIX
    key ^= folded
    return key


@dataclass(frozen=True)
class FoldIndex:
    """The labels' folds, built once per qrels (`fold_index`): the bitmap `candidates` probes, and
    the labels' (query code, fold) keys sorted for `check_rest`. A run joined in many blocks
    folds the labels once, not once per block."""

    bits: npt.NDArray[np.uint8]
    """2^`size` slots (`_bits_for`), one bit each (slot s is bit s % 8 of byte s // 8), set where
    some label's fold lands: an eighth of a byte per slot (shared medium, 269k labels: 512 KiB, not
    the 4 MiB of one boolean per slot)."""
    key: npt.NDArray[np.uint64]
    """The labels' keys, sorted."""
    order: npt.NDArray[np.int32] | IntArray
    """Sorted key -> the label's row (int32 below `INT32_ORDER_BELOW` labels)."""
    code: npt.NDArray[np.signedinteger[Any]]
    doc: npt.NDArray[np.bytes_]
    size: int
    """The bitmap has 2^size slots."""


@dataclass(frozen=True)
class JoinLabels:
    """The qrels of the evaluated queries as the join (`arrays._join`) matches them: their pair
    keys (query code x doc hash) sorted, and each label's query code, id and grade code in file
    order (`arrays.label_index`; the ids are the qrels' own column, not a sorted copy of it)."""

    key: npt.NDArray[np.uint64]
    row: npt.NDArray[np.int32] | IntArray
    """Sorted key -> the label's row (`narrow_order`)."""
    code: npt.NDArray[np.int32]
    doc: npt.NDArray[np.bytes_]
    grade: npt.NDArray[np.signedinteger[Any]]
    """Grade codes in the narrowest type that holds them (int8 up to 127 codes), -1 for a negative grade."""
    folds: FoldIndex | None
    """`fold_index(code, doc)`, built once per qrels (None: no label)."""


def narrow_order(order: IntArray) -> npt.NDArray[np.int32] | IntArray:
    """An order (positions) as int32 when it has fewer than `INT32_ORDER_BELOW` entries."""
    return order.astype(np.int32) if len(order) < INT32_ORDER_BELOW else order


def fold_index(label_code: npt.NDArray[np.signedinteger[Any]], label_doc: npt.NDArray[np.bytes_]) -> FoldIndex:
    """The index of these labels (their query codes and document ids) the join checks against."""
    folded = fold(label_doc)
    size = _bits_for(len(label_doc))
    slots = np.zeros(1 << size, dtype=bool)  # (packed at once: faster than setting bits one by one)
    slots[_slots(folded, size)] = True
    bits = np.packbits(slots, bitorder="little")
    del slots
    key = _keys(folded, label_code)
    del folded
    order = np.argsort(key)
    key = key[order]
    return FoldIndex(bits, key, narrow_order(order), label_code, label_doc, size)


def candidates(index: FoldIndex, run_fold: npt.NDArray[np.uint64]) -> IntArray:
    """The run rows whose id (folded once per run or block: `fold`) folds like some label's id
    (of any query): every row equal to a label byte for byte is among them."""
    slot = _slots(run_fold, index.size)
    byte = index.bits[slot >> np.uint64(3)]
    byte >>= (slot & np.uint64(7)).astype(np.uint8)
    return np.asarray(np.flatnonzero(byte & 1), dtype=np.int64)


def missed(
    index: FoldIndex, run_code: IntArray, run_doc: npt.NDArray[np.bytes_], run_fold: npt.NDArray[np.uint64]
) -> int:
    """How many of the given run rows (their query codes, ids and the ids' folds) equal a label of
    the index (same query code, same bytes)."""
    if len(run_code) == 0 or len(index.key) == 0:
        return 0
    s_key = index.key
    r_key = _keys(run_fold, run_code)
    lo = np.searchsorted(s_key, r_key, side="left")
    sizes = np.searchsorted(s_key, r_key, side="right") - lo
    total = int(sizes.sum())
    if total == 0:
        return 0
    rows = np.repeat(np.arange(len(r_key)), sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    at = index.order[np.repeat(lo - starts, sizes) + np.arange(total)]
    label_doc, label_code = index.doc, index.code
    width = max(run_doc.dtype.itemsize, label_doc.dtype.itemsize, 1)
    same = (run_doc[rows].astype(f"S{width}") == label_doc[at].astype(f"S{width}")) & (run_code[rows] == label_code[at])
    return int(np.count_nonzero(same))


def check_rest(
    index: FoldIndex, run_code: IntArray, run_doc: npt.NDArray[np.bytes_], run_fold: npt.NDArray[np.uint64]
) -> None:
    """Raise `InternalError` when a candidate row the hash left unmatched equals a label."""
    n = missed(index, run_code, run_doc, run_fold)
    if n:
        raise InternalError(
            f"the qrels join left {n} run row(s) unmatched whose query and document the qrels label: "
            "no score is reported",
            "this is a bug in qrelkit; please report it with the two files",
        )
