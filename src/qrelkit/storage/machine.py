"""Machine labels: what machine assessors (`qrelkit assess`) said of pairs, with each label's
provenance, in a table of their own (`machine_labels`). Never an event of the judgment log: no
vote, no resolution, no agreement figure; the judging screen never shows them (the adjudication
screen does, marked as a machine's). Append-only: asking again
(`assess --refresh`) adds a row, and an assessor's latest row of a pair counts. Labels of a query
removed from the golden set stay in the table and are no longer read."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..models.machine import MachineCount, MachineLabel
from .base import Part, stored_time

_COLUMNS = (
    "assessor, query_id, doc_id, grade, status, ts, model, endpoint_host, parameters, template_sha256, "
    "prompt_sha256, reply, latency, tokens_in, tokens_out, cost, cache_key, error"
)
_INSERT = f"INSERT INTO machine_labels({_COLUMNS}) VALUES ({', '.join('?' * 18)})"
_IN_SET = "query_id IN (SELECT id FROM queries)"
_LATEST = (
    "SELECT query_id, doc_id, status, grade, max(seq) FROM machine_labels WHERE assessor = ? AND "
    f"{_IN_SET} GROUP BY query_id, doc_id ORDER BY query_id, doc_id"
)
_CHUNK = 500
"""Cache keys looked up per statement (SQLite's bound-parameter limit is far above it)."""


class MachineLabels(Part):
    """The machine assessors' labels (`store.machine`)."""

    def record(self, labels: Iterable[MachineLabel]) -> int:
        """Append the labels in one transaction (committed on return); how many were written."""
        rows = [_row(label) for label in labels]
        with self.db.transaction():
            self.conn.executemany(_INSERT, rows)
        return len(rows)

    def cached(self, keys: Iterable[str]) -> dict[str, list[MachineLabel]]:
        """Of `keys`, those some row already holds (the questions asked before): key -> its rows,
        oldest first (of this pair, or of another pair with the same query and document text)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, list[MachineLabel]] = {}
        for lo in range(0, len(wanted), _CHUNK):
            chunk = wanted[lo : lo + _CHUNK]
            sql = (
                f"SELECT {_COLUMNS} FROM machine_labels WHERE cache_key IN ({', '.join('?' * len(chunk))}) ORDER BY seq"
            )
            for r in self.conn.execute(sql, chunk):
                found.setdefault(r[16], []).append(_label(r))
        return found

    def assessors(self) -> list[str]:
        """The machine assessors with a label on a golden-set query, sorted."""
        sql = f"SELECT DISTINCT assessor FROM machine_labels WHERE {_IN_SET} ORDER BY assessor"
        return [r[0] for r in self.conn.execute(sql)]

    def latest(self, assessor: str) -> list[tuple[str, str, str, int | None]]:
        """(query, doc, status, grade) of `assessor`'s latest row per pair, sorted by (query, doc)."""
        return [(q, d, s, g) for q, d, s, g, _ in self.conn.execute(_LATEST, [assessor])]

    def latest_rows(self, assessor: str) -> list[MachineLabel]:
        """`assessor`'s latest row per pair of a golden-set query, with its provenance, by (query, doc)."""
        sql = (
            f"SELECT {_COLUMNS} FROM machine_labels WHERE seq IN (SELECT max(seq) FROM machine_labels WHERE "
            f"assessor = ? AND {_IN_SET} GROUP BY query_id, doc_id) ORDER BY query_id, doc_id"
        )
        return [_label(r) for r in self.conn.execute(sql, [assessor])]

    def grades(self, assessor: str) -> list[tuple[str, str, int]]:
        """(query, doc, grade) of the pairs whose latest row of `assessor` parsed (`ok`), sorted."""
        return [(q, d, g) for q, d, s, g in self.latest(assessor) if s == "ok" and g is not None]

    def samples(self, assessor: str, n: int) -> dict[tuple[str, str], list[int]]:
        """(query, doc) -> the grades of `assessor`'s latest `n` parsed (`ok`) rows of the pair,
        newest first (self-consistency: `qrelkit calibrate --samples`)."""
        sql = (
            "SELECT query_id, doc_id, grade FROM (SELECT query_id, doc_id, grade, row_number() OVER "
            "(PARTITION BY query_id, doc_id ORDER BY seq DESC) AS k FROM machine_labels WHERE assessor = ? AND "
            f"status = 'ok' AND grade IS NOT NULL AND {_IN_SET}) WHERE k <= ? ORDER BY query_id, doc_id, k"
        )
        found: dict[tuple[str, str], list[int]] = {}
        for q, d, g in self.conn.execute(sql, [assessor, n]):
            found.setdefault((q, d), []).append(g)
        return found

    def counts(self) -> list[MachineCount]:
        """Per assessor and parse status: rows, and pairs whose latest row has that status."""
        sql = (
            "SELECT a.assessor, a.status, a.n, coalesce(p.n, 0) FROM "
            f"(SELECT assessor, status, count(*) AS n FROM machine_labels WHERE {_IN_SET} "
            "GROUP BY assessor, status) a LEFT JOIN "
            "(SELECT assessor, status, count(*) AS n FROM (SELECT assessor, status, max(seq) FROM machine_labels "
            f"WHERE {_IN_SET} GROUP BY assessor, query_id, doc_id) GROUP BY assessor, status) p "
            "ON a.assessor = p.assessor AND a.status = p.status ORDER BY a.assessor, a.status"
        )
        return [
            MachineCount.model_construct(assessor=a, status=s, rows=n, pairs=p) for a, s, n, p in self.conn.execute(sql)
        ]

    def rows(self, assessor: str | None = None) -> Iterator[MachineLabel]:
        """Every row (of one assessor), oldest first, with its provenance."""
        sql = f"SELECT {_COLUMNS} FROM machine_labels" + (" WHERE assessor = ?" if assessor else "") + " ORDER BY seq"
        for r in self.conn.execute(sql, [assessor] if assessor else []):
            yield _label(r)


def _label(r: tuple[Any, ...]) -> MachineLabel:
    """A row of `_COLUMNS` as a `MachineLabel` (as written: not validated again)."""
    return MachineLabel.model_construct(
        assessor=r[0], query_id=r[1], doc_id=r[2], grade=r[3], status=r[4], timestamp=stored_time(r[5]),
        model=r[6], endpoint_host=r[7], parameters=json.loads(r[8]), template_sha256=r[9],
        prompt_sha256=r[10], reply=r[11], latency=r[12], tokens_in=r[13], tokens_out=r[14], cost=r[15],
        cache_key=r[16], error=r[17],
    )  # fmt: skip


def _row(x: MachineLabel) -> tuple[object, ...]:
    params = json.dumps(x.parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (
        x.assessor, x.query_id, x.doc_id, x.grade, x.status, x.timestamp.isoformat(), x.model, x.endpoint_host,
        params, x.template_sha256, x.prompt_sha256, x.reply, x.latency, x.tokens_in, x.tokens_out, x.cost,
        x.cache_key, x.error,
    )  # fmt: skip
