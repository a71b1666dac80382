"""The judgment log: append-only events, assessors, assignments, each pair's votes, and a query's
pairs as a judging screen shows them (`Pairs`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from .. import resolution
from ..errors import NotInGoldenSet
from ..models import Judgment, JudgmentState, utcnow
from .base import EVENT_COLUMNS, GoldenSettings, Part, event_from_row, event_row, insert_event, now, stored_time
from .leases import claim as claim_lease


@dataclass(frozen=True)
class Claim:
    """Which document a judgment's assessor goes to next (`Log.record_pair`): the first free one
    of `candidates` (`leases.claim`), none of them voted on by anyone else after log position `seen`."""

    candidates: list[str]
    seen: int


@dataclass(frozen=True)
class Pairs:
    """A query's pairs (or one pair) as a judging screen shows them, all read in one statement, so
    from one snapshot of the store (`Log.pairs`)."""

    events: list[tuple[int, Judgment]]
    """Their events in log order, as (sequence number, event)."""
    shared: dict[str, set[str]]
    """Documents assigned to several assessors -> those assessors (`assign --overlap`)."""
    held: dict[str, str]
    """Documents open on another assessor's screen now -> that assessor (`leases`)."""
    settings: GoldenSettings
    """The settings their labels resolve by."""
    no_query: bool = False
    """The query is not in the golden set (removed, or never imported): no event on it is recorded."""
    removed: frozenset[str] = frozenset()
    """Its documents removed from the golden set (`docs remove`): no event on them is recorded."""

    def after(self, seq: int, event: Judgment) -> Pairs:
        """The same pairs with `event` appended to the log as `seq`."""
        return replace(self, events=[*self.events, (seq, event)])


ABSENT_SQL = """
    SELECT 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM queries WHERE id = :q)
    UNION ALL
    SELECT 5, NULL, r.name, NULL, NULL, NULL, NULL, NULL, NULL FROM (
      SELECT name, max(coalesce(json_extract(body, '$.log_seq'), 0)) AS at FROM removals
      WHERE kind = 'document' AND {docs} GROUP BY name) AS r
    WHERE NOT EXISTS (SELECT 1 FROM documents WHERE id = r.name)
      AND NOT EXISTS (SELECT 1 FROM pool WHERE query_id = :q AND doc_id = r.name)
      AND NOT EXISTS (
        SELECT 1 FROM judgments j WHERE j.query_id = :q AND j.doc_id = r.name AND j.seq > r.at
        AND j.source IS NOT NULL AND j.source != 'removal')
"""
"""Why an event on query :q (on document :d, or on any of its judged documents) would be refused:
a row of kind 4 when the query is not in the golden set, one of kind 5 for each document removed
(`docs remove`) and not added back since (a document row, a pooled pair, or an imported event
after the removal). A document the set never held a row for (judged from a qrels file only) is in
the set. `{docs}`: `name IN (:d, :also)` (one document, or two), or the query's judged documents."""

ONE_DOC = "name IN (:d, :also)"
QUERY_DOCS = "name IN (SELECT doc_id FROM judgments WHERE query_id = :q)"

PAIRS_SQL = (
    """
    SELECT 0, seq, doc_id, state, grade, assessor, ts, note, evidence FROM judgments WHERE query_id = :q {one}
    UNION ALL
    SELECT 1, NULL, doc_id, NULL, NULL, assessor, NULL, NULL, NULL FROM assignments WHERE query_id = :q {one}
    UNION ALL
    SELECT 2, NULL, doc_id, NULL, NULL, assessor, NULL, NULL, NULL FROM leases
    WHERE query_id = :q {one} AND assessor != :besides AND expires > :now
    UNION ALL
    SELECT 3, NULL, key, NULL, NULL, NULL, NULL, value, NULL FROM meta WHERE key IN ('name', 'scale', 'label_policy')
    UNION ALL
"""
    + ABSENT_SQL
    + """
    ORDER BY 1, 2
"""
)
"""`Pairs` in one statement: its rows are told apart by their first column (0 events, 1 assignments,
2 others' leases, 3 the settings' `meta` rows, 4 and 5 `ABSENT_SQL`'s)."""


class Log(Part):
    """Appends and reads the event log; nothing here updates or deletes an event."""

    def record(self, judgment: Judgment) -> int:
        """Append one event and commit it (durable on return). Returns its sequence number.
        Refuses (`NotInGoldenSet`) an event on a query or document not in the golden set."""
        self.db.settings().scale.refuse_above(judgment.grade)
        with self.db.transaction():
            params = {"q": judgment.query_id, "d": judgment.doc_id, "also": None}
            kinds = {row[0] for row in self.conn.execute(ABSENT_SQL.format(docs=ONE_DOC), params)}
            refuse_absent(judgment, no_query=4 in kinds, removed=5 in kinds)
            return insert_event(self.conn, judgment, None)

    def record_pair(
        self, judgment: Judgment, *, besides: str | None, claim: Claim | None = None
    ) -> tuple[int, Pairs, str | None]:
        """`record`, reading the event's pair (`pairs`) first in the same write transaction: its
        sequence number, and the pair as it was just before it (with the write lock held, nothing
        can come between). The grade is checked against the scale read there. Four statements:
        BEGIN IMMEDIATE, the read, the INSERT, COMMIT.

        With `claim`, the next document is chosen and leased to the judgment's assessor in the same
        transaction (`leases.claim`, one statement more), and read with the pair: the document
        taken (None: none of the candidates was free) is the third value, its pair in the second."""
        with self.db.transaction():
            taken = None
            if claim is not None:
                taken = claim_lease(self.conn, judgment.query_id, claim.candidates, judgment.assessor, seen=claim.seen)
            before = self.pairs(judgment.query_id, judgment.doc_id, besides=besides, also=taken)
            before.settings.scale.refuse_above(judgment.grade)
            refuse_absent(judgment, no_query=before.no_query, removed=judgment.doc_id in before.removed)
            return insert_event(self.conn, judgment, None), before, taken

    def append_events(self, events: Sequence[Judgment]) -> list[int]:
        """Append the events, each its own row of the log, in one INSERT (of up to 500 rows) inside
        the caller's transaction (checked by the caller: `workflows.duplicates.DuplicateVotes`);
        their sequence numbers, in order."""
        seqs: list[int] = []
        for at in range(0, len(events), 500):
            batch = events[at : at + 500]
            row = "(" + ", ".join("?" * (EVENT_COLUMNS.count(",") + 2)) + ")"  # the columns and `source`
            values = ", ".join([row] * len(batch))
            params = [x for e in batch for x in (*event_row(e), None)]
            sql = f"INSERT INTO judgments({EVENT_COLUMNS}, source) VALUES {values} RETURNING seq"
            seqs.extend(sorted(int(r[0]) for r in self.conn.execute(sql, params).fetchall()))
        return seqs

    def pairs(self, query_id: str, doc_id: str | None = None, *, besides: str | None, also: str | None = None) -> Pairs:
        """A query's pairs (or one pair, and the pair of document `also` if given) as a judging
        screen shows them, in one statement: their events, assignments, the leases of assessors
        other than `besides` (None: no one's), and the settings (`base.Connection.settings_of`)."""
        one = doc_id is not None
        sql = PAIRS_SQL.format(one="AND doc_id IN (:d, :also)" if one else "", docs=ONE_DOC if one else QUERY_DOCS)
        params = {"q": query_id, "d": doc_id, "also": also, "besides": besides, "now": utcnow().isoformat()}
        events: list[tuple[int, Judgment]] = []
        assigned: dict[str, set[str]] = {}
        held: dict[str, str] = {}
        raw: dict[str, str] = {}
        no_query, removed = False, set[str]()
        for kind, seq, d, st, g, a, ts, n, ev in self.conn.execute(sql, params):
            if kind == 0:
                state, at = JudgmentState(st), stored_time(ts)
                event = Judgment.model_construct(
                    query_id=query_id, doc_id=d, state=state, grade=g, assessor=a, timestamp=at, note=n, evidence=ev
                )
                events.append((seq, event))
            elif kind == 1:
                assigned.setdefault(d, set()).add(a)
            elif kind == 2:
                held[d] = a
            elif kind == 3:
                raw[d] = n
            elif kind == 4:
                no_query = True
            else:
                removed.add(d)
        shared = {d: who for d, who in assigned.items() if len(who) > 1}
        return Pairs(events, shared, held, self.db.settings_of(raw), no_query, frozenset(removed))

    def events(self, query_id: str | None = None) -> list[Judgment]:
        """The log in order (all of it, or one query's), without the events of removed queries
        (they stay in the table: the log is append-only; see `storage.removals`)."""
        return list(self.iter_events(query_id))

    def iter_events(self, query_id: str | None = None) -> Iterator[Judgment]:
        """`events`, one at a time from the cursor (a 2-million-event log in flat memory). Read it
        inside `Store.read_transaction` when it must agree with other reads."""
        sql = (
            "SELECT * FROM judgments WHERE "
            + ("query_id = ?" if query_id else "1")
            + (" AND query_id IN (SELECT id FROM queries) ORDER BY seq")
        )
        cur = self.conn.execute(sql, [query_id] if query_id else [])
        cur.row_factory = sqlite3.Row
        while rows := cur.fetchmany(10_000):
            yield from (event_from_row(r) for r in rows)

    def assessors(self) -> list[str]:
        """Everyone with a vote (a grade or a skip) in the log, judged here or imported, by name
        (a note, a retraction, a clear or an adjudication alone is no vote)."""
        sql = "SELECT DISTINCT assessor FROM judgments WHERE state IN ('graded', 'skipped') ORDER BY 1"
        return [r[0] for r in self.conn.execute(sql)]

    def votes_since(self, assessor: str, since: datetime) -> set[tuple[str, str]]:
        """The pairs `assessor` graded or skipped at `since` or later (an index range by assessor
        and time; a day of slack in the range for times stored with another zone's offset)."""
        sql = (
            "SELECT query_id, doc_id, ts FROM judgments WHERE assessor = ? AND ts >= ? "
            "AND state IN ('graded', 'skipped')"
        )
        lower = (since - timedelta(days=1)).astimezone(UTC).isoformat()
        found = set()
        for q, d, ts in self.conn.execute(sql, [assessor, lower]):
            at = stored_time(ts)
            if at is not None and at >= since:
                found.add((q, d))
        return found

    def recent_seconds(self, assessor: str, limit: int) -> list[float]:
        """The recorded seconds of `assessor`'s latest `limit` grades and skips, oldest first."""
        sql = (
            "SELECT seconds FROM judgments WHERE assessor = ? AND state IN ('graded', 'skipped') "
            "AND seconds IS NOT NULL ORDER BY ts DESC LIMIT ?"
        )
        return [float(r[0]) for r in self.conn.execute(sql, [assessor, limit])][::-1]

    def assign(self, rows: Iterable[tuple[str, str, str]], shares: Iterable[tuple[str, str, str]] = ()) -> int:
        """Assign (query, doc) pairs to assessors; returns how many of `rows` were new. `shares`:
        assignments written in the same transaction but not counted (a recheck shares its pair with
        the assessors who voted on it, so the new assessor judges it blind)."""
        stamp = now()
        sql = "INSERT OR IGNORE INTO assignments(query_id, doc_id, assessor, created) VALUES (?, ?, ?, ?)"
        with self.db.transaction():
            before = self.conn.total_changes
            self.conn.executemany(sql, [(q, d, a, stamp) for q, d, a in rows])
            added = self.conn.total_changes - before
            self.conn.executemany(sql, [(q, d, a, stamp) for q, d, a in shares])
            return added

    def pending_assignments(self, assessor: str) -> list[tuple[str, str]]:
        """Pairs assigned to `assessor` that they have not judged yet (no vote of theirs; a note
        or a retracted vote leaves the pair pending)."""
        sql = (
            "SELECT a.query_id, a.doc_id FROM assignments a WHERE a.assessor = ? AND NOT EXISTS "
            "(SELECT 1 FROM judgments j WHERE j.query_id = a.query_id AND j.doc_id = a.doc_id AND j.assessor = ? "
            "AND j.state IN ('graded', 'skipped')) "
            "ORDER BY a.query_id, a.doc_id"
        )
        return [(q, d) for q, d in self.conn.execute(sql, [assessor, assessor])]

    def shared_assignments(self, assessor: str) -> list[tuple[str, str]]:
        """Pairs assigned to `assessor` and to someone else too (`assign --overlap`, a recheck):
        the pairs that can be blind to them (`workflows.pairs.blind_docs` says which are)."""
        sql = (
            "SELECT a.query_id, a.doc_id FROM assignments a WHERE a.assessor = ? AND EXISTS "
            "(SELECT 1 FROM assignments b WHERE b.query_id = a.query_id AND b.doc_id = a.doc_id "
            "AND b.assessor != a.assessor) ORDER BY a.query_id, a.doc_id"
        )
        return [(q, d) for q, d in self.conn.execute(sql, [assessor])]

    def votes(self) -> dict[tuple[str, str], resolution.PairVotes]:
        """Each assessor's latest vote and the latest adjudicated grade, for every pair (reads
        the whole log: for agreement and adjudication, not for the hot paths)."""
        return resolution.votes_of(self.numbered_events())

    def numbered_events(self, *, notes: bool = False) -> Iterator[tuple[int, Judgment]]:
        """The whole log in order, as (sequence number, event), without `seconds`, one at a time
        from the cursor (for agreement and adjudication, not for the hot paths; read it inside
        `Store.read_transaction` when it must agree with other reads). `notes`: only the events
        that carry a note, and the clears (what the notes on each pair are made of)."""
        sql = "SELECT seq, query_id, doc_id, state, grade, assessor, note, ts, evidence FROM judgments"
        if notes:
            sql += " WHERE note IS NOT NULL OR state = 'cleared'"
        cur = self.conn.execute(sql + " ORDER BY seq")
        while rows := cur.fetchmany(10_000):
            for seq, q, d, st, g, a, n, ts, ev in rows:
                event = Judgment.model_construct(
                    query_id=q,
                    doc_id=d,
                    state=JudgmentState(st),
                    grade=g,
                    assessor=a,
                    note=n,
                    timestamp=stored_time(ts),
                    evidence=ev,
                )
                yield seq, event

    def query_events(self, query_id: str, doc_id: str | None = None) -> list[tuple[int, Judgment]]:
        """One query's events (or one pair's) in log order, as (sequence number, event)."""
        sql = "SELECT seq, doc_id, state, grade, assessor, ts, note, evidence FROM judgments WHERE query_id = ?"
        params = [query_id]
        if doc_id is not None:
            sql += " AND doc_id = ?"
            params.append(doc_id)
        rows = self.conn.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            (
                seq,
                Judgment.model_construct(
                    query_id=query_id,
                    doc_id=d,
                    state=JudgmentState(st),
                    grade=g,
                    assessor=a,
                    timestamp=stored_time(ts),
                    note=n,
                    evidence=ev,
                ),
            )
            for seq, d, st, g, a, ts, n, ev in rows
        ]

    def size(self) -> int:
        """The sequence number of the latest event of the whole log (0: none), read from the
        index: how big the log is, at no cost."""
        return int(self._scalar("SELECT max(seq) FROM judgments") or 0)

    def last_seq(self, query_id: str, *, besides: str | None = None) -> int:
        """The sequence number of a query's latest event (0: none), of anyone's but `besides`'s
        when given: it changes when anyone (else) judges it."""
        sql = "SELECT max(seq) FROM judgments WHERE query_id = ? AND assessor IS NOT ?"
        return int(self._scalar(sql, [query_id, besides]) or 0)


def refuse_absent(judgment: Judgment, *, no_query: bool, removed: bool) -> None:
    """Raise `NotInGoldenSet` for an event on a query or document not in the golden set."""
    if no_query:
        raise NotInGoldenSet(
            f"query {judgment.query_id!r} is not in the golden set (removed?): nothing recorded",
            "see `qrelkit removals`; `qrelkit import queries` adds it back",
        )
    if removed:
        raise NotInGoldenSet(
            f"document {judgment.doc_id!r} was removed from the golden set: nothing recorded",
            "see `qrelkit removals`; `qrelkit import docs` adds it back",
        )
