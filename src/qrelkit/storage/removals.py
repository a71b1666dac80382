"""Taking strata, queries, documents and profiles out of the store, each removal recorded.

The judgment log stays append-only: removing a query or a document with labels appends one
`cleared` event per judged pair (by whoever removed it, naming the removal), so the pair's votes
stop counting and a query or document added back later starts unlabeled; the earlier events stay
in the log. A removed query's events are left out of what the golden set exports (`store.log.events`),
its pooled pairs, assignments, leases and pooled run rows go. Every removal writes one row to
`removals`: what, when, by whom, and the removed rows as JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..models import Removal
from .base import Part, now


@dataclass(frozen=True)
class Footprint:
    """What references a query, document or stratum (for the refusal that names it)."""

    judged_pairs: int
    pooled: int
    queries: int = 0
    profiles: tuple[str, ...] = ()


class Removals(Part):
    """Removals of strata, queries, documents and profiles, and their records."""

    def query_footprint(self, query_id: str) -> Footprint | None:
        """What references a query; None if there is no such query."""
        if self._scalar("SELECT 1 FROM queries WHERE id = ?", [query_id]) is None:
            return None
        return Footprint(
            judged_pairs=len(self._open_pairs("query_id = :id", query_id)),
            pooled=int(self._scalar("SELECT count(*) FROM pool WHERE query_id = ?", [query_id]) or 0),
        )

    def document_footprint(self, doc_id: str) -> Footprint | None:
        """What references a document; None if the store knows no such document (no row, no
        event, no pooled pair)."""
        pairs = len(self._open_pairs("doc_id = :id", doc_id))
        pooled = int(self._scalar("SELECT count(*) FROM pool WHERE doc_id = ?", [doc_id]) or 0)
        known = self._scalar("SELECT 1 FROM documents WHERE id = ?", [doc_id]) is not None
        return Footprint(judged_pairs=pairs, pooled=pooled) if known or pairs or pooled else None

    def stratum_footprint(self, name: str) -> Footprint | None:
        """What references a stratum; None if it neither has a weight nor holds a query."""
        queries = int(self._scalar("SELECT count(*) FROM queries WHERE stratum = ?", [name]) or 0)
        weighted = self._scalar("SELECT 1 FROM strata WHERE name = ?", [name]) is not None
        if not (queries or weighted):
            return None
        named_by = tuple(
            r["name"]
            for r in self._rows("SELECT name, strata FROM profiles ORDER BY name")
            if name in _list(r["strata"])
        )
        return Footprint(judged_pairs=0, pooled=0, queries=queries, profiles=named_by)

    def remove_query(self, query_id: str, *, assessor: str) -> Removal:
        """Remove a query (its labels cleared, see the module), in one transaction."""
        with self.db.transaction():
            row = dict(self._rows("SELECT * FROM queries WHERE id = ?", [query_id])[0])
            pairs = self._clear_pairs("query_id = :id", query_id, assessor, f"query {query_id} removed")
            pooled = int(self._scalar("SELECT count(*) FROM pool WHERE query_id = ?", [query_id]) or 0)
            for table in ("pool", "assignments", "leases", "run_rows"):
                self.conn.execute(f"DELETE FROM {table} WHERE query_id = ?", [query_id])
            self.conn.execute("DELETE FROM queries WHERE id = ?", [query_id])
            removal = Removal(kind="query", name=query_id, judged_pairs=pairs, pooled=pooled)
            self._record(removal, assessor, {"query": row})
        return removal

    def remove_document(self, doc_id: str, *, assessor: str) -> Removal:
        """Remove a document (its labels cleared, its pooled pairs gone), in one transaction."""
        with self.db.transaction():
            rows = self._rows("SELECT * FROM documents WHERE id = ?", [doc_id])
            pairs = self._clear_pairs("doc_id = :id", doc_id, assessor, f"document {doc_id} removed")
            pooled = int(self._scalar("SELECT count(*) FROM pool WHERE doc_id = ?", [doc_id]) or 0)
            for table in ("pool", "assignments", "leases"):
                self.conn.execute(f"DELETE FROM {table} WHERE doc_id = ?", [doc_id])
            self.conn.execute("DELETE FROM documents WHERE id = ?", [doc_id])
            removal = Removal(kind="document", name=doc_id, judged_pairs=pairs, pooled=pooled)
            self._record(removal, assessor, {"document": dict(rows[0]) if rows else None})
        return removal

    def remove_stratum(self, name: str, *, assessor: str) -> Removal:
        """Remove a stratum's weight (the caller has checked no query or profile uses it)."""
        with self.db.transaction():
            weight = self._scalar("SELECT weight FROM strata WHERE name = ?", [name])
            self.conn.execute("DELETE FROM strata WHERE name = ?", [name])
            removal = Removal(kind="stratum", name=name)
            self._record(removal, assessor, {"stratum": {"name": name, "weight": weight}})
        return removal

    def remove_profile(self, name: str, *, assessor: str) -> Removal | None:
        """Remove a scoring profile; None if there is none of that name."""
        with self.db.transaction():
            rows = self._rows("SELECT * FROM profiles WHERE name = ?", [name])
            if not rows:
                return None
            self.conn.execute("DELETE FROM profiles WHERE name = ?", [name])
            removal = Removal(kind="profile", name=name)
            row = dict(rows[0])
            profile = {"name": name, "metrics": json.loads(row["metrics"]), "strata": _list(row["strata"]) or None}
            self._record(removal, assessor, {"profile": profile})
        return removal

    def recorded(self) -> list[dict[str, Any]]:
        """Every removal recorded, oldest first."""
        return [dict(r) for r in self._rows("SELECT * FROM removals ORDER BY id")]

    def _open_pairs(self, where: str, value: str) -> list[Any]:
        """The pairs matching `where` (parameter `:id`) that hold a vote or a skip now."""
        sql = f"SELECT query_id, doc_id FROM {self._current(grades=False)} WHERE state != 'cleared' AND {where}"
        return self._rows(sql, {"id": value})

    def _clear_pairs(self, where: str, value: str, assessor: str, note: str) -> int:
        """Append a `cleared` event for every pair matching `where` that holds a vote or a skip;
        their count."""
        pairs = self._open_pairs(where, value)
        ts = now()
        self.conn.executemany(
            "INSERT INTO judgments(query_id, doc_id, state, assessor, ts, note, source) "
            "VALUES (?, ?, 'cleared', ?, ?, ?, 'removal')",
            [(p["query_id"], p["doc_id"], assessor, ts, note) for p in pairs],
        )
        return len(pairs)

    def _record(self, removal: Removal, assessor: str, rows: dict[str, Any]) -> None:
        # `log_seq`: the log's last event at the removal (its own clears included), so that a pair
        # of a removed document counts as added back only by what came later (`log.ABSENT_SQL`)
        seq = int(self._scalar("SELECT coalesce(max(seq), 0) FROM judgments") or 0)
        body = {"judged_pairs": removal.judged_pairs, "pooled": removal.pooled, "log_seq": seq, **rows}
        self.conn.execute(
            "INSERT INTO removals(ts, kind, name, assessor, body) VALUES (?, ?, ?, ?, ?)",
            [now(), removal.kind, removal.name, assessor, json.dumps(body, sort_keys=True)],
        )


def _list(text: str | None) -> list[str]:
    value = json.loads(text) if text else None
    return [str(v) for v in value] if isinstance(value, list) else []
