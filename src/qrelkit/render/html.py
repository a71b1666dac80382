"""A comparison as one self-contained HTML page: inline CSS and SVG, no script, no network.

Pure: takes a `Comparison`, returns text. Shows the two tiles with the diagnosis (and the minimum
detectable effect when known), every metric, a sentence wherever the bootstrap interval and the
randomization test disagree, per-stratum deltas, a per-query delta plot (signed axis, each bar
naming its query on hover) and the score distributions of both sides, coverage and the
fingerprints that make the numbers comparable. Reads down to a 420 px wide screen.
"""

from __future__ import annotations

from html import escape

from ..models import Comparison, Fingerprint, MetricComparison
from .queries import comparison_notes, paired_note
from .styles import VERDICT, visible

_CSS = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; --up: #1a7f37; --down: #cf222e;
        --warn: #9a6700; --a: #8c959f; --b: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0;
       background: white; }
main { max-width: 1040px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 20px; margin: 0 0 4px; font-weight: 600; }
h2 { font-size: 15px; margin: 32px 0 10px; font-weight: 600; }
h1, h2, h3, .sub, .banner, .warn, .note, .fp span, figcaption { overflow-wrap: anywhere; }
.sub { color: var(--muted); margin: 0 0 20px; }
.banner { border-radius: 8px; padding: 12px 16px; margin: 0 0 18px; border: 1px solid var(--line);
          background: var(--bg); }
.banner b { text-transform: uppercase; letter-spacing: .04em; font-size: 12px; margin-right: 8px; }
.banner.stable, .banner.improved { border-color: #aceebb; background: #dafbe1; }
.banner.ordering, .banner.early_warning { border-color: #f5e0a0; background: #fff8c5; }
.banner.upstream { border-color: #ffcecb; background: #ffebe9; }
.tiles { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 16px 18px; min-width: 0; }
.tile h3 { margin: 0; font-size: 13px; color: var(--muted); font-weight: 600; }
.tile .delta { font-size: 34px; font-weight: 600; margin: 4px 0 0; font-variant-numeric: tabular-nums; }
.tile .ci, td .ci { color: var(--muted); font-variant-numeric: tabular-nums; }
.tile dl { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 2px 12px; margin: 12px 0 0; }
.tile dt { color: var(--muted); } .tile dd { margin: 0; font-variant-numeric: tabular-nums; }
.mde { font-weight: 500; color: var(--fg); }
.note { color: var(--muted); font-size: 12.5px; margin: 10px 0 0; }
.up { color: var(--up); } .down { color: var(--down); } .flat { color: var(--fg); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { color: var(--muted); font-weight: 600; background: var(--bg); }
th:first-child, td:first-child { text-align: left; }
.warn { color: var(--warn); margin: 6px 0; }
.plots { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 12px; min-width: 0; }
figcaption { color: var(--muted); font-size: 12px; margin-bottom: 6px; }
svg { display: block; max-width: 100%; }
svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg rect:hover { opacity: .7; }
.legend span { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; }
table.strata { font-size: 12.5px; }
table.strata th, table.strata td { padding: 5px 6px; }
.scroll { overflow-x: auto; max-width: 100%; }
code, .fp { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.fp { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 2px 14px; color: var(--muted); }
.fp b { color: var(--fg); font-weight: 500; }
@media (max-width: 640px) {
  main { padding: 16px 12px 32px; }
  .tiles, .plots { grid-template-columns: minmax(0, 1fr); }
  .tile .delta { font-size: 28px; }
  .fp { grid-template-columns: minmax(0, 1fr); }
  .fp b { margin-top: 6px; }
  svg text { font-size: 13px; }
}
"""


def _text(s: str) -> str:
    """Untrusted text (names, ids, warnings) for the page: HTML-escaped, and control characters
    written visibly (`\\x1b`), as the terminal shows them: HTML has no use for them, and a page
    printed to a terminal must not drive it."""
    return escape(visible(s))


def _cls(m: MetricComparison) -> str:
    return m.direction


def _f(x: float | None, digits: int = 4, sign: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return f'<br><small class="ci">[{ci[0]:+.3f}, {ci[1]:+.3f}]</small>' if ci else ""


def _stratum_cell(m: MetricComparison, stratum: str) -> str:
    sub = m.by_stratum.get(stratum)
    if sub is None:
        return "<td>–</td>"
    colour = "" if sub.direction == "flat" else sub.direction
    coverage = ""
    if sub.coverage_a is not None or sub.coverage_b is not None:
        coverage = f"<br><small>coverage A {_f(sub.coverage_a, 2)} · B {_f(sub.coverage_b, 2)}</small>"
    return f"<td class='{colour}'>{_f(sub.delta, sign=True)}{_ci(sub.ci95)}{coverage}</td>"


ALPHA = 0.05
"""The level the page reads p-values and intervals at (95% intervals)."""


def evidence_note(m: MetricComparison, alpha: float = ALPHA) -> str | None:
    """One sentence when the paired bootstrap interval and the randomization test disagree at
    `alpha` (the interval excludes 0 but p > alpha, or the reverse), else None. Plain text: the
    page escapes it, the terminal shows it as data."""
    return disagreement(m.ci95, m.p_value, m.n, alpha)


def disagreement(ci: tuple[float, float], p: float, n: int, alpha: float = ALPHA) -> str | None:
    """`evidence_note` of an interval and a p-value over `n` queries."""
    excludes = ci[0] > 0 or ci[1] < 0
    if excludes and p > alpha:
        return (
            f"the 95% bootstrap interval excludes 0 but the randomization test gives p = {p:.3f} > {alpha:g}: "
            f"on {n} queries the two can disagree at the margin, so read this change as borderline."
        )
    if not excludes and p <= alpha:
        return (
            f"the randomization test gives p = {p:.3f} ≤ {alpha:g} but the 95% bootstrap interval "
            f"[{ci[0]:+.4f}, {ci[1]:+.4f}] includes 0: the evidence is borderline, and the verdict follows "
            "the interval."
        )
    return None


def _verdict(m: MetricComparison) -> str:
    """The tile's verdict; a tile that holds names its minimum detectable effect when known, so
    "no change" (a small MDE) and "cannot tell" (a large one) read differently."""
    verdict = VERDICT[m.direction]
    if m.mde is not None and m.direction == "flat":
        return f'{verdict} <span class="mde">· MDE ±{m.mde:.4f}</span>'
    return verdict


def _mde_note(m: MetricComparison) -> str:
    if m.mde is None:
        return ""
    what = (
        "a change this large or larger would have shown 4 times in 5, so holding means no change of that size; "
        "a smaller one cannot be told from noise here"
        if m.direction == "flat"
        else "the smallest change these queries detect 80% of the time"
    )
    return (
        f'<p class="note">Minimum detectable effect ±{m.mde:.4f} (paired t-test, α 0.05, power 0.8, '
        f"{m.n} queries): {what}.</p>"
    )


def _tile(name: str, role: str, m: MetricComparison) -> str:
    note = evidence_note(m)
    return f"""<section class="tile">
<h3>{_text(role)} · {_text(name)} · {_verdict(m)}</h3>
<div class="delta {_cls(m)}">{_f(m.delta, sign=True)}</div>
<div class="ci">95% CI [{_f(m.ci95[0], sign=True)}, {_f(m.ci95[1], sign=True)}] · p {m.p_value:.4f}</div>
<dl>
<dt>A → B</dt><dd>{_f(m.mean_a)} → {_f(m.mean_b)}</dd>
<dt>wins / ties / losses</dt><dd>{m.wins} / {m.ties} / {m.losses}</dd>
<dt>traffic-weighted Δ</dt><dd>{_f(m.weighted_delta, sign=True)}</dd>
<dt>coverage A / B</dt><dd>{_f(m.coverage_a, 3)} / {_f(m.coverage_b, 3)}</dd>
</dl>{_mde_note(m)}{f'<p class="warn">{_text(note)}</p>' if note else ""}
</section>"""


def _lacks(c: Comparison, q: str) -> str:
    """`, not in B's run: scored 0` for a query a side's run lacks (empty for others)."""
    sides = [s for s, missing in (("A", c.missing_a), ("B", c.missing_b)) if q in missing]
    return f", not in {' or '.join(sides)}'s run: scored 0" if sides else ""


MISSING_STROKE = "#9a6700"
"""The outline of a bar whose query one run lacks (scored 0)."""


def _delta_plot(c: Comparison, metric: str) -> str:
    """Per-query B - A, sorted, one bar per query (its id and values on hover; a query a run
    lacks is outlined and says so); the y-axis labels carry their signs."""
    lacking = set(c.missing_a) | set(c.missing_b)
    bars = sorted(((b - a, q, a, b) for q, (a, b) in c.per_query[metric].items()), key=lambda x: (x[0], x[1]))
    w, h, left, right = 480, 180, 48, 6
    top = max((abs(x[0]) for x in bars), default=0.0) or 1.0
    mid = h / 2
    reach = mid - 10
    bar = (w - left - right) / max(len(bars), 1)
    parts = [
        f'<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="per-query delta of {_text(metric)}">',
        f'<line x1="{left}" x2="{w - right}" y1="{mid}" y2="{mid}" stroke="#8c959f"/>',
        f'<line x1="{left}" x2="{left}" y1="{mid - reach}" y2="{mid + reach}" stroke="#d1d9e0"/>',
        f'<text class="tick" x="{left - 6}" y="{mid - reach + 4:.0f}" text-anchor="end">+{top:.2f}</text>',
        f'<text class="tick" x="{left - 6}" y="{mid + 4:.0f}" text-anchor="end">0</text>',
        f'<text class="tick" x="{left - 6}" y="{mid + reach + 4:.0f}" text-anchor="end">-{top:.2f}</text>',
    ]
    for i, (d, q, a, b) in enumerate(bars):
        height = abs(d) / top * reach
        colour = "#1a7f37" if d > 0 else "#cf222e" if d < 0 else "#8c959f"
        if height < 1.5:  # a tie (or nearly): a sliver on the axis, still there to hover
            height, y = 1.5, mid - 0.75
        else:
            y = mid - height if d > 0 else mid
        title = f"{visible(q)}: {d:+.4f} (A {a:.4f} → B {b:.4f}{_lacks(c, q)})"
        outline = f' stroke="{MISSING_STROKE}" stroke-width="1.5" stroke-dasharray="3 2"' if q in lacking else ""
        parts.append(
            f'<rect x="{left + i * bar:.2f}" y="{y:.2f}" width="{max(bar - 0.5, 0.5):.2f}" '
            f'height="{height:.2f}" fill="{colour}"{outline}><title>{escape(title)}</title></rect>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _histogram(c: Comparison, metric: str, bins: int = 10) -> str:
    """Distribution of per-query values, A and B side by side in each bin of [0, 1]."""
    values = c.per_query[metric].values()
    counts = [[0] * bins, [0] * bins]
    for a, b in values:
        for side, v in ((0, a), (1, b)):
            counts[side][min(int(v * bins), bins - 1) if v >= 0 else 0] += 1
    w, h, pad = 480, 180, 28
    top = max(max(counts[0]), max(counts[1]), 1)
    slot = (w - 2 * pad) / bins
    parts = [f'<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="distribution of {_text(metric)}">']
    for i in range(bins):
        for side, colour in ((0, "#8c959f"), (1, "#0969da")):
            height = counts[side][i] / top * (h - 2 * pad)
            x = pad + i * slot + 3 + side * (slot - 6) / 2
            parts.append(
                f'<rect x="{x:.2f}" y="{h - pad - height:.2f}" width="{(slot - 6) / 2:.2f}" '
                f'height="{height:.2f}" fill="{colour}" rx="1"/>'
            )
        parts.append(
            f'<text x="{pad + i * slot + slot / 2:.1f}" y="{h - pad + 14}" text-anchor="middle">{i / bins:.1f}</text>'
        )
    parts.append(f'<line x1="{pad}" x2="{w - pad}" y1="{h - pad}" y2="{h - pad}" stroke="#8c959f"/>')
    parts.append(f'<text x="{pad - 4}" y="{pad + 4}" text-anchor="end">{top}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _fingerprint(label: str, fp: Fingerprint) -> str:
    golden = (
        f"{fp.golden.name} {fp.golden.version or 'working copy'} · {fp.golden.content_hash[:23]}"
        if fp.golden
        else f"qrels {fp.qrels.name} · {fp.qrels.sha256[:23]}"
        if fp.qrels
        else "–"
    )
    return (
        f"<b>{label} run</b><span>{_text(fp.run.name)} · {_text(fp.run.sha256[:23])}</span>"
        f"<b>{label} golden</b><span>{_text(golden)}</span>"
    )


def _metric_rows(c: Comparison, mde: bool) -> str:
    rows = []
    for name, m in c.metrics.items():
        note = evidence_note(m)
        mark = f' <span class="warn" title="{_text(note)}">◆</span>' if note else ""
        rows.append(
            f"<tr><td>{_text(name)}{' ★' if name in (c.headline, c.recall) else ''}</td><td>{_f(m.mean_a)}</td>"
            f"<td>{_f(m.mean_b)}</td><td class='{_cls(m)}'>{_f(m.delta, sign=True)}</td>"
            f"<td>[{_f(m.ci95[0], sign=True)}, {_f(m.ci95[1], sign=True)}]</td><td>{m.p_value:.4f}{mark}</td>"
            + (f"<td>{'±' + _f(m.mde) if m.mde is not None else '–'}</td>" if mde else "")
            + f"<td>{m.wins}/{m.ties}/{m.losses}</td><td>{_f(m.weighted_delta, sign=True)}</td>"
            f"<td>{_f(m.coverage_a, 3)}</td><td>{_f(m.coverage_b, 3)}</td></tr>"
        )
    return "".join(rows)


def _metric_table(c: Comparison) -> str:
    mde = any(m.mde is not None for m in c.metrics.values())
    notes = "".join(
        f'<p class="warn">{_text(name)}: {_text(note)}</p>'
        for name, m in c.metrics.items()
        if name not in (c.headline, c.recall) and (note := evidence_note(m))
    )
    return (
        '<div class="scroll"><table><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>95% CI</th><th>p</th>'
        + ("<th>MDE</th>" if mde else "")
        + "<th>W/T/L</th><th>weighted Δ</th><th>coverage A</th><th>coverage B</th></tr>"
        + _metric_rows(c, mde)
        + "</table></div>"
        + notes
    )


def _strata_rows(c: Comparison) -> str:
    h = c.metrics[c.headline]
    strata = sorted({s for m in c.metrics.values() for s in m.by_stratum})
    names = list(c.metrics)
    stratum_rows = "".join(
        f"<tr><td>{_text(s)}</td><td>{h.by_stratum[s].n if s in h.by_stratum else 0}</td>"
        + "".join(_stratum_cell(c.metrics[n], s) for n in names)
        + "</tr>"
        for s in strata
    )
    weighted_row = (
        "<tr><td><b>traffic-weighted</b></td><td></td>"
        + "".join(
            f"<td><b>{_f(c.metrics[n].weighted_delta, sign=True)}</b>{_ci(c.metrics[n].weighted_ci95)}</td>"
            for n in names
        )
        + "</tr>"
    )
    return stratum_rows + weighted_row


def _notes(c: Comparison) -> str:
    notes = "".join(f'<p class="warn">{_text(n)}: {_text(m.warning)}</p>' for n, m in c.metrics.items() if m.warning)
    notes += "".join(
        f'<p class="warn">{_text(x.side)}: {_text(x.metrics[0])} and {_text(x.metrics[1])} both average {x.mean:.4f} '
        f"but differ on {x.queries_differ} of {x.n} queries.</p>"
        for x in c.collisions
    )
    notes += "".join(f'<p class="warn">{_text(x)}</p>' for x in comparison_notes(c))
    return notes + "".join(f'<p class="warn">compared despite: {_text(x)}</p>' for x in c.mismatches)


def _plots(c: Comparison) -> str:
    a_name, b_name = _text(c.baseline.run.name), _text(c.candidate.run.name)
    outlined = (
        f' · <span style="color:{MISSING_STROKE}">outlined: a query one run lacks (scored 0)</span>'
        if c.missing_a or c.missing_b
        else ""
    )
    return "".join(
        f"<figure><figcaption>{_text(m)}: B − A per query, sorted ({c.queries} queries){outlined}</figcaption>"
        f"{_delta_plot(c, m)}</figure>"
        for m in (c.headline, c.recall)
    ) + "".join(
        f'<figure><figcaption>{_text(m)}: per-query values <span class="legend"><span style="background:#8c959f">'
        f'</span>A {a_name}<span style="background:#0969da"></span>B {b_name}</span></figcaption>'
        f"{_histogram(c, m)}</figure>"
        for m in (c.headline, c.recall)
    )


def tiles(c: Comparison) -> str:
    """The diagnosis banner and the two tiles (headline, recall), as the leaderboard page shows them too."""
    h, r = c.metrics[c.headline], c.metrics[c.recall]
    return (
        f'<div class="banner {c.diagnosis}"><b>{_text(c.diagnosis.replace("_", " "))}</b>'
        f"{_text(c.diagnosis_text)}</div>"
        f'<div class="tiles">{_tile(c.headline, "headline", h)}{_tile(c.recall, "recall at candidate depth", r)}</div>'
    )


def render(c: Comparison) -> str:
    a_name, b_name = _text(c.baseline.run.name), _text(c.candidate.run.name)
    names = list(c.metrics)
    fp = c.baseline
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>qrelkit · {a_name} vs {b_name}</title>
<style>{_CSS}</style></head>
<body><main>
<h1>A {a_name} <span style="color:var(--muted)">vs</span> B {b_name}</h1>
<p class="sub">{c.queries} queries paired ({_text(paired_note(c))}) ·
{c.resamples:,} bootstrap and randomization resamples, seed {c.seed} ·
relevance threshold {fp.relevance_threshold} · qrelkit {_text(fp.qrelkit_version)}</p>
{tiles(c)}
{_notes(c)}
<h2>Every metric</h2>
{_metric_table(c)}
<h2>Per stratum (B − A, 95% bootstrap interval within the stratum)</h2>
<div class="scroll"><table class="strata"><tr><th>stratum</th><th>n</th>
{"".join(f"<th>{_text(n)}</th>" for n in names)}</tr>
{_strata_rows(c)}</table></div>
<h2>Per query</h2>
<div class="plots">{_plots(c)}</div>
<h2>Fingerprint</h2>
<div class="fp">{_fingerprint("A", c.baseline)}{_fingerprint("B", c.candidate)}
<b>metrics</b><span>{_text(", ".join(fp.metrics))}</span>
<b>ties</b><span>{_text(fp.tie_policy)}</span><b>queries</b><span>{_text(fp.query_policy)}</span></div>
</main></body></html>
"""
