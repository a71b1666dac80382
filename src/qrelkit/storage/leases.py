"""Leases: the document each assessor has open on a judging screen, until it expires.

A lease is a courtesy between assessors judging one store at once, not a lock: it only keeps
the others' next-unlabeled order away from a document someone is reading. It is written on a
connection of its own without waiting for the disk (losing one in a crash loses nothing that
matters), so that keystrokes never wait for it.
"""

from __future__ import annotations

from datetime import timedelta

from ..models import utcnow
from .base import Part

LEASE_SECONDS = 300
"""A lease lasts this long after the assessor's last action on the document."""


class Leases(Part):
    """Who has which document open (read with a query's pairs: `Log.pairs`)."""

    def hold(self, query_id: str, doc_id: str, assessor: str, seconds: int = LEASE_SECONDS) -> None:
        """`assessor` has `doc_id` open (their other leases end)."""
        expires = (utcnow() + timedelta(seconds=seconds)).isoformat()
        with self.db.transaction():
            self.conn.execute("DELETE FROM leases WHERE assessor = ?", [assessor])
            self.conn.execute(
                "INSERT INTO leases(query_id, doc_id, assessor, expires) VALUES (?, ?, ?, ?)",
                [query_id, doc_id, assessor, expires],
            )

    def release(self, assessor: str) -> None:
        """`assessor` has no document open any more."""
        with self.db.transaction():
            self.conn.execute("DELETE FROM leases WHERE assessor = ?", [assessor])
