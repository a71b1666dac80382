"""The comparison page and the leaderboard page, read as HTML: the signed axis of the per-query
delta chart, the bars' hover titles, the sentence when interval and test disagree, the minimum
detectable effect on a tile that holds, the sortable leaderboard, escaping, no network.
The same pages in a real browser: tests/browser/."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pytest

from browser import pages
from qrelkit.models import Comparison, Leaderboard, MetricComparison
from qrelkit.render import text
from qrelkit.render.compare import comparison_table
from qrelkit.render.html import evidence_note, render
from qrelkit.render.html_leaderboard import render_leaderboard


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return pages.comparison()


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Leaderboard:
    return pages.leaderboard(tmp_path_factory.mktemp("runs"))


def _metric(**change: object) -> MetricComparison:
    base = dict(
        n=40, mean_a=0.5, mean_b=0.52, delta=0.02, ci95=(0.001, 0.04), p_value=0.03, p_exact=False, wins=20,
        ties=5, losses=15, by_stratum={}, weighted_delta=None, coverage_a=0.9, coverage_b=0.9, delta_bounds=None,
    )  # fmt: skip
    base.update(change)
    return MetricComparison.model_validate(base)


def test_the_delta_axis_carries_its_signs_and_the_largest_delta(comparison: Comparison) -> None:
    root = pages.parse(render(comparison))
    charts = pages.delta_svgs(root)
    assert len(charts) == 2  # headline and recall
    for chart, metric in zip(charts, (comparison.headline, comparison.recall), strict=True):
        deltas = [b - a for a, b in comparison.per_query[metric].values()]
        top = max(abs(d) for d in deltas) or 1.0  # all ties: the axis still spans [-1, +1]
        labels = [t.all_text() for t in chart.find("text")]
        assert labels == [f"+{top:.2f}", "0", f"-{top:.2f}"], labels
        # the labels sit right of x = 0, inside the chart: the sign of a 5-character label is not cut off
        assert all(float(t.attrs["x"]) >= 40 and t.attrs["text-anchor"] == "end" for t in chart.find("text"))


def test_every_bar_names_its_query_and_its_values(comparison: Comparison) -> None:
    metric = comparison.headline
    chart = pages.delta_svgs(pages.parse(render(comparison)))[0]
    titles = [r.find("title")[0].all_text() for r in chart.find("rect")]
    per_query = comparison.per_query[metric]
    assert len(titles) == len(per_query) == comparison.queries
    expected = sorted(per_query, key=lambda q: (per_query[q][1] - per_query[q][0], q))
    assert [t.split(":")[0] for t in titles] == expected  # sorted by delta, one bar per query
    for t in titles:
        q = t.split(":")[0]
        a, b = per_query[q]
        assert t == f"{q}: {b - a:+.4f} (A {a:.4f} → B {b:.4f})"


def test_bars_grow_up_for_gains_and_down_for_losses(comparison: Comparison) -> None:
    chart = pages.delta_svgs(pages.parse(render(comparison)))[0]
    mid = 90.0
    for rect in chart.find("rect"):
        delta = float(rect.find("title")[0].all_text().split(": ")[1].split(" ")[0])
        y, h = float(rect.attrs["y"]), float(rect.attrs["height"])
        if delta > 1e-9 and h > 1.5:
            assert y + h == pytest.approx(mid, abs=0.01)
        elif delta < -1e-9 and h > 1.5:
            assert y == pytest.approx(mid, abs=0.01)
        else:
            assert h == pytest.approx(1.5)  # a tie: a sliver on the axis, still there to hover


def test_query_ids_in_titles_are_escaped(comparison: Comparison) -> None:
    evil = '<script>alert("x")</script>&\x1b[2J'
    per_query = dict(comparison.per_query)
    per_query[comparison.headline] = {**per_query[comparison.headline], evil: (0.2, 0.9)}
    page = render(comparison.model_copy(update={"per_query": per_query}))
    assert "<script>" not in page and "\x1b" not in page
    assert escape('<script>alert("x")</script>&\\x1b[2J') in page


def test_the_interval_and_the_test_disagreeing_is_explained_in_one_sentence() -> None:
    interval_only = _metric(ci95=(0.002, 0.04), p_value=0.07)
    test_only = _metric(ci95=(-0.001, 0.04), p_value=0.04)
    agree_yes, agree_no = _metric(ci95=(0.002, 0.04), p_value=0.01), _metric(ci95=(-0.01, 0.04), p_value=0.4)
    a, b = evidence_note(interval_only), evidence_note(test_only)
    assert a is not None and "excludes 0" in a and "p = 0.070 > 0.05" in a and a.count(". ") == 0
    assert b is not None and "includes 0" in b and "p = 0.040" in b and b.count(". ") == 0
    assert evidence_note(agree_yes) is None and evidence_note(agree_no) is None
    assert evidence_note(_metric(ci95=(0.0, 0.0), p_value=1.0, delta=0.0)) is None  # every query tied


def test_the_page_and_the_terminal_say_it_next_to_the_metric(comparison: Comparison) -> None:
    metrics = dict(comparison.metrics)
    metrics[comparison.headline] = metrics[comparison.headline].model_copy(
        update={"ci95": (0.001, 0.05), "p_value": 0.08}
    )
    c = comparison.model_copy(update={"metrics": metrics})
    note = evidence_note(metrics[comparison.headline])
    assert note is not None
    tiles = [s for s in pages.parse(render(c)).find("section") if "tile" in s.attrs.get("class", "")]
    assert escape(note) in render(c) and note in tiles[0].all_text()
    assert note not in tiles[1].all_text()
    plain = " ".join(text(comparison_table(c), width=400).split())
    assert f"{comparison.headline}: {note}" in plain


def test_a_tile_that_holds_shows_its_minimum_detectable_effect(comparison: Comparison) -> None:
    recall = comparison.recall
    assert comparison.metrics[recall].direction == "flat"
    bare = {m: c.model_copy(update={"mde": None}) for m, c in comparison.metrics.items()}
    assert "MDE" not in render(comparison.model_copy(update={"metrics": bare}))  # no MDE: nothing claimed
    metrics = dict(comparison.metrics)
    metrics[recall] = metrics[recall].model_copy(update={"mde": 0.0312})
    metrics[comparison.headline] = metrics[comparison.headline].model_copy(update={"mde": 0.027})
    tiles = [
        s for s in pages.parse(render(comparison.model_copy(update={"metrics": metrics}))).find("section")
        if "tile" in s.attrs.get("class", "")
    ]  # fmt: skip
    head, rec = tiles[0].all_text(), tiles[1].all_text()
    assert "holds · MDE ±0.0312" in rec and "Minimum detectable effect ±0.0312" in rec
    assert "falls" in head and "· MDE" not in head  # a tile that moved needs no "cannot tell"
    assert "Minimum detectable effect ±0.0270" in head


def test_the_page_reads_on_a_phone_and_needs_no_network(comparison: Comparison) -> None:
    page = render(comparison)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert re.search(r"@media \(max-width: \d+px\)", page)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page) and "<script" not in page
    root = pages.parse(page)
    # every wide table scrolls inside its own box, never the page body
    for table in root.find("table"):
        assert any(table in div.find("table") for div in root.find("div") if div.attrs.get("class") == "scroll")


def test_the_leaderboard_has_one_row_per_run_and_a_cell_per_metric_column(board: Leaderboard) -> None:
    root = pages.parse(render_leaderboard(board))
    table = root.find("table")[0]
    rows = table.find("tbody")[0].find("tr")
    assert [r.find("td")[0].all_text() for r in rows] == board.runs
    assert all(len(r.find("td")) == 1 + 4 * len(board.metrics) for r in rows)
    sortable = [th.attrs["data-col"] for th in table.find("th") if "data-col" in th.attrs]
    assert sortable == [str(i) for i in range(1 + 4 * len(board.metrics))]
    for row, model in zip(rows, board.rows, strict=True):
        cells = row.find("td")
        for i, m in enumerate(board.metrics):
            cell = model.cells[m]
            mean, delta = cells[1 + 4 * i], cells[2 + 4 * i]
            assert mean.attrs["data-v"] == repr(cell.mean)
            assert mean.all_text().startswith(f"{cell.mean:.4f}[")
            if model.baseline:
                assert delta.all_text() == "baseline"
                continue
            assert cell.delta is not None and cell.p_adjusted is not None
            marks = [s.all_text() for s in delta.find("sup")]
            expected = ["▲" if cell.delta > 0 else "▼"] if cell.p_adjusted < 0.05 else []
            assert marks == expected, (model.run, m)
            assert f"holm {cell.p_adjusted:.4f}" in delta.attrs["title"]


def test_the_marks_follow_the_corrected_p_not_the_raw_p(board: Leaderboard) -> None:
    """Raw p 0.03 and 0.04 are both under 0.05, but Holm (statsmodels) lifts both to 0.06: no mark;
    raw 0.001 and 0.04 stay under (0.002, 0.04): both marked."""
    i = board.metrics.index("nDCG@10")
    for raw, marked in (([0.03, 0.04], [False, False]), ([0.001, 0.04], [True, True])):
        adjusted = pages.holm(raw)
        rows = [board.rows[0]]
        for row, p, q in zip(board.rows[1:], raw, adjusted, strict=True):
            cell = row.cells["nDCG@10"].model_copy(update={"p_value": p, "p_adjusted": q, "significant": q < 0.05})
            rows.append(row.model_copy(update={"cells": {**row.cells, "nDCG@10": cell}}))
        page = pages.parse(render_leaderboard(board.model_copy(update={"rows": rows})))
        trs = page.find("table")[0].find("tbody")[0].find("tr")
        assert [bool(r.find("td")[2 + 4 * i].find("sup")) for r in trs[1:]] == marked, (raw, adjusted)


def test_the_leaderboard_flags_an_interval_and_a_test_that_disagree(board: Leaderboard) -> None:
    root = pages.parse(render_leaderboard(board))
    trs = root.find("table")[0].find("tbody")[0].find("tr")
    warnings = [p.all_text() for p in root.find("p") if p.attrs.get("class") == "warn"]
    flagged = 0
    for tr, row in zip(trs[1:], board.rows[1:], strict=True):
        for i, m in enumerate(board.metrics):
            cell = row.cells[m]
            assert cell.delta_ci95 is not None and cell.p_value is not None
            excludes = cell.delta_ci95[0] > 0 or cell.delta_ci95[1] < 0
            expected = excludes != (cell.p_value <= 0.05)
            td = tr.find("td")[2 + 4 * i]
            assert ("◆" in td.all_text()) == expected, (row.run, m)
            assert any(w.startswith(f"◆ {row.run}, {m}: ") for w in warnings) == expected
            flagged += expected
    assert flagged >= 2  # P@10 of both candidates: interval below 0, p 0.057


def test_the_leaderboard_shows_the_best_candidates_tiles_and_names_missing_queries(board: Leaderboard) -> None:
    rows = [r.model_copy(update={"missing_queries": ["q<1>", "q2"]}) if not r.baseline else r for r in board.rows]
    lb = board.model_copy(update={"rows": rows, "mismatches": ["metrics differ <b>"]})
    page = render_leaderboard(lb)
    root = pages.parse(page)
    tiles = [s for s in root.find("section") if "tile" in s.attrs.get("class", "")]
    assert len(tiles) == 2 and f"best candidate: {board.best}" in page
    assert board.best_comparison is not None
    assert f"{board.best_comparison.metrics['nDCG@10'].delta:+.4f}" in tiles[0].all_text()
    assert page.count("2 of the compared queries have no value in its report") == 2
    assert "q&lt;1&gt;, q2" in page and "metrics differ &lt;b&gt;" in page


def test_the_leaderboard_escapes_run_names_and_runs_no_network_script(board: Leaderboard) -> None:
    evil = "<img src=x onerror=alert(1)>\x1b]0;t\x07"
    rows = [board.rows[0].model_copy(update={"run": evil}), *board.rows[1:]]
    page = render_leaderboard(board.model_copy(update={"rows": rows, "baseline": evil}))
    assert "<img" not in page and "\x1b" not in page and "\x07" not in page
    assert escape("<img src=x onerror=alert(1)>\\x1b]0;t\\x07") in page
    assert page.count("<script") == 1 and "<script>" in page  # inline, no src
    assert not re.search(r"(https?:)?//[a-z]", page.split("<script>")[1].split("</script>")[0])


def test_the_leaderboard_shows_sensitivity_when_given(board: Leaderboard) -> None:
    from qrelkit.models import Sensitivity, SensitivityReport

    rep = SensitivityReport(
        runs=board.runs, delta=0.02,
        rows=[Sensitivity(metric="nDCG@10", stratum=None, n=160, sd=0.29, se=0.29 / 160**0.5, sd_diff=0.1,
                          mde=0.0222, queries_needed=200, discriminative_power=0.5)],
    )  # fmt: skip
    root = pages.parse(render_leaderboard(board.model_copy(update={"sensitivity": rep})))
    table = root.find("table")[1]
    cells = [td.all_text() for td in table.find("td")]
    assert cells == ["nDCG@10", "all", "160", "0.2900", "0.0229", "0.1000", "±0.0222", "200", "0.500"]
    assert [th.all_text() for th in table.find("th")][7] == "queries for Δ 0.02"


def test_cli_writes_the_page_with_signed_axis(run_cli: object, tmp_path: Path) -> None:
    """`qrelkit compare ... --format html --out` (the command of the issue) writes the page."""
    from conftest import Cli

    assert isinstance(run_cli, Cli)
    runs = [str(pages.GOLDEN / "runs" / n) for n in ("bm25-title.run", "bm25.run")]
    out = tmp_path / "c.html"
    run_cli("compare", *runs, "--golden", str(pages.GOLDEN / "1.0"), "--format", "html", "--out", str(out),
            "--resamples", "1000")  # fmt: skip
    charts = pages.delta_svgs(pages.parse(out.read_text(encoding="utf-8")))
    labels = [t.all_text() for t in charts[0].find("text")]
    assert labels[0].startswith("+") and labels[2].startswith("-") and labels[0][1:] == labels[2][1:]
