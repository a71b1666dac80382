"""The judging pool: the runs pooled into the store (each run's top documents per query, with
ranks), and the (query, document) pairs waiting for a label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..models import PoolEntry, PoolResult, RunRank
from .base import Part, now


class RankedLists(Protocol):
    """A run's name and its documents per query in rank order (`scoring.arrays.RunLists` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def ranked(self) -> Mapping[str, Sequence[str]]: ...

    @property
    def scores(self) -> Mapping[str, Sequence[float]] | None:
        """The scores of `ranked`'s documents, in the same order (None: a run of ranks only)."""


class Pool(Part):
    """Pooled runs and the unlabeled pool."""

    def add_runs(
        self, runs: Sequence[RankedLists], *, depth: int, paths: Sequence[str], stratum: str | None = None
    ) -> PoolResult:
        """Record each run's top `depth` documents for every golden-set query and pool the
        unlabeled ones (of `stratum`'s queries only, if given); one transaction. Pooling again is
        idempotent: a pair's best rank and runs are merged, nothing is added twice."""
        stamp = now()
        with self.db.transaction():  # read what is known inside it: another writer cannot slip in between
            strata = dict(self.conn.execute("SELECT id, stratum FROM queries").fetchall())
            # only the pairs these runs rank are looked up: the store's labels stay on disk
            wanted = {(q, d) for run in runs for q, ds in run.ranked.items() if q in strata for d in ds[:depth]}
            known = {
                (q, d)
                for q, d, state in self.conn.execute(
                    f"SELECT query_id, doc_id, state FROM {self._current(grades=False)}"
                )
                if state in ("graded", "skipped") and (q, d) in wanted
            }
            pooled = {
                (q, d): (src, rank)
                for q, d, src, rank in self.conn.execute("SELECT query_id, doc_id, source, best_rank FROM pool")
                if (q, d) in wanted
            }
            counts = [0, 0, 0]  # added, merged, labeled
            for run, path in zip(runs, paths, strict=True):
                self._pool_run(run, path, depth, stamp, strata, known, pooled, stratum, counts)
            added, merged, labeled = counts
            docs = {d for run in runs for q, ds in run.ranked.items() if q in strata for d in ds[:depth]}
            stored = {r[0] for r in self.conn.execute("SELECT id FROM documents")}
            missing = docs - stored
        return PoolResult(
            runs=[run.name for run in runs],
            added=added,
            updated=merged,
            labeled=labeled,
            missing_documents=sorted(missing),
            queries_not_in_runs=sorted(q for q in strata if all(q not in run.ranked for run in runs)),
            run_only_queries=sorted({q for run in runs for q in run.ranked if q not in strata}),
        )

    def _pool_run(
        self,
        run: RankedLists,
        path: str,
        depth: int,
        stamp: str,
        strata: dict[str, str],
        known: set[tuple[str, str]],
        pooled: dict[tuple[str, str], tuple[str | None, int | None]],
        stratum: str | None,
        counts: list[int],
    ) -> None:
        """Record one run's top `depth` and pool its unlabeled pairs, inside `add_runs`'s
        transaction; `counts` gains (added, merged, labeled)."""
        self.conn.execute("DELETE FROM run_rows WHERE run = ?", [run.name])
        self.conn.execute(
            "INSERT OR REPLACE INTO runs(name, path, depth, pooled_at) VALUES (?, ?, ?, ?)",
            [run.name, path, depth, stamp],
        )
        scores = run.scores or {}
        rows = [
            (run.name, q, i + 1, d, _score(scores.get(q), i))
            for q, docs in run.ranked.items()
            if q in strata
            for i, d in enumerate(docs[:depth])
        ]
        self.conn.executemany("INSERT INTO run_rows(run, query_id, rank, doc_id, score) VALUES (?, ?, ?, ?, ?)", rows)
        for _, q, rank, d, _ in rows:
            if stratum is not None and strata[q] != stratum:
                continue
            if (q, d) in known:
                counts[2] += 1
                continue
            if (q, d) not in pooled:
                pooled[(q, d)] = (run.name, rank)
                self.conn.execute(
                    "INSERT INTO pool(query_id, doc_id, source, best_rank) VALUES (?, ?, ?, ?)", [q, d, run.name, rank]
                )
                counts[0] += 1
                continue
            src, best = pooled[(q, d)]
            names = sorted({n for n in (src or "").split(",") if n} | {run.name})
            new = (",".join(names), min(best, rank) if best is not None else rank)
            if new != (src, best):
                counts[1] += 1
                pooled[(q, d)] = new
                self.conn.execute(
                    "UPDATE pool SET source = ?, best_rank = ? WHERE query_id = ? AND doc_id = ?", [*new, q, d]
                )

    def runs(self) -> dict[str, dict[str, list[str]]]:
        """The pooled runs: run name -> query -> top documents in rank order."""
        lists: dict[str, dict[str, list[str]]] = {
            name: {} for (name,) in self.conn.execute("SELECT name FROM runs ORDER BY name")
        }
        for run, q, d in self.conn.execute("SELECT run, query_id, doc_id FROM run_rows ORDER BY run, query_id, rank"):
            lists[run].setdefault(q, []).append(d)
        return lists

    def ranks(self, query_id: str) -> dict[str, list[RunRank]]:
        """Where each pooled run ranked each of the query's documents: doc -> (run, rank, score),
        best rank first (the judging screen's context line)."""
        found: dict[str, list[RunRank]] = {}
        sql = "SELECT doc_id, run, rank, score FROM run_rows WHERE query_id = ? ORDER BY doc_id, rank, run"
        for d, run, rank, score in self.conn.execute(sql, [query_id]):
            found.setdefault(d, []).append(RunRank.model_construct(run=run, rank=rank, score=score))
        return found

    def unlabeled(self, query_id: str | None = None) -> list[PoolEntry]:
        """Pooled pairs with no current label and not skipped, in pool order."""
        one = query_id is not None
        sql = (
            "SELECT p.query_id, p.doc_id, p.source, p.best_rank FROM pool p "
            f"LEFT JOIN {self._current(one, grades=False)} c "
            "ON c.query_id = p.query_id AND c.doc_id = p.doc_id "
            "WHERE (c.state IS NULL OR c.state = 'cleared')"
            + (" AND p.query_id = :qid" if one else "")
            + " ORDER BY p.query_id, coalesce(p.best_rank, 1e9), p.rowid"
        )
        return [
            PoolEntry.model_construct(query_id=r[0], doc_id=r[1], source=r[2] or "", best_rank=r[3])
            for r in self.conn.execute(sql, {"qid": query_id})
        ]

    def has_document(self, doc_id: str) -> bool:
        """Whether any query's pool holds the document."""
        return self.conn.execute("SELECT 1 FROM pool WHERE doc_id = ? LIMIT 1", [doc_id]).fetchone() is not None

    def documents(self, query_id: str) -> list[str]:
        """A query's pooled documents, best rank first, then in the order they were pooled."""
        sql = "SELECT doc_id FROM pool WHERE query_id = ? ORDER BY coalesce(best_rank, 1e9), rowid"
        return [r[0] for r in self.conn.execute(sql, [query_id])]


def _score(scores: Sequence[float] | None, i: int) -> float | None:
    return float(scores[i]) if scores is not None and i < len(scores) else None
