"""Pages built from the bundled golden set, and a small HTML reader, for the HTML report tests
(`tests/test_html_report.py` and the headless Chromium tests beside this file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from qrelkit.models import Comparison, Leaderboard, LeaderboardRow, RunCell, ScoreReport, to_model
from qrelkit.scoring import paired
from qrelkit.workflows import scoring, sources

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "goldensets" / "pydocs"
METRICS = "nDCG@10,R@50,RR,P@10"


def score(paths: list[Path]) -> list[ScoreReport]:
    source = sources.ScoringSource.from_version(GOLDEN / "1.0")
    chosen = sources.plan(source, metrics=METRICS)
    return [to_model(scoring.score_run(source, p, chosen, per_query=True)) for p in paths]


def swapped_run(tmp: Path) -> Path:
    """A third run: bm25 with its first and second document of every query swapped (scores kept
    in place, so the tie-breaking rule ranks the swapped order)."""
    lines = (GOLDEN / "runs" / "bm25.run").read_text(encoding="utf-8").splitlines()
    by_query: dict[str, list[list[str]]] = {}
    for line in lines:
        cols = line.split()
        by_query.setdefault(cols[0], []).append(cols)
    out = []
    for rows in by_query.values():
        rows.sort(key=lambda r: -float(r[4]))
        if len(rows) > 1:
            rows[0][2], rows[1][2] = rows[1][2], rows[0][2]
        out += [" ".join([r[0], r[1], r[2], r[3], r[4], "swapped"]) for r in rows]
    path = tmp / "bm25-swapped.run"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def comparison(resamples: int = 2000) -> Comparison:
    """bm25-title (A) against bm25 (B), as `qrelkit compare` pairs them."""
    a, b = score([GOLDEN / "runs" / "bm25-title.run", GOLDEN / "runs" / "bm25.run"])
    return paired.compare(a, b, resamples=resamples, seed=0)


def holm(p: list[float]) -> list[float]:
    """Holm's adjusted p-values, from statsmodels (the reference the lead's code is held to too)."""
    from statsmodels.stats.multitest import multipletests

    return [float(x) for x in multipletests(p, alpha=0.05, method="holm")[1]]


def leaderboard(tmp: Path, resamples: int = 2000) -> Leaderboard:
    """bm25-title as the baseline against bm25 and a swapped bm25: the cells come from the score
    reports (means, intervals, coverage, bounds) and from the paired comparisons (deltas, p), Holm
    applied per metric here."""
    paths = [GOLDEN / "runs" / "bm25-title.run", GOLDEN / "runs" / "bm25.run", swapped_run(tmp)]
    reports = score(paths)
    base = reports[0]
    comps = [paired.compare(base, r, resamples=resamples, seed=0) for r in reports[1:]]
    metrics = list(base.metrics)
    adjusted = {m: holm([c.metrics[m].p_value for c in comps]) for m in metrics}
    rows = [_row(base, None, None, metrics)]
    rows += [
        _row(r, c, {m: adjusted[m][i] for m in metrics}, metrics)
        for i, (r, c) in enumerate(zip(reports[1:], comps, strict=True))
    ]
    best = max(range(len(comps)), key=lambda i: comps[i].metrics["nDCG@10"].mean_b)
    return Leaderboard(
        baseline=base.fingerprint.run.name, runs=[r.fingerprint.run.name for r in reports], metrics=metrics,
        queries=comps[0].queries, correction="holm", resamples=resamples, seed=0, headline="nDCG@10",
        recall="R@50", rows=rows, best=reports[best + 1].fingerprint.run.name, best_comparison=comps[best],
    )  # fmt: skip


def _row(r: ScoreReport, c: Comparison | None, p_adj: dict[str, float] | None, metrics: list[str]) -> LeaderboardRow:
    cells = {}
    for m in metrics:
        s = r.metrics[m]
        cell = RunCell(mean=s.mean, ci95=s.ci95, coverage=s.coverage, bounds=s.bounds)
        if c is not None and p_adj is not None:
            mc = c.metrics[m]
            cell = cell.model_copy(
                update={"delta": mc.delta, "delta_ci95": mc.ci95, "p_value": mc.p_value, "p_adjusted": p_adj[m],
                        "significant": p_adj[m] < 0.05}
            )  # fmt: skip
        cells[m] = cell
    return LeaderboardRow(run=r.fingerprint.run.name, fingerprint=r.fingerprint, baseline=c is None, cells=cells)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def find(self, tag: str) -> list[Element]:
        found = [self] if self.tag == tag else []
        for child in self.children:
            found += child.find(tag)
        return found

    def all_text(self) -> str:
        return self.text + "".join(c.all_text() for c in self.children)


VOID = {"meta", "br", "link", "img", "input", "hr", "line", "path", "circle"}


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(el)
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].text += data


def parse(page: str) -> Element:
    reader = _Reader()
    reader.feed(page)
    reader.close()
    return reader.root


def delta_svgs(root: Element) -> list[Element]:
    """The per-query delta charts (their aria-label says so)."""
    return [s for s in root.find("svg") if s.attrs.get("aria-label", "").startswith("per-query delta")]
