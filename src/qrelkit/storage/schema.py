"""The store's schema: named migrations, run in order, each in its own transaction.

`PRAGMA user_version` counts how many have run. Each migration is the SQL it runs, written out: the
tables, columns, types, keys and index names are those the store has had since its first version
(stores made by earlier versions hold the same schema, `tests/test_storage.py` compares them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager

from ..errors import StoreError


def _run(conn: sqlite3.Connection, *statements: str) -> None:
    for statement in statements:
        conn.execute(statement)


def create_tables(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        'CREATE TABLE "meta" ("key" TEXT PRIMARY KEY, "value" TEXT)',
        'CREATE TABLE "strata" ("name" TEXT PRIMARY KEY, "weight" REAL)',
        'CREATE TABLE "queries" ("id" TEXT PRIMARY KEY, "text" TEXT NOT NULL, "stratum" TEXT NOT NULL, '
        '"description" TEXT)',
        'CREATE INDEX "idx_queries_stratum" ON "queries" ("stratum")',
        'CREATE TABLE "documents" ("id" TEXT PRIMARY KEY, "title" TEXT, "text" TEXT)',
        """CREATE TABLE "judgments" (
            "seq" INTEGER PRIMARY KEY,
            "query_id" TEXT NOT NULL,
            "doc_id" TEXT NOT NULL,
            "state" TEXT NOT NULL,
            "grade" INTEGER,
            "assessor" TEXT NOT NULL,
            "ts" TEXT NOT NULL,
            "note" TEXT,
            "seconds" REAL,
            "source" TEXT
        )""",
        'CREATE INDEX "idx_judgments_query_id_doc_id_seq" ON "judgments" ("query_id", "doc_id", "seq")',
        'CREATE TABLE "pool" ("query_id" TEXT, "doc_id" TEXT, "source" TEXT, "best_rank" INTEGER, '
        '"position" INTEGER, PRIMARY KEY ("query_id", "doc_id"))',
        'CREATE TABLE "profiles" ("name" TEXT PRIMARY KEY, "metrics" TEXT, "strata" TEXT)',
        """CREATE VIEW current_state AS
        SELECT j.query_id, j.doc_id, j.state, j.grade, j.assessor, j.ts, j.note, j.seq
        FROM judgments j
        JOIN (SELECT query_id, doc_id, max(seq) AS seq FROM judgments GROUP BY query_id, doc_id) last
          ON j.seq = last.seq""",
    )


def current_index(conn: sqlite3.Connection) -> None:
    """The current state as one grouped scan of a covering index (SQLite takes the bare columns
    from the row holding max(seq)), instead of a self-join: filters by query push down into it."""
    _run(
        conn,
        "DROP VIEW current_state",
        "CREATE INDEX judgments_current ON judgments(query_id, doc_id, seq, state, grade)",
        """CREATE VIEW current_state AS
        SELECT query_id, doc_id, state, grade, assessor, ts, note, max(seq) AS seq
        FROM judgments GROUP BY query_id, doc_id""",
    )


def pooled_runs(conn: sqlite3.Connection) -> None:
    """Pooled runs: each run's top documents per query (which runs surfaced a pooled pair, at
    which ranks; the judging queue's impact is computed from them)."""
    _run(
        conn,
        'CREATE TABLE "runs" ("name" TEXT PRIMARY KEY, "path" TEXT, "depth" INTEGER, "pooled_at" TEXT)',
        'CREATE TABLE "run_rows" ("run" TEXT REFERENCES "runs"("name"), "query_id" TEXT, "rank" INTEGER, '
        '"doc_id" TEXT, PRIMARY KEY ("run", "query_id", "rank"))',
        'CREATE INDEX "idx_run_rows_query_id_doc_id" ON "run_rows" ("query_id", "doc_id")',
    )


def reports(conn: sqlite3.Connection) -> None:
    """Saved score reports and comparisons (JSON), newest last: the TUI dashboard shows them."""
    _run(
        conn,
        'CREATE TABLE "reports" ("id" INTEGER PRIMARY KEY, "kind" TEXT NOT NULL, "name" TEXT, "created" TEXT, '
        '"body" TEXT NOT NULL)',
        'CREATE INDEX "idx_reports_kind_id" ON "reports" ("kind", "id")',
    )


def several_assessors(conn: sqlite3.Connection) -> None:
    """Several assessors: each assessor's latest event is a vote (covering index), adjudications
    (partial index), and assignments of pairs to assessors (`qrelkit assign`)."""
    _run(
        conn,
        "CREATE INDEX judgments_votes ON judgments(query_id, doc_id, assessor, seq, state, grade)",
        "CREATE INDEX judgments_adjudicated ON judgments(query_id, doc_id, seq, grade) WHERE state = 'adjudicated'",
        "CREATE INDEX judgments_cleared ON judgments(query_id, doc_id, seq) WHERE state = 'cleared'",
        'CREATE TABLE "assignments" ("query_id" TEXT, "doc_id" TEXT, "assessor" TEXT, "created" TEXT, '
        'PRIMARY KEY ("query_id", "doc_id", "assessor"))',
        'CREATE INDEX "idx_assignments_assessor" ON "assignments" ("assessor")',
    )
    # a store judged before votes existed meant "the latest event wins": keep that meaning
    if conn.execute("SELECT 1 FROM judgments LIMIT 1").fetchone() is not None:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('label_policy', 'latest')")


def drop_latest_event_view(conn: sqlite3.Connection) -> None:
    """Labels resolve from votes (`resolved.CURRENT`): the latest-event view and its index are unused."""
    _run(conn, "DROP VIEW current_state", "DROP INDEX judgments_current")


def leases(conn: sqlite3.Connection) -> None:
    """Which document each assessor has open on a judging screen now, until when (a lease: the
    next-unlabeled order of the others skips it while it lasts)."""
    _run(
        conn,
        'CREATE TABLE "leases" ("query_id" TEXT, "doc_id" TEXT, "assessor" TEXT, "expires" TEXT, '
        'PRIMARY KEY ("query_id", "doc_id", "assessor"))',
        'CREATE INDEX "idx_leases_assessor" ON "leases" ("assessor")',
    )


def removals(conn: sqlite3.Connection) -> None:
    """What `strata|queries|docs|profiles remove` took out of the store: what, when, by whom, and
    the removed rows as JSON (the judgment log keeps every event; this records the rest)."""
    _run(
        conn,
        'CREATE TABLE "removals" ("id" INTEGER PRIMARY KEY, "ts" TEXT NOT NULL, "kind" TEXT NOT NULL, '
        '"name" TEXT NOT NULL, "assessor" TEXT, "body" TEXT NOT NULL)',
    )


def document_metadata(conn: sqlite3.Connection) -> None:
    """A document's other fields (`url`, a BEIR `metadata` object, ...) as a JSON object; NULL: none."""
    _run(conn, 'ALTER TABLE "documents" ADD COLUMN "metadata" TEXT')


def query_counts(conn: sqlite3.Connection) -> None:
    """Each query's judging counts, current at `meta.query_counts_seq` (see `storage.counts`)."""
    _run(
        conn,
        "CREATE TABLE query_counts (query_id TEXT PRIMARY KEY, labeled INTEGER NOT NULL, skipped INTEGER NOT NULL, "
        "unlabeled INTEGER NOT NULL, pooled INTEGER NOT NULL) WITHOUT ROWID",
    )


def serve_tokens(conn: sqlite3.Connection) -> None:
    """The access tokens of `qrelkit serve`: an assessor's name, the sha256 of the token (never the
    token), when it was made, last used and revoked."""
    _run(
        conn,
        'CREATE TABLE "tokens" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "digest" TEXT NOT NULL, '
        '"created" TEXT NOT NULL, "last_used" TEXT, "revoked" TEXT)',
        'CREATE UNIQUE INDEX "idx_tokens_digest" ON "tokens" ("digest")',
        'CREATE INDEX "idx_tokens_name" ON "tokens" ("name")',
    )


def token_roles(conn: sqlite3.Connection) -> None:
    """What a token's sessions may do: `assessor` (judge) or `adjudicator` (judge, and settle and
    clear pairs on the adjudication screen). Tokens made before roles judge only."""
    _run(conn, 'ALTER TABLE "tokens" ADD COLUMN "role" TEXT NOT NULL DEFAULT \'assessor\'')


def one_lease_each(conn: sqlite3.Connection) -> None:
    """An assessor has one document open at a time: one lease each, so that taking the next
    document's lease is one statement that also ends the last one (`storage.leases.claim`). The
    leases held when it runs end (they are courtesies that expire within minutes anyway)."""
    _run(
        conn,
        'DELETE FROM "leases"',
        'DROP INDEX "idx_leases_assessor"',
        'CREATE UNIQUE INDEX "idx_leases_one_per_assessor" ON "leases" ("assessor")',
    )


def assessor_day(conn: sqlite3.Connection) -> None:
    """An assessor's day: each pooled run's score beside its rank (the judging screen's context
    line), the flags assessors raise on a query for its owner (`qrelkit flags`), and an assessor's
    events by time (judged today, the latest seconds per document)."""
    _run(
        conn,
        'ALTER TABLE "run_rows" ADD COLUMN "score" REAL',
        'CREATE TABLE "flags" ("id" INTEGER PRIMARY KEY, "query_id" TEXT NOT NULL, "doc_id" TEXT, '
        '"assessor" TEXT NOT NULL, "ts" TEXT NOT NULL, "reason" TEXT NOT NULL)',
        'CREATE INDEX "idx_flags_query_id" ON "flags" ("query_id")',
        'CREATE INDEX "judgments_assessor_ts" ON "judgments" ("assessor", "ts")',
    )


def evidence_passages(conn: sqlite3.Connection) -> None:
    """The passage of the document an assessor marked as the evidence for their vote; NULL: none."""
    _run(conn, 'ALTER TABLE "judgments" ADD COLUMN "evidence" TEXT')


def machine_labels(conn: sqlite3.Connection) -> None:
    """Machine assessors' labels (`qrelkit assess`), apart from the human judgment log: one
    append-only row per label with its provenance; the latest row of an assessor's pair counts.
    A grade only when the reply parsed (`status = 'ok'`); `cache_key` finds a question asked before."""
    _run(
        conn,
        """CREATE TABLE "machine_labels" (
            "seq" INTEGER PRIMARY KEY,
            "assessor" TEXT NOT NULL,
            "query_id" TEXT NOT NULL,
            "doc_id" TEXT NOT NULL,
            "grade" INTEGER,
            "status" TEXT NOT NULL CHECK ("status" IN ('ok', 'unparsed', 'refused', 'error')),
            "ts" TEXT NOT NULL,
            "model" TEXT,
            "endpoint_host" TEXT,
            "parameters" TEXT NOT NULL,
            "template_sha256" TEXT NOT NULL,
            "prompt_sha256" TEXT NOT NULL,
            "reply" TEXT,
            "latency" REAL,
            "tokens_in" INTEGER,
            "tokens_out" INTEGER,
            "cost" REAL,
            "cache_key" TEXT NOT NULL,
            CHECK (("status" = 'ok') = ("grade" IS NOT NULL))
        )""",
        'CREATE INDEX "idx_machine_labels_assessor_pair" ON "machine_labels" ("assessor", "query_id", "doc_id", "seq")',
        'CREATE INDEX "idx_machine_labels_cache_key" ON "machine_labels" ("cache_key")',
    )


def machine_label_errors(conn: sqlite3.Connection) -> None:
    """Why a machine label with status `error` got no reply (the transport's reason); NULL otherwise."""
    _run(conn, 'ALTER TABLE "machine_labels" ADD COLUMN "error" TEXT')


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    create_tables,
    current_index,
    pooled_runs,
    reports,
    several_assessors,
    drop_latest_event_view,
    leases,
    removals,
    document_metadata,
    query_counts,
    serve_tokens,
    token_roles,
    one_lease_each,
    assessor_day,
    evidence_passages,
    machine_labels,
    machine_label_errors,
]
"""Schema migrations in order; a store at `user_version` N has run the first N."""


def migrate(conn: sqlite3.Connection, transaction: Callable[[], AbstractContextManager[None]]) -> None:
    """Bring the store's schema up to date (each step in one transaction); a store newer than this
    qrelkit is refused."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise StoreError(f"the store has schema version {version}, newer than this qrelkit knows", "upgrade qrelkit")
    if version == len(MIGRATIONS):
        return
    for number in range(version, len(MIGRATIONS)):
        with transaction():
            MIGRATIONS[number](conn)
            conn.execute(f"PRAGMA user_version={number + 1}")
