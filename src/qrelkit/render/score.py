"""Score reports as a table, JSON, TREC lines or CSV."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from ..formats.json_text import dumps
from ..models.plain import PlainScoreReport, PlainSummary, json_data
from . import text
from .queries import unlabeled_note
from .styles import LOW_COVERAGE, column, coverage_cell, csv_cell, data
from .trec_eval import trec_eval_reports

if TYPE_CHECKING:  # rich loads when a table is drawn: JSON, TREC and CSV output never import it
    from rich.console import RenderableType
    from rich.table import Table
    from rich.text import Text

ScoreFormat = Literal["table", "json", "trec", "csv", "trec_eval"]

TABLE_WIDTH = 110
"""Score tables are laid out at least this wide (narrower terminals scroll rather than wrap)."""


def render_reports(
    reports: Sequence[PlainScoreReport],
    fmt: ScoreFormat,
    *,
    per_query: bool = False,
    min_coverage: float | None = None,
    width: int = TABLE_WIDTH,
    color: bool = False,
    names: Mapping[str, str] | None = None,
    runids: Sequence[str] | None = None,
) -> str:
    """Every report in one format. JSON is always one `ScoreReports` object (one report or many),
    under canonical names; TREC lines gain a leading run column when several runs were scored.
    `names` (canonical -> trec_eval's) renames the metrics of tables, TREC lines and CSV, and
    is what `trec_eval` output prints; `runids` are its `runid` lines (default: the run names).
    The reports are plain data (`models.plain`; `models.to_plain` makes a read one so); the JSON is
    the bytes pydantic writes of the models (`formats.json_text`), without importing pydantic."""
    if fmt == "json":
        return dumps({"reports": [json_data(r) for r in reports]}) + "\n"
    if fmt == "trec_eval":
        ids = list(runids) if runids is not None else [r.fingerprint.run.name for r in reports]
        return trec_eval_reports(reports, names or {}, ids, per_query=per_query)
    if names:
        reports = [renamed(r, names) for r in reports]
    if fmt == "trec":
        return "".join(trec_lines(r, per_query, run_column=len(reports) > 1) for r in reports)
    if fmt == "csv":
        return csv_text(reports, per_query)
    threshold = min_coverage if min_coverage is not None else LOW_COVERAGE
    parts = [score_tables(r, threshold, per_query=per_query) for r in reports]
    return "".join(text(p, width=max(width, TABLE_WIDTH), color=color) for p in parts)


def renamed(rep: PlainScoreReport, names: Mapping[str, str]) -> PlainScoreReport:
    """The report with its metrics under other names (`names`; a metric not in it keeps its own)."""

    def name(metric: str) -> str:
        return names.get(metric, metric)

    per_query = rep.per_query and {q: {name(m): v for m, v in ms.items()} for q, ms in rep.per_query.items()}
    fp = replace(rep.fingerprint, metrics=[name(m) for m in rep.fingerprint.metrics])
    return replace(rep, metrics={name(m): v for m, v in rep.metrics.items()}, per_query=per_query, fingerprint=fp)


def trec_lines(rep: PlainScoreReport, per_query: bool, *, run_column: bool = False) -> str:
    """trec_eval's `MEASURE<TAB>QUERY<TAB>VALUE` lines (`all` for the mean); with `run_column`,
    `RUN<TAB>MEASURE<TAB>QUERY<TAB>VALUE`."""
    prefix = f"{rep.fingerprint.run.name}\t" if run_column else ""
    lines = []
    if per_query and rep.per_query:
        for qid, measures in rep.per_query.items():
            for name, qs in measures.items():
                lines.append(f"{prefix}{name}\t{qid}\t{qs.value:.6f}")
    for name, m in rep.metrics.items():
        lines.append(f"{prefix}{name}\tall\t{_fixed(m.mean, 6)}")
    return "\n".join(lines) + "\n"


SUMMARY_COLUMNS = ["n", "mean", "sd", "se", "ci_low", "ci_high", "coverage", "bound_low", "bound_high"]


def _summary_row(s: PlainSummary) -> list[object]:
    stats = [s.mean, s.sd, s.se, *s.ci95]
    return [s.n, *("" if math.isnan(x) else x for x in stats), s.coverage, *(s.bounds or ("", ""))]


def csv_text(reports: Sequence[PlainScoreReport], per_query: bool) -> str:
    """One row per run, metric and stratum (`all` first), or per run, query and metric (`in_run`
    false: the run has no document for the query, scored 0; empty when the report does not say).
    The summary rows end with the run's query counts: missing from the run (scored 0) and with no
    label (left out, or scored 0 when kept). Text cells go through `csv_cell`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if per_query:
        w.writerow(["run", "query", "metric", "value", "coverage", "bound_low", "bound_high", "in_run"])
        for rep in reports:
            run = csv_cell(rep.fingerprint.run.name)
            missing = set(rep.missing_from_run or ())
            for qid, measures in (rep.per_query or {}).items():
                in_run = "" if rep.missing_from_run is None else str(qid not in missing).lower()
                for name, qs in measures.items():
                    bounds = qs.bounds or ("", "")
                    w.writerow([run, csv_cell(qid), csv_cell(name), qs.value, qs.coverage, *bounds, in_run])
        return buf.getvalue()
    w.writerow(["run", "metric", "stratum", *SUMMARY_COLUMNS, "weighted_mean", "missing_from_run", "unlabeled"])
    for rep in reports:
        q = rep.queries
        counts, run = [q.missing_from_run, q.unlabeled], csv_cell(rep.fingerprint.run.name)
        for name, m in rep.metrics.items():
            w.writerow([run, csv_cell(name), "all", *_summary_row(m), m.weighted_mean, *counts])
            for s, sub in m.by_stratum.items():
                w.writerow([run, csv_cell(name), csv_cell(s), *_summary_row(sub), "", *counts])
    return buf.getvalue()


def _against(rep: PlainScoreReport) -> Text:
    fp = rep.fingerprint
    if fp.golden:
        g = fp.golden
        labels = "" if g.labels == "human" else f", {g.labels} labels: {g.machine_assessor}"
        return data(f"{g.name} ({g.version or 'working copy'}, {g.content_hash[:19]}{labels})")
    return data(fp.qrels.name if fp.qrels else "?")


def score_tables(rep: PlainScoreReport, threshold: float = LOW_COVERAGE, *, per_query: bool = False) -> RenderableType:
    """The summary table, its notes, the per-stratum table (several strata) and, with
    `per_query`, every query's values."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    q = rep.queries
    title = Text.assemble(data(rep.fingerprint.run.name, "bold"), " vs ", _against(rep))
    table = Table("metric", "mean", "95% CI", "weighted", "coverage", "bounds", title=title)
    for name, m in rep.metrics.items():
        table.add_row(
            data(name),
            _fixed(m.mean, 4),
            _interval(m.ci95),
            "-" if m.weighted_mean is None else f"{m.weighted_mean:.4f}",
            coverage_cell(m.coverage, threshold),
            "-" if m.bounds is None else f"{m.bounds[0]:.3f}–{m.bounds[1]:.3f}" + ("" if m.exact else " (outer)"),
        )
    notes = Text(
        f"macro mean over {q.evaluated} {'query' if q.evaluated == 1 else 'queries'}: "
        f"{q.missing_from_run} missing from the run (scored 0), "
        f"{q.run_only} run-only ignored, "
        + (f"{q.outside_profile} outside the profile's strata, " if q.outside_profile else "")
        + f"{q.no_relevant} with no relevant document."
        + (f" {unlabeled_note(q)}" if q.unlabeled else "")
        + "\nweighted: traffic-weighted over strata. bounds: mean lowest/highest value over every labeling "
        f"of the unlabeled documents. ! coverage < {threshold:.0%}",
        style="dim",
    )
    if rep.run_read_as:
        notes.append(f"\nrun {rep.run_read_as}: ranked by rank, rank 1 first.")
    parts: list[RenderableType] = [table, notes]
    strata = sorted({s for m in rep.metrics.values() for s in m.by_stratum})
    if len(strata) > 1:
        by = Table("metric", *[column(f"{s} (n={_n(rep, s)})") for s in strata], title="by stratum: mean · coverage")
        for name, m in rep.metrics.items():
            by.add_row(data(name), *[_stratum_cell(m.by_stratum.get(s), threshold) for s in strata])
        parts.append(by)
    if per_query and rep.per_query:
        parts.append(per_query_table(rep, threshold))
    return Group(*parts)


NOT_IN_RUN = "not in run: 0"
"""How per-query tables mark a query the run has no document for."""
UNLABELED_MARK = "no labels: 0"
"""How per-query tables mark a query with no label, kept by --keep-unlabeled-queries."""


def _query_cell(qid: str, missing: set[str], unlabeled: set[str]) -> Text:
    marks = [m for m, on in ((NOT_IN_RUN, qid in missing), (UNLABELED_MARK, qid in unlabeled)) if on]
    cell = data(qid)
    if marks:
        cell.append(f" ({'; '.join(marks)})", style="yellow")
    return cell


def per_query_table(rep: PlainScoreReport, threshold: float = LOW_COVERAGE) -> Table:
    """Every query's value and coverage, one row per query, one column per metric; a query the run
    has no document for (or, kept, with no label) says so beside its id."""
    from rich.table import Table
    from rich.text import Text

    names = list(rep.metrics)
    missing, unlabeled = set(rep.missing_from_run or ()), set(rep.unlabeled_queries or ())
    table = Table("query", *[column(n) for n in names], title="per query: value · coverage")
    for qid, measures in (rep.per_query or {}).items():
        cells: list[RenderableType] = []
        for n in names:
            qs = measures.get(n)
            cells.append(
                "-" if qs is None else Text.assemble(f"{qs.value:.4f} · ", coverage_cell(qs.coverage, threshold))
            )
        table.add_row(_query_cell(qid, missing, unlabeled), *cells)
    return table


def _n(rep: PlainScoreReport, stratum: str) -> int:
    first = next(iter(rep.metrics.values()))
    sub = first.by_stratum.get(stratum)
    return sub.n if sub else 0


def _stratum_cell(sub: PlainSummary | None, threshold: float) -> Text:
    from rich.text import Text

    if sub is None:
        return Text("-")
    return Text.assemble(f"{_fixed(sub.mean, 3)} · ", coverage_cell(sub.coverage, threshold))


NOT_AVAILABLE = "n/a"
"""What a table shows for a statistic over zero queries (NaN; null in JSON)."""


def _fixed(x: float, digits: int) -> str:
    return NOT_AVAILABLE if math.isnan(x) else f"{x:.{digits}f}"


def _interval(ci: tuple[float, float]) -> str:
    return NOT_AVAILABLE if math.isnan(ci[0]) else f"{ci[0]:.3f}–{ci[1]:.3f}"
