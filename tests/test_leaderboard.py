"""A baseline against many candidates: `compare BASELINE RUN RUN...`, `sensitivity RUNS...`.

References: statsmodels' `multipletests` for the Holm and Bonferroni corrections and its
`TTestPower` for the minimum detectable effect and the queries needed; the runs are the bundled
golden set's two runs plus two made from them in the test (the bm25 ranking reversed: much worse;
bm25 with every score nudged by its rank: nearly the same)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

from conftest import ROOT, Cli

DEMO = ROOT / "goldensets" / "pydocs"
GOLDEN = str(DEMO / "1.0")
METRICS = "nDCG@10,RR,AP"


def _runs(tmp: Path) -> list[str]:
    """bm25 (the baseline), bm25-title, bm25 reversed, bm25 nudged."""
    rows: dict[str, list[list[str]]] = defaultdict(list)
    for line in (DEMO / "runs" / "bm25.run").read_text().splitlines():
        f = line.split()
        rows[f[0]].append(f)
    reversed_lines, nudged_lines = [], []
    for q, fs in rows.items():
        n = len(fs)
        for i, f in enumerate(fs):
            reversed_lines.append(f"{q} Q0 {f[2]} {i + 1} {i + 1} reversed")
            nudged_lines.append(f"{q} Q0 {f[2]} {i + 1} {float(f[4]) + (1e-3 if i == n - 1 else 0)} nudged")
    (tmp / "reversed.run").write_text("\n".join(reversed_lines) + "\n")
    (tmp / "nudged.run").write_text("\n".join(nudged_lines) + "\n")
    return [
        str(DEMO / "runs" / "bm25.run"),
        str(DEMO / "runs" / "bm25-title.run"),
        str(tmp / "reversed.run"),
        str(tmp / "nudged.run"),
    ]


def _board(run_cli: Cli, *extra: str) -> dict[str, Any]:
    runs = _runs(run_cli.tmp)
    out = run_cli("compare", *runs, "--golden", GOLDEN, "--metrics", METRICS, "--resamples", "2000",
                  "--format", "json", *extra).output  # fmt: skip
    board: dict[str, Any] = json.loads(out)
    return board


def test_four_runs_make_one_leaderboard_with_holm_corrected_marks(run_cli: Cli) -> None:
    board = _board(run_cli)
    assert board["runs"] == ["bm25.run", "bm25-title.run", "reversed.run", "nudged.run"]
    assert board["correction"] == "holm" and board["queries"] == 42
    assert set(board["metrics"]) >= {"nDCG@10", "RR", "AP", "R@50"}  # the two tiles are always there
    base, *cands = board["rows"]
    assert base["baseline"] and all(c["delta"] is None for c in base["cells"].values())
    for m in board["metrics"]:
        raw = [row["cells"][m]["p_value"] for row in cands]
        assert all(0 < p <= 1 for p in raw)
        expected = multipletests(raw, alpha=0.05, method="holm")[1]
        got = [row["cells"][m]["p_adjusted"] for row in cands]
        assert got == pytest.approx(list(expected), abs=1e-12)
        assert [row["cells"][m]["significant"] for row in cands] == [p < 0.05 for p in got]
    worse = cands[1]["cells"]["nDCG@10"]
    assert worse["delta"] < -0.2 and worse["significant"]  # the reversed ranking
    same = cands[2]["cells"]["nDCG@10"]
    assert abs(same["delta"]) < 0.02 and not same["significant"]  # the nudged one
    assert board["best"] in ("bm25-title.run", "nudged.run")
    assert board["best_comparison"]["candidate"]["run"]["name"] == board["best"]


def test_bonferroni_and_tukey(run_cli: Cli) -> None:
    bonf = _board(run_cli, "--correction", "bonferroni")
    for m in bonf["metrics"]:
        raw = [row["cells"][m]["p_value"] for row in bonf["rows"][1:]]
        adjusted = [row["cells"][m]["p_adjusted"] for row in bonf["rows"][1:]]
        assert adjusted == pytest.approx(list(multipletests(raw, method="bonferroni")[1]), abs=1e-12)
    tukey = _board(run_cli, "--correction", "tukey")
    for m in tukey["metrics"]:
        matrix = np.array(tukey["tukey"][m])
        assert matrix.shape == (4, 4) and np.allclose(matrix, matrix.T)
        assert [row["cells"][m]["p_adjusted"] for row in tukey["rows"][1:]] == pytest.approx(list(matrix[0, 1:]))
    assert tukey["rows"][2]["cells"]["nDCG@10"]["significant"]


def test_table_csv_and_latex(run_cli: Cli) -> None:
    runs = _runs(run_cli.tmp)
    args = ["compare", *runs, "--golden", GOLDEN, "--metrics", METRICS, "--resamples", "1000"]
    table = run_cli(*args).output
    assert "baseline bm25.run against 3 candidates" in table and "▼" in table and "Holm" in table
    assert "sensitivity" in table and "MDE" in table
    board = json.loads(run_cli(*args, "--format", "json").output)
    rows = list(csv.DictReader(io.StringIO(run_cli(*args, "--format", "csv").output)))
    assert len(rows) == len(board["runs"]) * len(board["metrics"])
    for r in rows:
        cell = board["rows"][board["runs"].index(r["run"])]["cells"][r["metric"]]
        assert float(r["mean"]) == cell["mean"]
        assert (r["delta"] == "") == (cell["delta"] is None)
    latex = run_cli(*args, "--format", "latex").output
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    assert "bm25\\_title" not in latex and "bm25-title.run" in latex and "$^{\\downarrow}$" in latex


def test_gates_apply_to_every_candidate_and_name_it(run_cli: Cli) -> None:
    runs = _runs(run_cli.tmp)
    failed = run_cli("compare", *runs, "--golden", GOLDEN, "--metrics", METRICS, "--resamples", "1000",
                     "--fail-if-worse", "nDCG@10:0.01", ok=False)  # fmt: skip
    assert failed.exit_code == 1
    lines = [x for x in failed.output.splitlines() if x.startswith("gate failed:")]
    assert len(lines) == 1 and "reversed.run: nDCG@10 is worse" in lines[0]
    assert "simultaneous interval (Bonferroni over 3 candidates)" in lines[0] and "lies below -0.01" in lines[0]
    good = [runs[0], runs[3]]
    ok = run_cli(
        "compare", *good, "--golden", GOLDEN, "--leaderboard", "--resamples", "1000", "--fail-if-worse", "nDCG@10"
    )
    assert ok.exit_code == 0


def test_queries_missing_from_a_report_are_named_never_paired(run_cli: Cli) -> None:
    runs = _runs(run_cli.tmp)
    reports = []
    for i, run in enumerate(runs[:3]):
        out = run_cli(
            "score", run, "--golden", GOLDEN, "--metrics", METRICS + ",R@50", "--per-query", "--format", "json"
        ).output
        report = json.loads(out)["reports"][0]
        if i == 2:
            for q in ("nav-01", "nav-02"):
                del report["per_query"][q]
        path = run_cli.tmp / f"r{i}.json"
        path.write_text(json.dumps(report))
        reports.append(str(path))
    refused = run_cli("compare", *reports, "--resamples", "1000", ok=False)
    assert refused.exit_code == 2 and "not comparable" in refused.output and "other queries" in refused.output
    board = json.loads(
        run_cli("compare", *reports, "--resamples", "1000", "--allow-mismatch", "--format", "json").output
    )
    assert board["queries"] == 40
    assert [row["missing_queries"] for row in board["rows"]] == [[], [], ["nav-01", "nav-02"]]
    table = run_cli("compare", *reports, "--resamples", "1000", "--allow-mismatch").output
    assert "compared over the 40 queries every report holds; left out for every run: nav-01, nav-02" in table
    assert "reversed.run: its report has no value for 2 of them" in table


def test_too_few_resamples_are_refused(run_cli: Cli) -> None:
    runs = _runs(run_cli.tmp)
    refused = run_cli("compare", *runs[:2], "--golden", GOLDEN, "--resamples", "999", ok=False)
    assert refused.exit_code == 2 and "999" in refused.output and len(refused.output.strip().splitlines()) == 1


def test_sensitivity_against_statsmodels_power(run_cli: Cli) -> None:
    runs = _runs(run_cli.tmp)
    rep = json.loads(run_cli("sensitivity", *runs, "--golden", GOLDEN, "--metrics", METRICS, "--delta", "0.02",
                             "--resamples", "1000", "--format", "json").output)  # fmt: skip
    assert rep["runs"] == ["bm25.run", "bm25-title.run", "reversed.run", "nudged.run"]
    overall = {r["metric"]: r for r in rep["rows"] if r["stratum"] is None}
    assert set(overall) >= {"nDCG@10", "RR", "AP"}
    strata = {r["stratum"] for r in rep["rows"] if r["stratum"] is not None}
    assert strata == {"conceptual", "how-to", "navigational"}
    solver = TTestPower()
    for r in rep["rows"]:
        n = r["n"]
        assert r["se"] == pytest.approx(r["sd"] / math.sqrt(n), rel=1e-12)
        if not r["sd_diff"]:
            assert r["mde"] == 0 and r["queries_needed"] == 2  # nothing varies: any change shows
            continue
        # the MDE is the effect statsmodels gives 80% power at these n queries
        power_at_mde = solver.power(effect_size=r["mde"] / r["sd_diff"], nobs=n, alpha=0.05, alternative="two-sided")
        assert power_at_mde == pytest.approx(0.8, abs=1e-6)
        # and the queries needed are the fewest at which statsmodels' power reaches 0.8 for 0.02
        needed, effect = r["queries_needed"], 0.02 / r["sd_diff"]
        assert solver.power(effect_size=effect, nobs=needed, alpha=0.05, alternative="two-sided") >= 0.8 - 1e-9
        before = solver.power(effect_size=effect, nobs=needed - 1, alpha=0.05, alternative="two-sided")
        if needed > 2 and not math.isnan(before):  # (statsmodels' noncentral t is NaN in far tails)
            assert before < 0.8
    for r in overall.values():
        assert 0 <= r["discriminative_power"] <= 1
    # 4 runs = 6 pairs: the reversed run differs from the 3 others on nDCG@10 at least
    assert overall["nDCG@10"]["discriminative_power"] >= 3 / 6
    table = run_cli("sensitivity", *runs[:1], "--golden", GOLDEN, "--metrics", METRICS).output
    assert "sensitivity" in table  # one run: SD and SE only


def test_the_same_run_given_twice_is_named_apart(run_cli: Cli) -> None:
    run = str(DEMO / "runs" / "bm25.run")
    board = json.loads(run_cli("compare", run, run, run, "--golden", GOLDEN, "--metrics", "RR", "--resamples", "1000",
                               "--format", "json").output)  # fmt: skip
    assert board["runs"] == ["bm25.run", "bm25.run#2", "bm25.run#3"]


@pytest.mark.parametrize("delta", ["0", "-1", "nan", "1e-300", "1e308"])
def test_a_delta_that_means_nothing_is_refused(run_cli: Cli, delta: str) -> None:
    runs = _runs(run_cli.tmp)
    refused = run_cli("sensitivity", *runs[:2], "--golden", GOLDEN, "--delta", delta, ok=False)
    assert refused.exit_code == 2 and "--delta" in refused.output and "Traceback" not in refused.output


def test_latex_shows_control_characters_visibly(run_cli: Cli) -> None:
    from qrelkit.render.leaderboard import latex_escape

    assert (
        latex_escape("ev\x1b[2J\x9b\u202eZ_&.run")
        == "ev\\textbackslash{}x1b[2J\\textbackslash{}x9b\\textbackslash{}u202eZ\\_\\&.run"
    )
