"""Nothing a user types loses data, breaks a version or leaves a traceback: which files are stores,
what `init` changes, what a re-import keeps, strata, duplicate documents, loading a version twice."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from conftest import Cli
from qrelkit.cli import cli
from qrelkit.storage import Store

PYDOCS = Path(__file__).resolve().parents[1] / "goldensets" / "pydocs" / "1.0"


def invoke(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def one_line_error(result: Result, *needles: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    for needle in needles:
        assert needle in result.output, (needle, result.output)
    return result.output


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- 1. only a qrelkit store is opened; only some commands create one --------------------------


def foreign_db(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts(name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('ann')")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["strata", "list"],
        ["export", "qrels"],
        ["init"],
        ["init", "--name", "x"],
        ["strata", "set", "a", "1"],
    ],
)
def test_a_foreign_sqlite_file_is_refused_and_left_unchanged(tmp_path: Path, args: list[str]) -> None:
    db = foreign_db(tmp_path / "other.db")
    before = digest(db)
    one_line_error(invoke(db, *args), f"{db} is not a qrelkit store", "qrelkit init")
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]  # no -wal, no -shm


def test_a_foreign_wal_file_gets_no_wal_or_shm_files(tmp_path: Path) -> None:
    db = tmp_path / "wal.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    before = digest(db)
    one_line_error(invoke(db, "status"), "not a qrelkit store")
    assert digest(db) == before and sorted(p.name for p in tmp_path.iterdir()) == ["wal.db"]


def test_a_store_whose_commits_are_only_in_its_wal_is_still_a_store(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    script = (
        "import os, sys\n"
        "from qrelkit.models import Stratum\n"
        "from qrelkit.storage import Store\n"
        "Store.open(sys.argv[1]).settings.set_stratum(Stratum(name='a', weight=2))\n"
        "os._exit(0)\n"  # killed: nothing checkpointed into the file
    )
    subprocess.run([sys.executable, "-c", script, str(db)], check=True)
    assert Path(f"{db}-wal").exists()
    result = invoke(db, "strata", "list")
    assert result.exit_code == 0 and "a" in result.output


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(b"some notes, not a database\n" * 100)
    one_line_error(invoke(db, "status"), "not a qrelkit store")
    one_line_error(invoke(db, "init"), "not a qrelkit store")
    assert db.read_bytes() == b"some notes, not a database\n" * 100


@pytest.mark.parametrize("args", [["status"], ["init"], ["import", "queries", "-"], ["export", "qrels"]])
def test_a_fifo_as_the_store_is_refused_at_once(tmp_path: Path, args: list[str]) -> None:
    """A named pipe given as --db used to hang every command (the header read waited for a writer)."""
    fifo = tmp_path / "store.db"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "--db", str(fifo), *args],
        input="", capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "is not a regular file" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"]


def test_a_device_as_the_store_is_refused_and_nothing_is_created_beside_it() -> None:
    journal = Path("/dev/null-journal")
    existed = journal.exists()
    for args in (["status"], ["init"]):
        one_line_error(invoke(Path("/dev/null"), *args), "/dev/null is not a regular file")
    assert journal.exists() == existed


def test_reading_commands_do_not_create_a_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    one_line_error(invoke(empty, "status"), f"no store at {empty}", "qrelkit init")
    assert empty.read_bytes() == b""
    missing = tmp_path / "missing.db"
    one_line_error(invoke(missing, "policy"), f"no store at {missing}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_init_turns_an_empty_file_into_a_store(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    assert invoke(db, "init").exit_code == 0
    assert invoke(db, "status").exit_code == 0


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    db = tmp_path / "nope" / "x.db"
    for args in (["status"], ["init"]):
        one_line_error(invoke(db, *args), f"the folder {db.parent} does not exist")
    assert not db.parent.exists()


def test_a_failed_import_into_a_mistyped_db_leaves_no_store(tmp_path: Path) -> None:
    db = tmp_path / "typo.db"
    one_line_error(invoke(db, "import", "queries", str(tmp_path / "missing.tsv")))
    bad = tmp_path / "bad.tsv"
    bad.write_text("only-one-field\n")
    one_line_error(invoke(db, "import", "queries", str(bad)))
    one_line_error(invoke(db, "init", "--threshold", "9"), "--threshold 9")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tsv"]


def test_a_real_old_store_is_still_migrated(tmp_path: Path) -> None:
    from qrelkit.storage.schema import MIGRATIONS

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version=1")
    conn.close()
    assert invoke(path, "status").exit_code == 0
    with Store.open(path, create=False) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_damaged_store_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert invoke(db, "init").exit_code == 0
    raw = bytearray(db.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # the schema page
    db.write_bytes(bytes(raw))
    one_line_error(invoke(db, "status"), "damaged", "integrity_check")


# -- 2. init changes only the options given ------------------------------------------------------


def _settings(run_cli: Cli) -> tuple[str, int, int, str]:
    """The store's name, top grade, relevance threshold and label policy, as stored."""
    with Store.open(run_cli.db, create=False) as s:
        scale = s.settings.scale
        return s.settings.name, scale.max_grade, scale.relevance_threshold, s.settings.label_policy


def test_init_changes_only_what_is_given(run_cli: Cli) -> None:
    run_cli("init", "--name", "a", "--max-grade", "4", "--threshold", "2", "--label-policy", "latest")
    out = run_cli("init", "--name", "b").output
    assert "name: a -> b" in out and "grades" not in out and "policy" not in out
    assert _settings(run_cli) == ("b", 4, 2, "latest")
    assert "label policy: latest -> median" in run_cli("init", "--label-policy", "median").output
    assert "unchanged" in run_cli("init").output
    assert _settings(run_cli) == ("b", 4, 2, "median")
    bad = run_cli("init", "--threshold", "5", ok=False)
    one_line_error(bad, "--threshold 5 is above --max-grade 4")


def test_init_of_a_new_store_writes_the_defaults(run_cli: Cli) -> None:
    assert "ready: golden set golden, grades 0..3, relevant at >= 1" in run_cli("init").output
    assert "unchanged: golden set golden" in run_cli("init").output


# -- 3. a field the file does not carry keeps the stored value -----------------------------------


def descriptions(db: Path) -> dict[str, str | None]:
    with Store.open(db, create=False) as s:
        return {q.id: q.description for q in s.reads.queries()}


def test_reimporting_queries_keeps_their_descriptions(run_cli: Cli) -> None:
    run_cli("init")
    lines = [
        {"id": "q1", "text": "one", "stratum": "default", "description": "must mention sort"},
        {"id": "q2", "text": "two", "stratum": "default", "description": "must mention dict"},
    ]
    run_cli("import", "queries", str(run_cli.write("q.jsonl", "\n".join(map(json.dumps, lines)))))
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tone, edited\tdefault\n")))
    again = [{"id": "q2", "text": "two", "stratum": "default"}]
    run_cli("import", "queries", str(run_cli.write("q2.jsonl", json.dumps(again[0]))))
    assert descriptions(run_cli.db) == {"q1": "must mention sort", "q2": "must mention dict"}
    with Store.open(run_cli.db, create=False) as s:
        assert s.reads.query("q1") is not None and s.reads.query("q1").text == "one, edited"  # type: ignore[union-attr]
    cleared = {"id": "q2", "text": "two", "stratum": "default", "description": None}
    run_cli("import", "queries", str(run_cli.write("q3.jsonl", json.dumps(cleared))))
    assert descriptions(run_cli.db)["q2"] is None  # an explicit null clears it


# -- 4. a query needs a stratum ------------------------------------------------------------------


def test_a_new_query_without_a_stratum_is_refused(run_cli: Cli) -> None:
    run_cli("init")
    path = run_cli.write("q.tsv", "q1\tone\tdefault\nq2\ttwo\n")
    one_line_error(
        run_cli("import", "queries", str(path), ok=False), f"{path}:2: query 'q2' has no stratum", "--stratum"
    )
    jl = run_cli.write("q.jsonl", json.dumps({"id": "q3", "text": "three"}))
    one_line_error(run_cli("import", "queries", str(jl), ok=False), f"{jl}:1: query 'q3' has no stratum")
    with Store.open(run_cli.db, create=False) as s:
        assert s.reads.queries() == [] and s.settings.strata() == []


def test_stratum_option_and_stored_strata(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("strata", "set", "nav", "2")
    run_cli("import", "queries", "--stratum", "nav", str(run_cli.write("q.tsv", "q1\tone\nq2\ttwo\tdefault\n")))
    run_cli("import", "queries", str(run_cli.write("q2.tsv", "q1\tone, again\n")))  # keeps its stratum
    with Store.open(run_cli.db, create=False) as s:
        assert s.settings.query_strata() == {"q1": "nav", "q2": "default"}
    one_line_error(run_cli("import", "queries", "--stratum", "a b", str(run_cli.write("q3.tsv", "q3\tx\n")), ok=False))
    unknown = run_cli("import", "queries", "--stratum", "tail", str(run_cli.write("q4.tsv", "q4\tx\n")), ok=False)
    one_line_error(unknown, "unknown stratum 'tail'")


# -- 5. duplicate document ids -------------------------------------------------------------------


def test_duplicate_document_ids_are_refused_naming_both_lines(run_cli: Cli) -> None:
    run_cli("init")
    docs = [{"id": "d1", "text": "a"}, {"id": "d2", "text": "b"}, {"id": "d1", "text": "c"}]
    path = run_cli.write("d.jsonl", "\n".join(map(json.dumps, docs)))
    one_line_error(run_cli("import", "docs", str(path), ok=False), f"{path}:3: duplicate document id 'd1'", "line 1")
    with Store.open(run_cli.db, create=False) as s:
        assert s.reads.table_counts()["documents"] == 0
    ok = run_cli.write("ok.jsonl", "\n".join(map(json.dumps, docs[:2])))
    assert "imported 2 documents" in run_cli("import", "docs", str(ok)).output
    assert "imported 2 documents" in run_cli("import", "docs", str(ok)).output  # a re-import replaces


def test_duplicate_ids_in_a_beir_corpus(run_cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "a"}\n{"_id": "d1", "text": "b"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    run_cli("init")
    one_line_error(run_cli("import", "beir", str(folder), ok=False), "corpus.jsonl:2: duplicate document id 'd1'")


# -- 6. loading a version twice, or into a store holding other data -------------------------------


def test_loading_the_same_version_again_changes_nothing(run_cli: Cli) -> None:
    run_cli("import", "version", str(PYDOCS))
    with Store.open(run_cli.db, create=False) as s:
        before = s.reads.table_counts()
    out = run_cli("import", "version", str(PYDOCS)).output
    assert "already holds pydocs 1.0" in out and "nothing to do" in out
    with Store.open(run_cli.db, create=False) as s:
        assert s.reads.table_counts() == before


def test_loading_a_version_into_a_store_with_other_data_is_refused(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tone\tdefault\n")))
    with Store.open(run_cli.db, create=False) as s:
        before = s.reads.table_counts()
    refused = run_cli("import", "version", str(PYDOCS), ok=False)
    out = one_line_error(refused, "already holds other data (1 queries)", "new store")
    assert "inconsistent" not in out
    with Store.open(run_cli.db, create=False) as s:
        assert s.reads.table_counts() == before


# -- 7. a read-only or damaged store is one line -------------------------------------------------


def test_a_store_with_damaged_data_pages_is_one_line(run_cli: Cli) -> None:
    run_cli("import", "version", str(PYDOCS))
    raw = bytearray(run_cli.db.read_bytes())
    for page in range(3, len(raw) // 4096, 3):
        raw[page * 4096 + 8 : (page + 1) * 4096] = b"\xee" * (4096 - 8)
    run_cli.db.write_bytes(bytes(raw))
    tsv = run_cli.write("z.tsv", "zz\tt\tdefault\n")
    for args in (["status"], ["export", "qrels"], ["import", "queries", str(tsv)]):
        one_line_error(run_cli(*args, ok=False), "is damaged", "PRAGMA integrity_check", "frozen version")


def test_a_read_only_store_refuses_writes_in_one_line(tmp_path: Path) -> None:
    from qrelkit.errors import StoreError
    from qrelkit.models import Stratum
    from qrelkit.storage import store as store_module

    db = tmp_path / "s.db"
    with Store.open(db) as s:
        s.settings.set_stratum(Stratum(name="a", weight=1))
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, isolation_level=None, factory=store_module._Conn)
    ro = Store(conn)
    try:
        assert [x.name for x in ro.settings.strata()] == ["a"]
        with pytest.raises(StoreError, match="cannot write the store .*readonly"):
            ro.settings.set_stratum(Stratum(name="b", weight=1))
    finally:
        ro.close()


def test_a_store_its_user_cannot_write_is_one_line(run_cli: Cli) -> None:
    """A store file this user may not write: mode 0444, or for root (whom no mode stops) the
    immutable attribute (`chattr +i`, what root cannot write either). SQLite then opens it
    read-only, and the first write fails: one line, and the store is as it was."""
    run_cli("init")
    before = digest(run_cli.db)
    root = os.geteuid() == 0
    if root:
        subprocess.run(["chattr", "+i", str(run_cli.db)], check=True, capture_output=True)
    else:
        run_cli.db.chmod(0o444)
    try:
        with pytest.raises(PermissionError):  # the file is truly unwritable for this user
            open(run_cli.db, "r+b").close()
        one_line_error(run_cli("strata", "set", "a", "1", ok=False), "cannot write the store", "readonly")
        listed = run_cli("strata", "list").output  # reading still works, and shows no stratum a
        assert "stratum" in listed and "│ a " not in listed
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(run_cli.db)], check=True, capture_output=True)
        else:
            run_cli.db.chmod(0o644)
    assert digest(run_cli.db) == before


def _full_store(tmp_path: Path) -> Store:
    """A store whose file may not grow (`max_page_count`): every write that needs a new page
    fails with SQLITE_FULL, as on a full disk."""
    from qrelkit.models import Query

    store = Store.open(tmp_path / "full.db", create=True)
    store.imports.queries([(1, Query(id="q1", text="x", stratum="s"))], source="q.tsv", create_strata=True)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages}")
    return store


def test_a_full_disk_during_an_import_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    """SQLite rolls back by itself on SQLITE_FULL: the store's own rollback (and the import's
    cleanup of its temporary table) used to fail then ("cannot rollback", "no such table"),
    hiding the cause. Now: one StoreError saying there is no space, and the store as it was."""
    from qrelkit.errors import StoreError
    from qrelkit.formats.trec import QrelRecord

    store = _full_store(tmp_path)
    records = [QrelRecord("q1", f"doc-{i:06d}-" + "x" * 40, i % 2, i + 1) for i in range(20_000)]
    with pytest.raises(StoreError) as caught:
        store.imports.qrels(records, source="big.qrels", assessor="a")
    assert "no space left" in caught.value.message and "nothing of this command was written" in caught.value.message
    assert store.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0
    assert not store.conn.in_transaction
    store.conn.execute("PRAGMA max_page_count=1000000")  # space again: the store works
    assert store.imports.qrels(records[:10], source="small.qrels", assessor="a") == (10, 0)


def test_an_io_error_on_a_full_disk_is_called_full_not_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening the WAL on a full disk fails as a plain "disk I/O error": with (almost) no space
    left where the store lives, that is what the message says, not that the store is damaged."""
    from qrelkit.storage import store as store_module

    class Full:
        f_bavail, f_frsize = 3, 4096

    error = sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(os, "statvfs", lambda _p: Full())  # the os module the store calls
    assert "no space left" in store_module._refusal(tmp_path / "s.db", error).message
    monkeypatch.setattr(os, "statvfs", lambda _p: type("Roomy", (), {"f_bavail": 1 << 30, "f_frsize": 4096})())
    assert "is damaged" in store_module._refusal(tmp_path / "s.db", error).message
