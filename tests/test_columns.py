"""The fast columnar parser agrees with the exact line-by-line reader, or steps aside."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from qrelkit.formats import _arrow, trec
from qrelkit.formats.columns import Columns, hash_docs
from qrelkit.scoring import trec_columns
from qrelkit.scoring.arrays import rank, rank_columns


def _random_run(rnd: random.Random) -> str:
    lines = []
    for q in range(rnd.randint(1, 6)):
        docs = rnd.sample([f"d{i}" for i in range(40)] + ["9", "10", "100", "Doc-1.x"], rnd.randint(1, 12))
        for rank_, d in enumerate(docs, 1):
            score = rnd.choice(["1", "2.5", "-3e-2", "7", "0.125", "1e3"])
            lines.append(f"q{q}{rnd.choice([' ', '  ', chr(9)])}Q0 {d} {rank_} {score} run")
    return "\n".join(lines) + rnd.choice(["", "\n", "\r\n"])


@pytest.mark.parametrize("seed", range(25))
def test_fast_run_columns_equal_the_exact_reader(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    text = _random_run(rnd)
    path = tmp_path / "r.run"
    path.write_text(text, newline="")
    parsed = trec_columns(path.read_bytes(), "run")
    assert parsed is not None
    fast = sorted(
        zip(
            parsed.columns.query.tolist(),
            parsed.columns.doc.tolist(),
            parsed.columns.value.tolist(),
            strict=True,
        )
    )
    exact = sorted((r.query_id.encode(), r.doc_id.encode(), r.score) for r in trec.read_run(path))
    assert fast == exact
    assert (parsed.doc_hash == hash_docs(parsed.columns.doc)).all()


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 2.0 r\n# comment\nq1 Q0 d2 2 1.0 r\n",
        "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0\n",
        "q1 Q0 d1 1 nan r\n",
        "q1 Q0 d1 1 x r\n",
        "q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n",
        "q1 Q0 dé 1 2.0 r\n",
        "q1 Q0 d1 1 2.0 r\nq1 Q0 #d2 2 1.0 r\n",  # the exact reader refuses an id starting with `#`
    ],
)
def test_irregular_runs_go_to_the_exact_reader(text: str) -> None:
    assert trec_columns(text.encode(), "run") is None


def test_fast_qrels_columns(tmp_path: Path) -> None:
    parsed = trec_columns(b"q1 0 a 2\nq1 0 b -1\nq2 0 a 0\n", "qrels")
    assert parsed is not None
    assert parsed.columns.value.tolist() == [2, -1, 0]
    assert trec_columns(b"q1 0 a 2.5\n", "qrels") is None
    assert trec_columns(b"q1 0 a 2\nq1 0 a 1\n", "qrels") is None


@pytest.mark.parametrize("seed", range(40))
def test_vectorised_ranking_equals_the_reference(seed: int) -> None:
    rnd = random.Random(seed)
    pool = ["9", "10", "100", "d1", "d2", "D", "x1", "x2", "y"]
    qrels = {f"q{i}": {rnd.choice(pool): rnd.randint(-1, 3) for _ in range(rnd.randint(0, 6))} for i in range(4)}
    seen: set[tuple[str, str]] = set()
    run = []
    for _ in range(rnd.randint(0, 30)):
        q, d = f"q{rnd.randint(0, 5)}", rnd.choice(pool)
        if (q, d) not in seen:
            seen.add((q, d))
            run.append((q, d, float(rnd.choice([0, 1, 2, 0.5]))))
    a = rank(qrels, run)
    qc = Columns.from_rows([(q, d, g) for q, v in qrels.items() for d, g in v.items()], integer=True)
    rc = Columns.from_rows(run)
    b = rank_columns(qc, hash_docs(qc.doc), rc, hash_docs(rc.doc), queries=list(qrels))
    assert b is not None
    assert (a.query_ids, a.run_only, a.max_grade) == (b.query_ids, b.run_only, b.max_grade)
    width = max(a.depth, b.depth)

    def pad(g: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.pad(g, ((0, 0), (0, width - g.shape[1])), constant_values=-2)

    assert (pad(a.grades) == pad(b.grades)).all()
    assert (a.label_counts == b.label_counts).all() and (a.n_ret == b.n_ret).all()


def test_a_query_split_into_two_groups_is_ranked_as_one() -> None:
    """The last evaluated query's rows in two groups (no run-only rows): they must be ranked together
    (the grouped fast path once skipped that query's uniqueness check and kept the groups' order)."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 2}}
    run = [("q2", "b", 3.0), ("q1", "a", 2.0), ("q2", "c", 5.0)]
    qc = Columns.from_rows([(q, d, g) for q, v in qrels.items() for d, g in v.items()], integer=True)
    rc = Columns.from_rows(run)
    ranked = rank_columns(qc, hash_docs(qc.doc), rc, hash_docs(rc.doc), queries=list(qrels))
    assert ranked is not None
    assert ranked.grades[1].tolist() == [2, 1]  # c (5.0) before b (3.0)
    assert ranked.grades.tolist() == rank(qrels, run).grades.tolist()


def test_compiled_tokeniser_gives_the_numpy_tokenisers_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow tokenises large files; on the same bytes it must give exactly the numpy arrays, and
    leave everything it does not take (tabs, two spaces, CRLF, empty fields, NA) to numpy."""
    pytest.importorskip("pyarrow")
    rnd = random.Random(3)
    plain = "".join(
        f"q{q} Q0 d{rnd.randint(0, 999)}x{i} {i} {rnd.choice(['1', '2.5', '-3e-2', '0.125', '1e3', '+4'])} run\n"
        for q in range(30)
        for i in range(rnd.randint(1, 40))
    )
    assert _arrow.split(plain.encode(), 6, (0, 2), 4) is not None  # the compiled path takes it
    texts = [plain, plain.replace(" run\n", " run\r\n"), "q1\tQ0 a 1 2 r\n", "q1 Q0 a 1 NA r\n", "q1 Q0  a 1 2 r\n"]
    for text in texts:
        data = text.encode()
        for kind in ("run",):
            fast, slow = trec_columns(data, kind, large=True), trec_columns(data, kind, large=False)
            assert (fast is None) == (slow is None), text[:40]
            if fast is not None and slow is not None:
                for field in ("query", "doc", "value"):
                    assert np.array_equal(getattr(fast.columns, field), getattr(slow.columns, field))
                assert np.array_equal(fast.doc_hash, slow.doc_hash)
    qrels = b"".join(f"q{i % 7} 0 d{i} {i % 4}\n".encode() for i in range(500))
    fast, slow = trec_columns(qrels, "qrels", large=True), trec_columns(qrels, "qrels", large=False)
    assert fast is not None and slow is not None
    assert np.array_equal(fast.columns.value, slow.columns.value) and np.array_equal(fast.columns.doc, slow.columns.doc)
    assert trec_columns(b"q1 0 a +2\n", "qrels", large=True) is None


@pytest.mark.parametrize("width", [1, 7, 8, 9, 16, 17, 24, 25, 33, 56, 64])
def test_an_id_hashes_the_same_in_columns_of_any_width(width: int) -> None:
    ids = np.array([b"a", b"zz-nonrel", b"doc-0042", b"x" * 24], dtype=np.bytes_)
    wide = ids.astype(f"S{max(width, ids.dtype.itemsize)}")
    assert (hash_docs(ids) == hash_docs(wide)).all()
    padded = np.array([b"a", b"y" * width], dtype=np.bytes_)
    assert hash_docs(padded)[0] == hash_docs(np.array([b"a"]))[0]


def test_run_and_qrels_with_ids_of_different_widths_match(tmp_path: Path) -> None:
    """Issue 24's minimal case: the qrels' widest id is 9 bytes, the run's 1 byte."""
    qrels = trec_columns(b"q8 0 a 1\nq13 0 zz-nonrel 0\n", "qrels")
    run = trec_columns(b"q8 Q0 a 1 3.25 r\n", "run")
    assert qrels is not None and run is not None
    ranked = rank_columns(qrels.columns, qrels.doc_hash, run.columns, run.doc_hash)
    assert ranked is not None
    assert ranked.grades[ranked.query_ids.index("q8")][0] == 1


def _width_dependent_hash(chars: np.ndarray) -> np.ndarray:
    """The id hash as it was before issue 24: padding words changed it."""
    words = chars.view("<u8")
    h = words[:, 0] * np.uint64(0x9E3779B97F4A7C15)
    for j in range(1, words.shape[1]):
        h ^= (words[:, j] * np.uint64(0xC2B2AE3D27D4EB4F)) + np.uint64(j)
    return np.asarray(h, dtype=np.uint64)


def test_a_label_the_hash_misses_is_an_internal_error_not_a_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """The join picks its rows by the ids' bytes: were the hash ever to depend on anything else
    again, the missed label is found and no number is reported."""
    from qrelkit.errors import InternalError
    from qrelkit.formats import columns

    monkeypatch.setattr(columns, "_word_hash", _width_dependent_hash)
    qrels = trec_columns(b"q8 0 a 1\nq13 0 zz-nonrel 0\n", "qrels")
    run = trec_columns(b"q8 Q0 a 1 3.25 r\n", "run")
    assert qrels is not None and run is not None
    assert qrels.doc_hash[0] != run.doc_hash[0]  # the broken hash really disagrees
    with pytest.raises(InternalError, match="left 1 run row"):
        rank_columns(qrels.columns, qrels.doc_hash, run.columns, run.doc_hash)


def test_the_internal_error_exits_3_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from qrelkit.cli.app import cli
    from qrelkit.formats import columns

    monkeypatch.setattr(columns, "_word_hash", _width_dependent_hash)
    (tmp_path / "q.txt").write_text("q8 0 a 1\nq13 0 zz-nonrel 0\n")
    (tmp_path / "r.txt").write_text("q8 Q0 a 1 3.25 r\n")
    result = CliRunner().invoke(cli, ["score", "--qrels", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")])
    assert result.exit_code == 3
    assert "left 1 run row" in result.output and "Traceback" not in result.output
