"""Shared by the reliability tests: sizes (small in `make test`, large in `make stress`), a store
to write into, and the writer process."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from qrelkit.cli import cli
from qrelkit.models import Query
from qrelkit.storage import Store

STRESS = os.environ.get("QRELKIT_STRESS") == "1"
"""`make stress` sets it: more kills, more events, bigger files."""
WRITER = Path(__file__).with_name("writer.py")
ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "goldensets" / "pydocs"
RUN = DEMO / "runs" / "bm25.run"
TABLES = ("queries", "documents", "judgments", "pool", "strata", "runs", "reports")
"""The store's tables whose rows the malformed-input tests hold unchanged."""


def make_store(db: Path, queries: int = 20) -> None:
    with Store.open(db) as store:
        store.imports.queries([(i, Query(id=f"q{i}", text=f"query {i}")) for i in range(queries)], source="t")


def demo_store(db: Path) -> Path:
    """A store holding the bundled demo version, for the malformed-input tests to leave as it is."""
    result = CliRunner().invoke(cli, ["--db", str(db), "import", "version", str(DEMO / "1.0")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return db


def fingerprint(db: Path) -> str:
    """A digest of every row of the store's `TABLES`."""
    conn = sqlite3.connect(db)
    try:
        digest = hashlib.sha256()
        for table in TABLES:
            for row in conn.execute(f"SELECT * FROM [{table}] ORDER BY 1, 2"):
                digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        conn.close()


def row_counts(db: Path) -> dict[str, int]:
    """How many rows each of the store's `TABLES` holds."""
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM [{t}]").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def invoke(db: Path, args: list[str]) -> tuple[int, str]:
    """`qrelkit --db DB ARGS...` in this process: its exit status and output."""
    result = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    return result.exit_code, result.output


def one_line_error(output: str) -> str:
    """The one line of a refusal (`error: ...`, no traceback)."""
    message = output.strip().splitlines()
    assert len(message) == 1 and message[0].startswith("error: "), output
    assert "Traceback" not in output
    return message[0]


def start_writer(db: Path, assessor: str, count: int, *, merge_stderr: bool = False) -> subprocess.Popen[str]:
    """The writer, its output on a pipe (and its errors on another, or on the same one with
    `merge_stderr`: for a caller that reads the output line by line and must not mix that with
    `communicate()`, which reads the pipe underneath the lines already buffered and loses them)."""
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(db), assessor, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        text=True,
    )


def acks(output: str) -> list[tuple[int, str, str, int]]:
    """(seq, query, doc, grade) of every acknowledged judgment in a writer's output."""
    found = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] == "ack":
            found.append((int(parts[1]), parts[2], parts[3], int(parts[4])))
    return found


def log(line: str) -> None:
    """Append a figure to $QRELKIT_RELIABILITY_LOG (`make stress` collects them for RELIABILITY.md)."""
    path = os.environ.get("QRELKIT_RELIABILITY_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
