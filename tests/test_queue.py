"""Pooling runs into the judging pool, the judging queue's orders, and coverage of runs' top k."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ROOT, Cli
from qrelkit.models import Judgment, JudgmentState
from qrelkit.scoring import evaluate
from qrelkit.scoring.arrays import RunLists, rank, top_documents
from qrelkit.scoring.coverage import run_coverage
from qrelkit.scoring.impact import _narrowing, grade_prior, impact_scores, query_weights, width_shares
from qrelkit.scoring.names import parse_measure
from qrelkit.storage import Store

DEMO = ROOT / "goldensets" / "pydocs"
RUNS = [DEMO / "runs" / "bm25.run", DEMO / "runs" / "bm25-title.run"]


def _top(path: Path, depth: int) -> dict[str, list[tuple[str, int]]]:
    """An independent reading of trec_eval's order: score descending, then doc id descending."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        rows.setdefault(q, []).append((float(s), d))
    return {
        q: [(d, i + 1) for i, (_, d) in enumerate(sorted(r, key=lambda x: (x[0], x[1].encode()), reverse=True)[:depth])]
        for q, r in rows.items()
    }


def _demo_labels_only(run_cli: Cli) -> None:
    version = DEMO / "1.0"
    run_cli("init", "--name", "pydocs")
    run_cli("import", "queries", str(version / "queries.jsonl"), "--create-strata")
    run_cli("import", "docs", str(version / "documents.jsonl"))
    run_cli("import", "qrels", str(version / "qrels.txt"))


def _pool_rows(db: Path) -> dict[tuple[str, str], tuple[str, int]]:
    with Store.open(db) as s:
        rows = s.conn.execute("SELECT query_id, doc_id, source, best_rank FROM pool").fetchall()
    return {(q, d): (src, r) for q, d, src, r in rows}


def test_pooling_the_demo_runs_adds_exactly_their_unlabeled_top_10(run_cli: Cli) -> None:
    _demo_labels_only(run_cli)
    labeled = {tuple(line.split()[::2][:2]) for line in (DEMO / "1.0" / "qrels.txt").read_text().splitlines()}
    expected: dict[tuple[str, str], tuple[set[str], int]] = {}
    for path in RUNS:
        for q, docs in _top(path, 10).items():
            for d, r in docs:
                if (q, d) not in labeled:
                    names, best = expected.get((q, d), (set(), r))
                    expected[(q, d)] = (names | {path.stem}, min(best, r))
    result = run_cli("pool", *map(str, RUNS), "--depth", "10")
    assert f"{len(expected)} pairs added" in result.output
    pool = _pool_rows(run_cli.db)
    assert set(pool) == set(expected)
    for pair, (names, best) in expected.items():
        assert pool[pair] == (",".join(sorted(names)), best)
    # the queue lists exactly those pairs
    tsv = run_cli("queue", "--format", "tsv").output.splitlines()
    assert {tuple(line.split("\t")[:2]) for line in tsv} == set(expected)

    again = run_cli("pool", *map(str, RUNS), "--depth", "10")  # idempotent
    assert "0 pairs added, 0 already pooled (ranks updated)" in again.output
    assert _pool_rows(run_cli.db) == pool


def test_pool_records_which_runs_and_ranks_surfaced_each_pair(run_cli: Cli) -> None:
    _demo_labels_only(run_cli)
    run_cli("pool", *map(str, RUNS), "--depth", "5")
    with Store.open(run_cli.db) as s:
        rows = s.conn.execute("SELECT run, query_id, rank, doc_id FROM run_rows").fetchall()
        runs = {name: depth for name, depth in s.conn.execute("SELECT name, depth FROM runs")}
    assert runs == {"bm25": 5, "bm25-title": 5}
    expected = {(p.stem, q, r, d) for p in RUNS for q, docs in _top(p, 5).items() for d, r in docs}
    assert set(rows) == expected


def test_pool_one_stratum_and_documents_missing_from_the_store(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("strata", "set", "nav", "2")
    run_cli("strata", "set", "how", "1")
    q = run_cli.write("q.tsv", "q1\tfirst\tnav\nq2\tsecond\thow\n")
    run_cli("import", "queries", str(q))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", '{"id": "a", "text": "x"}\n')))
    run = run_cli.write("sys.run", "q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq2 Q0 a 1 3 s\nq9 Q0 a 1 1 s\n")
    result = run_cli("pool", str(run), "--depth", "5", "--stratum", "nav")
    assert "2 pairs added" in result.output
    assert "1 documents are not in the store" in result.output and "(b)" in result.output
    assert "1 run queries are not in the golden set" in result.output
    assert set(_pool_rows(run_cli.db)) == {("q1", "a"), ("q1", "b")}
    bad = run_cli("pool", str(run), "--depth", "5", "--stratum", "nope", ok=False)
    assert bad.exit_code == 2 and "unknown stratum 'nope'" in bad.output


def test_pool_refuses_a_bad_run_and_changes_nothing(run_cli: Cli) -> None:
    _demo_labels_only(run_cli)
    bad = run_cli.write("bad.run", "con-01 Q0 a 1 2.0 x\ncon-01 Q0 b 2 high x\n")
    before = _pool_rows(run_cli.db)
    result = run_cli("pool", str(RUNS[0]), str(bad), "--depth", "10", ok=False)
    assert result.exit_code == 2
    assert "bad.run:2" in result.output and "not a number" in result.output
    assert _pool_rows(run_cli.db) == before
    twice = run_cli("pool", str(RUNS[0]), str(RUNS[0]), "--depth", "3", ok=False)
    assert twice.exit_code == 2 and "two runs are named 'bm25'" in twice.output


def _small_store(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("strata", "set", "head", "3")
    run_cli("strata", "set", "tail", "1")
    queries = "".join(f"{q}\ttext {q}\t{s}\n" for q, s in [("h1", "head"), ("h2", "head"), ("t1", "tail")])
    run_cli("import", "queries", str(run_cli.write("q.tsv", queries)))


def test_queue_orders(run_cli: Cli) -> None:
    _small_store(run_cli)
    run_cli("import", "qrels", str(run_cli.write("l.qrels", "h1 0 a 3\nh2 0 a 0\nt1 0 a 1\n")))
    a = run_cli.write(
        "a.run", "".join(f"{q} Q0 {d} {i} {10 - i} a\n" for q in ("h1", "h2", "t1") for i, d in enumerate("abcde", 1))
    )
    b = run_cli.write(
        "b.run", "".join(f"{q} Q0 {d} {i} {10 - i} b\n" for q in ("h1", "h2", "t1") for i, d in enumerate("aedxy", 1))
    )
    run_cli("pool", str(a), str(b), "--depth", "5")

    depth = [line.split("\t") for line in run_cli("queue", "--order", "depth", "--format", "tsv").output.splitlines()]
    assert [(q, d) for q, d, _ in depth[:3]] == [("h1", "b"), ("h1", "e"), ("h2", "b")]  # rank 2, then query, doc
    assert float(depth[0][2]) == 0.5  # 1 / best rank

    first = run_cli("queue", "--order", "random", "--seed", "7", "--format", "tsv").output
    assert first == run_cli("queue", "--order", "random", "--seed", "7", "--format", "tsv").output
    assert first != run_cli("queue", "--order", "random", "--seed", "8", "--format", "tsv").output
    assert sorted(first.splitlines()) != first.splitlines() or len(first.splitlines()) < 3

    impact = json.loads(run_cli("queue", "--format", "json").output)
    priorities = [i["priority"] for i in impact]
    assert priorities == sorted(priorities, reverse=True) and priorities[0] > 0
    # a head query carries 3/4 of the traffic over 2 queries, the tail query 1/4 over 1: for the
    # same situation (h2 and t1 both judged only at rank 1) h2's pairs outrank t1's
    pos = {(i["query_id"], i["doc_id"]): n for n, i in enumerate(impact)}
    assert pos[("h2", "e")] < pos[("t1", "e")]
    # e is ranked by both runs inside the top 5, c by one only, at the same rank 3 / rank 2
    assert pos[("h2", "e")] < pos[("h2", "c")]
    limited = run_cli("queue", "--limit", "2", "--format", "tsv").output.splitlines()
    assert len(limited) == 2

    # a judged pair leaves the queue; a skipped one too; a cleared one comes back
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id="h1", doc_id="b", state=JudgmentState.GRADED, grade=2, assessor="x"))
        s.log.record(Judgment(query_id="h1", doc_id="c", state=JudgmentState.SKIPPED, assessor="x"))
        s.log.record(Judgment(query_id="h2", doc_id="b", state=JudgmentState.GRADED, grade=2, assessor="x"))
        s.log.record(Judgment(query_id="h2", doc_id="b", state=JudgmentState.CLEARED, assessor="x"))
    left = {tuple(line.split("\t")[:2]) for line in run_cli("queue", "--format", "tsv").output.splitlines()}
    assert ("h1", "b") not in left and ("h1", "c") not in left and ("h2", "b") in left


def test_queue_of_a_store_without_pooled_runs_falls_back_to_depth(run_cli: Cli) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    impact = run_cli("queue", "--format", "json").output
    items = json.loads(impact)
    assert len(items) == 18 and all(i["priority"] == 0 for i in items)
    depth = json.loads(run_cli("queue", "--order", "depth", "--format", "json").output)
    assert [(i["query_id"], i["doc_id"]) for i in items] == [(i["query_id"], i["doc_id"]) for i in depth]
    assert "order: impact" in run_cli("queue", "--limit", "3").output


def test_status_runs_shows_coverage_and_holes(run_cli: Cli) -> None:
    _small_store(run_cli)
    run_cli("import", "qrels", str(run_cli.write("l.qrels", "h1 0 a 3\nh1 0 b 0\nh2 0 a 1\n")))
    run = run_cli.write("sys.run", "h1 Q0 a 1 9 s\nh1 Q0 b 2 8 s\nh1 Q0 c 3 7 s\nh2 Q0 z 1 9 s\nh2 Q0 y 2 8 s\n")
    result = json.loads(run_cli("status", "--runs", str(run), "-k", "2", "--format", "json").output)[0]
    assert result["run"] == "sys" and result["k"] == 2
    per = {q["query_id"]: (q["retrieved"], q["labeled"]) for q in result["queries"]}
    assert per == {"h1": (2, 2), "h2": (2, 0), "t1": (0, 0)}
    assert result["by_stratum"] == {"head": 0.5, "tail": None}
    assert result["coverage"] == 0.5
    table = run_cli("status", "--runs", str(run), "-k", "3").output
    assert "largest holes" in table and "h2" in table
    missing = run_cli("status", "--runs", ok=False)
    assert missing.exit_code == 2 and "--runs needs run files" in missing.output


def test_run_coverage_of_the_top_k_without_numpy() -> None:
    run = RunLists("sys", {"h1": ["a", "b", "c"], "h2": ["x"]})
    got = run_coverage(run, {"h1": "head", "h2": "head", "t1": "tail"}, {"h1": {"a": 2, "c": 0}}, 2)
    assert [(q.query_id, q.retrieved, q.labeled) for q in got.queries] == [("h1", 2, 1), ("h2", 1, 0), ("t1", 0, 0)]
    assert got.coverage == pytest.approx(0.25) and got.by_stratum == {"head": pytest.approx(0.25), "tail": None}
    code = "import sys, qrelkit.scoring.coverage; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- the impact formula ---------------------------------------------------------------------


def _width(labels: dict[str, int], run: dict[str, float], name: str, max_grade: int) -> float:
    ev = evaluate({"q": labels}, {"q": run}, name, max_grade=max_grade, keep_unlabeled=True)  # no label: kept
    s = ev.scores[name]
    return float(s.high[0] - s.low[0])


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("name", ["nDCG@5", "R@4", "nDCG(gain=exp)@3", "AP", "P@3"])
def test_expected_narrowing_and_width_shares(seed: int, name: str) -> None:
    """Against a direct computation: label the document with each grade, rescore, average."""
    rnd = random.Random(seed)
    max_grade = rnd.choice([1, 2, 3])
    docs = [f"d{i}" for i in range(rnd.randint(1, 7))]
    run = {d: float(rnd.randint(0, 4)) for d in docs}
    labels = {d: rnd.randint(0, max_grade) for d in docs if rnd.random() < 0.4}
    labels.update({f"x{i}": rnd.randint(0, max_grade) for i in range(rnd.randint(0, 3))})  # not retrieved
    prior = grade_prior(list(labels.values()), max_grade)
    m = parse_measure(name)
    ranked = rank({"q": labels}, [("q", d, s) for d, s in run.items()], max_grade=max_grade)
    got = _narrowing(ranked, m, 1, prior)[1][0]  # the expected narrowing at each position
    shares = width_shares(ranked, m, 1, prior)[0]
    order = top_documents([("q", d, s) for d, s in run.items()], len(run))["q"]
    before = _width(labels, run, name, max_grade)
    for pos, d in enumerate(order):
        inside = m.cutoff is None or pos < m.cutoff
        if d in labels or not inside:
            assert got[pos] == 0
            continue
        expected = sum(p * _width({**labels, d: g}, run, name, max_grade) for g, p in enumerate(prior))
        assert got[pos] == pytest.approx(before - expected, abs=1e-12)
        assert got[pos] >= 0
    # the shares split the query's whole width, in proportion to the narrowing
    assert shares.sum() == pytest.approx(before, abs=1e-12)
    if got.sum() > 0:
        assert shares == pytest.approx(got / got.sum() * before, abs=1e-12)


def test_query_weights_share_traffic() -> None:
    strata = {"a": "head", "b": "head", "c": "tail", "d": "none"}
    w = query_weights(strata, {"head": 3.0, "tail": 1.0})
    assert w == pytest.approx({"a": 0.375, "b": 0.375, "c": 0.25, "d": 0.0})
    assert query_weights({"a": "x", "b": "y"}, {}) == {"a": 0.5, "b": 0.5}


def test_grade_prior_is_smoothed() -> None:
    assert grade_prior([], 3).tolist() == [0.25] * 4
    assert grade_prior([0, 0, 3], 3) == pytest.approx(np.array([3, 1, 1, 2]) / 7)


def test_impact_sums_over_runs_and_weights_by_traffic() -> None:
    labels = {"q": {"a": 1}, "r": {"a": 1}}  # u at rank 2 could outrank a: nDCG@2 is open
    one = RunLists("one", {"q": ["a", "u"], "r": ["a", "u"]})
    two = RunLists("two", {"q": ["a", "u"], "r": ["z", "y"]})
    common: dict[str, Any] = dict(max_grade=2, strata={"q": "s", "r": "s"}, weights={"s": 1.0}, metrics="nDCG@2")
    single = impact_scores([("q", "u")], [one], labels, **common)[0]
    both = impact_scores([("q", "u"), ("r", "u")], [one, two], labels, **common)
    assert single > 0 and both[0] == pytest.approx(2 * single)  # same position in both runs
    assert both[1] == pytest.approx(single)  # r's u: only run one ranks it
    weighted = impact_scores(
        [("q", "u")], [one], labels, **{**common, "strata": {"q": "s", "r": "t"}, "weights": {"s": 1.0, "t": 3.0}}
    )
    assert weighted == pytest.approx([single * 2 / 4])  # q's share falls from 1/2 to 1/4


def test_top_documents_matches_trec_eval_order() -> None:
    rows = [("q", d, s) for d, s in [("a", 1.0), ("b", 1.0), ("c", 2.0), ("B", 1.0)]]
    assert top_documents(rows, 3) == {"q": ["c", "b", "a"]}
    for perm in itertools.permutations(rows):
        assert top_documents(perm, 4) == {"q": ["c", "b", "a", "B"]}


def test_queue_and_coverage_json_validate_against_the_schemas(run_cli: Cli) -> None:
    import jsonschema

    _demo_labels_only(run_cli)
    run_cli("pool", *map(str, RUNS), "--depth", "10")
    item = json.loads((ROOT / "schemas" / "queue-item.schema.json").read_text())
    for entry in json.loads(run_cli("queue", "--format", "json").output):
        jsonschema.validate(entry, item)
    cov = json.loads((ROOT / "schemas" / "run-coverage.schema.json").read_text())
    for report in json.loads(run_cli("status", "--runs", str(RUNS[0]), "--format", "json").output):
        jsonschema.validate(report, cov)


def test_the_queue_simulation_runs_and_orders_beat_random(tmp_path: Path) -> None:
    """A small run of benchmarks/sim_queue.py (the full one is `make sim`)."""
    import subprocess
    import sys

    out = tmp_path / "sim.json"
    args = ["--queries", "40", "--budget", "150", "--batch", "50", "--json", str(out), "--svg", str(tmp_path / "c.svg")]
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sim_queue.py"), *args], check=True, capture_output=True)
    result = json.loads(out.read_text())
    curves = result["curves"]
    assert set(curves) == {"impact", "impact-ndcg", "depth", "random"}
    for points in curves.values():
        widths = [p["width"] for p in points]
        assert [p["judgments"] for p in points] == [0, 50, 100, 150]
        assert widths == sorted(widths, reverse=True)  # labels only ever narrow the bounds
    assert curves["impact"][-1]["width"] < curves["random"][-1]["width"]
    assert (tmp_path / "c.svg").read_text().startswith("<svg")


def test_queue_of_one_stratum_and_status_per_query(run_cli: Cli) -> None:
    _demo_labels_only(run_cli)
    run_cli("pool", *map(str, RUNS), "--depth", "10")
    nav = run_cli("queue", "--stratum", "navigational", "--format", "tsv").output.splitlines()
    assert nav and all(line.startswith("nav-") for line in nav)
    everything = run_cli("queue", "--format", "tsv").output.splitlines()
    assert len(nav) < len(everything)
    bad = run_cli("queue", "--stratum", "nope", ok=False)
    assert bad.exit_code == 2 and "unknown stratum" in bad.output
    table = run_cli("status", "--runs", str(RUNS[0]), "-k", "10", "--per-query").output
    assert "every query" in table and table.count("nav-") >= 15
