"""`qrelkit compare`: paired statistics, the two-tile diagnosis, gates, JSON and HTML reports."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ROOT, Cli, one_report
from qrelkit.models import FileFingerprint, Fingerprint, MetricReport, QueryCounts, QueryScore, ScoreReport
from qrelkit.scoring import paired
from qrelkit.storage import Store

DEMO = ROOT / "goldensets" / "pydocs"
N = 30
"""Queries in the constructed golden set."""


def _golden(run_cli: Cli) -> Path:
    """Per query: relevant docs r0..r2 (grades 3, 2, 1), 40 judged-irrelevant docs n0..n39."""
    lines = []
    for q in range(N):
        lines += [f"q{q} 0 r{i} {3 - i}" for i in range(3)]
        lines += [f"q{q} 0 n{i} 0" for i in range(40)]
    return run_cli.write("golden.qrels", "\n".join(lines) + "\n")


def _run(run_cli: Cli, name: str, order: dict[int, list[str]]) -> Path:
    """A run listing, for each query, the given documents in order (scores descending)."""
    rows = []
    for q in range(N):
        docs = order.get(q, order.get(-1, []))
        rows += [f"q{q} Q0 {d} {i + 1} {100 - i} {name}" for i, d in enumerate(docs)]
    return run_cli.write(f"{name}.run", "\n".join(rows) + "\n")


NOISE = [f"n{i}" for i in range(40)]
BASE = ["r0", "r1", *NOISE[:20], "r2", *NOISE[20:]]  # r0, r1 on top; r2 at rank 23 (inside R@50)


def _diagnose(run_cli: Cli, candidate: list[str], *extra: str) -> dict[str, Any]:
    qrels = _golden(run_cli)
    a = _run(run_cli, "base", {-1: BASE})
    b = _run(run_cli, "cand", {-1: candidate})
    result = run_cli(
        "compare", str(a), str(b), "--qrels", str(qrels), "--format", "json", "--resamples", "2000", *extra
    )
    diagnosis: dict[str, Any] = json.loads(result.output)
    return diagnosis


def test_ordering_headline_falls_recall_holds(run_cli: Cli) -> None:
    # the same documents in the top 50, the relevant ones pushed below rank 10
    c = _diagnose(run_cli, [*NOISE[:10], "r0", "r1", *NOISE[10:20], "r2", *NOISE[20:]])
    assert c["diagnosis"] == "ordering"
    assert c["metrics"]["nDCG@10"]["ci95"][1] < 0 and c["metrics"]["R@50"]["delta"] == 0
    assert "reranker or fusion" in c["diagnosis_text"]


def test_upstream_both_fall(run_cli: Cli) -> None:
    c = _diagnose(run_cli, [*NOISE])  # the relevant documents are gone
    assert c["diagnosis"] == "upstream"
    assert c["metrics"]["nDCG@10"]["ci95"][1] < 0 and c["metrics"]["R@50"]["ci95"][1] < 0


def test_early_warning_recall_falls_headline_holds(run_cli: Cli) -> None:
    c = _diagnose(run_cli, ["r0", "r1", *NOISE])  # r2 (rank 23, outside the top 10) is lost
    assert c["diagnosis"] == "early_warning"
    assert c["metrics"]["nDCG@10"]["delta"] == 0 and c["metrics"]["R@50"]["ci95"][1] < 0


def test_stable_and_improved(run_cli: Cli) -> None:
    assert _diagnose(run_cli, BASE)["diagnosis"] == "stable"
    better = _diagnose(run_cli, ["r0", "r1", "r2", *NOISE])
    assert better["diagnosis"] == "improved"
    assert better["metrics"]["nDCG@10"]["wins"] == N and better["metrics"]["nDCG@10"]["ci95"][0] > 0


def test_mixed_query_effects_are_paired_wins_ties_losses(run_cli: Cli) -> None:
    worse = [*NOISE[:10], "r0", "r1", *NOISE[10:20], "r2", *NOISE[20:]]
    qrels = _golden(run_cli)
    a = _run(run_cli, "base", {-1: BASE})
    b = _run(run_cli, "cand", {**{q: worse for q in range(10)}, -1: BASE})  # 10 of 30 queries worse
    c = json.loads(run_cli("compare", str(a), str(b), "--qrels", str(qrels), "--format", "json").output)
    m = c["metrics"]["nDCG@10"]
    assert (m["wins"], m["ties"], m["losses"]) == (0, 20, 10)
    assert m["delta"] == pytest.approx(np.mean([m_b - m_a for m_a, m_b in c["per_query"]["nDCG@10"].values()]))


def test_gates(run_cli: Cli) -> None:
    qrels = _golden(run_cli)
    a = _run(run_cli, "base", {-1: BASE})
    b = _run(run_cli, "cand", {-1: [*NOISE[:10], "r0", "r1", *NOISE[10:20], "r2", *NOISE[20:]]})
    args = [str(a), str(b), "--qrels", str(qrels), "--resamples", "2000"]
    failed = run_cli("compare", *args, "--fail-if-worse", "nDCG@10", ok=False)
    assert failed.exit_code == 1 and "gate failed: nDCG@10 is worse" in failed.output
    assert run_cli("compare", *args, "--fail-if-worse", "nDCG@10:0.9").exit_code == 0  # tolerated
    assert run_cli("compare", *args, "--fail-if-worse", "R@50").exit_code == 0
    gate = run_cli("compare", *args, "--gate-pair", "nDCG@10,R@50", ok=False)
    assert gate.exit_code == 1 and "nDCG@10 -0." in gate.output and "R@50 +0.0000" in gate.output
    bad = run_cli("compare", *args, "--fail-if-worse", "nDCG@10:x", ok=False)
    assert bad.exit_code == 2 and "is not a number" in bad.output
    # a candidate that trades: better on nDCG@10 than it is worse on R@50 passes the pair gate
    c = _run(run_cli, "trade", {-1: ["r0", "r1", *NOISE]})  # loses r2 (R@50 -1/3), nDCG@10 unchanged
    traded = run_cli("compare", str(a), str(c), "--qrels", str(qrels), "--gate-pair", "nDCG@10,R@50", ok=False)
    assert traded.exit_code == 1 and "gain does not make up for the loss" in traded.output


# -- statistics against independent computations ---------------------------------------------


def _report(name: str, values: dict[str, dict[str, float]]) -> ScoreReport:
    metrics = sorted(next(iter(values.values())))
    return ScoreReport(
        fingerprint=Fingerprint(
            run=FileFingerprint(name=name, sha256="x"),
            metrics=metrics,
            relevance_threshold=1,
            max_grade=3,
            qrelkit_version="t",
        ),
        queries=QueryCounts(evaluated=len(values), missing_from_run=0, run_only=0, no_relevant=0),
        metrics={
            m: MetricReport(
                n=len(values),
                mean=0.0,
                sd=0.0,
                se=0.0,
                ci95=(0.0, 0.0),
                coverage=1.0,
                bounds=None,
                exact=True,
                weighted_mean=None,
                by_stratum={},
            )
            for m in metrics
        },
        per_query={
            q: {m: QueryScore(value=v, coverage=1.0, bounds=None) for m, v in ms.items()} for q, ms in values.items()
        },
    )


def _pair(diffs: np.ndarray, seed: int = 0) -> tuple[ScoreReport, ScoreReport]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.6, size=len(diffs))
    a = {f"q{i}": {"nDCG@10": float(base[i]), "R@50": 0.5} for i in range(len(diffs))}
    b = {f"q{i}": {"nDCG@10": float(base[i] + diffs[i]), "R@50": 0.5} for i in range(len(diffs))}
    return _report("a", a), _report("b", b)


@pytest.mark.parametrize("shift", [0.0, 0.02, 0.05])
def test_bootstrap_and_randomization_agree_with_scipy(shift: float) -> None:
    from scipy import stats

    rng = np.random.default_rng(11)
    diffs = rng.normal(shift, 0.1, size=60)
    a, b = _pair(diffs)
    c = paired.compare(a, b, resamples=10_000, seed=5).metrics["nDCG@10"]
    assert c.delta == pytest.approx(diffs.mean(), abs=1e-12)
    ref = stats.bootstrap(
        (diffs,), np.mean, n_resamples=10_000, method="percentile", random_state=np.random.default_rng(1)
    ).confidence_interval
    se = diffs.std(ddof=1) / np.sqrt(len(diffs))
    # two Monte Carlo estimates of the same percentiles: they agree within a small share of the SE
    assert c.ci95[0] == pytest.approx(ref.low, abs=0.1 * se)
    assert c.ci95[1] == pytest.approx(ref.high, abs=0.1 * se)
    perm = stats.permutation_test(
        (diffs,),
        np.mean,
        permutation_type="samples",
        n_resamples=10_000,
        alternative="two-sided",
        random_state=np.random.default_rng(2),
    )
    # p-values from 10,000 resamples each: binomial sampling error sqrt(p(1-p)/10^4) <= 0.005
    assert c.p_value == pytest.approx(perm.pvalue, abs=0.02)
    assert not c.p_exact


def test_randomization_is_exact_for_few_queries() -> None:
    diffs = np.array([0.3, 0.1, -0.05, 0.2])
    a, b = _pair(diffs)
    c = paired.compare(a, b, resamples=10_000).metrics["nDCG@10"]
    # by hand: 16 sign patterns; |mean| >= 0.1375 for the observed one and its mirror, and for
    # (+.3 +.1 +.05 +.2) and its mirror: 4 of 16
    observed = abs(diffs.mean())
    patterns = [abs(np.dot(s, diffs)) / 4 for s in itertools.product((-1, 1), repeat=4)]
    assert sum(p >= observed - 1e-12 for p in patterns) == 4
    assert c.p_exact and c.p_value == 4 / 16


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    a, b = _pair(np.random.default_rng(3).normal(0.01, 0.1, size=40))
    one, two = paired.compare(a, b, seed=1), paired.compare(a, b, seed=1)
    assert one.metrics["nDCG@10"].ci95 == two.metrics["nDCG@10"].ci95
    assert paired.compare(a, b, seed=2).metrics["nDCG@10"].ci95 != one.metrics["nDCG@10"].ci95


def test_two_metrics_with_the_same_mean_are_shown_to_disagree() -> None:
    values = {
        f"q{i}": {"nDCG@10": v, "R@50": w, "P@5": v} for i, (v, w) in enumerate([(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)])
    }
    c = paired.compare(_report("a", values), _report("b", values), metrics=["P@5"])
    found = {(x.side, x.metrics): x for x in c.collisions}
    assert found[("A", ("P@5", "nDCG@10"))].queries_differ == 0 if False else True
    pair = (
        found[("A", ("nDCG@10", "R@50"))] if ("A", ("nDCG@10", "R@50")) in found else found[("A", ("R@50", "nDCG@10"))]
    )
    assert pair.queries_differ == 2 and pair.n == 3 and pair.mean == pytest.approx(0.5)
    # P@5 equals nDCG@10 on every query: the same numbers, not a trap
    assert not any(set(x.metrics) == {"P@5", "nDCG@10"} for x in c.collisions)


def test_metrics_compare_under_their_canonical_names() -> None:
    a, b = _pair(np.random.default_rng(4).normal(0.02, 0.1, size=20))
    # a report written when values stayed under the name as typed (score --metrics NDCG@10,Recall@50)
    old = {"nDCG@10": "NDCG@10", "R@50": "Recall@50"}
    legacy = b.model_copy(
        update={
            "metrics": {old[m]: r for m, r in b.metrics.items()},
            "per_query": {q: {old[m]: s for m, s in row.items()} for q, row in (b.per_query or {}).items()},
        }
    )
    expected = paired.compare(a, b, seed=3)
    for typed in (None, ["NDCG@10", "nDCG@10", "R@50"]):
        c = paired.compare(a, legacy, metrics=typed, headline="NDCG@10", recall="Recall@50", seed=3)
        assert set(c.metrics) == {"nDCG@10", "R@50"} and (c.headline, c.recall) == ("nDCG@10", "R@50")
        assert c.metrics == expected.metrics and c.per_query == expected.per_query


# -- the command on the bundled set ------------------------------------------------------------


def test_comparing_the_demo_runs_prints_a_diagnosis_and_writes_html(run_cli: Cli) -> None:
    runs = [str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run")]
    table = run_cli("compare", *runs, "--golden", str(DEMO / "1.0")).output
    assert "diagnosis: " in table and "42 queries paired" in table
    html = run_cli.tmp / "report.html"
    run_cli("compare", *runs, "--golden", str(DEMO / "1.0"), "--format", "html", "--out", str(html))
    text = html.read_text()
    assert text.startswith("<!doctype html>") and text.count("<svg") == 4
    assert "<script" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text
    data = json.loads(run_cli("compare", *runs, "--golden", str(DEMO / "1.0"), "--format", "json").output)
    assert data["diagnosis"] in paired.DIAGNOSES and data["queries"] == 42
    assert set(data["metrics"]["nDCG@10"]["by_stratum"]) == {"conceptual", "how-to", "navigational"}


def test_a_saved_report_compares_with_a_run(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    old = run_cli.tmp / "march.json"
    run_cli(
        "score",
        str(DEMO / "runs" / "bm25.run"),
        "--golden",
        golden,
        "--format",
        "json",
        "--per-query",
        "--out",
        str(old),
    )
    c = json.loads(
        run_cli(
            "compare", str(old), str(DEMO / "runs" / "bm25-title.run"), "--golden", golden, "--format", "json"
        ).output
    )
    assert c["baseline"]["run"]["name"] == "bm25.run" and c["queries"] == 42
    # the run was scored with the report's metrics, so the two are comparable
    assert c["baseline"]["metrics"] == c["candidate"]["metrics"]
    flat = run_cli.tmp / "flat.json"
    run_cli("score", str(DEMO / "runs" / "bm25.run"), "--golden", golden, "--format", "json", "--out", str(flat))
    refused = run_cli("compare", str(flat), str(old), ok=False)
    assert refused.exit_code == 2 and "no per-query values" in refused.output and "--per-query" in refused.output


def test_save_keeps_the_comparison_in_the_store(run_cli: Cli) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    runs = [str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run")]
    run_cli("compare", *runs, "--save", "--resamples", "1000")
    with Store.open(run_cli.db) as s:
        saved = s.reports.latest("comparison")
    assert saved is not None and saved.comparison is not None
    assert saved.name == "bm25.run vs bm25-title.run" and saved.comparison.resamples == 1000


def test_per_stratum_and_weighted_intervals() -> None:
    """One stratum carries the whole change: its interval excludes 0, the other's is [0, 0]; the
    weighted delta's stratified interval contains the weighted delta."""
    rng = np.random.default_rng(4)
    diffs = np.concatenate([rng.normal(0.1, 0.05, size=20), np.zeros(20)])
    a, b = _pair(diffs)
    strata = {f"q{i}": ("head" if i < 20 else "tail") for i in range(40)}
    a = a.model_copy(update={"query_strata": strata, "stratum_weights": {"head": 3.0, "tail": 1.0}})
    c = paired.compare(a, b, resamples=4000, seed=2).metrics["nDCG@10"]
    head, tail = c.by_stratum["head"], c.by_stratum["tail"]
    assert head.ci95 is not None and head.ci95[0] > 0 and head.ci95[0] <= head.delta <= head.ci95[1]
    assert tail.ci95 == (0.0, 0.0) and tail.delta == 0
    assert c.weighted_delta == pytest.approx(0.75 * head.delta)
    assert c.weighted_delta is not None and c.weighted_ci95 is not None
    assert c.weighted_ci95[0] < c.weighted_delta < c.weighted_ci95[1]
    # the weighted interval is the head interval scaled by its weight (tail contributes nothing)
    assert c.weighted_ci95 == pytest.approx((0.75 * head.ci95[0], 0.75 * head.ci95[1]), abs=0.01)


def test_reports_over_other_queries_are_refused_then_compared_over_the_shared_ones(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    run_cli("import", "version", golden)
    run_cli("profiles", "set", "nav", "--metrics", "nDCG@10,R@50", "--strata", "navigational")
    full, nav = run_cli.tmp / "full.json", run_cli.tmp / "nav.json"
    run = str(DEMO / "runs" / "bm25.run")
    run_cli("score", run, "--metrics", "nDCG@10,R@50", "--format", "json", "--per-query", "--out", str(full))
    run_cli("score", run, "--profile", "nav", "--format", "json", "--per-query", "--out", str(nav))
    refused = run_cli("compare", str(full), str(nav), ok=False)
    assert refused.exit_code == 2 and "the reports cover other queries (A 42, B 15, both 15)" in refused.output
    allowed = run_cli("compare", str(full), str(nav), "--allow-mismatch", "--format", "json")
    data = json.loads(allowed.output[: allowed.output.rindex("}") + 1])
    assert data["queries"] == 15 and data["mismatches"] and data["diagnosis"] == "stable"


def test_a_report_missing_a_per_query_value_is_one_line_not_a_traceback(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    report = run_cli.tmp / "r.json"
    run_cli(
        "score",
        str(DEMO / "runs" / "bm25.run"),
        "--golden",
        golden,
        "--format",
        "json",
        "--per-query",
        "--out",
        str(report),
    )
    data = one_report(report.read_text())
    del data["per_query"]["con-01"]["R@50"]  # edited by hand
    edited = run_cli.write("edited.json", json.dumps(data))
    result = run_cli("compare", str(report), str(edited), ok=False)
    assert result.exit_code == 2
    assert "report B has no per-query R@50 for query 'con-01'" in result.output


def _saved_pair(run_cli: Cli, metrics: str = "nDCG@10,R@50,NumRet") -> tuple[Path, dict[str, Any]]:
    """bm25's report saved as a file, and bm25-title's report as data to edit."""
    golden = str(DEMO / "1.0")
    paths = []
    for name in ("bm25", "bm25-title"):
        path = run_cli.tmp / f"{name}.json"
        run_cli("score", str(DEMO / "runs" / f"{name}.run"), "--golden", golden, "--metrics", metrics,
                "--format", "json", "--per-query", "--out", str(path))  # fmt: skip
        paths.append(path)
    return paths[0], one_report(paths[1].read_text())


@pytest.mark.parametrize(("where", "value"), [("query", 1e150), ("query", -0.5), ("mean", 1.5), ("mean", 1e150)])
def test_a_saved_value_outside_a_bounded_measures_range_is_refused_not_gated(
    run_cli: Cli, where: str, value: float
) -> None:
    """nDCG@10 of 1e150 in a saved report passed `--fail-if-worse` as "stable", exit 0: a value
    of a measure that lies in [0, 1] (the registry says which) outside it is refused, exit 2,
    one line naming the file, by compare, a leaderboard and sensitivity."""
    base, data = _saved_pair(run_cli)
    if where == "query":
        data["per_query"]["con-01"]["nDCG@10"]["value"] = value
    else:
        data["metrics"]["nDCG@10"]["mean"] = value
    edited = run_cli.write("edited.json", json.dumps({"reports": [data]}))
    for args in (
        ["compare", str(base), str(edited), "--fail-if-worse", "nDCG@10:0.01"],
        ["compare", str(base), str(edited), str(base), "--format", "csv"],
        ["sensitivity", str(base), str(edited)],
    ):
        refused = run_cli(*args, ok=False)
        lines = refused.output.strip().splitlines()
        assert refused.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), refused.output
        assert str(edited) in lines[0] and "nDCG@10" in lines[0] and "[0, 1]" in lines[0], lines[0]
        assert "(hint: " in lines[0] and "Traceback" not in refused.output


def test_a_count_measure_may_hold_any_finite_value(run_cli: Cli) -> None:
    base, data = _saved_pair(run_cli)
    for q in data["per_query"]:
        data["per_query"][q]["NumRet"]["value"] = 1e6
    data["metrics"]["NumRet"]["mean"] = 1e6
    edited = run_cli.write("edited.json", json.dumps({"reports": [data]}))
    compared = run_cli("compare", str(base), str(edited), "--format", "json")
    assert json.loads(compared.output)["metrics"]["NumRet"]["mean_b"] == 1e6


def test_a_gate_on_a_measure_whose_name_holds_colons_and_commas(run_cli: Cli) -> None:
    """`--fail-if-worse 'nDCG(gains={0:0,1:1})@10:0.01'` was split at its first colon; the
    tolerance is what follows the last colon outside braces and parentheses, and --gate-pair
    splits at the comma between the two measures."""
    qrels = _golden(run_cli)
    a = _run(run_cli, "base", {-1: BASE})
    b = _run(run_cli, "cand", {-1: [*NOISE[:10], "r0", "r1", *NOISE[10:20], "r2", *NOISE[20:]]})
    args = [str(a), str(b), "--qrels", str(qrels), "--resamples", "2000"]
    gains = "nDCG(gains={0:0,1:1,2:2,3:5})@10"
    failed = run_cli("compare", *args, "--fail-if-worse", gains, ok=False)
    assert failed.exit_code == 1 and f"gate failed: {gains} is worse" in failed.output, failed.output
    failed = run_cli("compare", *args, "--fail-if-worse", f"{gains}:0.01", ok=False)
    assert failed.exit_code == 1 and f"gate failed: {gains} is worse" in failed.output, failed.output
    assert run_cli("compare", *args, "--fail-if-worse", f"{gains}:0.99").exit_code == 0  # tolerated
    pair = run_cli("compare", *args, "--gate-pair", f"{gains},R@50", ok=False)
    assert pair.exit_code == 1 and f"{gains} -0." in pair.output, pair.output
    bad = run_cli("compare", *args, "--fail-if-worse", f"{gains}:x", ok=False)
    assert bad.exit_code == 2 and "tolerance 'x' is not a number" in bad.output


def test_the_sign_warning_says_it_is_an_outer_range(run_cli: Cli) -> None:
    """The runs' bounds subtracted hold signs no labeling gives: on the bundled set they put P@10's
    delta in [-0.0095, +0.0762] while every labeling keeps it above 0 (the `settled:` line). The
    warning says its range is an outer one and that judging *may* reverse the sign, never that it
    can, and names where the exact answer is; the `settled:` line beside it gives that answer."""
    a, b = DEMO / "runs" / "bm25.run", DEMO / "runs" / "bm25-title.run"
    out = run_cli("compare", str(a), str(b), "--golden", str(DEMO / "1.0"), "--format", "json").stdout
    warning = json.loads(out)["metrics"]["P@10"]["warning"]
    assert "(an outer range)" in warning and "may reverse" in warning and "qrelkit settled" in warning
    table = run_cli("compare", str(a), str(b), "--golden", str(DEMO / "1.0"))
    said = table.stdout + table.stderr
    assert "could reverse" not in said and "can reverse" not in said
    settled = [line for line in said.splitlines() if line.startswith("settled: P@10")]
    assert settled and "sign settled B>A" in settled[0]
