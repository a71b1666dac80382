"""The tokeniser of the fast TREC path, compiled: pyarrow's CSV reader (the `fast` extra, `pip install
'qrelkit[fast]'`) splits a block of whole lines on single spaces and parses the scores, about twice
as fast as the numpy tokeniser it stands in for.

Only the plainest layout is taken (one space between fields, LF line ends, no blank line, printable
ASCII); anything else, or pyarrow missing, returns None and `columns._parse_block` tokenises the
block with numpy as before (which in turn hands anything irregular to the exact reader). So this
module decides nothing about what a valid file is: it accepts a subset of what the numpy path
accepts and gives the same arrays for it (tests/test_columns.py holds the two equal).
"""

from __future__ import annotations

import functools
import os
from types import ModuleType
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

DISABLE = "QRELKIT_NUMPY_TOKENISER"
"""Set (to anything) in the environment to use the numpy tokeniser only (for comparisons)."""


@functools.cache
def _pyarrow() -> tuple[ModuleType, ModuleType] | None:
    if os.environ.get(DISABLE):
        return None
    try:
        import pyarrow as pa
        import pyarrow.csv as csv
    except ImportError:  # optional at run time: the numpy tokeniser does the same work
        return None
    return pa, csv


def available() -> bool:
    return _pyarrow() is not None


Field = tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]
"""A text column: its bytes, and each value's start and end offsets in them."""


class Split(NamedTuple):
    fields: list[Field]
    """The text columns asked for, in that order; the first one's distinct values only."""
    first_index: npt.NDArray[np.int32]
    """Each line's index into `fields[0]` (queries repeat: a run is grouped by query)."""
    floats: npt.NDArray[np.float64] | None


def split(
    data: bytes, nfields: int, text_fields: tuple[int, ...], float_field: int | None, int_field: int | None = None
) -> Split | None:
    """The text columns `text_fields` (the first dictionary-encoded) and the float column
    `float_field` of a block of `nfields`-field lines; None when the block is not in the plainest
    layout or a value is empty, missing or not a number (the numpy tokeniser then looks at it).
    `int_field` is only checked: ASCII digits after at most a minus, at most `LONG_INTEGER` bytes
    (read as text and checked in place: cheaper than pyarrow's integer parser, which also takes hex)."""
    mods = _pyarrow()
    if mods is None:
        return None
    pa, csv = mods
    names = [f"f{i}" for i in range(nfields)]
    types: dict[str, Any] = {names[i]: pa.binary() for i in text_fields}
    types[names[text_fields[0]]] = pa.dictionary(pa.int32(), pa.binary())
    types.update(
        {names[i]: kind for i, kind in ((float_field, pa.float64()), (int_field, pa.binary())) if i is not None}
    )
    wanted = [names[i] for i in (*text_fields, float_field, int_field) if i is not None]
    try:
        table = csv.read_csv(
            pa.py_buffer(data),
            memory_pool=pa.system_memory_pool(),  # freed at once: a block's table lives only here
            read_options=csv.ReadOptions(column_names=names, use_threads=False, block_size=len(data) + 1),
            parse_options=csv.ParseOptions(
                delimiter=" ",
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=False,
            ),
            convert_options=csv.ConvertOptions(
                column_types=types,
                include_columns=wanted,
                null_values=[],
                true_values=[],
                false_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    first = table.column(names[text_fields[0]]).combine_chunks()
    if first.null_count:
        return None
    fields = [_text(first.dictionary)] + [_text(table.column(names[i]).combine_chunks()) for i in text_fields[1:]]
    if any(field is None for field in fields):
        return None
    if int_field is not None and not _integers(_text(table.column(names[int_field]).combine_chunks())):
        return None
    indices = first.indices
    index = np.frombuffer(indices.buffers()[1], dtype=np.int32)[indices.offset : indices.offset + len(indices)]
    if float_field is None:
        return Split(cast(list[Field], fields), index, None)
    column = table.column(names[float_field]).combine_chunks()
    if column.null_count or column.type != pa.float64():  # `_floats` reads its buffer as float64
        return None
    return Split(cast(list[Field], fields), index, _floats(column))


def _floats(column: Any) -> npt.NDArray[np.float64]:
    """A float64 column without nulls as numpy, from its data buffer (no copy). Not `to_numpy()`:
    that imports pandas when it is installed (0.46 s of CPU and 50 MiB at the first block)."""
    data = column.buffers()[1]
    values = np.frombuffer(data, dtype=np.float64) if data is not None else np.zeros(0, np.float64)
    return values[column.offset : column.offset + len(column)]


def _text(array: Any) -> Field | None:
    """A binary column's bytes and offsets; None when a value is empty (two spaces in a row)."""
    if array.null_count:
        return None
    _, offsets, values = array.buffers()
    n = len(array)
    bounds = np.frombuffer(offsets, dtype=np.int32)[array.offset : array.offset + n + 1].astype(np.int64)
    starts, ends = bounds[:-1], bounds[1:]
    if n and int((ends - starts).min()) == 0:
        return None
    chars = np.frombuffer(values, dtype=np.uint8) if values is not None else np.zeros(0, np.uint8)
    return chars, starts, ends


LONG_INTEGER = 32
"""Longer integer tokens are left to the exact reader (which takes any length)."""


def _integers(field: Field | None) -> bool:
    """Every value of a text column is ASCII digits after at most a leading minus (as
    `trec.parse_grade` reads them), and at most `LONG_INTEGER` bytes long."""
    if field is None:
        return False
    chars, starts, ends = field
    if not len(starts):
        return True
    lengths = ends - starts
    if int(lengths.max()) > LONG_INTEGER:
        return False
    used = chars[int(starts[0]) : int(ends[-1])]
    digit = (used - np.uint8(48)) < 10
    first = starts - starts[0]
    minus = used[first] == 45
    digit[first[minus & (lengths > 1)]] = True  # a leading minus, followed by a digit
    return bool(digit.all())
