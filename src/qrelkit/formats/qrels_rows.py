"""A TREC qrels file read by the columnar parser (`columns.qrels_blocks`), block by block, as the
plain rows the store's bulk import writes (`trec.QrelsRows`): the numpy work (splitting off the
negative grades, ids to text, each block's queries and top grade, the repeat check across the whole
file) is done here, so that the store gets lists and never an array."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterable
from typing import cast

import numpy as np
import numpy.typing as npt

from .columns import QrelsBlock, qrels_blocks
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
