"""Reports kept in the store (`score --save`, `compare --save`): keep them and say under which id,
list them, and read one back by its id (`qrelkit reports list`, `qrelkit reports show ID`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import UsageError
from ..models import Comparison, PlainScoreReport, SavedReport, ScoreReport, to_model
from ..storage import Store


@dataclass(frozen=True)
class SavedEntry:
    """One saved report, without its body."""

    id: int
    kind: str
    """`score` or `comparison` (a later qrelkit may add kinds: they are listed, and refused by `show`)."""
    name: str
    created: str


def report_name(report: ScoreReport | Comparison) -> str:
    """What a report is kept as: its run, or `BASELINE vs CANDIDATE`."""
    if isinstance(report, Comparison):
        return f"{report.baseline.run.name} vs {report.candidate.run.name}"
    return report.fingerprint.run.name


def save_reports(store: Store, reports: Sequence[PlainScoreReport | ScoreReport | Comparison]) -> list[SavedEntry]:
    """Keep every report in the store (the dashboard shows the latest); what was kept, with ids.
    A plain score report (`score --save`) is kept as its model writes it (`to_model`)."""
    kept = []
    for given in reports:
        rep = to_model(given) if isinstance(given, PlainScoreReport) else given
        name = report_name(rep)
        report_id = store.reports.save(rep, name)
        kept.append(_entry(store, report_id) or SavedEntry(report_id, _kind(rep), name, ""))
    return kept


def _kind(report: ScoreReport | Comparison) -> str:
    return "comparison" if isinstance(report, Comparison) else "score"


def _entry(store: Store, report_id: int) -> SavedEntry | None:
    row = store.reports.row(report_id)
    return None if row is None else SavedEntry(report_id, row[0], row[1], row[2])


def list_reports(store: Store, kind: str | None = None) -> list[SavedEntry]:
    """Every saved report (of `kind`, when given), oldest first."""
    return [SavedEntry(*row) for row in store.reports.rows(kind)]


def show_report(store: Store, report_id: int) -> SavedReport:
    """The saved report `report_id`, parsed; a usage error when there is none or its kind is unknown
    (or its body no longer reads as one)."""
    from pydantic import ValidationError

    row = store.reports.row(report_id)
    if row is None:
        count = store.reports.count()
        raise UsageError(
            f"no saved report {report_id} (the store holds {count})", "see `qrelkit reports list` for the ids"
        )
    kind, name, created, body = row[0], row[1] or "", row[2] or "", row[3]
    try:
        if kind == "comparison":
            return SavedReport(name=name, created=created, comparison=Comparison.model_validate_json(body))
        if kind == "score":
            return SavedReport(name=name, created=created, score=ScoreReport.model_validate_json(body))
    except ValidationError as exc:
        raise UsageError(
            f"saved report {report_id} does not read as a {kind} report ({exc.error_count()} problems)",
            "save it again with this qrelkit version",
        ) from None
    raise UsageError(
        f"saved report {report_id} is a {kind!r} report, which this qrelkit cannot show",
        "upgrade qrelkit, or show another report",
    )
