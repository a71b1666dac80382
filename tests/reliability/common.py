"""Shared by the reliability tests: sizes (small in `make test`, large in `make stress`), a store
to write into, and the writer process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from qrelkit.models import Query
from qrelkit.storage import Store

STRESS = os.environ.get("QRELKIT_STRESS") == "1"
"""`make stress` sets it: more kills, more events, bigger files."""
WRITER = Path(__file__).with_name("writer.py")


def make_store(db: Path, queries: int = 20) -> None:
    with Store.open(db) as store:
        store.imports.queries([(i, Query(id=f"q{i}", text=f"query {i}")) for i in range(queries)], source="t")


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
