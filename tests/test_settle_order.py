"""The `settle` queue order (`scoring.orders`, `scoring.settle_order`): priorities against their
definition, ties, an empty pool, queries without runs, a settled comparison giving 0, determinism
under --seed, the same queue from `qrelkit queue`, the judging screen and its queue process, and
`queue --until settled`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from qrelkit.errors import ScoringError
from qrelkit.models import PoolEntry
from qrelkit.scoring.arrays import RunLists
from qrelkit.scoring.names import parse_measure
from qrelkit.scoring.orders import OrderInput, order_entries
from qrelkit.scoring.settle import QueryCase, Scale, grade_prior, query_range
from qrelkit.scoring.settle_order import (
    Matchup,
    expected_grade,
    expected_narrowing,
    input_matchups,
    priorities,
    replay,
)
from qrelkit.storage import Store
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.queue import Comparisons, ordered_queue
from qrelkit.workflows.queue_process import queue_rows

A = RunLists("A", {"q1": ["a", "b", "c"], "q2": ["e", "f"]})
B = RunLists("B", {"q1": ["b", "d", "a"], "q2": ["f", "g"]})
LABELS = {"q1": {"a": 1}, "q2": {"e": 0}, "q3": {"z": 2}}


def _entries() -> list[PoolEntry]:
    return [
        PoolEntry(query_id=q, doc_id=d, best_rank=r)
        for q, d, r in [("q1", "b", 1), ("q1", "c", 3), ("q1", "d", 2), ("q2", "f", 1), ("q2", "g", 2)]
    ]


def _settle(entries: list[PoolEntry], metric: str = "P@2", seed: int = 0) -> list[tuple[str, str, float]]:
    x = OrderInput(entries, [A, B], LABELS, seed=seed, comparisons=[("A", "B")], metric=metric, max_grade=1)
    return [(i.query_id, i.doc_id, i.priority) for i in order_entries(x, "settle")]


def test_priorities_are_the_expected_narrowing_over_the_queries() -> None:
    m, scale = parse_measure("P@2"), Scale(1)
    prior = grade_prior([1, 0, 2 > 1], 1)
    cases = [QueryCase(q, A.ranked.get(q, ()), B.ranked.get(q, ()), LABELS[q]) for q in sorted(LABELS)]
    got = priorities(m, [Matchup("A", "B", cases)], scale, prior)
    want = {(c.query_id, d): v / 3 for c in cases for d, v in expected_narrowing(m, c, scale, prior).items()}
    assert got == pytest.approx(want)
    # P@2: q1's b is in both top 2 (cancels), d is B-only, a labeled; q2's e labeled, f in both, g B-only
    assert set(got) == {("q1", "d"), ("q2", "g")}
    order = _settle(_entries())
    assert [(q, d) for q, d, _ in order[:2]] == [("q1", "d"), ("q2", "g")]  # equal priority: depth order
    assert order[0][2] == order[1][2] > 0
    assert [p for _, _, p in order[2:]] == [0.0, 0.0, 0.0]
    assert [(q, d) for q, d, _ in order[2:]] == [("q1", "b"), ("q2", "f"), ("q1", "c")]  # the rest: depth order


def test_an_empty_pool_and_queries_without_runs() -> None:
    assert _settle([]) == []
    loose = [PoolEntry(query_id="q3", doc_id="k", best_rank=None), PoolEntry(query_id="q9", doc_id="m", best_rank=4)]
    order = _settle(loose + _entries())
    assert [(q, d) for q, d, _ in order[-2:]] == [("q9", "m"), ("q3", "k")]
    assert [p for _, _, p in order[-2:]] == [0.0, 0.0]


def test_a_pooled_query_without_labels_is_part_of_the_comparison_from_the_start() -> None:
    """q4 has no label yet, but its pairs are in the queue: `score` will evaluate it from its first
    label on, so its B-only document narrows the comparison like any other."""
    a = RunLists("A", {**A.ranked, "q4": ["h", "i"]})
    b = RunLists("B", {**B.ranked, "q4": ["j", "h"]})
    entries = [*_entries(), PoolEntry(query_id="q4", doc_id="j", best_rank=1)]
    x = OrderInput(entries, [a, b], LABELS, comparisons=[("A", "B")], metric="P@2", max_grade=1)
    got = {(i.query_id, i.doc_id): i.priority for i in order_entries(x, "settle")}
    assert got[("q4", "j")] > 0 and got[("q4", "j")] == got[("q1", "d")]  # each one B-only document of its query
    m, matchups, _, _ = input_matchups([a, b], LABELS, [("A", "B")], "P@2", 1, 1, ["q4"])
    assert [c.query_id for c in matchups[0].cases] == ["q1", "q2", "q3", "q4"] and matchups[0].cases[3].labels == {}
    assert [c.query_id for c in input_matchups([a, b], LABELS, [("A", "B")], "P@2", 1, 1)[1][0].cases] == [
        "q1",
        "q2",
        "q3",
    ]


def test_a_settled_comparison_gives_every_pair_zero() -> None:
    same = RunLists("C", A.ranked)
    x = OrderInput(_entries(), [A, same], LABELS, comparisons=[("A", "C")], metric="nDCG@3", max_grade=3)
    assert all(i.priority == 0 for i in order_entries(x, "settle"))


def test_the_order_is_the_same_under_any_seed_and_refuses_without_comparisons() -> None:
    assert _settle(_entries(), seed=0) == _settle(_entries(), seed=7)
    with pytest.raises(ScoringError, match="comparisons"):
        order_entries(OrderInput(_entries(), [A, B], LABELS), "settle")
    with pytest.raises(ScoringError, match="no run named"):
        order_entries(OrderInput(_entries(), [A], LABELS, comparisons=[("A", "B")]), "settle")


def test_the_replay_stops_once_settled_and_says_none_when_it_cannot() -> None:
    m, scale = parse_measure("P@2"), Scale(1)
    cases = [QueryCase(q, A.ranked.get(q, ()), B.ranked.get(q, ()), LABELS[q]) for q in sorted(LABELS)]
    mu = [Matchup("A", "B", cases)]
    assert query_range(m, cases[0], scale).open_docs == ("d",)
    # judged relevant, B's d and g settle B>A; judged not relevant a tie: settled either way
    done = replay(m, mu, scale, [("q1", "d"), ("q2", "g")], 1)
    assert done.every == 2 and done.sign == [2]
    assert replay(m, mu, scale, [("q1", "d")], 1).every is None
    same = [QueryCase(c.query_id, c.run_a, c.run_a, c.labels) for c in cases]
    assert replay(m, [Matchup("A", "A", same)], scale, [], 1).every == 0
    assert expected_grade(grade_prior([3, 3, 3, 3], 3)) == 2


def _store(run_cli: Cli) -> tuple[Path, Path]:
    run_cli("init")
    run_cli("strata", "set", "web", "1")
    queries = "".join(f"q{i}\ttext {i}\tweb\n" for i in range(8))
    run_cli("import", "queries", str(run_cli.write("q.tsv", queries)))
    # one relevant document each, and four not relevant that no run retrieves: the prior's mean is
    # below 1/2, so the replay judges every pair 0
    labels = "".join(f"q{i} 0 r{i} 1\n" + "".join(f"q{i} 0 n{j} 0\n" for j in range(4)) for i in range(8))
    run_cli("import", "qrels", str(run_cli.write("l.qrels", labels)))
    a = run_cli.write("a.run", "".join(f"q{i} Q0 {d} {n} {9 - n} A\n" for i in range(8) for n, d in enumerate("xy", 1)))
    b = run_cli.write(
        "b.run", "".join(f"q{i} Q0 {d} {n} {9 - n} B\n" for i in range(8) for n, d in enumerate([f"r{i}", "w"], 1))
    )
    run_cli("pool", str(a), str(b), "--depth", "2")
    return a, b


def test_queue_judging_screen_and_queue_process_agree_on_settle(run_cli: Cli) -> None:
    a, b = _store(run_cli)
    args = ["--order", "settle", "--for", f"{a},{b}", "--metric", "P@2", "--seed", "3", "--assessor", "ann"]
    rows = json.loads(run_cli("queue", *args, "--format", "json").stdout)
    expected = [(i["query_id"], i["doc_id"], i["priority"]) for i in rows]
    assert len(expected) == 24 and expected[0][2] > 0
    comparisons = Comparisons([(a, b)], "P@2")
    with Store.open(run_cli.db) as store:
        session = JudgingSession(store, "ann", order="settle", seed=3, comparisons=comparisons)
        assert [(i.query_id, i.doc_id, i.priority) for i in session.queue()] == expected
        items = ordered_queue(store, "settle", seed=3, assessor="ann", comparisons=comparisons)
        assert [(i.query_id, i.doc_id, i.priority) for i in items] == expected
    process = [(q, d, p) for q, d, p, _, _ in queue_rows(str(run_cli.db), "settle", 3, None, "ann", comparisons)]
    assert process == expected
    other_seed = json.loads(run_cli("queue", *args[:-4], "--seed", "9", "--assessor", "ann", "--format", "json").stdout)
    assert other_seed == rows


def test_queue_until_settled_lists_only_what_it_takes(run_cli: Cli) -> None:
    a, b = _store(run_cli)
    full = run_cli("queue", "--order", "settle", "--for", f"{a},{b}", "--metric", "P@2", "--format", "tsv")
    until = run_cli(
        "queue", "--order", "settle", "--for", f"{a},{b}", "--metric", "P@2", "--until", "settled", "--format", "tsv"
    )
    lines = until.stdout.splitlines()
    assert 0 < len(lines) < len(full.stdout.splitlines())
    assert full.stdout.splitlines()[: len(lines)] == lines
    assert f"{len(lines)} pairs until settled (estimate)" in until.stderr
    same = run_cli("queue", "--order", "depth", "--for", f"{a},{a}", "--until", "settled", "--format", "tsv")
    assert same.stdout == "" and "already settled" in same.stderr


def test_settle_without_for_is_one_line_exit_2(run_cli: Cli) -> None:
    _store(run_cli)
    for args in (["--order", "settle"], ["--until", "settled"]):
        result = run_cli("queue", *args, ok=False)
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    bad = run_cli("queue", "--order", "settle", "--for", "a.run", ok=False)
    assert bad.exit_code == 2 and "two runs" in bad.stderr


def test_judge_takes_the_comparisons_and_refuses_settle_without_them(run_cli: Cli) -> None:
    from qrelkit.errors import UsageError
    from qrelkit.tui.command import make_app

    a, b = _store(run_cli)
    common: dict[str, Any] = {"assessor": "ann", "stratum": None, "query_id": None, "seed": 0, "adjudicate": False}
    with pytest.raises(UsageError, match="needs the comparisons"):
        make_app(run_cli.db, order="settle", served=False, role=None, **common)
    given: dict[str, Any] = {"for_runs": (f"{a},{b}",), "metrics": ("P@2",)}
    app = make_app(run_cli.db, order="settle", served=False, role=None, **given, **common)
    try:
        shown = [(i.query_id, i.doc_id) for i in app.session.queue()]
    finally:
        app.session.close()
    rows = json.loads(
        run_cli("queue", "--order", "settle", "--for", f"{a},{b}", "--metric", "P@2", "--assessor", "ann",
                "--format", "json").stdout
    )  # fmt: skip
    assert shown == [(i["query_id"], i["doc_id"]) for i in rows]


def test_queue_until_settled_counts_a_pooled_query_with_no_label_yet(run_cli: Cli) -> None:
    """q1 has no label yet: `score` evaluates it from its first label on, so the estimate of
    `--until settled` replays its pairs as the settle order ranks them (not as if it were absent)."""
    run_cli("init")
    run_cli("strata", "set", "web", "1")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q0\ttext 0\tweb\nq1\ttext 1\tweb\n")))
    run_cli("import", "qrels", str(run_cli.write("l.qrels", "q0 0 s 1\nq0 0 t 0\n")))
    a = run_cli.write("a.run", "q0 Q0 s 1 9 A\nq0 Q0 t 2 8 A\nq1 Q0 u 1 9 A\n")
    b = run_cli.write("b.run", "q0 Q0 s 1 9 B\nq0 Q0 t 2 8 B\nq1 Q0 v 1 9 B\n")
    run_cli("pool", str(a), str(b), "--depth", "2")
    args = ["queue", "--order", "settle", "--for", f"{a},{b}", "--metric", "P@1", "--format", "tsv"]
    order = [line.split("\t")[:2] for line in run_cli(*args).stdout.splitlines()]
    assert sorted(order) == [["q1", "u"], ["q1", "v"]]
    until = run_cli(*args, "--until", "settled")
    assert "already settled" not in until.stderr, until.stderr
    assert [line.split("\t")[:2] for line in until.stdout.splitlines()] == order[: len(until.stdout.splitlines())]
    assert until.stdout.strip(), until.stderr
