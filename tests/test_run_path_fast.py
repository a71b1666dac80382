"""The run path's shortcuts (issue 31 item 2) against their plain twins: where each query id
changes, compared as 8-byte words (`columns.id_changes`), and the same reports whichever is used."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.formats import fast_columns
from qrelkit.formats.columns import _cut
from qrelkit.formats.fast_columns import id_changes

IDS = st.lists(st.sampled_from(["q", "q1", "q10", "1000593", "12345678", "123456789", "é", "abcdefghijklmnopq"]))


def cut_ids(ids: list[str]) -> np.ndarray:
    """Ids as the fast parser cuts them (whole 8-byte words, zero-padded)."""
    data = "".join(f"{i}\n" for i in ids).encode()
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10).astype(np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    return _cut(buf, starts, ends, hashed=False)[0]


@settings(max_examples=300, deadline=None)
@given(IDS)
def test_id_changes_are_the_string_comparison(ids: list[str]) -> None:
    for array in (cut_ids(ids) if ids else np.zeros(0, "S8"), np.array([i.encode() for i in ids], dtype=np.bytes_)):
        plain = np.concatenate(([True], array[1:] != array[:-1])) if len(array) else np.zeros(0, bool)
        assert np.array_equal(id_changes(array), plain)


@pytest.mark.parametrize("width", [8, 16, 24])
def test_words_differ_anywhere_in_the_id(width: int) -> None:
    base = b"a" * (width - 1)
    ids = np.array([base, base, base[:-1] + b"b", base[:-1] + b"b", b"a", b"a"], dtype=f"S{width}")
    assert id_changes(ids).tolist() == [True, False, True, False, True, False]


def test_strings_compared_below_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = cut_ids(["q1", "q1", "q2"])
    monkeypatch.setattr(fast_columns, "WORD_COMPARE_FROM", 10)
    assert id_changes(ids).tolist() == [True, False, True]


def order_twin(block: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Rows by key within each block: one stable sort of (block, key)."""
    return np.lexsort((key, block)).astype(np.int64)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 70), min_size=1, max_size=40), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 8]))
def test_tie_blocks_of_every_size_order_as_one_sort(sizes: list[int], seed: int, exact: int) -> None:
    from qrelkit.scoring import ties

    rng = np.random.default_rng(seed)
    block = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    key = rng.permutation(len(block)).astype(np.uint64) * np.uint64(1 << 40) + rng.integers(
        0, 1 << 40, len(block)
    ).astype(np.uint64)
    key[: min(3, len(key))] = np.iinfo(np.uint64).max - 1  # near the padding, within one block
    key[: min(3, len(key))] -= np.arange(min(3, len(key)), dtype=np.uint64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ties, "EXACT_TIE_SIZES", exact)
        assert np.array_equal(ties.order_within_blocks(block, key), order_twin(block, key))


DECIMAL = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
    st.from_regex(r"-?[0-9]{0,9}\.?[0-9]{0,9}", fullmatch=True),
    st.sampled_from(
        [
            "-0",
            "0.",
            ".5",
            "-.5",
            "+1",
            "1e5",
            "inf",
            "-",
            ".",
            "1..2",
            "1-2",
            "0000000000000001",
            "-12345678.1234567",
            "1234567.12345678",
        ]
    ),
)


def scores_as_cut(tokens: list[str]) -> np.ndarray:
    return cut_ids(tokens)


@pytest.mark.parametrize("chunk", [1, 3, fast_columns.DECIMALS_CHUNK])
@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(DECIMAL.filter(lambda t: t and " " not in t), min_size=1, max_size=30))
def test_plain_decimals_are_numpys_conversion(tokens: list[str], chunk: int) -> None:
    raw = scores_as_cut(tokens)
    try:
        expected = raw.astype(np.float64)
    except ValueError:
        expected = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_columns, "DECIMALS_CHUNK", chunk)
        found = fast_columns.plain_decimals(raw)
    if found is not None:  # when it reads a column, it reads it as numpy does, bit for bit
        assert expected is not None
        assert found.tobytes() == expected.tobytes()
    plain = max(len(x) for x in tokens) <= 16 and all(
        re.fullmatch(r"-?(\d+\.?\d*|\.\d+)", x) and sum(c.isdigit() for c in x) <= 15 for x in tokens
    )
    assert (found is not None) == plain


def test_a_parsed_run_is_the_same_with_and_without_plain_decimals(monkeypatch: pytest.MonkeyPatch) -> None:
    from qrelkit.formats import columns

    rows = [f"q{i % 7} Q0 d{i} {i} {s} tag\n" for i, s in enumerate(["1.5", "-0.25", "7", "12.0001", ".5", "-0"] * 40)]
    data = "".join(rows).encode()
    fast = columns.trec_columns(data, "run")
    monkeypatch.setattr(columns, "DECIMALS_FROM", 10**9)
    plain = columns.trec_columns(data, "run")
    assert fast is not None and plain is not None
    assert fast.columns.value.tobytes() == plain.columns.value.tobytes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 30), st.integers(-1, 3)), max_size=80), st.data())
def test_a_blocks_labels_are_its_queries_labels_in_key_order(
    labels: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    from qrelkit.formats.columns import Columns, hash_docs
    from qrelkit.scoring.arrays import label_index
    from qrelkit.scoring.join_check import JoinLabels
    from qrelkit.scoring.streamed import _LabelsByQuery

    pairs = list(dict.fromkeys((q, d) for q, d, _ in labels))
    rows = [(f"q{q}", f"doc-{d}é", g) for (q, d), (_, _, g) in zip(pairs, labels, strict=False)]
    qrels = Columns.from_rows(rows, integer=True)
    queries = [f"q{i}" for i in range(10)]
    index = label_index(qrels, hash_docs(qrels.doc), queries, None)
    assert index is not None
    present = np.array(sorted(data.draw(st.sets(st.integers(0, 9)))), dtype=np.int64)
    found = _LabelsByQuery(index.labels, len(queries)).of(present)

    def by_key(labels: JoinLabels) -> list[tuple[int, int, bytes, int]]:
        rows = labels.row.tolist()
        return [
            (int(k), int(labels.code[r]), bytes(labels.doc[r]), int(labels.grade[r]))
            for k, r in zip(labels.key.tolist(), rows, strict=True)
        ]

    whole = by_key(index.labels)
    assert by_key(found) == [label for label in whole if label[1] in set(present.tolist())]
    assert found.key.tolist() == sorted(found.key.tolist())
    assert (found.folds is None) == (not found.key.size)


@pytest.mark.parametrize("count_from", [1, 1 << 62])
def test_a_long_line_is_named_whichever_counts_the_newlines(
    count_from: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from qrelkit.errors import InputError
    from qrelkit.formats import reading

    monkeypatch.setattr(reading, "NUMPY_COUNT_FROM", count_from)
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 64)
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2.5 t\n" * 30 + b"x" * 100 + b"\n")
    with pytest.raises(InputError) as found:
        list(reading.read_blocks(path, 200))
    assert found.value.line == 31


@pytest.mark.parametrize("byte", range(33))
def test_the_numpy_tokeniser_refuses_control_characters_only(byte: int) -> None:
    from qrelkit.formats import columns

    layout = columns._Layout(6, 2, 4, rank_field=3)
    line = b"q1 Q0 d" + bytes([byte]) + b"x 1 2.5 t\n"
    found = columns._numpy_tokens(np.frombuffer(line * 3, dtype=np.uint8), layout)
    if byte in (9, 10, 11, 12, 13, 32):  # white space: a separator, or a line the layout refuses
        return
    assert found is None  # any other byte below 32: the exact reader names it
