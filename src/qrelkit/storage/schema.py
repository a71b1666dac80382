"""The store's schema: named migrations, run in order, each in its own transaction.

`PRAGMA user_version` counts how many have run. This is the only module that imports sqlite-utils
(its table builder writes the DDL), and only when a migration runs: sqlite-utils loads click and
numpy, which opening an up-to-date store does not need. Every other part of the store speaks SQL
through `sqlite3`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..errors import StoreError

if TYPE_CHECKING:
    import sqlite_utils


def create_tables(db: sqlite_utils.Database) -> None:
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


def current_index(db: sqlite_utils.Database) -> None:
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


def pooled_runs(db: sqlite_utils.Database) -> None:
    """Pooled runs: each run's top documents per query (which runs surfaced a pooled pair, at
    which ranks; the judging queue's impact is computed from them)."""
    db.table("runs").create({"name": str, "path": str, "depth": int, "pooled_at": str}, pk="name")
    db.table("run_rows").create(
        {"run": str, "query_id": str, "rank": int, "doc_id": str},
        pk=("run", "query_id", "rank"),
        foreign_keys=[("run", "runs", "name")],
    )
    db.table("run_rows").create_index(["query_id", "doc_id"])


def reports(db: sqlite_utils.Database) -> None:
    """Saved score reports and comparisons (JSON), newest last: the TUI dashboard shows them."""
    db.table("reports").create(
        {"id": int, "kind": str, "name": str, "created": str, "body": str}, pk="id", not_null={"kind", "body"}
    )
    db.table("reports").create_index(["kind", "id"])


def several_assessors(db: sqlite_utils.Database) -> None:
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


def drop_latest_event_view(db: sqlite_utils.Database) -> None:
    """Labels resolve from votes (`resolved.CURRENT`): the latest-event view and its index are unused."""
    db.execute("DROP VIEW current_state")
    db.execute("DROP INDEX judgments_current")


def leases(db: sqlite_utils.Database) -> None:
    """Which document each assessor has open on a judging screen now, until when (a lease: the
    next-unlabeled order of the others skips it while it lasts)."""
    db.table("leases").create(
        {"query_id": str, "doc_id": str, "assessor": str, "expires": str}, pk=("query_id", "doc_id", "assessor")
    )
    db.table("leases").create_index(["assessor"])


def removals(db: sqlite_utils.Database) -> None:
    """What `strata|queries|docs|profiles remove` took out of the store: what, when, by whom, and
    the removed rows as JSON (the judgment log keeps every event; this records the rest)."""
    db.table("removals").create(
        {"id": int, "ts": str, "kind": str, "name": str, "assessor": str, "body": str},
        pk="id",
        not_null={"ts", "kind", "name", "body"},
    )


def document_metadata(db: sqlite_utils.Database) -> None:
    """A document's other fields (`url`, a BEIR `metadata` object, ...) as a JSON object; NULL: none."""
    db.table("documents").add_column("metadata", str)


def query_counts(db: sqlite_utils.Database) -> None:
    """Each query's judging counts, current at `meta.query_counts_seq` (see `storage.counts`)."""
    db.execute(
        "CREATE TABLE query_counts (query_id TEXT PRIMARY KEY, labeled INTEGER NOT NULL, skipped INTEGER NOT NULL, "
        "unlabeled INTEGER NOT NULL, pooled INTEGER NOT NULL) WITHOUT ROWID"
    )


def serve_tokens(db: sqlite_utils.Database) -> None:
    """The access tokens of `qrelkit serve`: an assessor's name, the sha256 of the token (never the
    token), when it was made, last used and revoked."""
    db.table("tokens").create(
        {"id": int, "name": str, "digest": str, "created": str, "last_used": str, "revoked": str},
        pk="id",
        not_null={"name", "digest", "created"},
    )
    db.table("tokens").create_index(["digest"], unique=True)
    db.table("tokens").create_index(["name"])


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
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
    import sqlite_utils

    db = sqlite_utils.Database(conn)
    for number in range(version, len(MIGRATIONS)):
        with transaction():
            MIGRATIONS[number](db)
            conn.execute(f"PRAGMA user_version={number + 1}")
