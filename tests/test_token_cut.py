"""The word-at-a-time token cutter (`columns._cut`) against plain slicing of the bytes.

`_cut` gathers each token 8 bytes at a time from aligned words of the block and masks what lies
past its end; a slip shows as a wrong byte, a byte of the next token kept, or a hash of another
id. Hypothesis makes blocks of printable ASCII (and NUL-free random bytes) with tokens at every
alignment, of every length across word boundaries (0-70 bytes), ending at the block's last byte,
overlapping or repeated, with the cut chunk (`columns.CHUNK`) lowered so blocks of rows cross it.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.formats import columns
from qrelkit.formats.columns import hash_docs


@st.composite
def blocks(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]]]:
    alphabet = st.sampled_from(b" \t\r\nabcxyz-_.:0123456789" if draw(st.booleans()) else bytes(range(1, 256)))
    data = bytes(draw(st.lists(alphabet, min_size=1, max_size=300)))
    n = len(data)
    spans = []
    for _ in range(draw(st.integers(0, 40))):
        start = draw(st.integers(0, n - 1))
        end = n if draw(st.integers(0, 5)) == 0 else draw(st.integers(start + 1, min(n, start + 70)))
        spans.append((start, end))  # the last kind ends at the block's last byte
    return data, spans


@settings(max_examples=300, deadline=None)
@given(blocks(), st.integers(1, 8), st.booleans())
def test_cut_tokens_are_the_bytes_sliced(case: tuple[bytes, list[tuple[int, int]]], chunk: int, shared: bool) -> None:
    data, spans = case
    buf = np.frombuffer(data, dtype=np.uint8)
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    with mock.patch.object(columns, "CHUNK", chunk):
        words = columns._words(buf) if shared else None
        cut, hashes = columns._cut(buf, starts, ends, hashed=True, words=words)
        plain, none = columns._cut(buf, starts, ends, hashed=False, words=words)
    longest = max((e - s for s, e in spans), default=1)
    assert cut.dtype.itemsize == -(-longest // 8) * 8  # rounded up to whole words
    assert hashes is not None and none is None and (plain == cut).all()
    raw = cut.view(np.uint8).reshape(len(spans), cut.dtype.itemsize)
    for i, (s, e) in enumerate(spans):
        assert raw[i, : e - s].tobytes() == data[s:e]  # every byte of the token ...
        assert not raw[i, e - s :].any()  # ... and zeros after it, never the next token's bytes
    if spans and b"\0" not in data:  # ids hold no NUL: the hash is the id's, at any width
        expected = hash_docs(np.array([data[s:e] for s, e in spans], dtype=np.bytes_))
        assert np.array_equal(hashes, expected)


def test_no_token_cuts_to_one_zero_word() -> None:
    buf = np.frombuffer(b"abc", dtype=np.uint8)
    cut, hashes = columns._cut(buf, np.zeros(0, np.int64), np.zeros(0, np.int64), hashed=True)
    assert cut.shape == (0,) and cut.dtype == np.dtype("S8") and hashes is not None and hashes.shape == (0,)
