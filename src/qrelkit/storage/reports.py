"""Saved score reports and comparisons (the TUI dashboard shows the latest)."""

from __future__ import annotations

from ..models import Comparison, ReportKind, SavedReport, ScoreReport
from .base import Connection, now


class Reports(Connection):
    """Reports kept in the store, newest last."""

    def save_report(self, report: ScoreReport | Comparison, name: str) -> int:
        """Keep a score report or a comparison; returns its id."""
        kind: ReportKind = "comparison" if isinstance(report, Comparison) else "score"
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO reports(kind, name, created, body) VALUES (?, ?, ?, ?)",
                [kind, name, now(), report.model_dump_json()],
            )
            return int(cur.lastrowid or 0)

    def latest_report(self, kind: ReportKind) -> SavedReport | None:
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
