"""Data frames (issue 28): `qrelkit.load(store or version)` gives qrels, queries and the judgment
log as pandas frames in ir_measures' and PyTerrier's column names; unlabeled and skipped pairs stay
apart from grade 0; `qrelkit.evaluate` takes the frames back (the same numbers as the store's own
`score`, and as ir_measures on the same frames); `Evaluation.to_frame()` gives per-query values with
coverage and bounds."""

from __future__ import annotations

import json
import math

import ir_measures
import pandas as pd
import pytest

import qrelkit
from conftest import ROOT, Cli
from qrelkit.errors import UsageError

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUN = ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run"


def _run_frame(names: str = "ir_measures") -> pd.DataFrame:
    rows = [line.split() for line in RUN.read_text().splitlines() if line.strip()]
    q, d = ("query_id", "doc_id") if names == "ir_measures" else ("qid", "docno")
    return pd.DataFrame({q: [r[0] for r in rows], d: [r[2] for r in rows], "score": [float(r[4]) for r in rows]})


def test_a_version_and_the_store_holding_it_give_the_same_frames(run_cli: Cli) -> None:
    version = qrelkit.load(PYDOCS)
    run_cli("import", "version", str(PYDOCS))
    store = qrelkit.load(run_cli.db)
    frozen = json.loads((PYDOCS / "manifest.json").read_text())["content_hash"]
    assert version.content_hash == store.content_hash == frozen
    pd.testing.assert_frame_equal(version.qrels_frame(), store.qrels_frame())
    pd.testing.assert_frame_equal(version.queries_frame(), store.queries_frame())
    pd.testing.assert_frame_equal(version.judgments_frame(), store.judgments_frame())
    qrels = version.qrels_frame()
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    lines = [x.split() for x in (PYDOCS / "qrels.txt").read_text().splitlines()]
    assert len(qrels) == len(lines) and set(zip(qrels.query_id, qrels.doc_id, qrels.relevance, strict=True)) == {
        (q, d, int(g)) for q, _, d, g in lines
    }
    assert list(version.qrels_frame("pyterrier").columns) == ["qid", "docno", "label"]
    assert list(version.queries_frame("pyterrier").columns)[:2] == ["qid", "query"]
    log = version.judgments_frame()
    assert len(log) == len((PYDOCS / "judgments.jsonl").read_text().splitlines()) and str(log.timestamp.dt.tz) == "UTC"


def test_unlabeled_and_skipped_pairs_are_never_grade_0(run_cli: Cli) -> None:
    run_cli.write("q.jsonl", '{"id": "q1", "text": "one"}\n')
    run_cli.write("d.jsonl", "".join(f'{{"id": "{d}", "text": "t"}}\n' for d in ("a", "b", "c", "z")))
    run_cli.write("r.txt", "q1 Q0 a 1 4 r\nq1 Q0 b 2 3 r\nq1 Q0 c 3 2 r\nq1 Q0 z 4 1 r\n")
    run_cli("import", "queries", str(run_cli.tmp / "q.jsonl"), "--stratum", "web", "--create-strata")
    run_cli("import", "docs", str(run_cli.tmp / "d.jsonl"))
    run_cli("pool", str(run_cli.tmp / "r.txt"), "--depth", "4")
    at = {"query_id": "q1", "assessor": "ann"}
    events = [
        {**at, "doc_id": "a", "state": "graded", "grade": 2, "timestamp": "2026-01-01T00:00:00Z"},
        {**at, "doc_id": "b", "state": "graded", "grade": 0, "timestamp": "2026-01-01T00:01:00Z"},
        {**at, "doc_id": "c", "state": "skipped", "timestamp": "2026-01-01T00:02:00Z"},
    ]
    run_cli.write("j.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    run_cli("import", "judgments", str(run_cli.tmp / "j.jsonl"))
    gs = qrelkit.load(run_cli.db)
    assert gs.qrels_frame().to_dict("records") == [
        {"query_id": "q1", "doc_id": "a", "relevance": 2},
        {"query_id": "q1", "doc_id": "b", "relevance": 0},
    ]
    full = gs.qrels_frame(states=True)
    assert list(full.state) == ["graded", "graded", "skipped", "unlabeled"]
    assert full.relevance.isna().tolist() == [False, False, True, True]
    run = {"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "z": 1.0}}
    from_frame = qrelkit.evaluate(full, run, "P@4,nDCG@4", max_grade=3)  # the scale: a frame has none
    from_store = gs.evaluate(run, "P@4,nDCG@4")
    for m in ("P@4", "nDCG@4"):
        assert from_frame.scores[m].coverage[0] == from_store.scores[m].coverage[0] == 0.5
        assert from_frame.scores[m].low[0] == from_store.scores[m].low[0]
        assert from_frame.scores[m].high[0] == from_store.scores[m].high[0] > from_frame.scores[m].low[0]
    graded_only = qrelkit.evaluate(gs.qrels_frame(), run, "P@4")
    assert graded_only.scores["P@4"].coverage[0] == 0.5  # c and z unknown to it: unlabeled all the same


def test_evaluate_on_frames_agrees_with_the_store_and_with_ir_measures(run_cli: Cli) -> None:
    run_cli("import", "version", str(PYDOCS))
    gs = qrelkit.load(run_cli.db)
    args = ("--metrics", "nDCG@10,AP,P@5", "--per-query", "--format", "json")
    saved = json.loads(run_cli("score", str(RUN), *args).output)
    per_query = saved["reports"][0]["per_query"]
    for names in ("ir_measures", "pyterrier"):
        ev = qrelkit.evaluate(gs.qrels_frame(names), _run_frame(names), "nDCG@10,AP,P@5", queries=list(gs.strata))
        for q, values in ev.per_query().items():
            for m, v in values.items():
                assert v == pytest.approx(per_query[q][m]["value"], abs=1e-12), (q, m)
    ref = ir_measures.iter_calc(
        [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P @ 5], gs.qrels_frame(), _run_frame()
    )
    ours = qrelkit.evaluate(gs.qrels_frame(), _run_frame(), "nDCG@10,AP,P@5").per_query()
    checked = 0
    for r in ref:
        assert ours[r.query_id][str(r.measure)] == pytest.approx(r.value, abs=1e-9)
        checked += 1
    assert checked > 60


def test_per_query_values_as_a_frame_with_coverage_and_bounds() -> None:
    gs = qrelkit.load(PYDOCS)
    ev = gs.evaluate(_run_frame(), "nDCG@10,P@5")
    frame = ev.to_frame()
    assert list(frame.columns) == ["query_id", "stratum", "measure", "value", "coverage", "low", "high", "exact"]
    assert len(frame) == 2 * len(ev.query_ids)
    row = frame[(frame.measure == "P@5") & (frame.query_id == ev.query_ids[0])].iloc[0]
    s = ev.scores["P@5"]
    assert (row.value, row.low, row.high, bool(row.exact)) == (s.value[0], s.low[0], s.high[0], bool(s.exact[0]))
    assert row.stratum == gs.strata[ev.query_ids[0]]
    assert list(ev.to_frame("pyterrier").columns)[0] == "qid"
    no_bounds = gs.evaluate(_run_frame(), "P@5", bounds=False).to_frame()
    assert no_bounds.low.isna().all() and not math.isnan(no_bounds.value.iloc[0])


def test_bad_frames_and_sources_are_one_line_errors(run_cli: Cli) -> None:
    with pytest.raises(UsageError, match="no query, document and relevance columns"):
        qrelkit.evaluate(pd.DataFrame({"q": ["a"], "d": ["b"], "rel": [1]}), {}, "P@5")
    with pytest.raises(UsageError, match="row 2: the grade"):
        qrelkit.evaluate(pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["b", "c"], "relevance": [1, 0.5]}), {}, "P@5")
    with pytest.raises(UsageError, match="row 1: state 'maybe'"):
        qrelkit.evaluate(
            pd.DataFrame({"query_id": ["a"], "doc_id": ["b"], "relevance": [None], "state": ["maybe"]}), {}, "P@5"
        )
    with pytest.raises(UsageError, match="row 1: the score"):
        qrelkit.evaluate({"a": {"b": 1}}, pd.DataFrame({"qid": ["a"], "docno": ["b"], "score": [math.inf]}), "P@5")
    with pytest.raises(UsageError, match="no such store or version folder"):
        qrelkit.load(run_cli.tmp / "missing.db")
    with pytest.raises(UsageError, match="unknown column names"):
        qrelkit.load(PYDOCS).qrels_frame("trec")  # type: ignore[arg-type]


def test_hostile_ids_come_back_exactly(run_cli: Cli) -> None:
    hostile = "[red]q[/red]\u202e"
    run_cli.write("q.jsonl", json.dumps({"id": "q[b]1[/b]", "text": hostile}) + "\n")
    run_cli("import", "queries", str(run_cli.tmp / "q.jsonl"), "--stratum", "web", "--create-strata")
    frame = qrelkit.load(run_cli.db).queries_frame()
    assert frame.to_dict("records")[0]["query_id"] == "q[b]1[/b]" and frame.text.iloc[0] == hostile


def test_pandas_loads_only_when_a_frame_is_asked_for() -> None:
    import subprocess
    import sys

    code = (
        "import sys, qrelkit\n"
        f"gs = qrelkit.load({str(PYDOCS)!r})\n"
        "ev = gs.evaluate({'con-02': {'x': 1.0}}, 'P@5')\n"
        "print('pandas' in sys.modules)\n"
        "ev.to_frame()\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["False", "True"]
