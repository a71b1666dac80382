from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, Cli, one_report
from qrelkit.formats.schemas import SCHEMAS, drift, render

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUNS = [str(PYDOCS.parent / "runs" / "bm25.run"), str(PYDOCS.parent / "runs" / "bm25-title.run")]
QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c -1\nq2 0 x 1\nq3 0 z 0\n"
RUN = "q1 Q0 c 1 3.0 r\nq1 Q0 a 2 2.0 r\nq1 Q0 u 3 1.0 r\nq2 Q0 y 1 1.0 r\nq9 Q0 a 1 1.0 r\n"


def test_json_report_has_the_documented_keys_and_validates(run_cli: Cli) -> None:
    qrels, run = run_cli.write("t.qrels", QRELS), run_cli.write("t.run", RUN)
    out = run_cli(
        "score",
        str(run),
        "--qrels",
        str(qrels),
        "--format",
        "json",
        "--per-query",
        "--metrics",
        "P@2,RR,nDCG@3",
    ).output
    jsonschema.Draft202012Validator(json.loads(render(SCHEMAS["score-reports.schema.json"]))).validate(json.loads(out))
    report = one_report(out)
    jsonschema.Draft202012Validator(json.loads(render(SCHEMAS["score-report.schema.json"]))).validate(report)
    assert set(report) >= {"fingerprint", "queries", "metrics", "per_query"}
    assert report["queries"] == {
        "evaluated": 3, "missing_from_run": 1, "run_only": 1, "no_relevant": 1, "outside_profile": 0,
        "unlabeled": 0, "unlabeled_kept": False,
    }  # fmt: skip
    fp = report["fingerprint"]
    assert fp["qrels"]["name"] == "t.qrels" and fp["qrels"]["sha256"].startswith("sha256:")
    assert fp["run"]["name"] == "t.run" and fp["metrics"] == ["P@2", "RR", "nDCG@3"]
    p2 = report["metrics"]["P@2"]
    assert set(p2) >= {"mean", "sd", "se", "ci95", "coverage", "bounds", "weighted_mean", "by_stratum"}
    # q1: c (pooled-unjudged) then a (grade 2): P@2 = 0.5, bounds 0.5..1, coverage 1/2
    q1 = report["per_query"]["q1"]["P@2"]
    assert q1 == {"value": 0.5, "coverage": 0.5, "bounds": [0.5, 1.0], "exact": True}
    assert report["per_query"]["q3"]["RR"]["coverage"] is None  # nothing retrieved: undefined
    assert p2["mean"] == pytest.approx((0.5 + 0.0 + 0.0) / 3)


def test_trec_format_prints_measure_query_value(run_cli: Cli) -> None:
    qrels, run = run_cli.write("t.qrels", QRELS), run_cli.write("t.run", RUN)
    out = run_cli("score", str(run), "--qrels", str(qrels), "--format", "trec", "--per-query", "--metrics", "RR").output
    lines = [line.split("\t") for line in out.splitlines()]
    assert ["RR", "q1", "0.500000"] in lines and ["RR", "all", f"{0.5 / 3:.6f}"] in lines


def test_csv_and_out_file(run_cli: Cli) -> None:
    qrels, run = run_cli.write("t.qrels", QRELS), run_cli.write("t.run", RUN)
    target = run_cli.tmp / "out" / "s.csv"
    missing = run_cli("score", str(run), "--qrels", str(qrels), "--out", str(target), ok=False)
    assert missing.exit_code == 2 and "no folder" in missing.output  # a mistyped --out creates no folder
    target.parent.mkdir()
    run_cli("score", str(run), "--qrels", str(qrels), "--format", "csv", "--out", str(target), "--metrics", "RR")
    rows = target.read_text().splitlines()
    assert rows[0].startswith("run,metric,stratum,n,mean")
    assert rows[1].startswith("t.run,RR,all,3,")


def test_min_coverage_exits_1_naming_metric_and_stratum(run_cli: Cli) -> None:
    result = run_cli("score", *RUNS, "--golden", str(PYDOCS), "--min-coverage", "0.5", ok=False)
    assert result.exit_code == 1
    assert "coverage below 0.5" in result.output
    assert "R@50 (all)" in result.output and "AP (how-to)" in result.output
    assert "nDCG@10" not in result.output.split("coverage below")[1]


def test_profile_selects_metrics_and_strata(run_cli: Cli) -> None:
    out = run_cli("score", RUNS[0], "--golden", str(PYDOCS), "--profile", "palette", "--format", "json").output
    report = one_report(out)
    assert list(report["metrics"]) == ["RR", "Success@1"]
    assert report["queries"]["evaluated"] == 15
    assert list(report["metrics"]["RR"]["by_stratum"]) == ["navigational"]
    bad = run_cli("score", RUNS[0], "--golden", str(PYDOCS), "--profile", "nope", ok=False)
    assert bad.exit_code == 2 and "palette" in bad.output


def test_store_and_golden_folder_give_the_same_numbers(run_cli: Cli) -> None:
    from qrelkit.workflows.demo import bundled_golden

    run_cli("demo", "--keep", str(run_cli.db))
    a = one_report(run_cli("score", RUNS[0], "--format", "json").output)
    b = one_report(run_cli("score", RUNS[0], "--golden", str(bundled_golden()), "--format", "json").output)
    assert a["metrics"] == b["metrics"]
    assert a["fingerprint"]["golden"]["content_hash"] == b["fingerprint"]["golden"]["content_hash"]
    w = a["metrics"]["nDCG@10"]
    by = w["by_stratum"]
    weights = {"navigational": 0.45, "how-to": 0.35, "conceptual": 0.20}
    assert w["weighted_mean"] == pytest.approx(sum(weights[s] * by[s]["mean"] for s in weights))


def test_jsonl_run_equals_trec_run(run_cli: Cli) -> None:
    qrels = run_cli.write("t.qrels", QRELS)
    lines = [{"query_id": f.split()[0], "doc_id": f.split()[2], "score": float(f.split()[4])} for f in RUN.splitlines()]
    jl = run_cli.write("t.jsonl", "\n".join(json.dumps(x) for x in lines))
    trec_out = one_report(
        run_cli("score", str(run_cli.write("t.run", RUN)), "--qrels", str(qrels), "--format", "json").output
    )
    jl_out = one_report(run_cli("score", str(jl), "--qrels", str(qrels), "--format", "json").output)
    assert trec_out["metrics"] == jl_out["metrics"]


def test_bad_run_line_exits_2(run_cli: Cli) -> None:
    qrels = run_cli.write("t.qrels", QRELS)
    result = run_cli("score", str(run_cli.write("bad.run", "q1 Q0 a 1 x r\n")), "--qrels", str(qrels), ok=False)
    assert result.exit_code == 2 and "bad.run:1: score 'x' is not a number" in result.output


def test_python_api_does_not_load_textual_or_sqlite() -> None:
    code = (
        "import sys, qrelkit; "
        "ev = qrelkit.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0}}, 'nDCG@10'); "
        "assert ev.per_query() == {'q': {'nDCG@10': 1.0}}; "
        "print(sorted(m for m in ('textual', 'sqlite3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_schemas_match_the_models() -> None:
    assert drift(ROOT / "schemas") == [], "run `qrelkit schemas write`"


def test_cli_reference_is_current() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "write_cli_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout


def test_exported_lines_validate_against_their_schemas(run_cli: Cli, tmp_path: Path) -> None:
    run_cli("demo", "--keep", str(run_cli.db))
    run_cli("export", "judgments", "--out", str(tmp_path / "j.jsonl"))
    run_cli("export", "qrels", "--format", "jsonl", "--out", str(tmp_path / "l.jsonl"))
    for name, schema_name in (("j.jsonl", "judgment.schema.json"), ("l.jsonl", "label.schema.json")):
        validator = jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / schema_name).read_text()))
        for line in (tmp_path / name).read_text().splitlines():
            validator.validate(json.loads(line))
    for line in (PYDOCS / "queries.jsonl").read_text().splitlines():
        jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / "query.schema.json").read_text())).validate(
            json.loads(line)
        )


def test_no_bounds_gives_the_same_values_and_null_bounds(run_cli: Cli) -> None:
    args = ["score", RUNS[0], "--golden", str(PYDOCS), "--format", "json", "--per-query"]
    with_bounds = one_report(run_cli(*args).output)
    without = one_report(run_cli(*args, "--no-bounds").output)
    for name, m in with_bounds["metrics"].items():
        assert without["metrics"][name]["mean"] == m["mean"]
        assert without["metrics"][name]["coverage"] == m["coverage"]
        assert without["metrics"][name]["bounds"] is None and m["bounds"] is not None
    q = next(iter(without["per_query"]))
    assert without["per_query"][q]["RR"]["bounds"] is None


def test_profiles_set_list_and_use(run_cli: Cli) -> None:
    run_cli("demo", "--keep", str(run_cli.db))
    run_cli("profiles", "set", "howto", "--metrics", "nDCG@5,R@20", "--strata", "how-to")
    assert "howto" in run_cli("profiles", "list").output
    report = one_report(run_cli("score", RUNS[0], "--profile", "howto", "--format", "json").output)
    assert list(report["metrics"]) == ["nDCG@5", "R@20"] and report["queries"]["evaluated"] == 15
    bad = run_cli("profiles", "set", "x", "--metrics", "RR", "--strata", "nope", ok=False)
    assert bad.exit_code == 2 and "unknown strata: nope" in bad.output
    bad = run_cli("profiles", "set", "x", "--metrics", "Foo@3", ok=False)
    assert bad.exit_code == 2 and "unknown measure" in bad.output
