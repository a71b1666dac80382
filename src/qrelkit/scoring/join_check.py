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
costs what the hash prefilter it replaces cost (a pass over the run's ids and a bitmap probe).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..errors import InternalError

IntArray = npt.NDArray[np.int64]

_SPREAD = np.uint64(0xD6E8FEB86659FD93)
_CODE_MIX = np.uint64(0x9E3779B97F4A7C15)
_BITS = 23
"""The bitmap has 2^23 slots (booleans, 8 MiB)."""


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


def _slots(folded: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    slot = folded * _SPREAD
    slot >>= np.uint64(64 - _BITS)
    return slot


def candidates(label_doc: npt.NDArray[np.bytes_], run_doc: npt.NDArray[np.bytes_]) -> IntArray:
    """The run rows whose id folds like some label's id (of any query): every row equal to a
    label byte for byte is among them."""
    return candidates_in(label_bits(label_doc), run_doc)


def label_bits(label_doc: npt.NDArray[np.bytes_]) -> npt.NDArray[np.bool_]:
    """The bitmap of the labels' folds `candidates_in` probes (built once for a run read in blocks)."""
    bits = np.zeros(1 << _BITS, dtype=bool)
    bits[_slots(fold(label_doc))] = True
    return bits


def candidates_in(bits: npt.NDArray[np.bool_], run_doc: npt.NDArray[np.bytes_]) -> IntArray:
    """`candidates` against the labels whose `label_bits` these are."""
    return np.asarray(np.flatnonzero(bits[_slots(fold(run_doc))]), dtype=np.int64)


def missed(
    label_code: IntArray,
    label_doc: npt.NDArray[np.bytes_],
    run_code: IntArray,
    run_doc: npt.NDArray[np.bytes_],
) -> int:
    """How many of the given run rows equal a given label (same query code, same bytes)."""
    if len(run_code) == 0 or len(label_code) == 0:
        return 0
    l_key = fold(label_doc) ^ (label_code.astype(np.uint64) * _CODE_MIX)
    r_key = fold(run_doc) ^ (run_code.astype(np.uint64) * _CODE_MIX)
    order = np.argsort(l_key)
    s_key = l_key[order]
    lo = np.searchsorted(s_key, r_key, side="left")
    sizes = np.searchsorted(s_key, r_key, side="right") - lo
    total = int(sizes.sum())
    if total == 0:
        return 0
    rows = np.repeat(np.arange(len(r_key)), sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    at = order[np.repeat(lo - starts, sizes) + np.arange(total)]
    width = max(run_doc.dtype.itemsize, label_doc.dtype.itemsize, 1)
    same = (run_doc[rows].astype(f"S{width}") == label_doc[at].astype(f"S{width}")) & (run_code[rows] == label_code[at])
    return int(np.count_nonzero(same))


def check_rest(
    label_code: IntArray,
    label_doc: npt.NDArray[np.bytes_],
    run_code: IntArray,
    run_doc: npt.NDArray[np.bytes_],
) -> None:
    """Raise `InternalError` when a candidate row the hash left unmatched equals a label."""
    n = missed(label_code, label_doc, run_code, run_doc)
    if n:
        raise InternalError(
            f"the qrels join left {n} run row(s) unmatched whose query and document the qrels label: "
            "no score is reported",
            "this is a bug in qrelkit; please report it with the two files",
        )
