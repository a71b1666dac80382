"""Reads: labels, queries, documents, progress and status, all resolved by `resolved.CURRENT`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from ..models import DEFAULT_STRATUM, Document, Label, PoolEntry, Query, StoreStatus, StratumStatus
from .base import Part

LabelRow = tuple[str, str, int]
"""(query, document, grade)."""


class OpenWork(NamedTuple):
    """The unlabeled pool and the current labels, read from one resolution of the log."""

    unlabeled: list[PoolEntry]
    labels: list[LabelRow]


IN_SET = "query_id IN (SELECT id FROM queries)"
"""Labels (and skips) of the golden set's queries only: a removed query's events stay in the log."""


class Reads(Part):
    """What the store holds now."""

    def label_rows(self, query_id: str | None = None) -> list[tuple[str, str, int]]:
        """`labels()` as (query, doc, grade) tuples: for bulk reads (a large set has ~10^6 labels,
        and building a model costs more than reading its row)."""
        one = query_id is not None
        sql = self._labels_sql() if not one else (
            f"SELECT query_id, doc_id, grade FROM {self._current(one)} WHERE state = 'graded' AND {IN_SET} "
            "ORDER BY query_id, doc_id"
        )  # fmt: skip
        return self.conn.execute(sql, {"qid": query_id}).fetchall()

    def iter_label_rows(self) -> Iterator[tuple[str, str, int]]:
        """`label_rows()` one batch at a time from the cursor, sorted by (query, doc) in code-point
        order (SQLite's BINARY order of UTF-8 is Python's str order): flat memory for a freeze."""
        cur = self.conn.execute(self._labels_sql())
        while rows := cur.fetchmany(10_000):
            yield from rows

    def _labels_sql(self) -> str:
        """The SQL of every current label, sorted by (query, doc). When every pair holds one event
        (notes aside), as after importing qrels, a pair's label is that event's grade if it is a
        grade or an adjudication: one scan of the covering index instead of resolving votes (1.0 s
        -> 0.2 s for 261,301 labels). Otherwise the resolution of `resolved.CURRENT`."""
        events = self._scalar("SELECT count(*) FROM judgments WHERE state != 'noted'")
        pairs = self._scalar(
            "SELECT count(*) FROM (SELECT 1 FROM judgments INDEXED BY judgments_votes WHERE state != 'noted' "
            "GROUP BY query_id, doc_id)"
        )
        if events == pairs:
            return (
                "SELECT query_id, doc_id, grade FROM judgments INDEXED BY judgments_votes "
                f"WHERE state IN ('graded', 'adjudicated') AND {IN_SET} ORDER BY query_id, doc_id"
            )
        return (
            f"SELECT query_id, doc_id, grade FROM {self._current()} WHERE state = 'graded' AND {IN_SET} "
            "ORDER BY query_id, doc_id"
        )

    def labels(self, query_id: str | None = None) -> list[Label]:
        """Current graded labels, sorted (grade 0 included; skipped and cleared pairs are not labels)."""
        return [Label.model_construct(query_id=q, doc_id=d, grade=g) for q, d, g in self.label_rows(query_id)]

    def skipped(self, query_id: str | None = None) -> list[tuple[str, str]]:
        one = query_id is not None
        sql = f"SELECT query_id, doc_id FROM {self._current(one, grades=False)} WHERE state = 'skipped' AND {IN_SET}"
        return [tuple(r) for r in self.conn.execute(sql, {"qid": query_id})]

    def query(self, query_id: str) -> Query | None:
        rows = self._rows("SELECT * FROM queries WHERE id = ?", [query_id])
        if not rows:
            return None
        r = rows[0]
        return Query(id=r["id"], text=r["text"], stratum=r["stratum"], description=r["description"])

    def queries(self) -> list[Query]:
        return [
            Query(id=r["id"], text=r["text"], stratum=r["stratum"], description=r["description"])
            for r in self._rows("SELECT * FROM queries ORDER BY id")
        ]

    def documents(self) -> Iterator[Document]:
        for r in self._rows("SELECT * FROM documents ORDER BY id"):
            yield _document(r)

    def document(self, doc_id: str) -> Document | None:
        rows = self._rows("SELECT * FROM documents WHERE id = ?", [doc_id])
        return _document(rows[0]) if rows else None

    def document_texts(self, doc_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """Each held document's (title, text), by id, looked up 500 at a time (a query's pooled
        documents, for `workflows.duplicates`); ids the store holds no document for are left out."""
        ids = list(dict.fromkeys(doc_ids))
        found: dict[str, tuple[str, str]] = {}
        for at in range(0, len(ids), 500):
            batch = ids[at : at + 500]
            sql = f"SELECT id, title, text FROM documents WHERE id IN ({', '.join('?' * len(batch))})"
            found.update((d, (title or "", text or "")) for d, title, text in self.conn.execute(sql, batch))
        return found

    def absent_documents(self, doc_ids: Iterable[str]) -> set[str]:
        """Which of `doc_ids` the store holds no document for (looked up 500 at a time)."""
        ids = sorted(set(doc_ids))
        held: set[str] = set()
        for at in range(0, len(ids), 500):
            batch = ids[at : at + 500]
            sql = f"SELECT id FROM documents WHERE id IN ({', '.join('?' * len(batch))})"
            held.update(r[0] for r in self.conn.execute(sql, batch))
        return set(ids) - held

    def document_labels(self, doc_id: str) -> list[tuple[str, int]]:
        """Every query's current label of one document, (query, grade) by query (resolves the log:
        for `qrelkit docs show`, not for the hot paths)."""
        sql = (
            f"SELECT query_id, grade FROM {self._current()} WHERE state = 'graded' AND doc_id = :d AND {IN_SET} "
            "ORDER BY query_id"
        )
        return [(q, g) for q, g in self.conn.execute(sql, {"d": doc_id})]

    def table_counts(self) -> dict[str, int]:
        """Row counts of every table (used to show that a failed import changed nothing)."""
        return {
            t: int(self._scalar(f"SELECT count(*) FROM [{t}]"))
            for t in (
                "meta",
                "strata",
                "queries",
                "documents",
                "judgments",
                "pool",
                "profiles",
                "runs",
                "run_rows",
                "reports",
                "machine_labels",
            )
        }

    def status(self) -> StoreStatus:
        weights = {r[0]: r[1] for r in self.conn.execute("SELECT name, weight FROM strata")}
        per: dict[str, dict[str, Any]] = {}

        def bucket(name: str) -> dict[str, Any]:
            return per.setdefault(name, {"queries": 0, "labels": {}, "skipped": 0, "unlabeled_pool": 0})

        for name in weights:
            bucket(name)
        for stratum, n in self.conn.execute("SELECT stratum, count(*) FROM queries GROUP BY stratum"):
            bucket(stratum)["queries"] = n
        # the resolved state is computed once, for the label counts and the pool both
        sql = f"""
            WITH cur AS MATERIALIZED (SELECT query_id, doc_id, state, grade FROM {self._current()}),
            stratum_of AS (SELECT id, stratum FROM queries)
            SELECT 'label', s.stratum, c.state, c.grade, count(*) FROM cur c JOIN stratum_of s ON s.id = c.query_id
            WHERE c.state IN ('graded', 'skipped') GROUP BY s.stratum, c.state, c.grade
            UNION ALL
            SELECT 'pool', coalesce(s.stratum, ?), NULL, NULL, count(*) FROM pool p
            LEFT JOIN cur c ON c.query_id = p.query_id AND c.doc_id = p.doc_id
            LEFT JOIN stratum_of s ON s.id = p.query_id
            WHERE c.state IS NULL OR c.state = 'cleared' GROUP BY 2
        """
        for kind, stratum, state, grade, n in self.conn.execute(sql, [DEFAULT_STRATUM]):
            b = bucket(stratum)
            if kind == "pool":
                b["unlabeled_pool"] = n
            elif state == "graded":
                b["labels"][str(grade)] = b["labels"].get(str(grade), 0) + n
            else:
                b["skipped"] += n
        strata = [
            StratumStatus(
                name=name,
                weight=weights.get(name),
                queries=b["queries"],
                labels=dict(sorted(b["labels"].items(), key=lambda kv: int(kv[0]))),
                skipped=b["skipped"],
                unlabeled_pool=b["unlabeled_pool"],
            )
            for name, b in sorted(per.items())
        ]
        labels: dict[str, int] = {}
        for s in strata:
            for g, n in s.labels.items():
                labels[g] = labels.get(g, 0) + n
        return StoreStatus(
            name=self.db.settings().name,
            queries=sum(s.queries for s in strata),
            documents=int(self._scalar("SELECT count(*) FROM documents")),
            judgment_events=int(
                self._scalar("SELECT count(*) FROM judgments WHERE query_id IN (SELECT id FROM queries)")
            ),
            labels=dict(sorted(labels.items(), key=lambda kv: int(kv[0]))),
            skipped=sum(s.skipped for s in strata),
            unlabeled_pool=sum(s.unlabeled_pool for s in strata),
            strata=strata,
        )

    def open_work(self) -> OpenWork:
        """The unlabeled pool (in pool order) and the current labels, resolving the log once."""
        current = {
            (q, d): (state, grade)
            for q, d, state, grade in self.conn.execute(f"SELECT query_id, doc_id, state, grade FROM {self._current()}")
        }
        unlabeled = [
            PoolEntry.model_construct(query_id=q, doc_id=d, source=src or "", best_rank=rank)
            for q, d, src, rank in self.conn.execute(
                "SELECT query_id, doc_id, source, best_rank FROM pool "
                "ORDER BY query_id, coalesce(best_rank, 1e9), rowid"
            )
            if current.get((q, d), ("cleared", None))[0] == "cleared"
        ]
        labels = [(q, d, g) for (q, d), (state, g) in current.items() if state == "graded"]
        return OpenWork(unlabeled, labels)


def _document(r: sqlite3.Row) -> Document:
    """A documents row as a model (its metadata JSON parsed back)."""
    meta = r["metadata"]
    return Document(
        id=r["id"], title=r["title"] or "", text=r["text"] or "", metadata=json.loads(meta) if meta else None
    )
