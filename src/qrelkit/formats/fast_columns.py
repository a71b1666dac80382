"""Two column operations of the fast TREC path, written for speed (issue 31 item 2), each with
the plain numpy operation it stands in for as its twin in `tests/test_run_path_fast.py`: where an
id changes from one row to the next (`id_changes`), and scores written as plain decimals
(`plain_decimals`); and the checks that a token column holds only integers (`integer_tokens`, in
place, and `digits`, over cut values)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _arrow


def id_changes(ids: npt.NDArray[np.bytes_]) -> npt.NDArray[np.bool_]:
    """Where each id differs from the one before it (True at the first): `ids[1:] != ids[:-1]`
    with a True in front. Ids cut by `_cut` (a width of whole 8-byte words, zero-padded) are
    compared a word at a time, 20x faster than numpy's string comparison; any other array
    (`from_rows`' widths) is compared as strings."""
    n = len(ids)
    out = np.empty(n, dtype=bool)
    if n == 0:
        return out
    out[0] = True
    width = ids.dtype.itemsize
    if not width or width % 8 or not ids.flags.c_contiguous or len(ids) < WORD_COMPARE_FROM:
        np.not_equal(ids[1:], ids[:-1], out=out[1:])
        return out
    words = ids.view(np.uint64).reshape(n, width // 8)
    np.not_equal(words[1:, 0], words[:-1, 0], out=out[1:])
    for j in range(1, width // 8):
        out[1:] |= words[1:, j] != words[:-1, j]
    return out


WORD_COMPARE_FROM = 2
"""Ids at least this many compared as words by `id_changes` (tests raise it to hold the two equal)."""


_MAX_DIGITS = 15
"""A mantissa of at most 15 digits is below 2^53: exact as a float64."""
_POWERS = 10.0 ** np.arange(_MAX_DIGITS + 1)


def plain_decimals(raw: npt.NDArray[np.bytes_]) -> npt.NDArray[np.float64] | None:
    """Scores written as plain decimals (`-12.5`, `0.25`, `7`, `.5`: a leading minus, at most one
    dot, 1 to 15 digits) as numpy's own conversion reads them, 1.6x faster; None when a token is
    anything else (`1e-5`, `+1`, `inf`, 16 digits), which `astype` then reads. The same floats:
    the digits make an integer M < 2^53 and the digits after the dot f <= 15, both exact as
    float64, and one IEEE division M / 10^f is the correctly rounded value of the decimal, which
    is what the string conversion returns (`tests/test_run_path_fast.py` holds them equal)."""
    out = np.empty(len(raw), dtype=np.float64)
    for lo in range(0, len(raw), DECIMALS_CHUNK):  # bounds the temporaries (a dozen per token)
        found = _plain_decimals(raw[lo : lo + DECIMALS_CHUNK])
        if found is None:
            return None
        out[lo : lo + len(found)] = found
    return out if len(raw) else None


DECIMALS_CHUNK = 1 << 13
"""Tokens converted at a time by `plain_decimals`: its byte matrices and integer columns for
8,192 tokens take ~0.7 MB (a whole 1 MiB block's, 2.5 MB a thread, raised shared medium's peak
by 3 MiB)."""


def _plain_decimals(raw: npt.NDArray[np.bytes_]) -> npt.NDArray[np.float64] | None:
    """`plain_decimals` of one chunk."""
    n, width = len(raw), raw.dtype.itemsize
    if n == 0 or width == 0 or width > 16:
        return None
    cols = np.ascontiguousarray(raw.view(np.uint8).reshape(n, width).T)  # [byte, token]: one row a step
    value = cols - np.uint8(48)
    digit = value < 10
    dot = cols == 46
    neg = cols[0] == 45
    allowed = digit | dot | (cols == 0)  # 0: the padding after a token (a token holds no NUL)
    allowed[0] |= neg
    if not allowed.all():
        return None
    digits, dots = np.count_nonzero(digit, axis=0), np.count_nonzero(dot, axis=0)
    if int(dots.max()) > 1 or int(digits.min()) < 1 or int(digits.max()) > _MAX_DIGITS:
        return None
    fraction = np.where(dots > 0, np.count_nonzero(cols, axis=0) - 1 - np.argmax(dot, axis=0), 0)
    value *= digit  # 0 at the dot, the minus and the padding
    scale = digit * np.uint8(9)
    scale += np.uint8(1)  # x10 at a digit, x1 elsewhere
    mantissa = value[0].astype(np.int64)
    for j in range(1, width):
        mantissa *= scale[j]
        mantissa += value[j]
    out: npt.NDArray[np.float64] = mantissa / _POWERS[fraction]
    np.negative(out, out=out, where=neg)  # -0 stays -0.0, as the conversion reads it
    return out


def integer_tokens(buf: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]) -> bool:
    """Every token is ASCII digits after at most a leading minus (`trec.parse_grade`), and at most
    `_arrow.LONG_INTEGER` bytes long (a longer one is left to the exact reader). Looks at the tokens in
    place, a byte position at a time (a rank column is a few bytes wide: cheaper than cutting it)."""
    lengths = ends - starts
    if not len(starts):
        return True
    first = buf[starts]
    if not (((first - np.uint8(48)) < 10) | ((first == 45) & (lengths > 1))).all():
        return False
    longest = int(lengths.max())
    if longest > _arrow.LONG_INTEGER:
        return False
    for k in range(1, longest):
        at = starts[lengths > k] + k
        if not ((buf[at] - np.uint8(48)) < 10).all():
            return False
    return True


def digits(raw: npt.NDArray[np.bytes_], *, signed: bool) -> bool:
    """Every value is ASCII digits (`signed`: after at most a leading minus), as `trec.parse_grade`
    reads them (NUL is the array's padding)."""
    width = raw.dtype.itemsize
    if len(raw) == 0 or width == 0:
        return True
    chars = np.ascontiguousarray(raw).view(np.uint8).reshape(len(raw), width)  # (a view: no copy)
    ok = ((chars >= 48) & (chars <= 57)) | (chars == 0)
    if signed:
        ok[:, 0] |= chars[:, 0] == 45
        if width > 1:
            ok[:, 0] &= (chars[:, 0] != 45) | (chars[:, 1] != 0)  # a minus alone is no number
        else:
            ok[:, 0] &= chars[:, 0] != 45
    return bool(ok.all())
