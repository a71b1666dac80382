"""What the benchmark scripts share: timing one whole process, and building a large judged store."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

GNU_TIME = "/usr/bin/time"


@contextlib.contextmanager
def cpu_load(n: int) -> Iterator[None]:
    """`n` CPU-bound processes (`python -c 'while 1: pass'`) beside the benchmark while the block
    runs, killed after it: a busy CI machine."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait(timeout=10)


def run_once(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process (`run_timed`)."""
    wall, _, peak = run_timed(cmd)
    return wall, peak


def run_timed(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, the child's and its children's) and peak RSS
    (KiB) of one child process; its output is discarded, a failure raises with its stderr. The
    figures come from GNU time (`/usr/bin/time -f "%U %S %M"`) when it is there: Linux carries a
    process's peak RSS across exec, so a child forked straight from this (possibly large) Python
    process would report at least this process's own peak; time is small. Without it, the
    child's os.wait4 usage."""
    start = time.perf_counter()
    if os.path.exists(GNU_TIME):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
            proc = subprocess.run([GNU_TIME, "-q", "-f", "%U %S %M", "-o", out.name, *cmd],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)  # fmt: skip
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.decode()}")
            user, system, peak = out.read().split()[-3:]
            return wall, float(user) + float(system), int(peak)
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {child.stderr.read().decode() if child.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss)


def build_store(
    db: Path, queries: int, docs: int, *, assessors: tuple[str, ...] = ("ann", "bob"), pooled: bool = False
) -> None:
    """A fresh qrelkit store with `queries` queries (stratum `s`), each with `docs` documents graded
    by every assessor (`queries x docs x len(assessors)` events), and with `pooled` one unlabeled
    pooled pair per query; written by direct inserts into the store's schema (fast)."""
    subprocess.run([sys.executable, "-m", "qrelkit", "--db", str(db), "init"], check=True, capture_output=True)
    conn = sqlite3.connect(db)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO strata(name, weight) VALUES ('s', 1.0)")
    conn.executemany(
        "INSERT INTO queries(id, text, stratum) VALUES (?, ?, 's')",
        ((f"q{i:05d}", f"query {i}") for i in range(queries)),
    )
    ts = "2026-12-01T00:00:00+00:00"
    conn.executemany(
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) VALUES (?, ?, 'graded', ?, ?, ?)",
        ((f"q{q:05d}", f"doc-{q:05d}-{d:03d}", (q + d + k) % 4, a, ts)
         for q in range(queries) for d in range(docs) for k, a in enumerate(assessors)),
    )  # fmt: skip
    if pooled:
        conn.executemany(
            "INSERT INTO pool(query_id, doc_id, source) VALUES (?, 'pooled', 'r')",
            ((f"q{q:05d}",) for q in range(queries)),
        )
    conn.commit()
    conn.close()
