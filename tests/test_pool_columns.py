"""`qrelkit pool` picks each run's top documents from the run's columns (`top_columns`), with
the very result `top_documents` gives from rows: trec_eval's order, queries as they first appear."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.formats.columns import Columns
from qrelkit.formats.trec import read_run
from qrelkit.scoring.arrays import top_columns, top_documents
from qrelkit.workflows.pooling import read_run_lists


def random_run(rng: random.Random, width: int) -> list[tuple[str, str, float]]:
    """Unique pairs, queries interleaved, many ties (-0.0 among them), ids up to `width` bytes."""
    pairs = {
        (f"q{rng.randrange(12)}", "".join(rng.choice("aAbB0_.-") for _ in range(rng.randint(1, width))))
        for _ in range(rng.randrange(1, 400))
    }
    scores = [0.0, -0.0, 1.0, 2.5, -1.0, 1e-300]
    return [(q, d, rng.choice(scores) if rng.random() < 0.7 else rng.random()) for q, d in pairs]


@pytest.mark.parametrize("width", [3, 8, 12, 16, 40])
@pytest.mark.parametrize("seed", range(5))
def test_top_columns_is_top_documents(width: int, seed: int) -> None:
    rng = random.Random(seed * 100 + width)
    rows = random_run(rng, width)
    for depth in (1, 3, 10, 1000):
        expected = top_documents(rows, depth)
        got = top_columns(Columns.from_rows(rows), depth)
        assert list(got.items()) == list(expected.items())


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.sampled_from(["q1", "q2", "é"]), st.text("ab\u00e9Z", min_size=1, max_size=18)),
        st.sampled_from([0.0, -0.0, 1.0, -2.0, 0.5]),
        max_size=30,
    ),
    st.integers(0, 6),
)
def test_top_columns_is_top_documents_for_any_run(run: dict[tuple[str, str], float], depth: int) -> None:
    rows = [(q, d, s) for (q, d), s in run.items()]
    assert list(top_columns(Columns.from_rows(rows), depth).items()) == list(top_documents(rows, depth).items())


def test_pooling_reads_a_run_file_as_before(tmp_path: Path) -> None:
    rows = random_run(random.Random(3), 10)
    path = tmp_path / "bm25.run"
    path.write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n" for i, (q, d, s) in enumerate(rows, 1)))
    irregular = tmp_path / "odd.run"
    irregular.write_text("# a comment: the exact reader reads it\n" + path.read_text())
    expected = top_documents(((r.query_id, r.doc_id, r.score) for r in read_run(path)), 5)
    lists = read_run_lists([path, irregular], 5)
    assert [r.name for r in lists] == ["bm25", "odd"]
    assert [list(r.ranked.items()) for r in lists] == [list(expected.items())] * 2
    (tmp_path / "empty.run").write_text("# nothing\n")
    with pytest.raises(InputError, match="no run lines in the file"):
        read_run_lists([tmp_path / "empty.run"], 5)
