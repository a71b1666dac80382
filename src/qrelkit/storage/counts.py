"""Per-query judging counts (labeled, skipped, unlabeled in the pool), kept between reads.

Resolving every pair of a million-event log takes seconds; the query list needs the counts at
once. The log is append-only and a pair's state depends on its own events alone, so the counts
of a query change only when an event for it is appended (its sequence number is above the one
the counts were taken at) or its pooled pairs change. `query_counts` holds each query's counts
and pool size, `meta.query_counts_seq` the log position they are current at; a read recomputes
only the queries with newer events or another pool size (all of them the first time, or when
many changed), then stores them back when the store is free (a busy store just skips that).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from ..errors import StoreBusy, StoreError
from ..models import QueryProgress
from .base import Part

FULL_RECOMPUTE = 2_000
"""More changed queries than this: one pass over the whole log is cheaper than one per query."""

_COUNTS = """
    WITH cur AS MATERIALIZED (SELECT query_id, doc_id, state FROM {current}),
    per AS (SELECT query_id, sum(state = 'graded') AS labeled, sum(state = 'skipped') AS skipped
            FROM cur GROUP BY query_id),
    open AS (SELECT p.query_id, count(*) AS unlabeled FROM pool p
             LEFT JOIN cur c ON c.query_id = p.query_id AND c.doc_id = p.doc_id
             WHERE (c.state IS NULL OR c.state = 'cleared') {pool_where} GROUP BY p.query_id)
    SELECT q.id, coalesce(per.labeled, 0), coalesce(per.skipped, 0), coalesce(open.unlabeled, 0)
    FROM queries q LEFT JOIN per ON per.query_id = q.id LEFT JOIN open ON open.query_id = q.id
    {query_where}
"""


class Counts(Part):
    """The per-query counts behind `progress()`."""

    def progress(self) -> list[QueryProgress]:
        """Every query with its labeled, skipped and unlabeled-pool counts, by query id."""
        with self.db.read_transaction():
            seq = int(self._scalar("SELECT coalesce(max(seq), 0) FROM judgments"))
            pooled = dict(self.conn.execute("SELECT query_id, count(*) FROM pool GROUP BY query_id").fetchall())
            cached = self._cached()
            since = self.db.meta("query_counts_seq")
            queries = self.conn.execute("SELECT id, stratum, text FROM queries ORDER BY id").fetchall()
            stale = self._stale(queries, cached, pooled, int(since) if since is not None else None)
            fresh = self._recompute(stale, everything=stale is None)
        counts = {**cached, **fresh}
        if fresh:
            self._keep(fresh, pooled, seq, replace_all=stale is None)
        # store output, trusted: built without validation
        return [
            QueryProgress.model_construct(
                query_id=q, stratum=s, text=t, labeled=counts[q][0], skipped=counts[q][1], unlabeled=counts[q][2]
            )
            for q, s, t in queries
        ]

    def _cached(self) -> dict[str, tuple[int, int, int, int]]:
        rows = self.conn.execute("SELECT query_id, labeled, skipped, unlabeled, pooled FROM query_counts")
        return {r[0]: (int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows}

    def _stale(
        self,
        queries: list[tuple[str, str, str]],
        cached: dict[str, tuple[int, int, int, int]],
        pooled: dict[str, int],
        since: int | None,
    ) -> set[str] | None:
        """The queries whose counts must be recomputed; None: all of them."""
        if since is None:
            return None
        # NOT INDEXED: the rowid range, not a scan of a covering index over the whole log (which
        # SQLite's planner picks for DISTINCT: 0.05-0.26 s on a million events with none newer)
        newer = "SELECT DISTINCT query_id FROM judgments NOT INDEXED WHERE seq > ?"
        stale = {q for (q,) in self.conn.execute(newer, [since])}
        for q, _, _ in queries:
            row = cached.get(q)
            if row is None or row[3] != pooled.get(q, 0):
                stale.add(q)
        return None if len(stale) > FULL_RECOMPUTE else stale

    def _recompute(self, stale: set[str] | None, *, everything: bool) -> dict[str, tuple[int, int, int, int]]:
        """(labeled, skipped, unlabeled, pooled) of the stale queries (every query if `everything`)."""
        if everything:
            sql = _COUNTS.format(current=self._current(grades=False), pool_where="", query_where="")
            return {r[0]: (int(r[1]), int(r[2]), int(r[3]), 0) for r in self.conn.execute(sql)}
        out = {}
        one = _COUNTS.format(
            current=self._current(True, grades=False),
            pool_where="AND p.query_id = :qid",
            query_where="WHERE q.id = :qid",
        )
        for q in sorted(stale or ()):
            for r in self.conn.execute(one, {"qid": q}):
                out[r[0]] = (int(r[1]), int(r[2]), int(r[3]), 0)
        return out

    def _keep(
        self, fresh: dict[str, tuple[int, int, int, int]], pooled: dict[str, int], seq: int, *, replace_all: bool
    ) -> None:
        """Store the recomputed counts, current at `seq`; best effort (a busy store keeps the
        old ones, which the next read recomputes again)."""
        rows: Iterable[tuple[str, int, int, int, int]] = (
            (q, c[0], c[1], c[2], pooled.get(q, 0)) for q, c in fresh.items()
        )
        waited = self.db.busy_ms
        try:
            self.db.wait_for_lock(50)
            with self.db.transaction():
                if replace_all:
                    self.conn.execute("DELETE FROM query_counts")
                self.conn.executemany("INSERT OR REPLACE INTO query_counts VALUES (?, ?, ?, ?, ?)", rows)
                self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('query_counts_seq', ?)", [str(seq)])
        except (StoreBusy, StoreError, sqlite3.OperationalError):
            pass
        finally:
            self.db.wait_for_lock(waited)
