"""Every size threshold of a fast path, and the hook that lowers them all for a test.

qrelkit's fast paths change behaviour at sizes: files are read in blocks, large files go to pyarrow's
tokeniser, rows are cut and hashed in chunks, the exact reader builds columns in blocks (small ones
first), standard input is copied a chunk at a time as it is read, the join's
prefilter bitmap has a fixed number of slots, the kernels work over blocks of cells, grades above
a bound are coded by value, and `import qrels` goes through the columnar parser a block at a time and
rebuilds the log's indexes past a size. A test with small files would never cross one of them, so
`lowered()` sets them all to sizes a handful of lines crosses (each several times), and
`compiled=True` also sends every file through pyarrow's tokeniser (when it is installed).

A new threshold belongs in `THRESHOLDS`, with the value that makes small data cross it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

from qrelkit.formats import _arrow, columns, exact_columns, fast_columns, reading, runs, spool
from qrelkit.scoring import arrays, join_check, kernels, ties
from qrelkit.storage import imports
from qrelkit.workflows import importing

THRESHOLDS: list[tuple[object, str, int]] = [
    (runs, "BLOCK", 48),  # bytes per read block: several blocks per file, lines cut at every place
    (runs, "QRELS_BLOCK", 40),  # bytes per read block of a qrels file, likewise
    (runs, "BLOCK_ROWS", 2),  # rows per query block of a streamed run: a block ends after nearly every query
    (columns, "CHUNK", 3),  # rows cut and hashed per step
    (columns, "INT32_OFFSETS_BELOW", 16),  # blocks of 16 bytes or more keep int64 offsets
    (fast_columns, "DECIMALS_CHUNK", 3),  # plain decimal scores converted 3 at a time
    (reading, "NUMPY_COUNT_FROM", 1),  # every block's newlines counted by numpy
    (ties, "EXACT_TIE_SIZES", 1),  # ties of 2 or more sorted by powers of two, padded
    (_arrow, "LONG_INTEGER", 1),  # rank tokens longer than this go to the exact reader (either tokeniser)
    (exact_columns, "CHUNK_ROWS", 2),  # rows per block of the exact reader's columns
    (exact_columns, "FIRST_ROWS", 1),  # rows in its first block (then doubling up to CHUNK_ROWS)
    (spool, "CHUNK", 5),  # bytes a copy of standard input or a pipe takes from it at a time
    (join_check, "_BITS", 3),  # 8 prefilter slots (one byte): nearly every run row is a candidate
    (join_check, "INT32_ORDER_BELOW", 2),  # the fold index's order int64 from 2 labels on
    (kernels, "BLOCK_CELLS", 8),  # cells per kernel block: a few queries per block
    (arrays, "DENSE_GRADES", 1),  # grades above 1 coded by value
    (importing, "QRELS_BLOCK_BYTES", 48),  # import qrels: bytes per columnar block
    (imports, "REBUILD_FROM", 2),  # import qrels: rebuild the log's indexes from 2 labels on
]


@contextlib.contextmanager
def lowered(*, compiled: bool = False) -> Iterator[None]:
    """Every threshold in `THRESHOLDS` lowered; with `compiled`, pyarrow tokenises every file."""
    with contextlib.ExitStack() as stack:
        for module, name, value in THRESHOLDS:
            assert hasattr(module, name), f"{module}.{name} is gone: update tests/thresholds.py"
            stack.enter_context(mock.patch.object(module, name, value))
        if compiled:
            stack.enter_context(mock.patch.object(columns, "COMPILED_FROM", 0))
        yield
