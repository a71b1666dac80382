"""The judgment log: append-only events, assessors, assignments, and each pair's votes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from datetime import datetime

from .. import resolution
from ..errors import InputError
from ..models import Judgment, JudgmentState
from .base import Part, event_from_row, insert_event, now


class Log(Part):
    """Appends and reads the event log; nothing here updates or deletes an event."""

    def record(self, judgment: Judgment) -> int:
        """Append one event and commit it (durable on return). Returns its sequence number."""
        if judgment.grade is not None and judgment.grade > self.db.settings().scale.max_grade:
            raise InputError(f"grade {judgment.grade} is above the scale's highest grade")
        with self.db.transaction():
            return insert_event(self.conn, judgment, None)

    def events(self, query_id: str | None = None) -> list[Judgment]:
        """The log in order (all of it, or one query's), without the events of removed queries
        (they stay in the table: the log is append-only; see `storage.removals`)."""
        return list(self.iter_events(query_id))

    def iter_events(self, query_id: str | None = None) -> Iterator[Judgment]:
        """`events`, one at a time from the cursor (a 2-million-event log in flat memory). Read it
        inside `Store.read_transaction` when it must agree with other reads."""
        sql = (
            "SELECT * FROM judgments WHERE "
            + ("query_id = ?" if query_id else "1")
            + (" AND query_id IN (SELECT id FROM queries) ORDER BY seq")
        )
        cur = self.conn.execute(sql, [query_id] if query_id else [])
        cur.row_factory = sqlite3.Row
        while rows := cur.fetchmany(10_000):
            yield from (event_from_row(r) for r in rows)

    def assessors(self) -> list[str]:
        """Everyone who judged in this store (events recorded here, not imported from a file)."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT assessor FROM judgments WHERE source IS NULL AND state != 'noted' ORDER BY 1"
            )
        ]

    def assign(self, rows: Iterable[tuple[str, str, str]]) -> int:
        """Assign (query, doc) pairs to assessors; returns how many assignments were new."""
        stamp = now()
        with self.db.transaction():
            before = self.conn.total_changes
            self.conn.executemany(
                "INSERT OR IGNORE INTO assignments(query_id, doc_id, assessor, created) VALUES (?, ?, ?, ?)",
                [(q, d, a, stamp) for q, d, a in rows],
            )
            return self.conn.total_changes - before

    def pending_assignments(self, assessor: str) -> list[tuple[str, str]]:
        """Pairs assigned to `assessor` that they have not judged yet (no vote of theirs; a note
        or a retracted vote leaves the pair pending)."""
        sql = (
            "SELECT a.query_id, a.doc_id FROM assignments a WHERE a.assessor = ? AND NOT EXISTS "
            "(SELECT 1 FROM judgments j WHERE j.query_id = a.query_id AND j.doc_id = a.doc_id AND j.assessor = ? "
            "AND j.state IN ('graded', 'skipped')) "
            "ORDER BY a.query_id, a.doc_id"
        )
        return [(q, d) for q, d in self.conn.execute(sql, [assessor, assessor])]

    def votes(self) -> dict[tuple[str, str], resolution.PairVotes]:
        """Each assessor's latest vote and the latest adjudicated grade, for every pair (reads
        the whole log: for agreement and adjudication, not for the hot paths)."""
        sql = "SELECT seq, query_id, doc_id, state, grade, assessor, note FROM judgments ORDER BY seq"
        rows = self.conn.execute(sql).fetchall()
        events = (
            (seq, Judgment.model_construct(query_id=q, doc_id=d, state=JudgmentState(st), grade=g, assessor=a, note=n))
            for seq, q, d, st, g, a, n in rows
        )
        return resolution.votes_of(events)

    def query_events(self, query_id: str, doc_id: str | None = None) -> list[tuple[int, Judgment]]:
        """One query's events (or one pair's) in log order, as (sequence number, event)."""
        sql = "SELECT seq, doc_id, state, grade, assessor, ts, note FROM judgments WHERE query_id = ?"
        params = [query_id]
        if doc_id is not None:
            sql += " AND doc_id = ?"
            params.append(doc_id)
        rows = self.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            (
                seq,
                Judgment.model_construct(
                    query_id=query_id,
                    doc_id=d,
                    state=JudgmentState(st),
                    grade=g,
                    assessor=a,
                    timestamp=_time(ts),
                    note=n,
                ),
            )
            for seq, d, st, g, a, ts, n in rows
        ]

    def last_seq(self, query_id: str) -> int:
        """The sequence number of a query's latest event (0: none): it changes when anyone judges it."""
        return int(self._scalar("SELECT max(seq) FROM judgments WHERE query_id = ?", [query_id]) or 0)

    def shared_pairs(self, query_id: str, doc_id: str | None = None) -> dict[str, set[str]]:
        """A query's documents (or one of them) assigned to several assessors -> those assessors
        (`assign --overlap`)."""
        one = " AND doc_id = ?" if doc_id is not None else ""
        return {
            d: set(who.split("\x1f"))
            for d, who in self.conn.execute(
                "SELECT doc_id, group_concat(assessor, char(31)) FROM assignments WHERE query_id = ?"
                + one
                + " GROUP BY doc_id HAVING count(*) > 1",
                [query_id] if doc_id is None else [query_id, doc_id],
            )
        }


def _time(ts: str) -> datetime | None:
    """A stored time stamp (ISO 8601; None if a foreign tool wrote something else)."""
    try:
        return datetime.fromisoformat(ts)
    except ValueError:
        return None
