"""Leases: the document each assessor has open on a judging screen, until it expires.

A lease is a courtesy between assessors judging one store at once, not a lock on the judgments:
it keeps the others' next-unlabeled choice away from a document someone is reading. An assessor
holds one lease at a time (the `idx_leases_one_per_assessor` index), so that taking the next
document is one statement that also ends the last lease.

`claim` is the choice itself: the first document of a list that no other live lease holds and that
no one else voted on since the screen read it, leased in the same statement. SQLite runs a write
statement holding the write lock from its first read, so two assessors claiming at once cannot
take the same document (a read-then-write would let both read it free). The judging keystroke
claims inside the judgment's own transaction (`Log.record_pair`); elsewhere a claim or a hold is a
transaction of its own, on a connection that does not wait for a busy store (`Store.lease_writer`): a lease is best
effort, and a key never waits for one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import timedelta

from ..models import utcnow
from .base import Part

LEASE_SECONDS = 300
"""A lease lasts this long after the assessor's last action on the document."""

CLAIM_WINDOW = 64
"""At most this many documents are offered to one claim (the first free one of them is taken)."""

HOLD_SQL = """
    INSERT INTO leases(query_id, doc_id, assessor, expires) VALUES (:q, :d, :me, :expires)
    ON CONFLICT(assessor) DO UPDATE SET query_id = excluded.query_id, doc_id = excluded.doc_id,
      expires = excluded.expires
"""

CLAIM_SQL = """
    INSERT INTO leases(query_id, doc_id, assessor, expires)
    SELECT :q, c.value, :me, :expires FROM json_each(:docs) AS c
    WHERE NOT EXISTS (
        SELECT 1 FROM leases l
        WHERE l.query_id = :q AND l.doc_id = c.value AND l.assessor != :me AND l.expires > :now
          AND NOT (
            EXISTS (SELECT 1 FROM assignments a WHERE a.query_id = :q AND a.doc_id = c.value AND a.assessor = :me)
            AND EXISTS (SELECT 1 FROM assignments b WHERE b.query_id = :q AND b.doc_id = c.value
                        AND b.assessor = l.assessor)))
      AND (
        EXISTS (SELECT 1 FROM assignments a WHERE a.query_id = :q AND a.doc_id = c.value AND a.assessor = :me)
        OR NOT EXISTS (
          SELECT 1 FROM judgments j
          WHERE j.query_id = :q AND j.doc_id = c.value AND j.seq > :seen AND j.assessor != :me
            AND j.state IN ('graded', 'skipped', 'adjudicated')))
    ORDER BY c.key LIMIT 1
    ON CONFLICT(assessor) DO UPDATE SET query_id = excluded.query_id, doc_id = excluded.doc_id,
      expires = excluded.expires
    RETURNING doc_id
"""
"""`claim` in one statement: of the documents `:docs` (a JSON list, in the order wanted), the first
that no other assessor's live lease holds (unless the pair is assigned to both of them) and that no
one else voted on after sequence number `:seen` (unless it is assigned to `:me`), leased to `:me`
in place of `:me`'s last lease. Nothing is written when none is free."""


def claim(
    conn: sqlite3.Connection,
    query_id: str,
    candidates: Sequence[str],
    assessor: str,
    *,
    seen: int,
    seconds: int = LEASE_SECONDS,
) -> str | None:
    """Lease the first free document of `candidates` (see `CLAIM_SQL`; only the first
    `CLAIM_WINDOW` are offered) to `assessor`, inside the caller's transaction or alone; the
    document taken, or None (nothing written) when none of them is free. One statement."""
    if not candidates:
        return None
    now = utcnow()
    params = {
        "q": query_id,
        "docs": json.dumps(list(candidates[:CLAIM_WINDOW])),
        "me": assessor,
        "seen": seen,
        "now": now.isoformat(),
        "expires": (now + timedelta(seconds=seconds)).isoformat(),
    }
    rows = conn.execute(CLAIM_SQL, params).fetchall()
    return str(rows[0][0]) if rows else None


class Leases(Part):
    """Who has which document open (read with a query's pairs: `Log.pairs`)."""

    def hold(self, query_id: str, doc_id: str, assessor: str, seconds: int = LEASE_SECONDS) -> None:
        """`assessor` has `doc_id` open, whoever else has (their last lease ends)."""
        expires = (utcnow() + timedelta(seconds=seconds)).isoformat()
        with self.db.transaction():
            self.conn.execute(HOLD_SQL, {"q": query_id, "d": doc_id, "me": assessor, "expires": expires})

    def claim(
        self, query_id: str, candidates: Sequence[str], assessor: str, *, seen: int, seconds: int = LEASE_SECONDS
    ) -> str | None:
        """The module's `claim` in a transaction of its own (a busy store: `StoreBusy`)."""
        with self.db.transaction():
            return claim(self.conn, query_id, candidates, assessor, seen=seen, seconds=seconds)

    def release(self, assessor: str) -> None:
        """`assessor` has no document open any more."""
        with self.db.transaction():
            self.conn.execute("DELETE FROM leases WHERE assessor = ?", [assessor])
