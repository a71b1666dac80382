"""A mean over zero queries is not 0: NaN in Python (ir_measures gives NaN too), null in JSON,
`n/a` in tables, no interval, no bounds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema

from conftest import Cli
from qrelkit.models import FileFingerprint, Fingerprint, ScoreReport, ScoreReports, to_plain
from qrelkit.render.score import render_reports
from qrelkit.scoring import evaluate

ROOT = Path(__file__).resolve().parents[1]


def _report(queries: list[str] | None, *, strata: dict[str, str] | None = None) -> ScoreReport:
    ev = evaluate({"q": {"a": 1}, "r": {"b": 1}}, {"q": {"a": 1.0}}, "AP,P@5", queries=queries, strata=strata)
    fp = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=[m.name for m in ev.measures],
        relevance_threshold=1,
        max_grade=1,
        qrelkit_version="t",
    )
    return ev.report(fp, per_query=True)


def test_no_query_gives_nan_not_zero() -> None:
    rep = _report([])
    for m in rep.metrics.values():
        assert m.n == 0 and math.isnan(m.mean) and math.isnan(m.sd) and all(math.isnan(x) for x in m.ci95)
        assert m.coverage is None and m.bounds is None and m.weighted_mean is None


def test_json_writes_null_and_reads_it_back() -> None:
    rep = _report([])
    data = json.loads(ScoreReports(reports=[rep]).model_dump_json())
    ap = data["reports"][0]["metrics"]["AP"]
    assert ap["mean"] is None and ap["sd"] is None and ap["se"] is None and ap["ci95"] == [None, None]
    schema = json.loads((ROOT / "schemas" / "score-reports.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)  # the published schema allows it
    back = ScoreReport.model_validate_json(json.dumps(data["reports"][0]))
    assert math.isnan(back.metrics["AP"].mean)


def test_tables_csv_and_trec_lines_say_n_a() -> None:
    rep = _report([])
    table = render_reports([to_plain(rep)], "table")
    assert "n/a" in table and "0.0000" not in table and "0.000–0.000" not in table
    assert render_reports([to_plain(rep)], "trec").splitlines() == ["AP\tall\tn/a", "P@5\tall\tn/a"]
    rows = render_reports([to_plain(rep)], "csv").splitlines()[1:]
    # n, then mean, sd, se, ci_low, ci_high, coverage, bounds and weighted mean: all empty; no query
    # missing from the run, none without labels
    assert rows == ["r,AP,all,0,,,,,,,,,,0,0", "r,P@5,all,0,,,,,,,,,,0,0"]


def test_one_query_still_has_a_mean() -> None:
    # q: a ranked first and relevant: AP = 1/1 = 1, P@5 = 1/5; r is missing from the run: 0 and 0
    rep = _report(None)
    assert rep.metrics["AP"].mean == 0.5 and rep.metrics["P@5"].mean == (0.2 + 0.0) / 2
    assert "n/a" not in render_reports([to_plain(rep)], "table")


def test_the_python_means_over_zero_queries_are_nan() -> None:
    ev = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP,P@5", queries=[])
    assert all(math.isnan(v) for v in ev.means().values()) and set(ev.means()) == {"AP", "P@5"}


def test_a_run_against_a_golden_set_without_queries_is_an_error_not_a_mean(run_cli: Cli) -> None:
    run_cli("init")
    result = run_cli("score", str(run_cli.write("r.run", "q1 Q0 d1 1 1.0 r\n")), ok=False)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "r.run shares no query with the golden set (run: 'q1', golden set: no query)" in result.output
    assert "the golden set has no query yet: import queries first" in result.output
