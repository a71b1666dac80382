"""The judging orders behind one interface (`scoring.orders`): the registry, each order on hand-worked
examples, ties, empty pools, queries without runs, a single run, determinism under --seed, and the
same queue from `qrelkit queue`, the judging screen and its queue process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, Cli
from qrelkit.errors import ScoringError
from qrelkit.models import QUEUE_ORDERS, Judgment, JudgmentState, PoolEntry, QueueOrder
from qrelkit.scoring.arrays import RunLists
from qrelkit.scoring.impact import order_queue
from qrelkit.scoring.orders import ORDERS, OrderInput, order_entries, orders_help
from qrelkit.storage import Store
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.queue import ordered_queue
from qrelkit.workflows.queue_process import queue_rows

RUN_ORDERS = ("mtf", "bandit", "rbp")


def _entries(
    runs: Sequence[RunLists], labels: Mapping[str, Mapping[str, int]], extra: Sequence[PoolEntry] = ()
) -> list[PoolEntry]:
    """Every unlabeled document the runs rank, with its best rank, as `qrelkit pool` records it."""
    best: dict[tuple[str, str], int] = {}
    for run in runs:
        for q, docs in run.ranked.items():
            for r, d in enumerate(docs, 1):
                if d not in labels.get(q, {}):
                    best[(q, d)] = min(best.get((q, d), r), r)
    return [PoolEntry(query_id=q, doc_id=d, best_rank=r) for (q, d), r in sorted(best.items())] + list(extra)


def _order(
    order: str, runs: Sequence[RunLists], labels: Mapping[str, Mapping[str, int]], seed: int = 0
) -> list[tuple[str, str]]:
    x = OrderInput(_entries(runs, labels), runs, labels, seed=seed)
    return [(i.query_id, i.doc_id) for i in order_entries(x, order)]


def test_every_queue_order_has_one_declaration_with_a_source() -> None:
    assert list(ORDERS) == list(QUEUE_ORDERS)
    for name, spec in ORDERS.items():
        assert spec.name == name and spec.summary
        assert spec.source or name == "random"
        assert spec.needs <= {"runs", "labels", "impacts", "comparisons", "machine"}
    assert {n for n, s in ORDERS.items() if s.adaptive} == {"impact", "mtf", "bandit", "disagreement", "settle"}


def test_the_docs_list_every_order() -> None:
    cli_md = (ROOT / "docs" / "cli.md").read_text()
    readme = (ROOT / "README.md").read_text()
    help_text = orders_help()
    for name, spec in ORDERS.items():
        assert f"{name} " in help_text
        assert f"\n  {name:<7} " in cli_md or f"\n{name:<7} " in cli_md, name
        assert f"`{name}`" in readme, name
        if spec.source:
            assert spec.source in " ".join(cli_md.split())


def test_depth_impact_and_random_are_todays_orders() -> None:
    """The registry's depth, impact and random against their definitions: depth by (no rank last,
    best rank, query, doc); impact by impact descending, ties in depth order; random the depth order
    permuted by numpy's generator seeded with the seed."""
    rng = np.random.default_rng(11)
    entries = [
        PoolEntry(
            query_id=f"q{rng.integers(4)}", doc_id=f"d{n}", best_rank=None if n % 7 == 0 else int(rng.integers(1, 6))
        )
        for n in range(60)
    ]
    impacts = [float(rng.integers(0, 4)) / 4 for _ in entries]
    depth = sorted(
        range(60),
        key=lambda i: (entries[i].best_rank is None, entries[i].best_rank or 0, entries[i].query_id, entries[i].doc_id),
    )
    by_impact = sorted(range(60), key=lambda i: (-impacts[i], depth.index(i)))
    permuted = [depth[int(j)] for j in np.random.default_rng(5).permutation(60)]

    def rows(order: str, **kw: object) -> list[tuple[str, str, float]]:
        return [(i.query_id, i.doc_id, i.priority) for i in order_queue(entries, order, **kw)]  # type: ignore[arg-type]

    assert rows("depth") == [
        (entries[i].query_id, entries[i].doc_id, 1 / (entries[i].best_rank or 1) if entries[i].best_rank else 0.0)
        for i in depth
    ]
    assert rows("impact", impacts=impacts) == [(entries[i].query_id, entries[i].doc_id, impacts[i]) for i in by_impact]
    assert rows("random", seed=5) == [
        (entries[i].query_id, entries[i].doc_id, 1 - n / 60) for n, i in enumerate(permuted)
    ]


def test_mtf_keeps_the_run_that_just_found_a_relevant_document() -> None:
    """Runs A: a b c and B: d e (seed 0: A in front, by name). a and d relevant.

    With b relevant: A judges a (relevant, stays), b (relevant, stays), then queues c (counted
    non-relevant: to the back); B: d (relevant, stays), queues e. Queue: c, e.
    With b not relevant: A judges a (stays), b (to the back); B judges d (stays), queues e (to the
    back); A queues c. Queue: e, c. The depth order would be e (rank 2), c (rank 3) in both.
    """
    runs = [RunLists("A", {"q": ["a", "b", "c"]}), RunLists("B", {"q": ["d", "e"]})]
    assert _order("mtf", runs, {"q": {"a": 1, "d": 1, "b": 1}}) == [("q", "c"), ("q", "e")]
    assert _order("mtf", runs, {"q": {"a": 1, "d": 1, "b": 0}}) == [("q", "e"), ("q", "c")]


def test_mtf_without_labels_takes_the_runs_in_turn_and_queries_in_turn() -> None:
    """A: a b, B: c d, nothing labeled: each queued document sends its run back, so A, B, A, B:
    a c b d; queries take turns (turn 0 of q and r, then turn 1 ...)."""
    runs = [RunLists("A", {"q": ["a", "b"], "r": ["x"]}), RunLists("B", {"q": ["c", "d"]})]
    assert _order("mtf", runs, {}) == [("q", "a"), ("r", "x"), ("q", "c"), ("q", "b"), ("q", "d")]


def test_bandit_maxmean_by_hand() -> None:
    """A: a b c, B: d e f on q; A: x, B: y on r. Labels a = 1, d = 0.

    q: A's mean (1 + 1) / (2 + 1) = 2/3, B's (1 + 0) / (2 + 1) = 1/3. A queues b at 2/3 (then
    2/4), c at 1/2 (then 2/5, nothing left: out); B queues e at 1/3 (then 1/4), f at 1/4.
    r: both 1/2; A (by name) queues x at 1/2, then B (1/2 against A's 1/3) y at 1/2.
    By mean: b 2/3; x, y, c at 1/2 by turn (x turn 0; y and c turn 1, y first: best rank 1 < 3);
    e 1/3; f 1/4.
    """
    runs = [RunLists("A", {"q": ["a", "b", "c"], "r": ["x"]}), RunLists("B", {"q": ["d", "e", "f"], "r": ["y"]})]
    labels = {"q": {"a": 1, "d": 0}}
    x = OrderInput(_entries(runs, labels), runs, labels)
    items = order_entries(x, "bandit")
    assert [(i.query_id, i.doc_id) for i in items] == [
        ("q", "b"),
        ("r", "x"),
        ("r", "y"),
        ("q", "c"),
        ("q", "e"),
        ("q", "f"),
    ]
    assert [i.priority for i in items] == pytest.approx([2 / 3, 1 / 2, 1 / 2, 1 / 2, 1 / 3, 1 / 4])


def test_bandit_counts_a_document_for_every_run_that_ranks_it() -> None:
    """A: a b, B: a c; a labeled 0 counts for both: means 1/3 each; A (by name) queues b (A 1/4),
    then B (1/3) c."""
    runs = [RunLists("A", {"q": ["a", "b"]}), RunLists("B", {"q": ["a", "c"]})]
    labels = {"q": {"a": 0}}
    items = order_entries(OrderInput(_entries(runs, labels), runs, labels), "bandit")
    assert [i.doc_id for i in items] == ["b", "c"]
    assert [i.priority for i in items] == pytest.approx([1 / 3, 1 / 3])


def test_rbp_weights_by_hand() -> None:
    """A: a b c, B: c a d, p = 0.8 (weight 0.2 * 0.8^(r - 1)): a 0.2 + 0.16 = 0.36; b 0.16;
    c 0.128 + 0.2 = 0.328; d 0.128. Order a, c, b, d."""
    runs = [RunLists("A", {"q": ["a", "b", "c"]}), RunLists("B", {"q": ["c", "a", "d"]})]
    items = order_entries(OrderInput(_entries(runs, {}), runs), "rbp")
    assert [i.doc_id for i in items] == ["a", "c", "b", "d"]
    assert [i.priority for i in items] == pytest.approx([0.36, 0.328, 0.16, 0.128])


def test_ties_go_in_depth_order_and_run_ties_follow_the_seed() -> None:
    """Two runs: rbp weighs s (first in both) 0.4, then a1 and b1 tie at 0.2 and a2 and b2 at 0.16,
    each tie in depth order. mtf and bandit break the tie between the runs by name with seed 0, by a
    seeded permutation otherwise: the same seed gives the same queue."""
    runs = [RunLists("B", {"q": ["b1", "b2"], "r": ["s"]}), RunLists("A", {"q": ["a1", "a2"], "r": ["s"]})]
    assert _order("rbp", runs, {}) == [("r", "s"), ("q", "a1"), ("q", "b1"), ("q", "a2"), ("q", "b2")]
    assert _order("mtf", runs, {})[:2] == [("q", "a1"), ("r", "s")]  # A first, by name
    for order in RUN_ORDERS + ("random",):
        for seed in (0, 1, 2, 99):
            first = _order(order, runs, {}, seed)
            assert first == _order(order, runs, {}, seed)
            assert sorted(first) == sorted(_order("depth", runs, {}))
    b_first = [RunLists("0B", runs[0].ranked), runs[1]]  # B renamed to come first by name
    assert {tuple(_order("mtf", runs, {}, s)) for s in range(8)} == {
        tuple(_order("mtf", runs, {})),
        tuple(_order("mtf", b_first, {})),
    }


SCORED_ORDERS = tuple(o for o in QUEUE_ORDERS if o not in ("disagreement", "settle"))
"""The orders the replay simulation scores (disagreement needs machine labels, settle named
comparisons: `test_settle_order.py`)."""
"""The orders `order_entries` computes by itself (`disagreement` reads the store's machine labels:
`workflows.queue` computes it, tests/test_disagreement_order.py tests it)."""


def test_the_disagreement_order_is_the_workflows_own() -> None:
    with pytest.raises(ScoringError, match="machine assessors' labels"):
        order_entries(OrderInput([]), "disagreement")


@pytest.mark.parametrize("order", SCORED_ORDERS)
def test_an_empty_pool_gives_an_empty_queue(order: str) -> None:
    runs = [RunLists("A", {"q": ["a"]})]
    x = OrderInput([], runs, {"q": {"a": 1}}, impacts=[])
    assert order_entries(x, order) == []


@pytest.mark.parametrize("order", RUN_ORDERS)
def test_queries_without_runs_come_last_in_depth_order(order: str) -> None:
    runs = [RunLists("A", {"q": ["a", "b"]})]
    loose = [PoolEntry(query_id="z", doc_id="k", best_rank=None), PoolEntry(query_id="p", doc_id="m", best_rank=4)]
    items = order_entries(OrderInput(_entries(runs, {}, loose), runs, {}), order)
    assert [(i.query_id, i.doc_id) for i in items] == [("q", "a"), ("q", "b"), ("p", "m"), ("z", "k")]
    assert [i.priority for i in items[2:]] == [0.0, 0.0]
    without = order_entries(OrderInput(loose, (), {}), order)  # no pooled run at all: the depth order
    assert [(i.query_id, i.doc_id) for i in without] == [("p", "m"), ("z", "k")]


@pytest.mark.parametrize("order", RUN_ORDERS)
def test_a_single_run_is_judged_down_its_ranking(order: str) -> None:
    runs = [RunLists("A", {"q": ["c", "a", "d", "b"]})]
    labels = {"q": {"a": 1}}
    assert _order(order, runs, labels) == [("q", "c"), ("q", "d"), ("q", "b")]


def test_an_unknown_order_is_refused() -> None:
    with pytest.raises(ScoringError, match="unknown queue order"):
        order_entries(OrderInput([]), "nosuch")


def _pooled_store(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("strata", "set", "head", "3")
    run_cli("strata", "set", "tail", "1")
    queries = "".join(f"{q}\ttext {q}\t{s}\n" for q, s in [("h1", "head"), ("h2", "head"), ("t1", "tail")])
    run_cli("import", "queries", str(run_cli.write("q.tsv", queries)))
    run_cli("import", "qrels", str(run_cli.write("l.qrels", "h1 0 a 3\nh2 0 a 0\nt1 0 a 1\nh1 0 e 0\n")))
    for name, docs in (("a", "abcde"), ("b", "aedxy"), ("c", "xcbay")):
        run = "".join(f"{q} Q0 {d} {i} {10 - i} {name}\n" for q in ("h1", "h2", "t1") for i, d in enumerate(docs, 1))
        run_cli("pool", str(run_cli.write(f"{name}.run", run)), "--depth", "5")


@pytest.mark.parametrize("order", [o for o in QUEUE_ORDERS if o != "settle"])  # settle: test_settle_order.py
def test_queue_judging_screen_and_queue_process_agree(run_cli: Cli, order: QueueOrder) -> None:
    _pooled_store(run_cli)
    cli_rows = json.loads(
        run_cli("queue", "--order", order, "--seed", "3", "--assessor", "ann", "--format", "json").stdout
    )  # stdout: `disagreement` without machine labels says on stderr that it is the impact order
    expected = [(i["query_id"], i["doc_id"], i["priority"]) for i in cli_rows]
    assert len(expected) == 17
    with Store.open(run_cli.db) as store:
        session = JudgingSession(store, "ann", order=order, seed=3)
        assert [(i.query_id, i.doc_id, i.priority) for i in session.queue()] == expected
        assert [
            (i.query_id, i.doc_id, i.priority) for i in ordered_queue(store, order, seed=3, assessor="ann")
        ] == expected
    process = [(q, d, p) for q, d, p, _, _ in queue_rows(str(run_cli.db), order, 3, None, "ann")]
    assert process == expected


def test_the_adaptive_queue_reorders_as_labels_arrive(run_cli: Cli) -> None:
    _pooled_store(run_cli)

    def queue() -> list[str]:
        out = run_cli("queue", "--order", "mtf", "--format", "tsv").output.splitlines()
        return ["/".join(line.split("\t")[:2]) for line in out]

    before = queue()
    first = before[0].split("/")
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id=first[0], doc_id=first[1], state=JudgmentState.GRADED, grade=3, assessor="x"))
    relevant = queue()
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id=first[0], doc_id=first[1], state=JudgmentState.GRADED, grade=0, assessor="x"))
    not_relevant = queue()
    assert before[0] not in relevant and set(relevant) == set(not_relevant) == set(before[1:])
    assert relevant != not_relevant  # the run that found it keeps its turn only when it was relevant


def test_the_replay_simulation_runs_every_order_with_the_same_budget(tmp_path: Path) -> None:
    """A small `sim_queue.py --replay` (the full one is `make sim`): every order is replayed to the
    same budget, and once the whole pool is judged every order has the same labels, so the same
    width, tau and significant pairs."""
    out = tmp_path / "replay.json"
    args = ["--replay", "--runs", "3", "--steps", "4", "--depth", "4", "--shared-queries", "8", "--json", str(out)]
    script = ROOT / "benchmarks" / "sim_queue.py"
    subprocess.run(
        [sys.executable, str(script), *args, "--png", str(tmp_path / "r.png")], check=True, capture_output=True
    )
    sets = json.loads(out.read_text())["sets"]
    assert "trec-rag24" in sets
    for result in sets.values():
        curves = result["curves"]
        assert set(curves) == set(SCORED_ORDERS)  # the replay has no machine assessor
        for points in curves.values():
            assert [p["judgments"] for p in points][-1] == result["budget"]
            widths = [p["width"] for p in points]
            assert widths == sorted(widths, reverse=True)
        last = {order: {k: v for k, v in points[-1].items()} for order, points in curves.items()}
        assert all(v == last["depth"] for v in last.values())
        assert set(result["targets"]) == {"best_order", "tau", "sig", "width"}
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
