"""A TREC qrels file read by the columnar parser (`qrels_blocks`), block by block, as the
plain rows the store's bulk import writes (`trec.QrelsRows`): the numpy work (splitting off the
negative grades, ids to text, each block's queries and top grade, the repeat check across the whole
file) is done here, so that the store gets lists and never an array."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from .columns import _PAIR_MIX, _Block, _first_layout, _parsed
from .pair_hashes import PairHashes
from .trec import QrelsRows


def qrels_rows(blocks: Iterable[bytes]) -> Generator[QrelsRows | None, None, None]:
    """The rows of a TREC qrels file (blocks of whole lines, `formats.read_blocks`), block by block.
    A None ends them: a block the parser could not read, or, after the last block, two rows with
    the same pair hash (a repeated pair, or very rarely a collision). The caller then gives up
    (writing nothing) and reads the file again with the exact reader, which names the line."""
    with PairHashes() as hashes, contextlib.closing(qrels_blocks(blocks)) as parsed:
        for block in parsed:
            if block is None:
                yield None
                return
            hashes.add(block.pair_hash)
            yield plain(block)
        if hashes.repeated():
            yield None


def plain(block: QrelsBlock) -> QrelsRows:
    """One parsed block as plain rows."""
    query, doc, grade = block.query, block.doc, block.grade
    negative = grade < 0
    pooled_query: list[str] = []
    pooled_doc: list[str] = []
    if negative.any():
        pooled_query, pooled_doc = _texts(query[negative]), _texts(doc[negative])
        keep = ~negative
        query, doc, grade = query[keep], doc[keep], grade[keep]
    top = int(block.grade.max(initial=-1))
    return QrelsRows(_distinct(block.query), top, _texts(query), _texts(doc), grade.tolist(), pooled_query, pooled_doc)


def _texts(ids: npt.NDArray[np.bytes_]) -> list[str]:
    """A block's ids (ASCII bytes: the columnar parser reads nothing else) as text, which binds
    faster than bytes cast to TEXT in SQL."""
    return cast(list[str], ids.astype("U").tolist())


def _distinct(query: npt.NDArray[np.bytes_]) -> frozenset[str]:
    """The distinct ids of a block's query column (each run of equal ids taken once)."""
    if not len(query):
        return frozenset()
    heads = query[1:] != query[:-1]
    return frozenset(q.decode("ascii") for q in (query[0], *query[1:][heads].tolist()))


@dataclass(frozen=True)
class QrelsBlock:
    """The rows of one block of a qrels file, in line order (negative grades: pooled, not judged)."""

    query: npt.NDArray[np.bytes_]
    doc: npt.NDArray[np.bytes_]
    grade: npt.NDArray[np.int64]
    pair_hash: npt.NDArray[np.uint64]
    """A 64-bit hash of each (query, doc): equal pairs hash equal (a repeat is only suspected by it)."""


def qrels_blocks(blocks: Iterable[bytes]) -> Generator[QrelsBlock | None, None, None]:
    """The rows of a TREC qrels file (blocks of whole lines, `formats.read_blocks`) block by block,
    parsed as `trec_columns` parses them, the next blocks in the background while the caller works
    on this one. A None ends it: something is irregular (the caller falls back to the exact reader,
    which names the line). Repeated pairs are not looked for here (see `QrelsBlock.pair_hash`)."""
    source = iter(blocks)
    head = next(source, b"").removeprefix(b"\xef\xbb\xbf")
    first = _first_layout(head, "qrels")
    if first is None:
        yield None
        return
    layout, start = first
    for part in _parsed(itertools.chain([head[start:]], source), "qrels", layout):
        found = _qrels_block(part)
        yield found
        if found is None:
            return


def _qrels_block(part: _Block | None) -> QrelsBlock | None:
    """A parsed block as `qrels_rows` takes it."""
    if part is None:
        return None
    pair_hash = part.doc_hash + part.query_hash * _PAIR_MIX
    return QrelsBlock(part.query, part.doc, cast(npt.NDArray[np.int64], part.value), pair_hash)
