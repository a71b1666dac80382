"""A calibration report (`qrelkit calibrate`) as terminal tables: agreement overall and per
stratum, the confusion matrix, per human grade, self-consistency, and the runs' rankings."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..models.calibration import AgreementFigures, CalibrationReport, Consistency, RankingFigures
from .styles import data, number, percent


def calibration_table(report: CalibrationReport) -> RenderableType:
    """The report as rich renderables."""
    head = Text.assemble(
        "machine assessor ", data(report.machine_assessor, "bold"),
        f" against the resolved human labels (grades 0..{report.max_grade})",
    )  # fmt: skip
    legend = Text(
        "kappa: Cohen's, linear (l) and quadratic (q) weights; alpha: Krippendorff's\n"
        "(ordinal); same, over, under: the machine's grade equal to, above, below the\nhumans'",
        style="dim",
    )
    parts: list[RenderableType] = [head, _agreement(report), legend, _apart(report)]
    parts += [_confusion(report.overall, report.max_grade), _grades(report.overall)]
    parts.append(_consistency(report.consistency))
    if report.ranking is not None:
        parts += _ranking(report.ranking)
    return Group(*parts)


def _agreement(report: CalibrationReport) -> Table:
    table = Table(
        "stratum", "pairs", "kappa l", "kappa q", "alpha", "same", "over", "under",
        title="agreement on the pairs both graded",
    )  # fmt: skip
    slices = [(data(s), f) for s, f in report.by_stratum.items()]
    for label, f in [*slices, (Text("all", style="bold"), report.overall)]:
        table.add_row(
            label, str(f.pairs), number(f.kappa_linear), number(f.kappa_quadratic), number(f.alpha_ordinal),
            percent(f.exact_agreement), percent(f.over_rate), percent(f.under_rate),
        )  # fmt: skip
    return table


def _apart(report: CalibrationReport) -> Text:
    f = report.overall
    not_ok = ", ".join(f"{n} {status}" for status, n in f.machine_not_ok.items()) or "none"
    text = Text(
        f"counted apart, never as a grade: {f.human_skipped} human skips the machine answered;\n"
        f"replies that did not parse on human-labeled pairs: {not_ok};\n"
        f"{f.machine_missing} human labels the machine never answered;\n"
        f"{f.machine_only} machine grades on pairs no human labeled",
        style="dim",
    )
    if f.pairs == 0:
        text.append(
            "\nnothing to calibrate yet: no pair has both a human and a machine grade "
            "(`qrelkit assess --pairs human` asks the machine about the pairs people labeled)",
            style="bold",
        )
    return text


def _confusion(f: AgreementFigures, max_grade: int) -> Table:
    grades = range(max_grade + 1)
    table = Table("human \\ machine", *[str(g) for g in grades], "pairs", title="confusion matrix (all strata)")
    for g in grades:
        table.add_row(str(g), *[str(n) for n in f.confusion[g]], str(sum(f.confusion[g])))
    return table


def _grades(f: AgreementFigures) -> Table:
    table = Table("human grade", "pairs", "same", "machine over", "machine under", title="per human grade")
    for row in f.by_grade:
        table.add_row(
            str(row.grade), str(row.pairs), percent(row.agree_rate), percent(row.over_rate), percent(row.under_rate)
        )
    return table


def _consistency(c: Consistency) -> Text:
    line = (
        f"self-consistency over the latest {c.samples} parsed rows per pair:\n"
        + (f"flip rate {percent(c.flip_rate)} ({c.flipped} of {c.pairs} pairs asked 2+ times)" if c.pairs else
           "no pair was asked twice (assess --refresh asks again)")
    )  # fmt: skip
    if c.deterministic:
        line += "\nthis judge is deterministic: its flip rate is 0 by construction"
    return Text(line)


def _ranking(r: RankingFigures) -> list[RenderableType]:
    table = Table(
        "run", "human", "machine", "infl.", "vs mean", "se", "rank", "",
        title=f"{r.metric} of each run over the {r.queries} queries both label sets score", box=box.SIMPLE_HEAD,
        collapse_padding=True, show_edge=False,
    )  # fmt: skip
    for row in r.runs:
        table.add_row(
            data(row.run), f"{row.human:.3f}", f"{row.machine:.3f}", f"{row.inflation:+.3f}",
            number(row.relative, 3, sign=True), number(row.relative_se, 3), f"{row.human_rank} -> {row.machine_rank}",
            Text("favoured?", style="yellow") if row.favoured else "",
        )  # fmt: skip
    stay = (
        f"{r.stayed} of {r.significant_pairs} ({percent(r.stay_share)}) stay so under machine labels, "
        f"{r.reversed} reverse" if r.significant_pairs else "none under human labels"
    )  # fmt: skip
    legend = Text(
        "infl.: machine - human; vs mean: that minus the runs' mean inflation (per\n"
        "query), se its standard error; rank: under human labels -> under machine labels",
        style="dim",
    )
    lines = Text(
        f"Kendall's tau between the rankings: {number(r.tau)} overall,\n"
        f"{number(r.tau_top)} among the top {r.top_k} by human score\n"
        f"run pairs different at alpha {r.alpha:g} (paired randomization test, {r.resamples:,} resamples)\n"
        f"under human labels: {stay};\n"
        f"{r.machine_only_significant} different under machine labels only\n"
        "favoured?: vs mean more than 2 se above 0 (the machine's labels favour the run)"
    )
    return [table, legend, lines]
