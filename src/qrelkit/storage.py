"""The golden-set store: one SQLite file, the only module that imports sqlite-utils.

Judgments are an append-only log (`judgments`); the current label of a pair is derived from it
(each assessor's latest event is a vote, see `resolution`) by the SQL in `_CURRENT`, never stored.
Every write is one explicit transaction (`BEGIN IMMEDIATE` ... `COMMIT`), the journal is WAL and
`synchronous=FULL`, so a judgment that `record()` returned for is on disk. A failed import rolls
back and leaves the store as it was.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from . import resolution, versioning
from .errors import InputError, StoreError, VersionError
from .formats.trec import QrelRecord
from .models import (
    DEFAULT_STRATUM,
    Disagreement,
    DocState,
    Document,
    GoldenSetInfo,
    GradeScale,
    Judgment,
    JudgmentState,
    Label,
    LabelState,
    Manifest,
    PoolEntry,
    PoolResult,
    Query,
    QueryProgress,
    QueueItem,
    ScoringProfile,
    StoreStatus,
    Stratum,
    StratumStatus,
)

if TYPE_CHECKING:  # the scoring engine (numpy) loads only for the queue
    from .scoring.impact import RunLists

BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's transaction before giving up."""


def _v1(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("strata").create({"name": str, "weight": float}, pk="name")
    db.table("queries").create(
        {"id": str, "text": str, "stratum": str, "description": str}, pk="id", not_null={"text", "stratum"}
    )
    db.table("queries").create_index(["stratum"])
    db.table("documents").create({"id": str, "title": str, "text": str}, pk="id")
    db.table("judgments").create(
        {
            "seq": int,
            "query_id": str,
            "doc_id": str,
            "state": str,
            "grade": int,
            "assessor": str,
            "ts": str,
            "note": str,
            "seconds": float,
            "source": str,
        },
        pk="seq",
        not_null={"query_id", "doc_id", "state", "assessor", "ts"},
    )
    db.table("judgments").create_index(["query_id", "doc_id", "seq"])
    db.table("pool").create(
        {"query_id": str, "doc_id": str, "source": str, "best_rank": int, "position": int},
        pk=("query_id", "doc_id"),
    )
    db.table("profiles").create({"name": str, "metrics": str, "strata": str}, pk="name")
    db.execute(
        """
        CREATE VIEW current_state AS
        SELECT j.query_id, j.doc_id, j.state, j.grade, j.assessor, j.ts, j.note, j.seq
        FROM judgments j
        JOIN (SELECT query_id, doc_id, max(seq) AS seq FROM judgments GROUP BY query_id, doc_id) last
          ON j.seq = last.seq
        """
    )


def _v2(db: sqlite_utils.Database) -> None:
    """The current state as one grouped scan of a covering index (SQLite takes the bare columns
    from the row holding max(seq)), instead of a self-join: filters by query push down into it."""
    db.execute("DROP VIEW current_state")
    db.execute("CREATE INDEX judgments_current ON judgments(query_id, doc_id, seq, state, grade)")
    db.execute(
        """
        CREATE VIEW current_state AS
        SELECT query_id, doc_id, state, grade, assessor, ts, note, max(seq) AS seq
        FROM judgments GROUP BY query_id, doc_id
        """
    )


def _v3(db: sqlite_utils.Database) -> None:
    """Pooled runs: each run's top documents per query (which runs surfaced a pooled pair, at
    which ranks; the judging queue's impact is computed from them)."""
    db.table("runs").create({"name": str, "path": str, "depth": int, "pooled_at": str}, pk="name")
    db.table("run_rows").create(
        {"run": str, "query_id": str, "rank": int, "doc_id": str},
        pk=("run", "query_id", "rank"),
        foreign_keys=[("run", "runs", "name")],
    )
    db.table("run_rows").create_index(["query_id", "doc_id"])


_CURRENT = """(
    SELECT v.query_id, v.doc_id,
           CASE WHEN a.grade IS NOT NULL OR v.n_graded > 0 THEN 'graded'
                WHEN v.n_skipped > 0 THEN 'skipped' ELSE 'cleared' END AS state,
           CASE WHEN a.grade IS NOT NULL THEN a.grade WHEN v.lo = v.hi THEN v.lo ELSE {policy} END AS grade,
           (a.grade IS NULL AND v.lo != v.hi) AS disputed,
           max(v.seq, coalesce(a.seq, 0)) AS seq
    FROM (
        SELECT l.query_id, l.doc_id,
               sum(l.state = 'graded' AND l.seq > coalesce(c.seq, 0)) AS n_graded,
               sum(l.state = 'skipped' AND l.seq > coalesce(c.seq, 0)) AS n_skipped,
               min(CASE WHEN l.state = 'graded' AND l.seq > coalesce(c.seq, 0) THEN l.grade END) AS lo,
               max(CASE WHEN l.state = 'graded' AND l.seq > coalesce(c.seq, 0) THEN l.grade END) AS hi,
               max(CASE WHEN l.state = 'graded' AND l.seq > coalesce(c.seq, 0) THEN l.seq END) AS last_graded,
               {counts}
               max(l.seq) AS seq, max(c.seq) AS cleared
        FROM (SELECT query_id, doc_id, assessor, state, grade, max(seq) AS seq FROM judgments
              WHERE 1 {where} GROUP BY query_id, doc_id, assessor) l
        LEFT JOIN (SELECT query_id, doc_id, max(seq) AS seq FROM judgments INDEXED BY judgments_cleared
                   WHERE state = 'cleared' {where} GROUP BY query_id, doc_id) c
          ON c.query_id = l.query_id AND c.doc_id = l.doc_id
        GROUP BY l.query_id, l.doc_id
    ) v
    LEFT JOIN (SELECT query_id, doc_id, grade, max(seq) AS seq FROM judgments INDEXED BY judgments_adjudicated
               WHERE state = 'adjudicated' {where} GROUP BY query_id, doc_id) a
      ON a.query_id = v.query_id AND a.doc_id = v.doc_id AND a.seq > coalesce(v.cleared, 0)
)"""
"""Every pair's resolved state (`resolution`, here in SQL): each assessor's latest event after the
pair's latest clear is a vote (an adjudicator's own adjudication replaces their vote here, which
changes nothing: it overrides every vote), an adjudication (after that clear) overrides them; disagreeing
grades resolve by the policy (`latest`: the grade of the latest graded vote; `median`: the lower
median, from per-grade vote counts). One scan of the covering index `judgments_votes`, plus the
small partial indexes of clears and adjudications."""


def _current(one_query: bool = False, *, policy: str = "median", max_grade: int = 3, grades: bool = True) -> str:
    """The resolved state of every pair, or (`QUERY_PARAMS` `?` for the query id) of one query's.
    Without `grades`, the grade column is left NULL for disputed pairs (cheaper: for counts)."""
    if not grades:
        return _CURRENT.format(where="AND query_id = ?" if one_query else "", counts="", policy="NULL")
    valid = "l.state = 'graded' AND l.seq > coalesce(c.seq, 0)"
    counts = "".join(f"sum({valid} AND l.grade = {g}) AS c{g}, " for g in range(max_grade + 1))
    if policy == "latest":
        chosen = "(SELECT grade FROM judgments WHERE seq = v.last_graded)"
    else:
        half = "(v.n_graded + 1) / 2"
        steps = " ".join(
            f"WHEN {' + '.join(f'v.c{k}' for k in range(g + 1))} >= {half} THEN {g}" for g in range(max_grade + 1)
        )
        chosen = f"CASE {steps} END"
    return _CURRENT.format(where="AND query_id = ?" if one_query else "", counts=counts, policy=chosen)


QUERY_PARAMS = 3
"""How many times `_current(True)` takes the query id."""


def _v4(db: sqlite_utils.Database) -> None:
    """Saved score reports and comparisons (JSON), newest last: the TUI dashboard shows them."""
    db.table("reports").create(
        {"id": int, "kind": str, "name": str, "created": str, "body": str}, pk="id", not_null={"kind", "body"}
    )
    db.table("reports").create_index(["kind", "id"])


def _v5(db: sqlite_utils.Database) -> None:
    """Several assessors: each assessor's latest event is a vote (covering index), adjudications
    (partial index), and assignments of pairs to assessors (`qrelkit assign`)."""
    db.execute("CREATE INDEX judgments_votes ON judgments(query_id, doc_id, assessor, seq, state, grade)")
    db.execute(
        "CREATE INDEX judgments_adjudicated ON judgments(query_id, doc_id, seq, grade) WHERE state = 'adjudicated'"
    )
    db.execute("CREATE INDEX judgments_cleared ON judgments(query_id, doc_id, seq) WHERE state = 'cleared'")
    db.table("assignments").create(
        {"query_id": str, "doc_id": str, "assessor": str, "created": str}, pk=("query_id", "doc_id", "assessor")
    )
    db.table("assignments").create_index(["assessor"])
    # a store judged before votes existed meant "the latest event wins": keep that meaning
    if db.execute("SELECT 1 FROM judgments LIMIT 1").fetchone() is not None:
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('label_policy', 'latest')")


def _v6(db: sqlite_utils.Database) -> None:
    """Labels resolve from votes (`_CURRENT`): the latest-event view and its index are unused."""
    db.execute("DROP VIEW current_state")
    db.execute("DROP INDEX judgments_current")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3, _v4, _v5, _v6]
"""Schema migrations; the store's `PRAGMA user_version` counts how many have run."""


class Store:
    """A golden set in SQLite."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._depth = 0
        self.db = sqlite_utils.Database(conn)
        self._migrate()

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Store:
        p = Path(path)
        if not create and not p.exists():
            raise StoreError(f"no store at {p}", "create one with `qrelkit init`, or pass --db PATH")
        try:
            conn = sqlite3.connect(p, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            return cls(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{p} is not a qrelkit store ({exc})", "pass --db with a store made by `qrelkit init`"
            ) from None

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

    def reader(self) -> Store:
        """Another connection to the same file, for reads in a worker thread (WAL lets it read
        while this one writes); an in-memory store is its own reader."""
        path = self.conn.execute("PRAGMA database_list").fetchone()[2]
        return Store.open(path, create=False) if path else self

    @classmethod
    def memory(cls) -> Store:
        return cls(sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False))

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreError(
                f"the store has schema version {version}, newer than this qrelkit knows",
                "upgrade qrelkit",
            )
        for number in range(version, len(MIGRATIONS)):
            with self.transaction():
                MIGRATIONS[number](self.db)
                self.conn.execute(f"PRAGMA user_version={number + 1}")

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
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0
        self.conn.execute("COMMIT")

    def load_version(self, folder: str | Path, *, check: bool = True) -> Manifest:
        """Load a frozen version (settings, queries, documents, the event log, the unlabeled pool)
        in one transaction; with `check`, an altered version is refused. The labels the log
        resolves to must equal the version's qrels.txt."""
        snap = versioning.read(Path(folder), check=check)
        manifest = versioning.read_manifest(Path(folder))
        source = str(Path(folder) / "judgments.jsonl")
        with self.transaction():
            self._set_meta("name", snap.info.name)
            self._set_meta("scale", snap.info.scale.model_dump_json())
            self._set_meta("label_policy", snap.info.label_policy)
            for stratum in snap.info.strata:
                self.conn.execute(
                    "INSERT OR REPLACE INTO strata(name, weight) VALUES (?, ?)",
                    [stratum.name, stratum.weight],
                )
            for profile in snap.info.profiles:
                self._put_profile(profile)
            self.import_queries(enumerate(snap.queries, 1), source=str(Path(folder) / "queries.jsonl"))
            self.import_documents(snap.documents)
            self.import_judgments(enumerate(snap.events, 1), source=source)
            self.add_to_pool(snap.unlabeled)
            if {(x.query_id, x.doc_id, x.grade) for x in self.labels()} != {
                (x.query_id, x.doc_id, x.grade) for x in snap.labels
            }:
                raise VersionError(
                    f"{folder}: the judgment log does not resolve to qrels.txt",
                    "the version is inconsistent; freeze it again from its store",
                )
        return manifest

    def snapshot(self) -> versioning.Snapshot:
        """Everything in the store, for freezing."""
        return versioning.Snapshot(
            info=self.info(),
            queries=self.queries(),
            documents=list(self.documents()),
            labels=self.labels(),
            events=self.events(),
            unlabeled=self.unlabeled_pool(),
            skipped=self.skipped(),
        )

    def _rows(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        cur = self.conn.execute(sql, tuple(params))
        cur.row_factory = sqlite3.Row
        return cur.fetchall()

    def _scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        row = self.conn.execute(sql, tuple(params)).fetchone()
        return None if row is None else row[0]

    # -- golden-set settings ---------------------------------------------------------------

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
    def label_policy(self) -> str:
        """How disagreeing assessors resolve without adjudication: `median` or `latest`."""
        return self._meta("label_policy") or resolution.DEFAULT_POLICY

    def configure(
        self, *, name: str | None = None, scale: GradeScale | None = None, label_policy: str | None = None
    ) -> None:
        with self.transaction():
            if label_policy is not None:
                if label_policy not in resolution.POLICIES:
                    raise StoreError(
                        f"unknown label policy {label_policy!r}", f"use one of {', '.join(resolution.POLICIES)}"
                    )
                self._set_meta("label_policy", label_policy)
            if name is not None:
                self._set_meta("name", name)
            if scale is not None:
                top = self._scalar("SELECT max(grade) FROM judgments WHERE state = 'graded'")
                if top is not None and top > scale.max_grade:
                    raise StoreError(
                        f"the store already holds grade {top}, above the new scale's {scale.max_grade}",
                        "choose a scale that covers the existing grades",
                    )
                self._set_meta("scale", scale.model_dump_json())

    def strata(self) -> list[Stratum]:
        return [Stratum(name=r["name"], weight=r["weight"]) for r in self._rows("SELECT * FROM strata ORDER BY name")]

    def check_stratum(self, name: str | None) -> None:
        """Refuse a stratum name that neither has a weight nor holds a query (None passes)."""
        if name is None:
            return
        known = {r[0] for r in self.conn.execute("SELECT name FROM strata UNION SELECT stratum FROM queries")}
        if name not in known:
            raise StoreError(f"unknown stratum {name!r}", "see `qrelkit strata list`")

    def set_stratum(self, stratum: Stratum) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO strata(name, weight) VALUES (?, ?)", [stratum.name, stratum.weight]
            )

    def profiles(self) -> list[ScoringProfile]:
        return [
            ScoringProfile(
                name=r["name"],
                metrics=json.loads(r["metrics"]),
                strata=json.loads(r["strata"]) if r["strata"] else None,
            )
            for r in self._rows("SELECT * FROM profiles ORDER BY name")
        ]

    def set_profile(self, profile: ScoringProfile) -> None:
        with self.transaction():
            self._put_profile(profile)

    def _put_profile(self, profile: ScoringProfile) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO profiles(name, metrics, strata) VALUES (?, ?, ?)",
            [
                profile.name,
                json.dumps(profile.metrics),
                json.dumps(profile.strata) if profile.strata is not None else None,
            ],
        )

    def info(self) -> GoldenSetInfo:
        return GoldenSetInfo(
            name=self.name,
            scale=self.scale,
            strata=self.strata(),
            profiles=self.profiles(),
            label_policy=self.label_policy,  # type: ignore[arg-type]  # checked by configure
        )

    # -- imports (each one transaction) ----------------------------------------------------

    def import_queries(self, items: Iterable[tuple[int, Query]], *, source: str, create_strata: bool = False) -> int:
        """Insert or update queries. A stratum that has no weight yet is an error naming the line,
        unless `create_strata` (then it gets weight 1.0); the stratum `default` is always allowed."""
        n = 0
        with self.transaction():
            known = {r[0] for r in self.conn.execute("SELECT name FROM strata")}
            for lineno, q in items:
                if q.stratum not in known:
                    if not (create_strata or q.stratum == DEFAULT_STRATUM):
                        raise InputError(
                            f"unknown stratum {q.stratum!r}",
                            f"define it first: qrelkit strata set {q.stratum} WEIGHT (or pass --create-strata)",
                            path=source,
                            line=lineno,
                        )
                    self.conn.execute("INSERT INTO strata(name, weight) VALUES (?, 1.0)", [q.stratum])
                    known.add(q.stratum)
                self.conn.execute(
                    "INSERT OR REPLACE INTO queries(id, text, stratum, description) VALUES (?, ?, ?, ?)",
                    [q.id, q.text, q.stratum, q.description],
                )
                n += 1
        return n

    def import_documents(self, docs: Iterable[Document]) -> int:
        n = 0
        with self.transaction():
            for batch in _batched(docs, 5000):
                self.conn.executemany(
                    "INSERT OR REPLACE INTO documents(id, title, text) VALUES (?, ?, ?)",
                    [(d.id, d.title, d.text) for d in batch],
                )
                n += len(batch)
        return n

    def import_qrels(self, records: Iterable[QrelRecord], *, source: str, assessor: str) -> tuple[int, int]:
        """Append one graded event per qrels line; negative grades go to the pool (TREC's
        "pooled but not judged"). Returns (labels, pooled). Unknown queries, grades above the
        scale and repeated (query, doc) pairs are errors naming the line; nothing is written then.

        Streams: rows go in batches, and repeats are found through a temporary on-disk table, so
        memory stays flat however long the file (readers may pass `check_repeats=False`)."""
        top = self.scale.max_grade
        labels = pooled = 0
        ts = _now()
        with self.transaction():
            queries = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS import_seen "
                "(query_id TEXT, doc_id TEXT, line INTEGER, PRIMARY KEY (query_id, doc_id)) WITHOUT ROWID"
            )
            self.conn.execute("DELETE FROM temp.import_seen")
            try:
                for batch in _batched(records, 10_000):
                    for rec in batch:
                        if rec.query_id not in queries:
                            raise InputError(
                                f"query {rec.query_id!r} is not in the golden set",
                                "import its queries first (qrelkit import queries FILE)",
                                path=source,
                                line=rec.line,
                            )
                        if rec.grade > top:
                            raise InputError(
                                f"grade {rec.grade} is above the scale's highest grade {top}",
                                f"re-create the store with `qrelkit init --max-grade {rec.grade}`",
                                path=source,
                                line=rec.line,
                            )
                    self._refuse_repeats(batch, source)
                    unjudged = [(r.query_id, r.doc_id, source) for r in batch if r.grade < 0]
                    graded = [(r.query_id, r.doc_id, r.grade, assessor, ts, source) for r in batch if r.grade >= 0]
                    self.conn.executemany(
                        "INSERT OR IGNORE INTO pool(query_id, doc_id, source) VALUES (?, ?, ?)", unjudged
                    )
                    self.conn.executemany(
                        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, source) "
                        "VALUES (?, ?, 'graded', ?, ?, ?, ?)",
                        graded,
                    )
                    pooled += len(unjudged)
                    labels += len(graded)
            finally:
                self.conn.execute("DELETE FROM temp.import_seen")
        return labels, pooled

    def _refuse_repeats(self, batch: list[QrelRecord], source: str) -> None:
        rows = [(r.query_id, r.doc_id, r.line) for r in batch]
        try:
            self.conn.executemany("INSERT INTO temp.import_seen VALUES (?, ?, ?)", rows)
        except sqlite3.IntegrityError:
            # the first row whose pair is already there from an earlier line is the repeat
            for q, d, line in rows:
                found = self.conn.execute(
                    "SELECT line FROM temp.import_seen WHERE query_id = ? AND doc_id = ?", [q, d]
                ).fetchone()
                if found is not None and found[0] != line:
                    raise InputError(
                        f"duplicate judgment for query {q!r} doc {d!r} (first on line {found[0]})",
                        "keep one line per (query, doc) pair",
                        path=source,
                        line=line,
                    ) from None
            raise

    def import_judgments(self, items: Iterable[tuple[int, Judgment]], *, source: str) -> int:
        """Append events from a judgments JSONL export, keeping their assessors and times."""
        n = 0
        top = self.scale.max_grade
        with self.transaction():
            queries = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
            for lineno, j in items:
                if j.query_id not in queries:
                    raise InputError(
                        f"query {j.query_id!r} is not in the golden set",
                        "import its queries first",
                        path=source,
                        line=lineno,
                    )
                if j.grade is not None and j.grade > top:
                    raise InputError(
                        f"grade {j.grade} is above the scale's highest grade {top}", path=source, line=lineno
                    )
                self._insert_event(j, source)
                n += 1
        return n

    def add_to_pool(self, entries: Iterable[PoolEntry]) -> int:
        n = 0
        with self.transaction():
            for e in entries:
                cur = self.conn.execute(
                    "INSERT OR IGNORE INTO pool(query_id, doc_id, source, best_rank) VALUES (?, ?, ?, ?)",
                    [e.query_id, e.doc_id, e.source, e.best_rank],
                )
                n += cur.rowcount
        return n

    def pool_runs(
        self, runs: Sequence[RunLists], *, depth: int, paths: Sequence[str], stratum: str | None = None
    ) -> PoolResult:
        """Record each run's top `depth` documents for every golden-set query and pool the
        unlabeled ones (of `stratum`'s queries only, if given); one transaction. Pooling again is
        idempotent: a pair's best rank and runs are merged, nothing is added twice."""
        strata = dict(self.conn.execute("SELECT id, stratum FROM queries").fetchall())
        known = {
            (q, d): state
            for q, d, state in self.conn.execute(f"SELECT query_id, doc_id, state FROM {self._current(grades=False)}")
            if state in ("graded", "skipped")
        }
        pooled = {
            (q, d): (src, rank)
            for q, d, src, rank in self.conn.execute("SELECT query_id, doc_id, source, best_rank FROM pool")
        }
        added = merged = labeled = 0
        missing: set[str] = set()
        now = _now()
        with self.transaction():
            for run, path in zip(runs, paths, strict=True):
                self.conn.execute("DELETE FROM run_rows WHERE run = ?", [run.name])
                self.conn.execute(
                    "INSERT OR REPLACE INTO runs(name, path, depth, pooled_at) VALUES (?, ?, ?, ?)",
                    [run.name, path, depth, now],
                )
                rows = [
                    (run.name, q, i + 1, d)
                    for q, docs in run.ranked.items()
                    if q in strata
                    for i, d in enumerate(docs[:depth])
                ]
                self.conn.executemany("INSERT INTO run_rows(run, query_id, rank, doc_id) VALUES (?, ?, ?, ?)", rows)
                for _, q, rank, d in rows:
                    if stratum is not None and strata[q] != stratum:
                        continue
                    if (q, d) in known:
                        labeled += 1
                        continue
                    if (q, d) in pooled:
                        src, best = pooled[(q, d)]
                        names = sorted({n for n in (src or "").split(",") if n} | {run.name})
                        new = (",".join(names), min(best, rank) if best is not None else rank)
                        if new != (src, best):
                            merged += 1
                            pooled[(q, d)] = new
                            self.conn.execute(
                                "UPDATE pool SET source = ?, best_rank = ? WHERE query_id = ? AND doc_id = ?",
                                [*new, q, d],
                            )
                        continue
                    pooled[(q, d)] = (run.name, rank)
                    self.conn.execute(
                        "INSERT INTO pool(query_id, doc_id, source, best_rank) VALUES (?, ?, ?, ?)",
                        [q, d, run.name, rank],
                    )
                    added += 1
            docs = {d for run in runs for q, ds in run.ranked.items() if q in strata for d in ds[:depth]}
            stored = {r[0] for r in self.conn.execute("SELECT id FROM documents")}
            missing = docs - stored
        return PoolResult(
            added=added,
            updated=merged,
            labeled=labeled,
            missing_documents=sorted(missing),
            queries_not_in_runs=sorted(q for q in strata if all(q not in run.ranked for run in runs)),
            run_only_queries=sorted({q for run in runs for q in run.ranked if q not in strata}),
        )

    def stored_runs(self) -> list[RunLists]:
        """The pooled runs' top documents per query, in rank order."""
        from .scoring.impact import RunLists

        lists: dict[str, dict[str, list[str]]] = {
            name: {} for (name,) in self.conn.execute("SELECT name FROM runs ORDER BY name")
        }
        for run, q, d in self.conn.execute("SELECT run, query_id, doc_id FROM run_rows ORDER BY run, query_id, rank"):
            lists[run].setdefault(q, []).append(d)
        return [RunLists(name, ranked) for name, ranked in lists.items()]

    def ordered_queue(
        self,
        order: str = "impact",
        *,
        seed: int = 0,
        stratum: str | None = None,
        metrics: str | Sequence[str] | None = None,
    ) -> list[QueueItem]:
        """The unlabeled pooled pairs (of one stratum, if given) in judging order (see
        `scoring.impact`; `metrics` default: `IMPACT_METRICS`); without pooled runs the impact of
        every pair is 0, so the impact order falls back to the depth order."""
        from .scoring.impact import IMPACT_METRICS, impact_scores, order_queue

        current = {
            (q, d): (state, grade)
            for q, d, state, grade in self.conn.execute(f"SELECT query_id, doc_id, state, grade FROM {self._current()}")
        }
        entries = [
            PoolEntry.model_construct(query_id=q, doc_id=d, source=src or "", best_rank=rank)
            for q, d, src, rank in self.conn.execute(
                "SELECT query_id, doc_id, source, best_rank FROM pool "
                "ORDER BY query_id, coalesce(best_rank, 1e9), rowid"
            )
            if current.get((q, d), ("cleared", None))[0] == "cleared"
        ]
        strata = dict(self.conn.execute("SELECT id, stratum FROM queries").fetchall())
        if stratum is not None:
            entries = [e for e in entries if strata.get(e.query_id) == stratum]
        impacts = None
        if order == "impact":
            labels: dict[str, dict[str, int]] = {}
            for (q, d), (state, g) in current.items():
                if state == "graded":
                    labels.setdefault(q, {})[d] = g
            impacts = impact_scores(
                [(e.query_id, e.doc_id) for e in entries],
                self.stored_runs(),
                labels,
                max_grade=self.scale.max_grade,
                strata=strata,
                weights={s.name: s.weight for s in self.strata()},
                metrics=metrics or IMPACT_METRICS,
                relevance_threshold=self.scale.relevance_threshold,
            )
        return order_queue(entries, order, impacts=impacts, seed=seed)

    # -- saved reports ----------------------------------------------------------------------

    def save_report(self, kind: str, name: str, body: str) -> int:
        """Keep a score report (`score`) or a comparison (`comparison`) as JSON; returns its id."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO reports(kind, name, created, body) VALUES (?, ?, ?, ?)", [kind, name, _now(), body]
            )
            return int(cur.lastrowid or 0)

    def latest_reports(self, kind: str, limit: int = 1) -> list[tuple[str, str, str]]:
        """The newest saved reports of a kind, newest first: (name, created, JSON body)."""
        sql = "SELECT name, created, body FROM reports WHERE kind = ? ORDER BY id DESC LIMIT ?"
        return [(r[0], r[1], r[2]) for r in self.conn.execute(sql, [kind, limit])]

    # -- the judgment log ------------------------------------------------------------------

    def _insert_event(self, j: Judgment, source: str | None) -> int:
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

    def record(self, judgment: Judgment) -> int:
        """Append one event and commit it (durable on return). Returns its sequence number."""
        if judgment.grade is not None and judgment.grade > self.scale.max_grade:
            raise InputError(f"grade {judgment.grade} is above the scale's highest grade")
        with self.transaction():
            return self._insert_event(judgment, None)

    def events(self, query_id: str | None = None) -> list[Judgment]:
        """The log in order (all of it, or one query's)."""
        sql = "SELECT * FROM judgments" + (" WHERE query_id = ?" if query_id else "") + " ORDER BY seq"
        return [_event(r) for r in self._rows(sql, [query_id] if query_id else [])]

    def labels(self, query_id: str | None = None) -> list[Label]:
        """Current graded labels, sorted (grade 0 included; skipped and cleared pairs are not labels)."""
        return [Label.model_construct(query_id=q, doc_id=d, grade=g) for q, d, g in self.label_rows(query_id)]

    def assessors(self) -> list[str]:
        """Everyone who judged in this store (events recorded here, not imported from a file)."""
        return [
            r[0] for r in self.conn.execute("SELECT DISTINCT assessor FROM judgments WHERE source IS NULL ORDER BY 1")
        ]

    def assign(self, rows: Iterable[tuple[str, str, str]]) -> int:
        """Assign (query, doc) pairs to assessors; returns how many assignments were new."""
        now = _now()
        with self.transaction():
            before = self.conn.total_changes
            self.conn.executemany(
                "INSERT OR IGNORE INTO assignments(query_id, doc_id, assessor, created) VALUES (?, ?, ?, ?)",
                [(q, d, a, now) for q, d, a in rows],
            )
            return self.conn.total_changes - before

    def pending_assignments(self, assessor: str) -> list[tuple[str, str]]:
        """Pairs assigned to `assessor` that they have not judged yet (no event of theirs)."""
        sql = (
            "SELECT a.query_id, a.doc_id FROM assignments a WHERE a.assessor = ? AND NOT EXISTS "
            "(SELECT 1 FROM judgments j WHERE j.query_id = a.query_id AND j.doc_id = a.doc_id AND j.assessor = ?) "
            "ORDER BY a.query_id, a.doc_id"
        )
        return [(q, d) for q, d in self.conn.execute(sql, [assessor, assessor])]

    def disagreements(self) -> list[Disagreement]:
        """Pairs whose assessors disagree and that no one adjudicated, most urgent first: grade
        distance times queue impact (the impact the pair would have were it unlabeled)."""
        from .scoring.impact import IMPACT_METRICS, impact_scores

        found = []
        for (q, d), (votes, adjudicated) in self.votes().items():
            graded = {v.assessor: v.grade for v in votes if v.state == "graded" and v.grade is not None}
            if adjudicated is None and len(set(graded.values())) > 1:
                notes = {v.assessor: v.note for v in votes if v.note}
                found.append((q, d, graded, notes))
        if not found:
            return []
        disputed = {(q, d) for q, d, _, _ in found}
        labels: dict[str, dict[str, int]] = {}
        for q, d, g in self.label_rows():
            if (q, d) not in disputed:
                labels.setdefault(q, {})[d] = g
        impacts = impact_scores(
            [(q, d) for q, d, _, _ in found],
            self.stored_runs(),
            labels,
            max_grade=self.scale.max_grade,
            strata=dict(self.conn.execute("SELECT id, stratum FROM queries").fetchall()),
            weights={s.name: s.weight for s in self.strata()},
            metrics=IMPACT_METRICS,
            relevance_threshold=self.scale.relevance_threshold,
        )
        items = [
            Disagreement(
                query_id=q,
                doc_id=d,
                votes=graded,
                notes=notes,
                distance=max(graded.values()) - min(graded.values()),
                priority=(max(graded.values()) - min(graded.values())) * impact,
            )
            for (q, d, graded, notes), impact in zip(found, impacts, strict=True)
        ]
        return sorted(items, key=lambda x: (-x.priority, -x.distance, x.query_id, x.doc_id))

    def agreement_units(self) -> tuple[dict[tuple[str, str], dict[str, int]], dict[tuple[str, str], int]]:
        """(pair -> {assessor: grade} of the graded votes, pair -> skip votes) over the whole log."""
        units: dict[tuple[str, str], dict[str, int]] = {}
        skipped: dict[tuple[str, str], int] = {}
        for pair, (votes, _) in self.votes().items():
            graded = {v.assessor: v.grade for v in votes if v.state == "graded" and v.grade is not None}
            if graded:
                units[pair] = graded
            skips = sum(v.state == "skipped" for v in votes)
            if skips:
                skipped[pair] = skips
        return units, skipped

    def _current(self, one_query: bool = False, *, grades: bool = True) -> str:
        return _current(one_query, policy=self.label_policy, max_grade=self.scale.max_grade, grades=grades)

    def label_rows(self, query_id: str | None = None) -> list[tuple[str, str, int]]:
        """`labels()` as (query, doc, grade) tuples: for bulk reads (a large set has ~10^6 labels,
        and building a model costs more than reading its row)."""
        one = query_id is not None
        sql = (
            f"SELECT query_id, doc_id, grade FROM {self._current(one)} WHERE state = 'graded' ORDER BY query_id, doc_id"
        )
        return self.conn.execute(sql, [query_id] * QUERY_PARAMS if one else []).fetchall()

    def votes(self) -> dict[tuple[str, str], tuple[list[resolution.Vote], int | None]]:
        """Each assessor's latest vote and the latest adjudicated grade, for every pair (reads
        the whole log: for agreement and adjudication, not for the hot paths)."""
        sql = "SELECT seq, query_id, doc_id, state, grade, assessor, note FROM judgments ORDER BY seq"
        rows = self.conn.execute(sql).fetchall()
        events = (
            (seq, Judgment.model_construct(query_id=q, doc_id=d, state=JudgmentState(st), grade=g, assessor=a, note=n))
            for seq, q, d, st, g, a, n in rows
        )
        return resolution.votes_of(events)

    def skipped(self, query_id: str | None = None) -> list[tuple[str, str]]:
        one = query_id is not None
        sql = f"SELECT query_id, doc_id FROM {self._current(one, grades=False)} WHERE state = 'skipped'"
        return [tuple(r) for r in self.conn.execute(sql, [query_id] * QUERY_PARAMS if one else [])]

    def unlabeled_pool(self, query_id: str | None = None) -> list[PoolEntry]:
        """Pooled pairs with no current label and not skipped, in pool order."""
        one = query_id is not None
        sql = (
            "SELECT p.query_id, p.doc_id, p.source, p.best_rank FROM pool p "
            f"LEFT JOIN {self._current(one, grades=False)} c "
            "ON c.query_id = p.query_id AND c.doc_id = p.doc_id "
            "WHERE (c.state IS NULL OR c.state = 'cleared')"
            + (" AND p.query_id = ?" if one else "")
            + " ORDER BY p.query_id, coalesce(p.best_rank, 1e9), p.rowid"
        )
        return [
            PoolEntry.model_construct(query_id=r[0], doc_id=r[1], source=r[2] or "", best_rank=r[3])
            for r in self.conn.execute(sql, [query_id] * (QUERY_PARAMS + 1) if one else [])
        ]

    # -- the judging queue -----------------------------------------------------------------

    def queue(self, query_id: str, *, assessor: str | None = None, blind: bool = False) -> list[DocState]:
        """A query's documents in judging order: the pool (best rank first, then insertion),
        then judged documents that were never pooled; each with its resolved state, and who
        judged it last. With `blind`, a pair assigned to `assessor` and to someone else shows as
        unlabeled until `assessor` has voted on it (the others' grades stay hidden)."""
        pooled = [
            r[0]
            for r in self.conn.execute(
                "SELECT doc_id FROM pool WHERE query_id = ? ORDER BY coalesce(best_rank, 1e9), rowid", [query_id]
            )
        ]
        rows = self.conn.execute(
            "SELECT seq, doc_id, state, grade, assessor, ts, note FROM judgments WHERE query_id = ? ORDER BY seq",
            [query_id],
        ).fetchall()
        events = [
            (
                seq,
                Judgment.model_construct(
                    query_id=query_id, doc_id=d, state=JudgmentState(st), grade=g, assessor=a, note=n
                ),
            )
            for seq, d, st, g, a, _, n in rows
        ]
        votes = resolution.votes_of(events)
        times = {seq: ts for seq, _, _, _, _, ts, _ in rows}
        # overlap pairs: assigned to several assessors (for `blind`: among them `assessor`)
        overlap = {
            d: set(who.split("\x1f"))
            for d, who in self.conn.execute(
                "SELECT doc_id, group_concat(assessor, char(31)) FROM assignments WHERE query_id = ? "
                "GROUP BY doc_id HAVING count(*) > 1",
                [query_id],
            )
        }
        hidden = {d for d, who in overlap.items() if assessor in who} if blind and assessor is not None else set()
        order = pooled + [d for d in dict.fromkeys(e.doc_id for _, e in events) if d not in set(pooled)]
        policy = self.label_policy
        out = []
        for d in dict.fromkeys(order):
            v, adjudicated = votes.get((query_id, d), ([], None))
            if d in hidden and adjudicated is None and not any(x.assessor == assessor for x in v):
                out.append(DocState(doc_id=d, state=LabelState.UNLABELED, blind=True, shared=True))
                continue
            state, grade = resolution.resolve(v, adjudicated, policy)
            if state is LabelState.UNLABELED:
                out.append(DocState(doc_id=d, state=state, shared=d in overlap))
                continue
            last = max(v, key=lambda x: x.seq) if v else None
            graders = {x.assessor: x.grade for x in v if x.state == "graded" and x.grade is not None}
            out.append(
                DocState(
                    doc_id=d,
                    state=state,
                    grade=grade,
                    assessor=last.assessor if last else None,
                    timestamp=times.get(last.seq) if last else None,
                    note=last.note if last else None,
                    votes=graders if len(graders) > 1 else {},
                    adjudicated=adjudicated is not None,
                    shared=d in overlap,
                )
            )
        return out

    def progress(self) -> list[QueryProgress]:
        """Every query with its labeled, skipped and unlabeled-pool counts, by query id."""
        sql = f"""
            WITH cur AS MATERIALIZED (SELECT query_id, doc_id, state FROM {self._current(grades=False)}),
            per AS (SELECT query_id, sum(state = 'graded') AS labeled, sum(state = 'skipped') AS skipped
                    FROM cur GROUP BY query_id),
            open AS (SELECT p.query_id, count(*) AS unlabeled FROM pool p
                     LEFT JOIN cur c ON c.query_id = p.query_id AND c.doc_id = p.doc_id
                     WHERE c.state IS NULL OR c.state = 'cleared' GROUP BY p.query_id)
            SELECT q.id, q.stratum, q.text, coalesce(per.labeled, 0), coalesce(per.skipped, 0),
                   coalesce(open.unlabeled, 0)
            FROM queries q LEFT JOIN per ON per.query_id = q.id LEFT JOIN open ON open.query_id = q.id
            ORDER BY q.id
        """
        # the current state is computed once (one scan of the covering index); rows are trusted
        # store output, so they are built without validation
        return [
            QueryProgress.model_construct(
                query_id=r[0], stratum=r[1], text=r[2], labeled=r[3], skipped=r[4], unlabeled=r[5]
            )
            for r in self.conn.execute(sql)
        ]

    def query(self, query_id: str) -> Query | None:
        rows = self._rows("SELECT * FROM queries WHERE id = ?", [query_id])
        if not rows:
            return None
        r = rows[0]
        return Query(id=r["id"], text=r["text"], stratum=r["stratum"], description=r["description"])

    # -- reading ---------------------------------------------------------------------------

    def queries(self) -> list[Query]:
        return [
            Query(id=r["id"], text=r["text"], stratum=r["stratum"], description=r["description"])
            for r in self._rows("SELECT * FROM queries ORDER BY id")
        ]

    def documents(self) -> Iterator[Document]:
        for r in self._rows("SELECT * FROM documents ORDER BY id"):
            yield Document(id=r["id"], title=r["title"] or "", text=r["text"] or "")

    def document(self, doc_id: str) -> Document | None:
        rows = self._rows("SELECT * FROM documents WHERE id = ?", [doc_id])
        return Document(id=rows[0]["id"], title=rows[0]["title"] or "", text=rows[0]["text"] or "") if rows else None

    def counts(self) -> dict[str, int]:
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
            )
        }

    def status(self) -> StoreStatus:
        weights = {s.name: s.weight for s in self.strata()}
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
            name=self.name,
            queries=sum(s.queries for s in strata),
            documents=int(self._scalar("SELECT count(*) FROM documents")),
            judgment_events=int(self._scalar("SELECT count(*) FROM judgments")),
            labels=dict(sorted(labels.items(), key=lambda kv: int(kv[0]))),
            skipped=sum(s.skipped for s in strata),
            unlabeled_pool=sum(s.unlabeled_pool for s in strata),
            strata=strata,
        )


def _batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _now() -> str:
    from .models import utcnow

    return utcnow().isoformat()


def _event(r: sqlite3.Row) -> Judgment:
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
