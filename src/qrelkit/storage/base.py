"""The connection every part of the store shares: its transaction rule, row helpers and the
golden-set settings the SQL needs (scale, label policy)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..errors import StoreBusy, StoreError
from ..models import GradeScale, Judgment, JudgmentState, LabelPolicy, utcnow
from ..resolution import DEFAULT_POLICY, POLICIES
from .resolved import current_sql

Params = Iterable[Any] | Mapping[str, Any]


class Connection:
    """A SQLite connection with one write transaction at a time (`BEGIN IMMEDIATE` ... `COMMIT`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._depth = 0
        self.busy_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])

    def wait_for_lock(self, ms: int) -> None:
        """How long a write waits for another process's transaction before `StoreBusy`."""
        self.conn.execute(f"PRAGMA busy_timeout={int(ms)}")
        self.busy_ms = int(ms)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: everything in the block commits together or not at all."""
        if self._depth:  # an inner block joins the outer transaction
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
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
        self._depth = 1
        try:
            yield
        except BaseException:
            self._rollback()
            raise
        finally:
            self._depth = 0
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self._rollback()  # a COMMIT that failed (disk full) leaves the transaction open
            raise

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
        if self._depth:
            yield
            return
        self.conn.execute("BEGIN")
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            self.conn.execute("COMMIT")

    def _rows(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        cur = self.conn.execute(sql, params if isinstance(params, Mapping) else tuple(params))
        cur.row_factory = sqlite3.Row
        return cur.fetchall()

    def _scalar(self, sql: str, params: Params = ()) -> Any:
        row = self.conn.execute(sql, params if isinstance(params, Mapping) else tuple(params)).fetchone()
        return None if row is None else row[0]

    # -- the settings the SQL needs ----------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        value = self._scalar("SELECT value FROM meta WHERE key = ?", [key])
        return None if value is None else str(value)

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])

    @property
    def name(self) -> str:
        return self._meta("name") or "golden"

    @property
    def scale(self) -> GradeScale:
        raw = self._meta("scale")
        return GradeScale.model_validate_json(raw) if raw else GradeScale()

    @property
    def label_policy(self) -> LabelPolicy:
        """How disagreeing assessors resolve without adjudication: `median` or `latest`."""
        stored = self._meta("label_policy")
        for policy in POLICIES:
            if stored == policy:
                return policy
        return DEFAULT_POLICY

    def _insert_event(self, j: Judgment, source: str | None) -> int:
        """Append one event inside the caller's transaction; its sequence number."""
        cur = self.conn.execute(
            "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, note, seconds, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                j.query_id,
                j.doc_id,
                j.state.value,
                j.grade,
                j.assessor,
                j.timestamp.isoformat(),
                j.note,
                j.seconds,
                source,
            ],
        )
        return int(cur.lastrowid or 0)

    def _current(self, one_query: bool = False, *, grades: bool = True) -> str:
        """The resolved-state subquery (`resolved.current_sql`) under this store's policy and scale."""
        return current_sql(self.label_policy, self.scale.max_grade, one_query=one_query, grades=grades)


def now() -> str:
    """The time stamp the store writes (UTC, ISO 8601)."""
    return utcnow().isoformat()


def event_from_row(r: sqlite3.Row) -> Judgment:
    return Judgment(
        query_id=r["query_id"],
        doc_id=r["doc_id"],
        state=JudgmentState(r["state"]),
        grade=r["grade"],
        assessor=r["assessor"],
        timestamp=r["ts"],
        note=r["note"],
        seconds=r["seconds"],
    )
