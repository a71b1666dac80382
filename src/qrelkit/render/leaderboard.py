"""A leaderboard (baseline against many candidates) and a sensitivity report: terminal tables,
CSV (one row per run and metric) and LaTeX (booktabs, significance as superscripts)."""

from __future__ import annotations

import csv
import io

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..models import Leaderboard, RunCell, SensitivityReport
from .queries import board_note, listed, unlabeled_notes
from .styles import csv_cell, data, delta, interval, number, one_line, percent

UP, DOWN = "▲", "▼"
"""Marks of a candidate significantly above / below the baseline (after the correction)."""


def mark(cell: RunCell) -> str:
    if not cell.significant or cell.delta is None:
        return ""
    return UP if cell.delta > 0 else DOWN


def _correction_note(lb: Leaderboard) -> str:
    how = {
        "holm": "Holm over the paired randomization tests against the baseline",
        "bonferroni": "Bonferroni over the paired randomization tests against the baseline",
        "tukey": "randomized Tukey HSD over every pair of runs",
        "none": "no correction",
    }[lb.correction]
    return (
        f"{UP}/{DOWN}: significantly above/below the baseline at alpha {lb.alpha:g} ({how}; one family per metric). "
        f"{lb.queries} queries ({board_note(sum(1 for r in lb.rows if r.missing_from_run))}), "
        f"{lb.resamples:,} resamples, seed {lb.seed}."
    )


def leaderboard_tables(lb: Leaderboard) -> RenderableType:
    """One table per metric (rows: runs, the baseline first), then the sensitivity table."""
    parts: list[RenderableType] = [
        Text.assemble(("baseline ", "bold"), data(lb.baseline), f" against {len(lb.runs) - 1} candidates")
    ]
    for m in lb.metrics:
        tile = " (headline)" if m == lb.headline else " (recall)" if m == lb.recall else ""
        table = Table(
            "run", "mean", "95% CI", "coverage", "bounds", "delta", "95% CI of delta", "p", "p adj.", "",
            title=Text.assemble(data(m), tile), title_justify="left",
        )  # fmt: skip
        for row in lb.rows:
            c = row.cells[m]
            table.add_row(
                data(row.run, "bold" if row.baseline else ""),
                number(c.mean, 4),
                _span(c.ci95),
                percent(c.coverage, 0),
                _span(c.bounds),
                "baseline" if row.baseline else delta(c.delta or 0.0, c.direction or "flat"),
                interval(c.delta_ci95, 3, sign=True) if c.delta_ci95 else "",
                number(c.p_value, 4) if not row.baseline else "",
                number(c.p_adjusted, 4) if not row.baseline else "",
                mark(c),
            )
        parts.append(table)
    parts.append(Text(_correction_note(lb), style="dim"))
    left_out = sorted({q for row in lb.rows for q in row.missing_queries})
    if left_out:
        shown = ", ".join(left_out[:10]) + (" ..." if len(left_out) > 10 else "")
        parts.append(
            data(
                f"compared over the {lb.queries} queries every report holds; left out for every run: {shown}", "yellow"
            )
        )
    for row in lb.rows:
        if row.missing_queries:
            shown = ", ".join(row.missing_queries[:10]) + (" ..." if len(row.missing_queries) > 10 else "")
            parts.append(
                Text.assemble(
                    data(f"{row.run}: ", "yellow"),
                    data(f"its report has no value for {len(row.missing_queries)} of them: {shown}", "yellow"),
                )
            )
    parts += _query_notes(lb)
    for m in lb.mismatches:
        parts.append(Text.assemble(("compared despite: ", "yellow"), data(m, "yellow")))
    if lb.best is not None:
        parts.append(Text.assemble("best candidate on ", data(lb.headline), ": ", data(lb.best, "bold")))
    if lb.sensitivity is not None:
        parts.append(sensitivity_table(lb.sensitivity))
    return Group(*parts)


def _query_notes(lb: Leaderboard) -> list[RenderableType]:
    """Each run that lacks compared queries (scored 0), naming them; the queries with no label."""
    parts: list[RenderableType] = []
    for row in lb.rows:
        if row.missing_from_run:
            n = len(row.missing_from_run)
            parts.append(
                data(
                    f"{row.run}: its run has no document for {n} of the compared {'query' if n == 1 else 'queries'}, "
                    f"scored 0 there: {listed(row.missing_from_run)}",
                    "yellow",
                )
            )
    return parts + [data(x, "dim") for x in unlabeled_notes([(r.run, r.queries) for r in lb.rows])]


def _span(ci: tuple[float, float] | None) -> str:
    """An interval as `0.654–0.839`, or `-`."""
    return "-" if ci is None else f"{number(ci[0], 3)}–{number(ci[1], 3)}"


def sensitivity_table(rep: SensitivityReport) -> Table:
    """Per metric and stratum: SD, SE, SD of the paired differences, the minimum detectable effect,
    the queries needed for --delta, and the discriminative power."""
    needed = f"n for {rep.delta:g}" if rep.delta is not None else "n for delta"
    table = Table(
        "metric", "stratum", "n", "SD", "SE", "SD diff", "MDE", needed, "disc. power",
        title=f"sensitivity (paired t-test, alpha {rep.alpha:g}, power {rep.power:g})", title_justify="left",
    )  # fmt: skip
    for s in rep.rows:
        table.add_row(
            data(s.metric),
            data(s.stratum) if s.stratum is not None else Text("all queries", style="bold"),
            str(s.n),
            number(s.sd, 3),
            number(s.se, 4),
            number(s.sd_diff, 3),
            number(s.mde, 4),
            str(s.queries_needed) if s.queries_needed is not None else "-",
            number(s.discriminative_power, 2),
        )
    return table


CSV_FIELDS = (
    "run", "baseline", "metric", "mean", "ci_low", "ci_high", "coverage", "bounds_low", "bounds_high",
    "delta", "delta_ci_low", "delta_ci_high", "p_value", "p_adjusted", "significant", "correction", "missing_queries",
    "missing_from_run", "unlabeled",
)  # fmt: skip


def leaderboard_csv(lb: Leaderboard) -> str:
    """One row per run and metric (long format); empty cells where a value does not apply; names
    through `csv_cell`."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for row in lb.rows:
        for m in lb.metrics:
            c = row.cells[m]
            w.writerow(
                [
                    csv_cell(row.run), int(row.baseline), csv_cell(m), _f(c.mean), *_pair(c.ci95), _f(c.coverage),
                    *_pair(c.bounds),
                    _f(c.delta), *_pair(c.delta_ci95), _f(c.p_value), _f(c.p_adjusted),
                    "" if row.baseline else int(c.significant), lb.correction, len(row.missing_queries),
                    len(row.missing_from_run), row.queries.unlabeled if row.queries else "",
                ]
            )  # fmt: skip
    return out.getvalue()


def sensitivity_csv(rep: SensitivityReport) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("metric", "stratum", "n", "sd", "se", "sd_diff", "mde", "queries_needed", "discriminative_power"))
    for s in rep.rows:
        w.writerow(
            [csv_cell(s.metric), csv_cell(s.stratum or ""), s.n, _f(s.sd), _f(s.se), _f(s.sd_diff), _f(s.mde),
             "" if s.queries_needed is None else s.queries_needed, _f(s.discriminative_power)]
        )  # fmt: skip
    return out.getvalue()


def _f(x: float | None) -> str:
    return "" if x is None else repr(float(x))


def _pair(x: tuple[float, float] | None) -> list[str]:
    return ["", ""] if x is None else [repr(float(x[0])), repr(float(x[1]))]


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def latex_escape(text: str) -> str:
    """Untrusted text (run and metric names) as LaTeX text on one line: control characters (C0
    with tab and newline, DEL, C1, the direction controls) written visibly as in a terminal
    (`\\x1b`, `\\x0a`: a blank line would end the tabular's paragraph), then special characters
    escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in one_line(text))


def leaderboard_latex(lb: Leaderboard) -> str:
    """A booktabs table as papers print it: one row per run, one column per metric, the best mean
    of each column in bold, a superscript on candidates significantly above or below the baseline."""
    best = {m: max(r.cells[m].mean or 0.0 for r in lb.rows) for m in lb.metrics}
    lines = [
        "% qrelkit leaderboard: needs \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        "\\begin{tabular}{l" + "r" * len(lb.metrics) + "}",
        "\\toprule",
        "Run & " + " & ".join(latex_escape(m) for m in lb.metrics) + " \\\\",
        "\\midrule",
    ]
    for row in lb.rows:
        cells = []
        for m in lb.metrics:
            c = row.cells[m]
            value = "--" if c.mean is None else f"{c.mean:.4f}"
            if c.mean is not None and abs(c.mean - best[m]) < 5e-5:
                value = f"\\textbf{{{value}}}"
            sup = {UP: "$^{\\uparrow}$", DOWN: "$^{\\downarrow}$"}.get(mark(c), "")
            cells.append(value + sup)
        lines.append(latex_escape(row.run) + " & " + " & ".join(cells) + " \\\\")
        if row.baseline:
            lines.append("\\midrule")
    how = {
        "holm": "Holm-corrected paired randomization tests",
        "bonferroni": "Bonferroni-corrected paired randomization tests",
        "tukey": "randomized Tukey HSD",
        "none": "uncorrected paired randomization tests",
    }
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{Baseline {latex_escape(lb.baseline)} first. $\\uparrow$/$\\downarrow$: significantly above/below "
        f"the baseline ({how[lb.correction]}, $\\alpha = {lb.alpha:g}$, "
        f"{lb.queries} queries). Best mean per column in bold.}}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"
