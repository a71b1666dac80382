"""Saved score reports and comparisons (the TUI dashboard shows the latest)."""

from __future__ import annotations

from ..models import Comparison, ReportKind, SavedReport, ScoreReport
from .base import Part, now

MAX_ROWID = 2**63 - 1
"""SQLite's largest integer, so its largest row id."""


class Reports(Part):
    """Reports kept in the store, newest last."""

    def save(self, report: ScoreReport | Comparison, name: str) -> int:
        """Keep a score report or a comparison; returns its id."""
        kind: ReportKind = "comparison" if isinstance(report, Comparison) else "score"
        with self.db.transaction():
            cur = self.conn.execute(
                "INSERT INTO reports(kind, name, created, body) VALUES (?, ?, ?, ?)",
                [kind, name, now(), report.model_dump_json()],
            )
            return int(cur.lastrowid or 0)

    def latest(self, kind: ReportKind) -> SavedReport | None:
        """The newest saved report of a kind, parsed, or None."""
        row = self.conn.execute(
            "SELECT name, created, body FROM reports WHERE kind = ? ORDER BY id DESC LIMIT 1", [kind]
        ).fetchone()
        if row is None:
            return None
        name, created, body = row
        if kind == "comparison":
            return SavedReport(name=name, created=created, comparison=Comparison.model_validate_json(body))
        return SavedReport(name=name, created=created, score=ScoreReport.model_validate_json(body))

    def rows(self, kind: str | None = None) -> list[tuple[int, str, str, str]]:
        """(id, kind, name, created) of every saved report (of `kind`), oldest first."""
        sql = "SELECT id, kind, name, created FROM reports" + (" WHERE kind = ?" if kind else "") + " ORDER BY id"
        rows = self.conn.execute(sql, [kind] if kind else []).fetchall()
        return [(int(r[0]), str(r[1]), str(r[2] or ""), str(r[3] or "")) for r in rows]

    def row(self, report_id: int) -> tuple[str, str, str, str] | None:
        """(kind, name, created, body) of one saved report, or None (an id no SQLite row can have,
        0 or below, or above 2^63 - 1, included)."""
        if not 0 < report_id <= MAX_ROWID:
            return None
        row = self.conn.execute("SELECT kind, name, created, body FROM reports WHERE id = ?", [report_id]).fetchone()
        return None if row is None else (str(row[0]), str(row[1] or ""), str(row[2] or ""), str(row[3]))

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM reports").fetchone()[0])
