"""The connection every part of the store shares: its transaction rule, row helpers and the
golden-set settings the SQL needs (name, scale, label policy), cached on the connection.

Several assessors judge one store file, each on connections of their own, so a setting may change
under a connection at any time. The cache is kept with SQLite's `PRAGMA data_version`, which
changes when another connection has committed since this one last looked (anything: a judgment, a
lease, a setting): a read of the settings costs that one statement, and reads `meta` again only
then. This connection's own writes to the settings (`set_meta`) drop the cache, and again when
their transaction ends (a rollback undoes them). A statement that reads the settings' `meta` rows
along with its own (`Log.pairs`, on every keystroke) needs no check: it has them from its own
snapshot (`settings_of`)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import StoreBusy, StoreError
from ..models import GradeScale, Judgment, JudgmentState, LabelPolicy, utcnow
from ..resolution import DEFAULT_POLICY, POLICIES
from .resolved import current_sql

Params = Iterable[Any] | Mapping[str, Any]

SETTINGS = ("name", "scale", "label_policy")
"""The `meta` keys of the golden-set settings."""
SETTINGS_SQL = "SELECT key, value FROM meta WHERE key IN ('name', 'scale', 'label_policy')"


@dataclass(frozen=True)
class GoldenSettings:
    """The settings every read resolves labels by."""

    name: str
    scale: GradeScale
    label_policy: LabelPolicy


class Connection:
    """A SQLite connection with one write transaction at a time (`BEGIN IMMEDIATE` ... `COMMIT`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.depth = 0
        """Nesting of the open transaction (0: none)."""
        self.busy_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        self._settings: GoldenSettings | None = None
        self._raw: dict[str, str] | None = None
        self._version: int | None = None
        self._wrote_settings = False

    def wait_for_lock(self, ms: int) -> None:
        """How long a write waits for another process's transaction before `StoreBusy`."""
        self.conn.execute(f"PRAGMA busy_timeout={int(ms)}")
        self.busy_ms = int(ms)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: everything in the block commits together or not at all."""
        if self.depth:  # an inner block joins the outer transaction
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusy(
                    f"the store is busy: another process holds its write lock ({self.busy_ms / 1000:g} s waited)",
                    "another import, freeze or judging session is writing; try again when it is done",
                ) from None
            raise
        self.depth = 1
        try:
            try:
                yield
            except BaseException:
                self._rollback()
                raise
            finally:
                self.depth = 0
            try:
                self.conn.execute("COMMIT")
            except BaseException:
                self._rollback()  # a COMMIT that failed (disk full) leaves the transaction open
                raise
        finally:
            if self._wrote_settings:  # committed or rolled back: read them again either way
                self._wrote_settings = False
                self._settings = None

    def _rollback(self) -> None:
        """Roll back, if SQLite has not already: after SQLITE_FULL or an I/O error it rolls back
        by itself, and a second ROLLBACK ("cannot rollback - no transaction is active") would
        hide the error that matters."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error, StoreError):
                self.conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def read_transaction(self) -> Iterator[None]:
        """Several reads that see one snapshot of the store (a deferred transaction: WAL readers
        never block writers); inside a write transaction, that transaction's view."""
        if self.depth:
            yield
            return
        self.conn.execute("BEGIN")
        self.depth = 1
        try:
            yield
        finally:
            self.depth = 0
            self.conn.execute("COMMIT")

    def rows(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        cur = self.conn.execute(sql, params if isinstance(params, Mapping) else tuple(params))
        cur.row_factory = sqlite3.Row
        return cur.fetchall()

    def scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.conn.execute(sql, params if isinstance(params, Mapping) else tuple(params)).fetchone()
        return None if row is None else row[0]

    # -- the settings the SQL needs ----------------------------------------------------------

    def meta(self, key: str) -> str | None:
        value = self.scalar("SELECT value FROM meta WHERE key = ?", [key])
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        """Write one `meta` row inside the caller's transaction (a setting's drops the cache)."""
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])
        if key in SETTINGS:
            self._wrote_settings = True
            self._settings = None

    def settings(self) -> GoldenSettings:
        """The golden set's name, scale and label policy as this connection sees them now (see the
        module: one `PRAGMA data_version`, plus a read of `meta` when another connection committed)."""
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._settings is not None and version == self._version:
            return self._settings
        raw = dict(self.conn.execute(SETTINGS_SQL).fetchall())
        self._version = version
        return self._adopt(raw)

    def settings_of(self, raw: Mapping[str, str]) -> GoldenSettings:
        """The settings from their `meta` rows `raw`, which a statement read along with its own
        rows (`Log.pairs`): parsed only if they differ from the cached ones, which they then
        replace (and the next `settings()` reads `meta` again, to know their version)."""
        if raw != self._raw:
            self._version = None
        return self._adopt(raw)

    def _adopt(self, raw: Mapping[str, str]) -> GoldenSettings:
        if self._settings is None or raw != self._raw:
            self._settings = _parsed(raw)
            self._raw = dict(raw)
        return self._settings

    def current(self, one_query: bool = False, *, grades: bool = True) -> str:
        """The resolved-state subquery (`resolved.current_sql`) under this store's policy and scale."""
        s = self.settings()
        return current_sql(s.label_policy, s.scale.max_grade, one_query=one_query, grades=grades)


def _parsed(raw: Mapping[str, str]) -> GoldenSettings:
    scale = raw.get("scale")
    stored = raw.get("label_policy")
    return GoldenSettings(
        name=raw.get("name") or "golden",
        scale=GradeScale.model_validate_json(scale) if scale else GradeScale(),
        label_policy=next((p for p in POLICIES if p == stored), DEFAULT_POLICY),
    )


class Part:
    """One part of the store (`Store.log`, `Store.reads`, ...): its own methods over the
    connection all the parts share."""

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.conn = db.conn

    def _rows(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        return self.db.rows(sql, params)

    def _scalar(self, sql: str, params: Params = ()) -> Any:
        return self.db.scalar(sql, params)

    def _current(self, one_query: bool = False, *, grades: bool = True) -> str:
        return self.db.current(one_query, grades=grades)


EVENT_COLUMNS = "query_id, doc_id, state, grade, assessor, ts, note, seconds, evidence"
"""An event's columns, as `event_row` gives them: what makes two events the same event."""
INSERT_EVENT = f"INSERT INTO judgments({EVENT_COLUMNS}, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

EventRow = tuple[str, str, str, int | None, str, str, str | None, float | None, str | None]


def event_row(j: Judgment) -> EventRow:
    """An event as the store writes it (`EVENT_COLUMNS`; the time as ISO 8601 text)."""
    at = j.timestamp.isoformat()
    return (j.query_id, j.doc_id, j.state.value, j.grade, j.assessor, at, j.note, j.seconds, j.evidence)


def insert_event(conn: sqlite3.Connection, j: Judgment, source: str | None) -> int:
    """Append one event inside the caller's transaction; its sequence number."""
    cur = conn.execute(INSERT_EVENT, [*event_row(j), source])
    return int(cur.lastrowid or 0)


def now() -> str:
    """The time stamp the store writes (UTC, ISO 8601)."""
    return utcnow().isoformat()


def stored_time(ts: str) -> datetime | None:
    """A stored time stamp (ISO 8601, as `insert_event` wrote it); one an older qrelkit stored
    without its zone is UTC, as the store's own are; None if a foreign tool wrote something else."""
    try:
        when = datetime.fromisoformat(ts)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def event_from_row(r: sqlite3.Row) -> Judgment:
    """An event as the store holds it: not input, so not validated again (what an older qrelkit
    let in, such as a time without its zone or an infinite `seconds`, still reads)."""
    return Judgment.model_construct(
        query_id=r["query_id"],
        doc_id=r["doc_id"],
        state=JudgmentState(r["state"]),
        grade=r["grade"],
        assessor=r["assessor"],
        timestamp=stored_time(r["ts"]),
        note=r["note"],
        seconds=r["seconds"],
        evidence=r["evidence"],
    )
