"""The store itself: opening a SQLite file (WAL, synchronous=FULL), its connection's life, and the
parts it is made of.

A store is composed of parts, one per concern, each with its own methods over the one connection
they share: `store.settings`, `store.imports`, `store.log`, `store.pool`, `store.counts`,
`store.reads`, `store.reports`, `store.leases`, `store.removals`, `store.tokens`, `store.flags`, `store.machine`.
The store itself only opens, closes and hands out connections and transactions."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .base import Connection
from .counts import Counts
from .flags import Flags
from .imports import Imports
from .leases import Leases
from .log import Log
from .machine import MachineLabels
from .pool import Pool
from .reads import Reads
from .removals import Removals
from .reports import Reports
from .schema import migrate
from .settings import Settings
from .tokens import Tokens

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's transaction before giving up."""


class Store:
    """A golden set in SQLite. Every write is one explicit transaction; a judgment that
    `store.log.record()` returned for is on disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._db = db = Connection(conn)
        migrate(conn, db.transaction)
        self.settings = Settings(db)
        """Name, scale, label policy, strata, scoring profiles."""
        self.imports = Imports(db)
        """Queries, documents, qrels, judgment logs, pooled pairs: each import one transaction."""
        self.log = Log(db)
        """The append-only judgment log, assignments, votes."""
        self.pool = Pool(db)
        """Pooled runs and the unlabeled pool."""
        self.counts = Counts(db)
        """Per-query judging progress, kept between reads."""
        self.reads = Reads(db)
        """Labels, queries, documents, status."""
        self.reports = Reports(db)
        """Saved score reports and comparisons."""
        self.leases = Leases(db)
        """Which document each assessor has open."""
        self.removals = Removals(db)
        """Removing strata, queries, documents, profiles, each recorded."""
        self.tokens = Tokens(db)
        """Access tokens of `qrelkit serve` (hashed)."""
        self.flags = Flags(db)
        """Assessors' flags on queries, for their owner."""
        self.machine = MachineLabels(db)
        """Machine assessors' labels and their provenance, apart from the judgment log."""

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """One write transaction over every part: the block commits together or not at all."""
        return self._db.transaction()

    def read_transaction(self) -> contextlib.AbstractContextManager[None]:
        """Several reads that see one snapshot of the store."""
        return self._db.read_transaction()

    def wait_for_lock(self, ms: int) -> None:
        """How long a write waits for another process's transaction before `StoreBusy`."""
        self._db.wait_for_lock(ms)

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Store:
        """The qrelkit store at `path`. A missing path or an empty file becomes a new store only
        with `create`; any other file that is not a qrelkit store is refused and left untouched
        (not switched to WAL, no tables added)."""
        p = Path(path)
        kind = _kind(p)
        if kind == "empty" and not create:
            raise StoreError(f"no store at {p}", "create one with `qrelkit init`, or pass --db PATH")
        if kind == "foreign":
            raise StoreError(
                f"{p} is not a qrelkit store (a SQLite file holding other tables); left unchanged",
                "pass --db PATH of a store, or create one with `qrelkit init` at a new path",
            )
        existed = p.exists()
        store = cls._connect(p)
        store.created = kind == "empty" and not existed
        return store

    @classmethod
    def _connect(cls, p: Path) -> Store:
        """A connection to the store file `p` (WAL, synchronous=FULL), its schema brought up to date."""
        try:
            conn = sqlite3.connect(
                p, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, factory=_Conn
            )
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            return cls(conn)
        except sqlite3.DatabaseError as exc:
            raise _refusal(p, exc) from None

    created = False
    """Whether `open` made this store's file just now (a missing path)."""

    def is_blank(self) -> bool:
        """Whether no table of the store holds a row (nothing was ever written into it)."""
        try:
            tables = [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return not any(self.conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() for t in tables)
        except (sqlite3.Error, StoreError):
            return False

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

    @property
    def path(self) -> str | None:
        """The store's file (None: in memory)."""
        return str(self.conn.execute("PRAGMA database_list").fetchone()[2]) or None

    def lease_writer(self) -> Store:
        """A connection of its own for best-effort writes that need neither wait for the disk nor
        for another writer (leases: `synchronous=OFF`, no lock wait: a busy store is `StoreBusy`
        at once); an in-memory store is its own."""
        other = self.reader()
        if other is not self:
            other.conn.execute("PRAGMA synchronous=OFF")
            other.wait_for_lock(0)
        return other

    def reader(self) -> Store:
        """Another connection to the same file, for reads in a worker thread (WAL lets it read
        while this one writes); an in-memory store is its own reader. Not through `open`: it
        reads the file's header, and closing that file would drop the SQLite (POSIX) locks of
        every connection of this process, so that another process closing the store would take
        itself for the last one and delete the WAL this one still writes to (its commits lost)."""
        path = self.conn.execute("PRAGMA database_list").fetchone()[2]
        return Store._connect(Path(path)) if path else self

    @classmethod
    def memory(cls) -> Store:
        return cls(sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()


SQLITE_HEADER = b"SQLite format 3\x00"


def _kind(p: Path) -> str:
    """What is at `p`, read without changing it: `empty` (nothing yet: a missing path, an empty
    file, a SQLite file without a table), `store` (a qrelkit store: a schema version and a `meta`
    table) or `foreign` (another SQLite file). Anything else is refused here."""
    if not p.parent.is_dir():
        raise StoreError(f"the folder {p.parent} does not exist (for --db {p})", "create the folder, or check the path")
    if p.is_dir():
        raise StoreError(f"{p} is a folder, not a qrelkit store", "pass --db with the store's file")
    if not p.exists():
        return "empty"
    if not p.is_file():  # a FIFO would block the header read forever; a device is no store
        raise StoreError(
            f"{p} is not a regular file (a pipe, socket or device), not a qrelkit store; left unchanged",
            "pass --db with the path of a store file (or of a new one)",
        )
    try:
        with open(p, "rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot read {p} ({exc.strerror or exc})", "check the path and its permissions") from None
    if not head:
        return "empty"
    if head != SQLITE_HEADER:
        raise StoreError(f"{p} is not a qrelkit store (not a SQLite file); left unchanged", "pass --db PATH of a store")
    # immutable: read the file alone, creating no -wal or -shm beside it; only when a -wal is
    # there (its commits not yet copied into the file, e.g. after a crash) is it read as well
    kind = _schema_kind(p, "&immutable=1")
    if kind == "empty" and Path(f"{p}-wal").exists():
        kind = _schema_kind(p, "")
    return kind


def _schema_kind(p: Path, flags: str) -> str:
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro{flags}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise _refusal(p, exc) from None
    if version == 0 and not tables:
        return "empty"
    return "store" if version > 0 and "meta" in tables else "foreign"


class _Cursor(sqlite3.Cursor):
    """A cursor whose "read-only" and "damaged" errors, met when a statement runs or its rows are
    fetched, are `StoreError`s naming the file: one line, no traceback. (Row-by-row iteration is
    left to the C cursor, which is fast; an error met there reaches the CLI's own catch.)"""

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().execute(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise _translated(self.connection, exc) from None

    def executemany(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().executemany(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise _translated(self.connection, exc) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise _translated(self.connection, exc) from None

    def fetchmany(self, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            return super().fetchmany(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise _translated(self.connection, exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise _translated(self.connection, exc) from None


class _Conn(sqlite3.Connection):
    """A connection whose cursors are `_Cursor`s."""

    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        return self.cursor().execute(*args, **kwargs)

    def executemany(self, *args: Any, **kwargs: Any) -> Any:
        return self.cursor().executemany(*args, **kwargs)


DAMAGE = ("malformed", "corrupt", "not a database", "readonly", "read-only", "disk i/o error", "is full")


def _translated(conn: sqlite3.Connection, exc: sqlite3.DatabaseError) -> Exception:
    """`exc` as a `StoreError` when the file is read-only or damaged; else `exc` itself (a
    constraint or a busy lock is the caller's to handle)."""
    if isinstance(exc, sqlite3.IntegrityError) or not any(word in str(exc).lower() for word in DAMAGE):
        return exc
    try:
        path = sqlite3.Connection.execute(conn, "PRAGMA database_list").fetchone()[2]
    except sqlite3.Error:
        path = "the store"
    return _refusal(Path(path), exc)


def _nearly_full(folder: Path) -> bool:
    """Whether the file system holding `folder` has (almost) no space left: SQLite reports a
    write that found no space while opening the WAL as a plain I/O error, not as "full"."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


def _refusal(p: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """The one-line error for a store SQLite cannot open or read: read-only, damaged, or not a database."""
    text = str(exc)
    if "is full" in text.lower() or ("disk i/o error" in text.lower() and _nearly_full(p.parent)):
        return StoreError(
            f"no space left for the store {p} ({text}): nothing of this command was written",
            f"free space on the disk that holds {p.parent} (or move the store), then run the command again",
        )
    if any(word in text.lower() for word in ("readonly", "read-only", "unable to open")):
        return StoreError(
            f"cannot write the store {p} ({text})",
            "check the permissions of the file and of its folder (SQLite writes a -wal file beside it)",
        )
    if any(word in text.lower() for word in ("malformed", "corrupt", "not a database", "disk i/o error")):
        return StoreError(
            f"the store {p} is damaged ({text})",
            f"check it with `sqlite3 {p} 'PRAGMA integrity_check'`; "
            "restore a copy, or load the last frozen version into a new store (qrelkit import version)",
        )
    return StoreError(f"{p} is not a qrelkit store ({text})", "pass --db with a store made by `qrelkit init`")
