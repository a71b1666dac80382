"""`import qrels` of a TREC file: the columnar path (blocks of rows, a pair-hash repeat check, the
log's indexes rebuilt after a large import) writes what the exact reader writes, and on any error
gives way to it, so the message names the same line and nothing is written."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qrelkit.errors import InputError
from qrelkit.formats import pair_hashes
from qrelkit.formats.trec import QrelsRows, read_qrels
from qrelkit.models import Query
from qrelkit.storage import Store, imports
from qrelkit.workflows import importing

QUERIES = [f"q{i}" for i in range(12)]


def _store(tmp_path: Path, name: str) -> Store:
    store = Store.open(tmp_path / name)
    store.imports.queries(((i, Query(id=q, text=q)) for i, q in enumerate(QUERIES, 1)), source="t")
    return store


def _lines(n: int = 600) -> list[str]:
    """`n` qrels lines over QUERIES, grouped by query, grades -1..3."""
    return [f"q{i // 50} 0 d{(i * 7919) % 1000} {i % 5 - 1}\n" for i in range(n)]


def _write(tmp_path: Path, lines: list[str], name: str = "f.qrels") -> Path:
    path = tmp_path / name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _contents(store: Store) -> dict[str, list[Any]]:
    conn = store.conn
    return {
        "judgments": conn.execute(
            "SELECT seq, query_id, doc_id, state, grade, assessor, note, seconds, source, "
            "typeof(query_id), typeof(doc_id) FROM judgments ORDER BY seq"
        ).fetchall(),
        "pool": conn.execute("SELECT * FROM pool ORDER BY query_id, doc_id").fetchall(),
        "indexes": sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'").fetchall()),
    }


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Blocks of about 200 bytes (10 lines), so that a file of hundreds of lines is many blocks;
    records how many rows the columnar path wrote before it returned or gave up."""
    monkeypatch.setattr(importing, "QRELS_BLOCK_BYTES", 200)
    monkeypatch.setattr(imports, "REBUILD_FROM", 100)
    seen: list[int] = []
    real = imports.Imports._insert_block

    def counting(self: imports.Imports, block: QrelsRows, event: tuple[str, str, str]) -> tuple[int, int]:
        seen.append(len(block))
        return real(self, block, event)

    monkeypatch.setattr(imports.Imports, "_insert_block", counting)
    yield seen


def _exact(store: Store, path: Path) -> tuple[int, int]:
    return store.imports.qrels(read_qrels(path, check_repeats=False), source=str(path), assessor="qrels")


def test_the_columnar_path_writes_what_the_exact_reader_writes(tmp_path: Path, small_blocks: list[int]) -> None:
    path = _write(tmp_path, _lines())
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    assert importing.import_qrels(fast, path) == _exact(exact, path) == (480, 120)
    assert sum(small_blocks) == 600 and len(small_blocks) > 20  # the columnar path, block by block
    assert _contents(fast) == _contents(exact)  # the indexes too: dropped and built again, the same
    assert fast.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # a second import appends (the log is append-only): below the rebuild size now, indexes kept
    assert importing.import_qrels(fast, path) == _exact(exact, path)
    assert _contents(fast) == _contents(exact)


def test_the_store_gets_plain_rows_and_no_array(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy work is the formats layer's (`formats.qrels_rows`): every block reaches the store
    as lists of str and int, so the store does no array work, not even through a block's methods."""
    monkeypatch.setattr(importing, "QRELS_BLOCK_BYTES", 200)
    got: list[QrelsRows] = []
    real = imports.Imports._insert_block

    def keeping(self: imports.Imports, block: QrelsRows, event: tuple[str, str, str]) -> tuple[int, int]:
        got.append(block)
        return real(self, block, event)

    monkeypatch.setattr(imports.Imports, "_insert_block", keeping)
    path = _write(tmp_path, _lines())
    assert importing.import_qrels(_store(tmp_path, "s.db"), path) == (480, 120)
    assert sum(len(b) for b in got) == 600 and len(got) > 20
    for b in got:
        assert type(b.queries) is frozenset and all(type(q) is str for q in b.queries) and type(b.top) is int
        for column, kind in [(b.query, str), (b.doc, str), (b.grade, int), (b.pooled_query, str), (b.pooled_doc, str)]:
            assert type(column) is list and all(type(x) is kind for x in column)
    rows = [(q, d, g) for b in got for q, d, g in zip(b.query, b.doc, b.grade, strict=True)]
    fields = [line.split() for line in _lines()]
    assert rows == [(f[0], f[2], int(f[3])) for f in fields if int(f[3]) >= 0]


def test_a_header_row_crlf_and_blank_lines_take_the_columnar_path(tmp_path: Path, small_blocks: list[int]) -> None:
    lines = ["query-id corpus-id score\r\n", *(f"{q}\td{i}\t{i % 3}\r\n" for i, q in enumerate(QUERIES)), "\r\n"]
    path = _write(tmp_path, lines)
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    assert importing.import_qrels(fast, path) == _exact(exact, path) == (12, 0)
    assert sum(small_blocks) == 12
    assert _contents(fast) == _contents(exact)


def _refused(tmp_path: Path, lines: list[str], seen: list[int]) -> InputError:
    """The error `import_qrels` raises for `lines`, after checking the store was left unchanged
    and that the columnar path had written rows before it gave way."""
    path = _write(tmp_path, lines)
    store = _store(tmp_path, "s.db")
    before = _contents(store)
    with pytest.raises(InputError) as caught:
        importing.import_qrels(store, path)
    assert _contents(store) == before
    assert sum(seen) >= 100  # the rows of the blocks before the bad one, rolled back
    exact = _store(tmp_path, "exact.db")
    with pytest.raises(InputError) as expected:
        _exact(exact, path)
    assert str(caught.value) == str(expected.value) and caught.value.hint == expected.value.hint
    return caught.value


def test_an_unknown_query_in_a_later_block_names_its_line(tmp_path: Path, small_blocks: list[int]) -> None:
    lines = _lines()
    lines[456] = "q99 0 dx 1\n"
    error = _refused(tmp_path, lines, small_blocks)
    assert error.line == 457 and "query 'q99' is not in the golden set" in str(error)


def test_a_grade_above_the_scale_in_a_later_block_names_its_line_and_the_fix(
    tmp_path: Path, small_blocks: list[int]
) -> None:
    lines = _lines()
    lines[333] = "q6 0 dx 7\n"
    error = _refused(tmp_path, lines, small_blocks)
    assert error.line == 334 and "grade 7 is above the scale's highest grade 3" in str(error)
    assert error.hint is not None and "--max-grade 7" in error.hint


@pytest.mark.parametrize("grade", ["2", "-1"])
def test_a_repeated_pair_far_apart_names_both_lines(tmp_path: Path, small_blocks: list[int], grade: str) -> None:
    lines = _lines()
    lines[590] = f"q0 0 d0 {grade}\n"  # line 1 is `q0 0 d0 -1`
    error = _refused(tmp_path, lines, small_blocks)
    assert error.line == 591 and "duplicate judgment for query 'q0' doc 'd0' (first on line 1)" in str(error)


@pytest.mark.parametrize(
    ("bad", "says"),
    [("q3 0 #d 1\n", "starts with '#'"), ("q3 0 d 1.5\n", "not an integer"), ("q3 0 d\n", "expected 4 fields")],
)
def test_a_line_the_parser_cannot_read_is_named_by_the_exact_reader(
    tmp_path: Path, small_blocks: list[int], bad: str, says: str
) -> None:
    lines = _lines()
    lines[400] = bad
    error = _refused(tmp_path, lines, small_blocks)
    assert error.line == 401 and says in str(error)


def test_a_hash_collision_only_costs_the_exact_reader(
    tmp_path: Path, small_blocks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pair_hashes.PairHashes, "repeated", lambda self: True)
    path = _write(tmp_path, _lines())
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    assert importing.import_qrels(fast, path) == _exact(exact, path)
    assert _contents(fast) == _contents(exact)


def test_the_repeat_check_finds_equal_hashes_across_blocks(tmp_path: Path) -> None:
    with pair_hashes.PairHashes() as hashes:
        for part in ([5, 2**63 + 1, 9], [2**62, 7], [2**63 + 1]):
            hashes.add(np.array(part, dtype=np.uint64))
        assert hashes.repeated()
    with pair_hashes.PairHashes() as hashes:
        hashes.add(np.arange(1000, dtype=np.uint64) * np.uint64(2**54 + 3))
        assert not hashes.repeated()


def test_a_temporary_disk_too_full_for_the_hashes_only_costs_the_exact_reader(
    tmp_path: Path, small_blocks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", full)  # the module the hashes spill through
    path = _write(tmp_path, _lines())
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    assert importing.import_qrels(fast, path) == _exact(exact, path)
    assert _contents(fast) == _contents(exact)


def test_inside_another_transaction_the_exact_path_does_it(tmp_path: Path, small_blocks: list[int]) -> None:
    path = _write(tmp_path, _lines())
    store = _store(tmp_path, "s.db")
    with store.transaction():
        assert importing.import_qrels(store, path) == (480, 120)
    assert small_blocks == []
    assert store.reads.table_counts()["queries"] == len(QUERIES)


def test_many_rows_a_statement_write_the_same_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of more rows than one multi-row INSERT takes (full statements and a remainder) write
    the exact reader's rows, in line order."""
    monkeypatch.setattr(imports, "ROWS_PER_INSERT", 7)
    monkeypatch.setattr(
        imports,
        "INSERT_GRADED_MANY",
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, source) VALUES "
        + ",".join(f"(?{4 + 3 * k}, ?{5 + 3 * k}, 'graded', ?{6 + 3 * k}, ?1, ?2, ?3)" for k in range(7)),
    )
    path = _write(tmp_path, _lines(599))
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    assert importing.import_qrels(fast, path) == _exact(exact, path)
    assert _contents(fast) == _contents(exact)
    graded = sum(1 for line in _lines(599) if not line.endswith("-1\n"))
    assert graded % 7 and graded > 7  # full statements and a remainder


def _with_unknown(lines: list[str]) -> list[str]:
    """`lines` with a line of a query outside the golden set after every fifth one (u0..u6)."""
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if i % 5 == 4:
            out.append(f"u{(i * 3) % 7} 0 e{i} 1\n")
    return out


def _skipping(store: Store, path: Path, *, exact: bool) -> tuple[tuple[int, int], int, list[str]]:
    """Import `path` with --skip-unknown's rule: (labels, pooled), lines skipped, their queries."""
    unknown = importing.unknown_queries(skip=True)
    if exact:
        records = read_qrels(path, check_repeats=False)
        counts = store.imports.qrels(records, source=str(path), assessor="qrels", unknown=unknown)
    else:
        counts = importing.import_qrels(store, path, unknown=unknown)
    return counts, unknown.lines, list(unknown.queries)


def test_skipping_unknown_queries_on_the_columnar_path(tmp_path: Path, small_blocks: list[int]) -> None:
    """It skips and counts what the exact reader skips and counts, in line order, block by block."""
    graded = [line for line in _lines() if not line.endswith(" -1\n")]
    lines = _with_unknown(graded)
    path = _write(tmp_path, lines)
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    done = _skipping(fast, path, exact=False)
    assert done == _skipping(exact, path, exact=True)
    skipped = [line.split()[0] for line in lines if line.startswith("u")]
    assert done[1] == len(skipped) == 96 and done[2] == list(dict.fromkeys(skipped)) and len(done[2]) == 7
    assert sum(small_blocks) == len(graded) and len(small_blocks) > 20  # the columnar path wrote them
    assert _contents(fast) == _contents(exact)


@pytest.mark.parametrize("what", ["pooled rows", "a repeated pair of an unknown query"])
def test_skipping_where_the_columnar_path_gives_way_counts_once(
    tmp_path: Path, small_blocks: list[int], what: str
) -> None:
    """Pooled rows (the exact reader counts the skipped lines in line order) or a pair repeated
    among the skipped lines (the columnar path's hashes see it): the exact reader imports, and
    the lines the columnar path had counted before it gave way are not counted twice."""
    lines = _with_unknown(_lines())
    if what != "pooled rows":
        lines = _with_unknown([line for line in _lines() if not line.endswith(" -1\n")]) + ["u5 0 e4 2\n"]
        assert "u5 0 e4 1\n" in lines
    path = _write(tmp_path, lines)
    fast, exact = _store(tmp_path, "fast.db"), _store(tmp_path, "exact.db")
    done = _skipping(fast, path, exact=False)
    assert done == _skipping(exact, path, exact=True)
    assert done[1] == sum(1 for line in lines if line.startswith("u"))
    assert _contents(fast) == _contents(exact)
    if what != "pooled rows":  # the columnar path had written (and counted) every block before it gave way
        assert sum(small_blocks) == sum(1 for line in lines if line.startswith("q") and not line.endswith(" -1\n"))
