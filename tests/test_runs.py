"""Run and qrels files read once for scoring: columns, doc hashes and sha256 from the same read."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np
import pytest

from qrelkit.errors import InputError
from qrelkit.formats import hashing, jsonl, paths, reading, trec
from qrelkit.formats.columns import Columns, trec_columns
from qrelkit.formats.runs import (
    is_jsonl,
    is_report,
    read_qrels_file,
    read_run_file,
    read_run_records,
    run_name,
)

RUN = "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25\nq2 Q0 d1 1 0.5 bm25\n"
QRELS = "q1 0 d1 2\nq1 0 d2 -1\nq2 0 d3 0\n"


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the readers open, in order (each open is one read of the file)."""
    seen: list[str] = []
    real = reading.open_binary

    def counting(path: paths.PathLike) -> IO[bytes]:
        seen.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(reading, "open_binary", counting)
    return seen


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def same(a: Columns, b: Columns) -> bool:
    return (
        a.query.tolist() == b.query.tolist()
        and a.doc.tolist() == b.doc.tolist()
        and a.value.dtype == b.value.dtype
        and a.value.tolist() == b.value.tolist()
    )


def exact_run(path: Path) -> Columns:
    return Columns.from_rows([(r.query_id, r.doc_id, r.score) for r in read_run_records(path)])


def test_a_regular_trec_run_is_read_once(tmp_path: Path, opens: list[str]) -> None:
    path = tmp_path / "bm25.run"
    path.write_text(RUN)
    run = read_run_file(path)
    assert opens == ["bm25.run"]
    parsed = trec_columns(path.read_bytes(), "run")
    assert parsed is not None and run.doc_hash is not None
    assert same(run.columns, parsed.columns) and run.doc_hash.tolist() == parsed.doc_hash.tolist()
    assert same(run.columns, exact_run(path))
    assert run.sha256 == sha256(path.read_bytes()) and run.name == "bm25" and run.path == path


def test_an_irregular_run_falls_back_to_the_exact_reader_which_hashes_it(tmp_path: Path, opens: list[str]) -> None:
    path = tmp_path / "r.trec"
    path.write_bytes(b"\xef\xbb\xbf# a comment\r\n" + RUN.replace("\n", "\r\n").encode())
    run = read_run_file(path)
    assert opens == ["r.trec", "r.trec"]  # the fast parser gives up, the exact reader reads and hashes
    assert run.doc_hash is None and same(run.columns, exact_run(path))
    assert run.columns.value.tolist() == [2.5, 1.25, 0.5]
    assert run.sha256 == sha256(path.read_bytes())  # byte-order mark and CRLF included


def test_a_bad_line_in_an_irregular_run_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text(RUN + "q2 Q0 d2 2 nan bm25\n")
    with pytest.raises(InputError, match=r"r.run:4: score 'nan' is not finite"):
        read_run_file(path)


def test_a_gzipped_run_is_read_once_and_hashed_as_its_content(tmp_path: Path, opens: list[str]) -> None:
    path = tmp_path / "bm25.run.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    run = read_run_file(path)
    assert opens == ["bm25.run.gz"] and run.doc_hash is not None and run.name == "bm25"
    assert run.sha256 == sha256(RUN.encode())  # of the decompressed bytes, as scoring always did
    assert same(run.columns, exact_run(path))


def test_a_jsonl_run_is_read_once_by_the_exact_reader(tmp_path: Path, opens: list[str]) -> None:
    lines = [
        {"query_id": q, "doc_id": d, "score": s} for q, d, s in (("q1", "d1", 2.5), ("q1", "d2", 1), ("q2", "d1", 0))
    ]
    path = tmp_path / "dense.jsonl"
    path.write_text("\n".join(map(json.dumps, lines)) + "\n")
    run = read_run_file(path)
    assert opens == ["dense.jsonl"] and run.doc_hash is None and run.name == "dense"
    assert same(run.columns, Columns.from_rows([("q1", "d1", 2.5), ("q1", "d2", 1.0), ("q2", "d1", 0.0)]))
    assert run.sha256 == sha256(path.read_bytes())
    assert [r.doc_id for r in jsonl.read_run(path)] == [r.doc_id for r in read_run_records(path)]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_an_empty_run_or_qrels_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "empty.run"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_run_file(path)
    assert exc.value.message == f"{path}: no run lines in the file" and exc.value.hint == "is this the right file?"
    with pytest.raises(InputError, match="no qrels lines in the file"):
        read_qrels_file(path)
    (tmp_path / "empty.jsonl").write_text(text.replace("# only a comment", " "))
    with pytest.raises(InputError, match="no run lines in the file"):
        read_run_file(tmp_path / "empty.jsonl")


def test_qrels_are_read_once_with_integer_grades(tmp_path: Path, opens: list[str]) -> None:
    path = tmp_path / "q.txt"
    path.write_text(QRELS)
    qrels = read_qrels_file(path)
    assert opens == ["q.txt"] and qrels.doc_hash is not None
    assert qrels.columns.value.dtype == np.int64 and qrels.columns.value.tolist() == [2, -1, 0]
    assert qrels.sha256 == sha256(path.read_bytes())
    irregular = tmp_path / "i.txt"
    irregular.write_text("# judged by hand\n" + QRELS)
    fallback = read_qrels_file(irregular)
    exact = Columns.from_rows([(r.query_id, r.doc_id, r.grade) for r in trec.read_qrels(irregular)], integer=True)
    assert fallback.doc_hash is None and same(fallback.columns, exact) and same(fallback.columns, qrels.columns)
    assert fallback.sha256 == sha256(irregular.read_bytes())


@pytest.mark.parametrize(
    ("name", "jsonl_", "report"),
    [
        ("r.jsonl", True, False),
        ("r.ndjson.gz", True, False),
        ("r.json", False, True),  # a JSON document is a saved report, not a run
        ("r.json.gz", False, True),
        ("r.run", False, False),
        ("r.run.gz", False, False),
        ("run", False, False),
    ],
)
def test_what_a_suffix_means(name: str, jsonl_: bool, report: bool) -> None:
    assert is_jsonl(Path(name)) is jsonl_ and is_report(Path(name)) is report


def test_run_name() -> None:
    assert run_name(Path("x/bm25.run.gz")) == "bm25"
    assert run_name(Path("dense.v2.jsonl")) == "dense.v2"
    assert run_name(Path(".run")) == ".run"


def _blocks(path: paths.PathLike, size: int) -> Iterator[bytes]:
    yield from reading.read_blocks(path, size)


def test_a_hashed_path_hashes_each_complete_read(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text(RUN * 5)
    source = hashing.HashedPath(path)
    with pytest.raises(RuntimeError, match="not read to its end"):
        source.sha256()
    assert b"".join(_blocks(source, 7)) == path.read_bytes()
    assert source.sha256() == sha256(path.read_bytes())
    partial = reading.read_blocks(source, 7)
    next(partial)
    partial.close()
    with pytest.raises(RuntimeError):  # a read that stopped early hashes nothing
        source.sha256()
    assert len(list(reading.read_lines(source))) == 15 and source.sha256() == sha256(path.read_bytes())


def test_reading_a_run_does_not_load_numpy_until_asked() -> None:
    code = "import sys, qrelkit.formats.runs, qrelkit.formats.reports; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
