"""The exact readers' columns (the fallback when the fast parser gives up, and JSON Lines): the
same columns as the fast parser and as `Columns.from_rows`, built in blocks, and the same errors
as the readers' own repeat check, found from hashes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.formats import exact_columns as exact
from qrelkit.formats import jsonl, trec
from qrelkit.formats.columns import Columns, trec_columns
from qrelkit.formats.runs import read_qrels_file, read_run_file


def same(a: Columns, b: Columns) -> bool:
    """Equal values of the same kinds (the fast path pads bytes columns to a multiple of 8 bytes)."""
    return all(
        x.dtype.kind == y.dtype.kind and x.tolist() == y.tolist()
        for x, y in ((a.query, b.query), (a.doc, b.doc), (a.value, b.value))
    )


def run_lines(rng: random.Random, n: int, fields: int = 6) -> list[str]:
    """Unique (query, doc) pairs, scores with many ties, ids of varied lengths (ASCII: the fast
    parser leaves any other id to the exact reader)."""
    pairs = {(f"q{rng.randrange(40)}", f"d{rng.randrange(10 ** rng.randrange(1, 7))}") for _ in range(n)}
    out = []
    for rank, (q, d) in enumerate(sorted(pairs, key=lambda p: rng.random()), 1):
        score = f"{rng.randrange(-5, 5) / 4}"
        out.append({3: f"{q} {d} {score}", 4: f"{q} {d} {rank} {score}", 6: f"{q} Q0 {d} {rank} {score} t"}[fields])
    return out


def exact_errors(path: Path, kind: str) -> tuple[str, str | None]:
    """The message and hint of the reader with its own (dict) repeat check."""
    reader = {"run": trec.read_run, "qrels": trec.read_qrels, "jsonl": jsonl.read_run}[kind]
    with pytest.raises(InputError) as exc:
        list(reader(path))  # type: ignore[operator]
    return str(exc.value), exc.value.hint


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "CHUNK_ROWS", 7)  # many blocks, and pairs repeated across them


@pytest.mark.parametrize("fields", [3, 4, 6])
@pytest.mark.parametrize("seed", range(4))
def test_the_fallback_gives_the_fast_parsers_columns(tmp_path: Path, fields: int, seed: int) -> None:
    lines = run_lines(random.Random(seed), 300, fields)
    regular, irregular = tmp_path / "r.run", tmp_path / "i.run"
    regular.write_text("\n".join(lines) + "\n")
    irregular.write_text("\n".join(lines[:50] + ["# a comment", "", *lines[50:]]) + "\n")
    fast = trec_columns(regular.read_bytes(), "run")
    assert fast is not None and trec_columns(irregular.read_bytes(), "run") is None
    fallback = read_run_file(irregular)
    assert fallback.doc_hash is None and same(fallback.columns, fast.columns)
    rows = [(r.query_id, r.doc_id, r.score) for r in trec.read_run(irregular)]
    assert same(fallback.columns, Columns.from_rows(rows))


def test_qrels_and_jsonl_runs_take_the_same_path(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("# judged\nq1 0 d1 2\nq1 0 dé 0\nq2 0 d1 -1\nq10 0 d22 2147483647\n")
    columns = read_qrels_file(qrels).columns
    assert columns.value.dtype == np.int64 and columns.value.tolist() == [2, 0, -1, 2147483647]
    assert columns.query.tolist() == [b"q1", b"q1", b"q2", b"q10"] and columns.doc[1] == "dé".encode()
    run = tmp_path / "r.jsonl"
    run.write_text("".join(json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n" for q, d, s in [
        ("q1", "d1", 1), ("q1", "d2", 0.5), ("q2", "d1", -3.25)]))  # fmt: skip
    assert same(
        read_run_file(run).columns, Columns.from_rows([("q1", "d1", 1.0), ("q1", "d2", 0.5), ("q2", "d1", -3.25)])
    )


@pytest.mark.parametrize("kind", ["run", "qrels", "jsonl"])
@pytest.mark.parametrize("seed", range(6))
def test_repeats_and_bad_lines_are_named_as_the_readers_name_them(tmp_path: Path, kind: str, seed: int) -> None:
    rng = random.Random(seed)
    lines = run_lines(rng, 80)
    for _ in range(rng.randrange(1, 4)):  # repeat an earlier pair (some three times), later on
        at = rng.randrange(1, len(lines))
        lines.insert(rng.randrange(at, len(lines) + 1), lines[rng.randrange(at)].replace(" t", " u"))
    if rng.random() < 0.5:  # a bad line, before or after the first repeat
        lines.insert(rng.randrange(len(lines)), "q1 Q0 d1 1 oops t")
    if kind == "qrels":
        lines = [f"{f[0]} 0 {f[2]} {'x' if f[4] == 'oops' else len(f[2])}" for f in map(str.split, lines)]
    if kind == "jsonl":
        lines = [json.dumps({"query_id": f[0], "doc_id": f[2], "score": f[4] if f[4] == "oops" else float(f[4])})
                 for f in map(str.split, lines)]  # fmt: skip
    path = tmp_path / ("r.jsonl" if kind == "jsonl" else "r.txt")
    path.write_text("# irregular\n" + "\n".join(lines) + "\n")
    expected = exact_errors(path, kind)
    with pytest.raises(InputError) as exc:
        (read_qrels_file if kind == "qrels" else read_run_file)(path)
    assert (str(exc.value), exc.value.hint) == expected


def test_a_repeat_is_named_with_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text("# c\nq1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq2 Q0 d1 1 1 t\nq1 Q0 d2 3 0 t\nq1 Q0 d1 4 0 t\n")
    with pytest.raises(InputError) as exc:
        read_run_file(path)
    assert str(exc.value) == f"{path}:5: document 'd2' appears twice for query 'q1' (first on line 3)"
    assert exc.value.hint == trec.RUN_REPEAT_HINT


def test_hash_collisions_are_told_from_repeats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "hash_docs", lambda ids: np.zeros(len(ids), dtype=np.uint64))  # every key collides
    lines = run_lines(random.Random(9), 60)
    path = tmp_path / "r.run"
    path.write_text("# c\n" + "\n".join(lines) + "\n")
    assert same(read_run_file(path).columns, Columns.from_rows([(r[0], r[1], r[2]) for r in trec.read_run(path)]))
    path.write_text("# c\n" + "\n".join([*lines, lines[30], lines[10]]) + "\n")
    assert exact.first_repeat(np.zeros(3, np.uint64), np.array([b"a", b"b", b"a"]), np.array([b"x"] * 3)) == (2, 0)
    with pytest.raises(InputError) as exc:
        read_run_file(path)
    assert (str(exc.value), exc.value.hint) == exact_errors(path, "run") and f":{len(lines) + 2}:" in str(exc.value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz")), max_size=12))
def test_first_repeat_is_the_first_row_that_repeats_a_pair(pairs: list[tuple[str, str]]) -> None:
    seen: dict[tuple[str, str], int] = {}
    expected = None
    for i, pair in enumerate(pairs):
        if pair in seen:
            expected = (i, seen[pair])
            break
        seen[pair] = i
    key = np.array([hash(p[0]) % 2 for p in pairs], dtype=np.uint64)  # a coarse hash: collisions galore
    query = np.array([p[0].encode() for p in pairs] or [b""])[: len(pairs)]
    doc = np.array([p[1].encode() for p in pairs] or [b""])[: len(pairs)]
    assert exact.first_repeat(key, query, doc) == expected
