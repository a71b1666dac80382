"""The store itself: opening a SQLite file (WAL, synchronous=FULL), its connection's life, and the
parts it is made of (settings, imports, the log, the pool, reads, saved reports)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import StoreError
from .imports import Imports
from .leases import Leases
from .log import Log
from .pool import Pool
from .reads import Reads
from .reports import Reports
from .schema import migrate
from .settings import Settings

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's transaction before giving up."""


class Store(Settings, Imports, Log, Pool, Reads, Reports, Leases):
    """A golden set in SQLite. Every write is one explicit transaction; a judgment that `record()`
    returned for is on disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        migrate(self.conn, self.transaction)

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Store:
        p = Path(path)
        if not create and not p.exists():
            raise StoreError(f"no store at {p}", "create one with `qrelkit init`, or pass --db PATH")
        try:
            conn = sqlite3.connect(p, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            return cls(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{p} is not a qrelkit store ({exc})", "pass --db with a store made by `qrelkit init`"
            ) from None

    def checkpoint(self) -> bool:
        """Copy committed WAL pages into the database file, on a short-lived connection of its
        own (PASSIVE: it never waits for writers). False when it could not run now; the next call
        catches up. Commits are durable in the WAL either way."""
        path = self.conn.execute("PRAGMA database_list").fetchone()[2]
        if not path:
            return True
        try:
            conn = sqlite3.connect(path, isolation_level=None, timeout=0.1)
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                conn.close()
        except sqlite3.OperationalError:
            return False
        return True

    def defer_checkpoints(self) -> None:
        """Stop this connection from checkpointing inside its commits; the caller then calls
        `checkpoint()` on another connection, off the latency-sensitive thread."""
        self.conn.execute("PRAGMA wal_autocheckpoint=0")

    def reader(self) -> Store:
        """Another connection to the same file, for reads in a worker thread (WAL lets it read
        while this one writes); an in-memory store is its own reader."""
        path = self.conn.execute("PRAGMA database_list").fetchone()[2]
        return Store.open(path, create=False) if path else self

    @classmethod
    def memory(cls) -> Store:
        return cls(sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()
