"""Imports into the store: queries, documents, qrels, judgment logs, pooled pairs. Each import is
one transaction: a bad line raises `InputError` naming it, and nothing is written."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from ..errors import InputError
from ..formats.trec import QrelRecord, QrelsRows
from ..models import DEFAULT_STRATUM, Document, GradeScale, Judgment, PoolEntry, Query
from .base import EVENT_COLUMNS, INSERT_EVENT, EventRow, Part, event_row, now

INSERT_GRADED = (
    "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, source) VALUES (?, ?, 'graded', ?, ?, ?, ?)"
)
INSERT_POOLED = "INSERT OR IGNORE INTO pool(query_id, doc_id, source) VALUES (?, ?, ?)"
REBUILD_FROM = 200_000
"""A bulk qrels import that has written this many events, and at least as many as the judgment log
held before it, drops the log's full (not partial) indexes and builds them again at the end, in
the same transaction: one sort is cheaper than that many inserts into each index."""
BULK_CACHE_KIB = 32_768
"""SQLite's page cache during a bulk qrels import (the default 2 MiB spills the WAL over and over)."""


LOOKUP_ROWS = 500
"""Events a judgments import looks up in the log by one statement (`IDENTICAL_SQL`: 10 parameters
each, within any SQLite's limit), then writes."""
IDENTICAL_SQL = (
    f"WITH t(k, {EVENT_COLUMNS}) AS (VALUES {{values}}) SELECT t.k, min(j.seq) FROM t JOIN judgments j "
    "ON j.query_id = t.query_id AND j.doc_id = t.doc_id AND j.assessor = t.assessor AND j.state = t.state "
    "AND j.grade IS t.grade AND j.ts = t.ts AND j.note IS t.note AND j.seconds IS t.seconds "
    "AND j.evidence IS t.evidence GROUP BY t.k"
)
"""Each event of a batch (`{values}`: one row of (position in the batch, `EVENT_COLUMNS`) each) that
the log already holds, with the first sequence number holding it: the pair's rows are found
through the `judgments_votes` index, no event is compared with the whole log."""


@dataclass(frozen=True)
class JudgmentsImported:
    """What an import of judgment events did."""

    written: int
    in_log: int
    """Events skipped: identical to one the log held before the import."""
    in_file: int
    """Events skipped: identical to one earlier in the same input."""


@dataclass
class UnknownQueries:
    """The lines of a qrels or judgments import whose query is not in the golden set. Skipped and
    counted with `skip`; else counted to the end of the input and the import then refused, naming
    the first line and how many lines and queries there were, with `hint`. Once one is met
    without `skip`, nothing more is written and repeats are no longer looked for (the refusal is
    certain): every line is still read, and its grade checked."""

    skip: bool = False
    hint: str = "import their queries first (qrelkit import queries FILE)"
    lines: int = 0
    first_line: int = 0
    queries: dict[str, None] = field(default_factory=dict)
    """Their distinct ids, in the order the input first gives them."""

    @property
    def refusing(self) -> bool:
        """Whether the import is going to be refused (it writes nothing more)."""
        return self.lines > 0 and not self.skip

    def admits(self, query_id: str, line: int, known: set[str]) -> bool:
        """Whether a line of this query is imported (its query is `known`); else it is counted."""
        if query_id in known:
            return True
        if not self.lines:
            self.first_line = line
        self.lines += 1
        self.queries.setdefault(query_id)
        return False

    def refuse(self, source: str) -> None:
        """Raise the refusal if there were such lines and they are not skipped."""
        if self.refusing:
            first = next(iter(self.queries))
            more = f" ({self.counted()} are not)" if self.lines > 1 else ""
            raise InputError(
                f"query {first!r} is not in the golden set{more}", self.hint, path=source, line=self.first_line
            )

    def counted(self) -> str:
        """`12 lines for 3 queries`."""
        n = len(self.queries)
        return f"{self.lines} line{'s' * (self.lines != 1)} for {n} quer{'y' if n == 1 else 'ies'}"


class _GaveUp(Exception):
    """The bulk qrels import met something only the exact reader reports well: roll back."""


class Imports(Part):
    """Bulk writes, each in one transaction."""

    def queries(self, items: Iterable[tuple[int, Query]], *, source: str, create_strata: bool = False) -> int:
        """Insert or update queries. A stratum that has no weight yet is an error naming the line,
        unless `create_strata` (then it gets weight 1.0); the stratum `default` is always allowed.
        An id given on two lines is an error naming both (the input contradicts itself); nothing
        is written then."""
        n = 0
        with self.db.transaction():
            known = {r[0] for r in self.conn.execute("SELECT name FROM strata")}
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS import_queries_seen (id TEXT PRIMARY KEY, line INTEGER) WITHOUT ROWID"
            )
            self.conn.execute("DELETE FROM temp.import_queries_seen")
            for lineno, q in items:
                repeat = self._first_repeat("import_queries_seen", ("id",), [(q.id, lineno)])
                if repeat is not None:
                    raise InputError(
                        f"query {q.id!r} repeats line {repeat[1]}",
                        "keep one line per query",
                        path=source,
                        line=lineno,
                    )
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
                # a description the input does not carry (TSV, a JSON line without the field) keeps
                # the stored one; an explicit null clears it
                keep = "description" not in q.model_fields_set
                self.conn.execute(
                    "INSERT INTO queries(id, text, stratum, description) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET text = excluded.text, stratum = excluded.stratum, "
                    "description = CASE WHEN ? THEN queries.description ELSE excluded.description END",
                    [q.id, q.text, q.stratum, q.description, keep],
                )
                n += 1
            self.conn.execute("DELETE FROM temp.import_queries_seen")
        return n

    def documents(self, docs: Iterable[Document | tuple[int, Document]], *, source: str = "documents") -> int:
        """Insert or replace documents, given as (line number, document) or in line order. An id
        given twice is an error naming both lines (found through a temporary on-disk table, so
        memory stays flat); nothing is written then."""
        n = 0
        with self.db.transaction():
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS import_docs_seen (id TEXT PRIMARY KEY, line INTEGER) WITHOUT ROWID"
            )
            self.conn.execute("DELETE FROM temp.import_docs_seen")
            try:
                for batch in _batched(docs, 5000):
                    rows = [d if isinstance(d, tuple) else (n + i + 1, d) for i, d in enumerate(batch)]
                    self._refuse_repeated_ids(rows, source)
                    self.conn.executemany(
                        "INSERT OR REPLACE INTO documents(id, title, text, metadata) VALUES (?, ?, ?, ?)",
                        [(d.id, d.title, d.text, _metadata_json(d)) for _, d in rows],
                    )
                    n += len(batch)
            finally:
                self.conn.execute("DELETE FROM temp.import_docs_seen")
        return n

    def _refuse_repeated_ids(self, rows: list[tuple[int, Document]], source: str) -> None:
        repeat = self._first_repeat("import_docs_seen", ("id",), [(d.id, ln) for ln, d in rows])
        if repeat is not None:
            (doc_id,), first, line = repeat
            raise InputError(
                f"duplicate document id {doc_id!r} (first on line {first})",
                "keep one line per document",
                path=source,
                line=line,
            )

    def _first_repeat(
        self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]
    ) -> tuple[tuple[Any, ...], int, int] | None:
        """Add (key..., line) rows to the temporary `table` (keyed by `columns`); on a key seen on
        an earlier line: (key, that line, this line). The one repeat check of every import."""
        try:
            self.conn.executemany(f"INSERT INTO temp.{table} VALUES ({', '.join('?' * (len(columns) + 1))})", rows)
            return None
        except sqlite3.IntegrityError:
            where = " AND ".join(f"{c} = ?" for c in columns)
            for *key, line in rows:  # the first row whose key is already there from an earlier line
                found = self.conn.execute(f"SELECT line FROM temp.{table} WHERE {where}", key).fetchone()
                if found is not None and found[0] != line:
                    return tuple(key), int(found[0]), int(line)
            raise

    def qrels(
        self, records: Iterable[QrelRecord], *, source: str, assessor: str, unknown: UnknownQueries | None = None
    ) -> tuple[int, int]:
        """Append one graded event per qrels line; negative grades go to the pool (TREC's
        "pooled but not judged"). Returns (labels, pooled). Grades above the scale and repeated
        (query, doc) pairs are errors naming the line; nothing is written then. Lines of queries
        not in the golden set are refused or skipped as `unknown` says (default: refused), and
        counted there.

        Streams: rows go in batches, and repeats are found through a temporary on-disk table, so
        memory stays flat however long the file. This is the one repeat check for qrels imports:
        give `trec.read_qrels(path, check_repeats=False)` (the reader's in-memory check would only
        repeat it)."""
        scale = self.db.settings().scale
        labels = pooled = 0
        ts = now()
        unknown = UnknownQueries() if unknown is None else unknown
        with self.db.transaction():
            queries = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS import_seen "
                "(query_id TEXT, doc_id TEXT, line INTEGER, PRIMARY KEY (query_id, doc_id)) WITHOUT ROWID"
            )
            self.conn.execute("DELETE FROM temp.import_seen")
            try:
                for batch in _batched(records, 10_000):
                    batch = [rec for rec in batch if unknown.admits(rec.query_id, rec.line, queries)]
                    for rec in batch:
                        scale.refuse_above(rec.grade, path=source, line=rec.line)
                    if unknown.refusing:  # refused at the end: only read on, to count them
                        continue
                    self._refuse_repeats(batch, source)
                    unjudged = [(r.query_id, r.doc_id, source) for r in batch if r.grade < 0]
                    graded = [(r.query_id, r.doc_id, r.grade, assessor, ts, source) for r in batch if r.grade >= 0]
                    self.conn.executemany(INSERT_POOLED, unjudged)
                    self.conn.executemany(INSERT_GRADED, graded)
                    pooled += len(unjudged)
                    labels += len(graded)
                unknown.refuse(source)
            finally:
                if self.conn.in_transaction:  # SQLite rolled back by itself after SQLITE_FULL (the table too)
                    self.conn.execute("DELETE FROM temp.import_seen")
        return labels, pooled

    def _refuse_repeats(self, batch: list[QrelRecord], source: str) -> None:
        repeat = self._first_repeat(
            "import_seen", ("query_id", "doc_id"), [(r.query_id, r.doc_id, r.line) for r in batch]
        )
        if repeat is not None:
            (q, d), first, line = repeat
            raise InputError(
                f"duplicate judgment for query {q!r} doc {d!r} (first on line {first})",
                "keep one line per (query, doc) pair",
                path=source,
                line=line,
            )

    def qrel_rows(
        self,
        blocks: Iterable[QrelsRows | None],
        *,
        source: str,
        assessor: str,
        unknown: UnknownQueries | None = None,
    ) -> tuple[int, int] | None:
        """`qrels` for rows the columnar parser read, as plain data (`formats.qrels_rows`): the same
        rows, the same counts, checked a block at a time. None when it gave up (a None block: one
        the parser could not read, or a repeated pair or hash collision found after the last; an
        unknown query, unless `unknown` skips them; a grade above the scale): nothing was written
        or counted, and the caller runs `qrels` on the exact reader, which names the line. Never
        inside another transaction (it could not undo its own part)."""
        if self.db.depth:
            return None
        skipped = UnknownQueries(skip=True) if unknown is not None and unknown.skip else None
        try:
            with self.db.transaction():
                counts = self._insert_blocks(blocks, source, assessor, skipped)
        except _GaveUp:
            return None
        if unknown is not None and skipped is not None:  # counted only once the whole file is in
            unknown.lines, unknown.queries = unknown.lines + skipped.lines, {**unknown.queries, **skipped.queries}
        return counts

    def _insert_blocks(
        self, blocks: Iterable[QrelsRows | None], source: str, assessor: str, skipped: UnknownQueries | None
    ) -> tuple[int, int]:
        top, ts = self.db.settings().scale.max_grade, now()
        queries = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
        before = int(self.conn.execute("SELECT coalesce(max(seq), 0) FROM judgments").fetchone()[0])
        cache = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size=-{BULK_CACHE_KIB}")
        labels = pooled = 0
        rebuild: list[str] | None = None
        try:
            for block in blocks:  # the last one is None when the file repeats a pair
                if block is None or block.top > top:
                    raise _GaveUp
                if not block.queries <= queries:
                    block = _known_rows(block, queries, skipped)
                graded, unjudged = self._insert_block(block, (assessor, ts, source))
                labels, pooled = labels + graded, pooled + unjudged
                if rebuild is None and labels >= max(REBUILD_FROM, before):
                    rebuild = self._drop_full_indexes()
            for sql in rebuild or []:
                self.conn.execute(sql)
        finally:
            self.conn.execute(f"PRAGMA cache_size={int(cache)}")
        return labels, pooled

    def _insert_block(self, block: QrelsRows, event: tuple[str, str, str]) -> tuple[int, int]:
        """Write one block: graded rows as events (`event`: assessor, time, source), negative
        grades to the pool. (graded, pooled)."""
        if block.pooled_query:
            self.conn.executemany(INSERT_POOLED, zip(block.pooled_query, block.pooled_doc, repeat(event[2])))
        _insert_graded(self.conn, block.query, block.doc, block.grade, event)
        return len(block.grade), len(block.pooled_query)

    def _drop_full_indexes(self) -> list[str]:
        """Drop the judgment log's full indexes (the partial ones cost little to keep); their SQL."""
        names = [r[1] for r in self.conn.execute("PRAGMA index_list(judgments)") if r[3] == "c" and not r[4]]
        found = []
        for name in names:
            row = self.conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [name])
            found.append(str(row.fetchone()[0]))
            self.conn.execute(f'DROP INDEX "{name}"')
        return found

    def judgments(
        self,
        items: Iterable[tuple[int, Judgment]],
        *,
        source: str,
        keep_repeats: bool = False,
        unknown: UnknownQueries | None = None,
    ) -> JudgmentsImported:
        """Append events from a judgments JSONL export, keeping their assessors and times. Events
        on queries not in the golden set are refused or skipped as `unknown` says (default:
        refused), and counted there. An event identical to one in the log (every one of
        `EVENT_COLUMNS`: query, document, state, grade, assessor, time, note, seconds, evidence; not where
        it came from), or to one earlier in `items`, is skipped and counted, so importing a file
        again adds nothing; `keep_repeats` writes every event as given (a frozen version's log,
        loaded as it was frozen).

        Streams: events go in batches of `LOOKUP_ROWS` rows, each looked up in the log by one
        indexed join, so memory stays flat however long the file and however large the log."""
        scale = self.db.settings().scale
        written = in_log = in_file = 0
        unknown = UnknownQueries() if unknown is None else unknown
        with self.db.transaction():
            queries = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
            before = int(self.conn.execute("SELECT coalesce(max(seq), 0) FROM judgments").fetchone()[0])
            known = ((lineno, j) for lineno, j in items if unknown.admits(j.query_id, lineno, queries))
            checked = (_checked(lineno, j, scale, source) for lineno, j in known)
            for rows in _batched(checked, LOOKUP_ROWS):
                if unknown.refusing:
                    continue
                if not keep_repeats:
                    rows, log_repeats, file_repeats = self._new_events(rows, before)
                    in_log, in_file = in_log + log_repeats, in_file + file_repeats
                self.conn.executemany(INSERT_EVENT, [(*row, source) for row in rows])
                written += len(rows)
            unknown.refuse(source)
        return JudgmentsImported(written, in_log, in_file)

    def _new_events(self, rows: list[EventRow], before: int) -> tuple[list[EventRow], int, int]:
        """Of a batch of events, those neither in the log nor earlier in the input; and how many
        were in the log before the import began (sequence number <= `before`), how many earlier
        in the input (in the log since, or earlier in this batch)."""
        sql = IDENTICAL_SQL.format(values=",".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows)))
        found = dict(self.conn.execute(sql, [v for k, row in enumerate(rows) for v in (k, *row)]).fetchall())
        fresh: list[EventRow] = []
        seen: set[EventRow] = set()
        in_log = in_file = 0
        for k, row in enumerate(rows):
            first = found.get(k)
            if first is not None and first <= before:
                in_log += 1
            elif first is not None or row in seen:
                in_file += 1
            else:
                seen.add(row)
                fresh.append(row)
        return fresh, in_log, in_file

    def pool_entries(self, entries: Iterable[PoolEntry]) -> int:
        n = 0
        with self.db.transaction():
            for e in entries:
                cur = self.conn.execute(
                    "INSERT OR IGNORE INTO pool(query_id, doc_id, source, best_rank) VALUES (?, ?, ?, ?)",
                    [e.query_id, e.doc_id, e.source, e.best_rank],
                )
                n += cur.rowcount
        return n


ROWS_PER_INSERT = 100
"""Rows per INSERT statement of a bulk import (one statement with 100 VALUES rows binds and steps
about twice as fast as 100 executions of a one-row statement: 1M rows 1.14 s -> 0.58 s)."""
INSERT_GRADED_MANY = "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts, source) VALUES " + ",".join(
    f"(?{4 + 3 * k}, ?{5 + 3 * k}, 'graded', ?{6 + 3 * k}, ?1, ?2, ?3)" for k in range(ROWS_PER_INSERT)
)


def _insert_graded(
    conn: sqlite3.Connection, query: list[str], doc: list[str], grade: list[int], event: tuple[str, str, str]
) -> None:
    """Append graded events (`event`: assessor, time, source) in the order given, many rows a statement."""
    full = len(grade) // ROWS_PER_INSERT * ROWS_PER_INSERT
    flat: list[Any] = [None] * (3 * full)
    flat[0::3], flat[1::3], flat[2::3] = query[:full], doc[:full], grade[:full]
    step, head = 3 * ROWS_PER_INSERT, list(event)
    conn.executemany(INSERT_GRADED_MANY, (head + flat[at : at + step] for at in range(0, len(flat), step)))
    tail = zip(query[full:], doc[full:], grade[full:], repeat(event[0]), repeat(event[1]), repeat(event[2]))
    conn.executemany(INSERT_GRADED, tail)


def _known_rows(block: QrelsRows, queries: set[str], skipped: UnknownQueries | None) -> QrelsRows:
    """A block's rows without those of queries not in the golden set, which `skipped` counts; a
    give-up when they are not skipped, or some are pooled (the exact reader then counts them in
    line order)."""
    if skipped is None or block.pooled_query:
        raise _GaveUp
    keep = [i for i, q in enumerate(block.query) if skipped.admits(q, 0, queries)]
    return dataclasses.replace(
        block,
        queries=block.queries & queries,
        query=[block.query[i] for i in keep],
        doc=[block.doc[i] for i in keep],
        grade=[block.grade[i] for i in keep],
    )


def _checked(lineno: int, j: Judgment, scale: GradeScale, source: str) -> EventRow:
    """An event to import as the store writes it: its grade on the scale."""
    scale.refuse_above(j.grade, path=source, line=lineno)
    return event_row(j)


def _metadata_json(doc: Document) -> str | None:
    """A document's metadata as the store keeps it: compact JSON, or NULL for none."""
    if doc.metadata is None:
        return None
    return json.dumps(doc.metadata, ensure_ascii=False, separators=(",", ":"))


def _batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
