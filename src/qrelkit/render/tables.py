"""The other tables the edges show: store status, strata, profiles, the judging queue, run
coverage, assessor agreement, the diff of two versions, assessors' flags on queries."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..models import (
    AgreementReport,
    Flag,
    GradeScale,
    LabelChange,
    QueueItem,
    RunCoverage,
    ScoringProfile,
    StoreStatus,
    VersionDiff,
)
from ..models.machine import MachineCount
from .styles import column, data, number, percent


def status_table(st: StoreStatus, scale: GradeScale) -> RenderableType:
    """Counts per stratum: queries, labels per grade, skipped, unlabeled pool."""
    grades = [str(level.grade) for level in scale.every_level()]
    head = Text.assemble(
        data(st.name, "bold"), f": {st.queries} queries, {st.documents} documents, {st.judgment_events} judgment events"
    )
    caption = Text("grades: ") + Text(" · ").join(data(f"{g} {scale.name_of(int(g))}") for g in grades)
    table = Table("stratum", "weight", "queries", *grades, "skipped", "unlabeled", caption=caption)
    for s in st.strata:
        table.add_row(
            data(s.name),
            "-" if s.weight is None else f"{s.weight:g}",
            str(s.queries),
            *[str(s.labels.get(g, 0)) for g in grades],
            str(s.skipped),
            str(s.unlabeled_pool),
        )
    table.add_row(
        Text("all", style="bold"),
        "",
        str(st.queries),
        *[str(st.labels.get(g, 0)) for g in grades],
        str(st.skipped),
        str(st.unlabeled_pool),
    )
    return Group(head, table)


def strata_table(st: StoreStatus, shares: Mapping[str, float | None]) -> Table:
    table = Table("stratum", "weight", "share", "queries")
    for s in st.strata:
        table.add_row(
            data(s.name), "-" if s.weight is None else f"{s.weight:g}", percent(shares.get(s.name)), str(s.queries)
        )
    return table


def profiles_table(profiles: Sequence[ScoringProfile]) -> Table:
    table = Table("profile", "metrics", "strata")
    for p in profiles:
        table.add_row(data(p.name), data(", ".join(p.metrics)), data(", ".join(p.strata) if p.strata else "all"))
    return table


def removals_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """The recorded removals: when, what, by whom, and what went with it."""
    table = Table("#", "when", "kind", "name", "by", "labels cleared", "pooled dropped", title="removals")
    for r in rows:
        body = json.loads(r["body"])
        table.add_row(
            str(r["id"]), data(r["ts"][:19]), data(r["kind"]), data(r["name"]), data(r["assessor"] or "-"),
            str(body.get("judged_pairs", 0)), str(body.get("pooled", 0)),
        )  # fmt: skip
    return table


def queue_table(items: Sequence[QueueItem], order: str) -> Table:
    table = Table("#", "query", "document", "priority", "best rank", "pooled by", caption=f"order: {order}")
    for n, i in enumerate(items, 1):
        rank = "-" if i.best_rank is None else str(i.best_rank)
        table.add_row(str(n), data(i.query_id), data(i.doc_id), f"{i.priority:.4g}", rank, data(i.source))
    return table


def run_coverage_tables(reports: Sequence[RunCoverage], k: int, *, holes: int, per_query: bool) -> RenderableType:
    """Coverage @k per run and stratum, then each run's largest holes (or every query)."""
    names = sorted({s for r in reports for s in r.by_stratum})
    table = Table("run", *[column(n) for n in names], "all", title=f"judged coverage @{k} (mean over queries)")
    for r in reports:
        table.add_row(data(r.run), *[number(r.by_stratum.get(s)) for s in names], number(r.coverage))
    parts: list[RenderableType] = [table]
    for r in reports:
        rows = sorted(r.queries, key=lambda q: (-q.holes, q.query_id))
        listed = rows if per_query else [q for q in rows if q.holes > 0][:holes]
        if not listed:
            parts.append(Text.assemble(data(r.run), f": no unlabeled document in any query's top {k}"))
            continue
        title = Text.assemble(
            data(r.run), ": " + ("every query" if per_query else f"largest holes (unlabeled in the top {k})")
        )
        t = Table("query", "stratum", "unlabeled", "labeled", "coverage", title=title)
        for q in listed:
            cov = q.labeled / q.retrieved if q.retrieved else None
            t.add_row(data(q.query_id), data(q.stratum), str(q.holes), str(q.labeled), number(cov))
        parts.append(t)
    return Group(*parts)


def agreement_table(rep: AgreementReport) -> Table:
    pairs = sorted({k for st in [rep.overall, *rep.by_stratum.values()] for k in st.kappa_linear})
    table = Table("stratum", "pairs", "skipped", "raw", "alpha (ordinal)", *[column(f"kappa {p}") for p in pairs])
    rows = [*((data(name), st) for name, st in rep.by_stratum.items()), (Text("all", style="bold"), rep.overall)]
    for name, st in rows:
        table.add_row(
            name,
            str(st.n_pairs),
            str(st.skipped),
            number(st.raw_agreement),
            number(st.alpha_ordinal),
            *[number(st.kappa_linear.get(p)) for p in pairs],
        )
    return table


def _label_changes(changes: list[LabelChange], most: int = 20) -> list[Text]:
    """`  q1 d3: 1 -> 2` for the first `most` changed pairs (`-` where there was no label)."""
    lines = [
        data(f"  {c.query_id} {c.doc_id}: {'-' if c.from_grade is None else c.from_grade} -> "
             f"{'-' if c.to_grade is None else c.to_grade}")
        for c in changes[:most]
    ]  # fmt: skip
    if len(changes) > most:
        lines.append(Text(f"  (+{len(changes) - most} more: --format json lists every one)", style="dim"))
    return lines


def _listed(*kinds: tuple[str, list[str]], most: int = 20) -> list[Text]:
    """`  added: a, b, c` for every kind of change that has ids (at most `most` named)."""
    lines = []
    for kind, ids in kinds:
        if ids:
            more = f" (+{len(ids) - most} more)" if len(ids) > most else ""
            lines.append(data(f"  {kind}: {', '.join(ids[:most])}{more}"))
    return lines


def diff_lines(d: VersionDiff) -> RenderableType:
    """What changed between two versions, a line per kind of change."""
    lines = [
        Text.assemble(
            data(f"{d.from_version} -> {d.to_version}", "bold"), "" if d.content_changed else " (same content)"
        )
    ]
    if not d.same_golden_set:
        lines.append(Text("versions of two different golden sets: much of what differs is no change", "yellow"))
    q = d.queries
    lines.append(Text(f"queries: +{len(q.added)} -{len(q.removed)} moved {len(q.moved)}"))
    lines[-1].append(f", text changed {len(q.text_changed)}, guidelines changed {len(q.guidelines_changed)}")
    lines += _listed(
        ("added", q.added), ("removed", q.removed), ("moved", q.moved),
        ("text changed", q.text_changed), ("guidelines changed", q.guidelines_changed),
    )  # fmt: skip
    docs = d.documents
    lines.append(Text(f"documents: +{len(docs.added)} -{len(docs.removed)} changed {len(docs.changed)}"))
    lines += _listed(("added", docs.added), ("removed", docs.removed), ("changed", docs.changed))
    lab = d.labels
    regraded = ", ".join(f"{k}: {n}" for k, n in lab.regraded.items()) or "none"
    lines.append(Text(f"labels: +{lab.added} -{lab.removed}, regraded {regraded}"))
    for stratum, changes in lab.regraded_by_stratum.items():
        lines.append(data(f"  {stratum}: " + ", ".join(f"{k}: {n}" for k, n in changes.items())))
    lines += _label_changes(lab.changes)
    for stratum, w in d.strata.items():
        lines.append(data(f"stratum {stratum}: weight {w.from_weight} -> {w.to_weight}"))
    for kind, names in (("added", d.profiles.added), ("removed", d.profiles.removed), ("changed", d.profiles.changed)):
        if names:
            lines.append(data(f"profiles {kind}: {', '.join(names)}"))
    lines.append(Text(f"pool coverage: {percent(d.coverage.from_coverage)} -> {percent(d.coverage.to_coverage)}"))
    return Group(*lines)


def flags_table(found: Sequence[Flag]) -> Table:
    """Assessors' flags on queries, oldest first: query, document on screen, who, when, why."""
    table = Table("query", "document", "assessor", "when (UTC)", "reason")
    for flag in found:
        when = flag.timestamp.strftime("%Y-%m-%d %H:%M") if flag.timestamp else "-"
        table.add_row(data(flag.query_id), data(flag.doc_id or "-"), data(flag.assessor), when, data(flag.reason))
    return table


def machine_table(counts: Sequence[MachineCount]) -> Table:
    """Machine labels per assessor and parse status (kept apart: none is in the table above)."""
    table = Table("machine assessor", "status", "pairs", "rows", title="machine labels (apart from the human labels)")
    for c in counts:
        table.add_row(data(c.assessor), c.status, f"{c.pairs:,}", f"{c.rows:,}")
    return table
