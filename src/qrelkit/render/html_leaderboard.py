"""A leaderboard (`qrelkit compare BASELINE RUN RUN... --format html`) as one self-contained page:
inline CSS, a few lines of inline script to sort the table by a clicked column, no network.

Pure: takes a `Leaderboard`, returns text. One row per run: per metric its mean and 95% interval,
the paired delta to the baseline with its significance mark (under the chosen correction),
coverage and bounds; then the queries a run lacks, the sensitivity of each metric when known, and
the two tiles of the baseline against the best candidate.
"""

from __future__ import annotations

import math

from ..models import Leaderboard, LeaderboardRow, RunCell, SensitivityReport
from .html import _CSS, _f, _text, disagreement, tiles
from .queries import board_note, listed, paired_note, unlabeled_notes

_SORT_CSS = """
table.sortable th[data-col] { cursor: pointer; user-select: none; }
table.sortable th[data-col]:hover { color: var(--fg); }
table.sortable th.group { text-align: left; border-left: 1px solid var(--line); }
table.sortable tbody td:first-child { position: sticky; left: 0; background: white; }
table.sortable thead th:first-child { position: sticky; left: 0; }
table.sortable th[aria-sort="ascending"]::after { content: " ▲"; }
table.sortable th[aria-sort="descending"]::after { content: " ▼"; }
tr.baseline td, table.sortable tbody tr.baseline td:first-child { background: #fbfcfd; font-weight: 500; }
sup.sig { font-weight: 600; }
"""

_SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th[data-col]").forEach(function (th) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], col = parseInt(th.getAttribute("data-col"), 10);
      var dir = th.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir);
      function key(row) {
        var cell = row.cells[col], v = cell.getAttribute("data-v");
        return v === null ? cell.textContent : (v === "" ? null : parseFloat(v));
      }
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === null || y === null) { return x === y ? 0 : (x === null ? 1 : -1); }
        var c = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
        return dir === "ascending" ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

UP, DOWN = "▲", "▼"
"""Marks of a candidate significantly above / below the baseline (as the terminal table marks them)."""

CORRECTION_TEXT = {
    "holm": "Holm over the paired randomization tests of the candidates against the baseline, per metric",
    "bonferroni": "Bonferroni over the paired randomization tests of the candidates against the baseline, per metric",
    "tukey": "randomized Tukey HSD over every pair of runs, per metric",
    "none": "no correction for multiple comparisons",
}


def _v(x: float | None) -> str:
    """A cell's sort key (empty: no value, sorted last)."""
    return "" if x is None or not math.isfinite(x) else repr(float(x))


def _num(x: float | None, digits: int = 4, sign: str = "") -> str:
    """A number cell with its sort key."""
    shown = "–" if x is None else f"{sign}{x:.{digits}f}"
    return f'<td data-v="{_v(x)}">{shown}</td>'


def _interval(ci: tuple[float, float] | None, sign: bool = False) -> str:
    if ci is None:
        return ""
    return f'<br><small class="ci">[{_f(ci[0], 3, sign)}, {_f(ci[1], 3, sign)}]</small>'


def _delta_cell(lb: Leaderboard, cell: RunCell | None, baseline: bool) -> str:
    if baseline:
        return '<td data-v="">baseline</td>'
    if cell is None or cell.delta is None:
        return '<td data-v="">–</td>'
    colour = cell.direction or "flat"
    mark = f'<sup class="sig">{UP if cell.delta > 0 else DOWN}</sup>' if cell.significant else ""
    p = f"p {_f(cell.p_value)}" if cell.p_value is not None else "p –"
    adjusted = f", {lb.correction} {_f(cell.p_adjusted)}" if cell.p_adjusted is not None else ""
    note = _note(lb, cell)
    flag = ' <span class="warn">◆</span>' if note else ""
    return (
        f'<td data-v="{_v(cell.delta)}" class="{colour}" title="{p}{adjusted}{": " + _text(note) if note else ""}">'
        f"{_f(cell.delta, sign=True)}{mark}{flag}{_interval(cell.delta_ci95, sign=True)}</td>"
    )


def _note(lb: Leaderboard, cell: RunCell) -> str | None:
    """The sentence when the cell's interval and its (uncorrected) test disagree."""
    if cell.delta_ci95 is None or cell.p_value is None:
        return None
    return disagreement(cell.delta_ci95, cell.p_value, lb.queries, lb.alpha)


def _cells(lb: Leaderboard, row: LeaderboardRow, metric: str) -> str:
    cell = row.cells.get(metric)
    if cell is None:
        return '<td data-v="">–</td>' * 4
    bounds = f"[{_f(cell.bounds[0], 3)}, {_f(cell.bounds[1], 3)}]" if cell.bounds else "–"
    return (
        f'<td data-v="{_v(cell.mean)}">{_f(cell.mean)}{_interval(cell.ci95)}</td>'
        + _delta_cell(lb, cell, row.baseline)
        + f'<td data-v="{_v(cell.coverage)}">{_f(cell.coverage, 3)}</td>'
        + f'<td data-v="{_v(cell.bounds[0] if cell.bounds else None)}">{bounds}</td>'
    )


def _table(lb: Leaderboard) -> str:
    groups = "".join(f'<th colspan="4" class="group">{_text(m)}</th>' for m in lb.metrics)
    columns = "".join(
        f'<th data-col="{1 + 4 * i}">mean</th><th data-col="{2 + 4 * i}">Δ</th>'
        f'<th data-col="{3 + 4 * i}">coverage</th><th data-col="{4 + 4 * i}">bounds</th>'
        for i in range(len(lb.metrics))
    )
    rows = "".join(
        f"<tr{' class=baseline' if row.baseline else ''}><td>{_text(row.run)}{_lacking(row)}</td>"
        + "".join(_cells(lb, row, m) for m in lb.metrics)
        + "</tr>"
        for row in lb.rows
    )
    return (
        f'<div class="scroll"><table class="sortable"><thead><tr><th rowspan="2" data-col="0">run</th>{groups}</tr>'
        f"<tr>{columns}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _lacking(row: LeaderboardRow) -> str:
    """Under a run's name, how many compared queries its run lacks (scored 0)."""
    if not row.missing_from_run:
        return ""
    return f'<br><small class="warn">lacks {len(row.missing_from_run)} (scored 0)</small>'


def _missing(lb: Leaderboard) -> str:
    notes = [
        f'<p class="warn">◆ {_text(row.run)}, {_text(m)}: {_text(note)}</p>'
        for row in lb.rows
        for m in lb.metrics
        if m in row.cells and not row.baseline and (note := _note(lb, row.cells[m]))
    ]
    for row in lb.rows:
        if row.missing_from_run:
            n = len(row.missing_from_run)
            notes.append(
                f'<p class="warn">{_text(row.run)}: its run has no document for {n} of the compared '
                f"{'query' if n == 1 else 'queries'}, scored 0 there: {_text(listed(row.missing_from_run, 20))}</p>"
            )
    notes += [f'<p class="note">{_text(x)}</p>' for x in unlabeled_notes([(r.run, r.queries) for r in lb.rows])]
    for row in lb.rows:
        if row.missing_queries:
            shown = ", ".join(row.missing_queries[:20]) + (" …" if len(row.missing_queries) > 20 else "")
            notes.append(
                f'<p class="warn">{_text(row.run)}: {len(row.missing_queries)} of the compared queries have no '
                f"value in its report (named, not paired): {_text(shown)}</p>"
            )
    return "".join(notes) + "".join(f'<p class="warn">compared despite: {_text(x)}</p>' for x in lb.mismatches)


def _sensitivity(s: SensitivityReport | None) -> str:
    if s is None or not s.rows:
        return ""
    needed = s.delta is not None
    names = ["metric", "stratum", "n", "SD", "SE", "SD of Δ", "MDE"]
    names += [f"queries for Δ {s.delta:g}"] if needed else []
    names += ["discriminative power"]
    head = "".join(f'<th data-col="{i}">{_text(n)}</th>' for i, n in enumerate(names))
    rows = "".join(
        f"<tr><td>{_text(r.metric)}</td><td>{_text(r.stratum or 'all')}</td>{_num(r.n, 0)}{_num(r.sd)}{_num(r.se)}"
        f"{_num(r.sd_diff)}{_num(r.mde, sign='±')}"
        + (_num(r.queries_needed, 0) if needed else "")
        + f"{_num(r.discriminative_power, 3)}</tr>"
        for r in s.rows
    )
    return (
        f"<h2>Sensitivity (α {s.alpha:g}, power {s.power:g})</h2>"
        f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'
    )


def render_leaderboard(lb: Leaderboard) -> str:
    """The leaderboard as one self-contained HTML page."""
    best = ""
    if lb.best_comparison is not None:
        c = lb.best_comparison
        best = (
            f"<h2>Baseline against the best candidate: {_text(lb.best or c.candidate.run.name)} "
            f"({c.queries} queries paired, {_text(paired_note(c))})</h2>{tiles(c)}"
        )
    correction = CORRECTION_TEXT.get(lb.correction, lb.correction)
    lacking = sum(1 for r in lb.rows if r.missing_from_run)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>qrelkit · leaderboard against {_text(lb.baseline)}</title>
<style>{_CSS}{_SORT_CSS}</style></head>
<body><main>
<h1>{len(lb.runs)} runs against the baseline {_text(lb.baseline)}</h1>
<p class="sub">{lb.queries} queries ({board_note(lacking)}) ·
{lb.resamples:,} resamples, seed {lb.seed} · headline {_text(lb.headline)},
recall {_text(lb.recall)}</p>
{_table(lb)}
<p class="note">Mean with its 95% interval; Δ = run − baseline, paired, with its 95% bootstrap interval;
<sup class="sig">{UP}</sup>/<sup class="sig">{DOWN}</sup> significantly above/below the baseline at α {lb.alpha:g}
under {_text(correction)} (hover a Δ for its p-values).
Click a column header to sort.</p>
{_missing(lb)}
{_sensitivity(lb.sensitivity)}
{best}
</main>
<script>{_SORT_SCRIPT}</script>
</body></html>
"""
