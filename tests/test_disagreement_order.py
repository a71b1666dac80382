"""The `disagreement` queue order: the pairs no human labeled where the machine assessors are unsure
first (their rows disagree across the relevance threshold, then on one side of it, then agree one
grade from it), then the other machine-labeled pairs by impact, then the rest in depth order; the
impact order when no queued pair has a machine grade; the same for `qrelkit queue` and a judging
session, whatever the seed."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest

from conftest import Cli
from qrelkit.models import Document, Judgment, JudgmentState, Query, QueueItem, Stratum
from qrelkit.models.machine import MachineLabel
from qrelkit.scoring.arrays import RunLists
from qrelkit.storage import Store
from qrelkit.workflows import queue
from qrelkit.workflows.judging import JudgingSession

Q1 = [f"d{i}" for i in range(1, 9)]
Q2 = ["d1", "d2", "d3"]
MACHINE: list[tuple[str, str, str, str, int | None]] = [  # (assessor, query, doc, status, grade), oldest first
    ("lexical", "q1", "d1", "ok", 1),  # with llm:m's 0: across the threshold (1)
    ("llm:m", "q1", "d1", "ok", 0),
    ("lexical", "q1", "d2", "ok", 2),  # asked again: 2 then 3, one side
    ("lexical", "q1", "d2", "ok", 3),
    ("lexical", "q2", "d1", "ok", 0),  # one grade below the threshold
    ("lexical", "q1", "d3", "ok", 1),  # at the threshold
    ("lexical", "q1", "d4", "ok", 3),  # far from it
    ("llm:m", "q1", "d5", "ok", 2),
    ("lexical", "q1", "d6", "ok", 1),  # its latest reply did not parse: no machine grade
    ("lexical", "q1", "d6", "unparsed", None),
    ("lexical", "q1", "d8", "ok", 0),  # ann graded it 2: labeled, never queued
]
TIER = {("q1", "d1"): 4, ("q1", "d2"): 3, ("q2", "d1"): 2, ("q1", "d3"): 2, ("q1", "d4"): 1, ("q1", "d5"): 1}
"""What the scenario means; every other queued pair has no machine grade (tier 0)."""


def _label(n: int, who: str, q: str, d: str, status: str, grade: int | None) -> MachineLabel:
    return MachineLabel.model_validate(
        {"assessor": who, "query_id": q, "doc_id": d, "status": status, "grade": grade,
         "template_sha256": "sha256:t", "prompt_sha256": "sha256:p", "cache_key": f"k{n}"}
    )  # fmt: skip


def _store(path: str | None = None, *, machine: bool = True) -> Store:
    store = Store.open(path) if path else Store.memory()
    store.settings.configure(name="unsure")
    store.settings.set_stratum(Stratum(name="s", weight=1.0))
    store.imports.queries(
        [(1, Query(id="q1", text="assert statement", stratum="s")), (2, Query(id="q2", text="sort", stratum="s"))],
        source="t",
    )
    store.imports.documents([Document(id=d, title=d, text=f"text of {d}") for d in Q1])
    store.log.record(Judgment(query_id="q1", doc_id="d8", state=JudgmentState.GRADED, grade=2, assessor="ann"))
    runs = [
        RunLists("a", {"q1": Q1, "q2": Q2}),
        RunLists("b", {"q1": ["d5", "d3", "d8", "d1", "d7", "d2", "d4", "d6"], "q2": ["d3", "d1", "d2"]}),
    ]
    store.pool.add_runs(runs, depth=8, paths=["a.run", "b.run"])
    if machine:
        store.machine.record(_label(n, *row) for n, row in enumerate(MACHINE))
    return store


def _expected(store: Store) -> list[tuple[str, str]]:
    """The order by its definition: tier, then impact under the human labels, then depth."""
    work = store.reads.open_work()
    pairs = [(e.query_id, e.doc_id) for e in work.unlabeled]
    impact = dict(zip(pairs, queue.impacts(store, pairs, queue.labels_by_query(work.labels)), strict=True))
    rank = {(e.query_id, e.doc_id): e.best_rank for e in work.unlabeled}

    def key(p: tuple[str, str]) -> tuple[object, ...]:
        tier = TIER.get(p, 0)
        return (-tier, -impact[p] if tier else 0.0, rank[p], p)

    return sorted(pairs, key=key)


def _pairs(items: list[QueueItem]) -> list[tuple[str, str]]:
    return [(i.query_id, i.doc_id) for i in items]


def test_unsure_first_then_the_machine_labeled_by_impact_then_the_rest_by_depth() -> None:
    store = _store()
    items = queue.ordered_queue(store, "disagreement")
    assert _pairs(items) == _expected(store)
    assert ("q1", "d8") not in _pairs(items)  # labeled by a human: the machine's 0 does not bring it back
    for item in items:
        tier = TIER.get((item.query_id, item.doc_id), 0)
        assert math.floor(item.priority) == tier  # the integer part is the tier
    assert all(a.priority >= b.priority for a, b in pairwise(items))
    impacts = {p.priority for p in items if TIER.get((p.query_id, p.doc_id)) in (1, 2)}
    assert len(impacts) == 4  # within a tier the impacts differ: the order inside it is theirs
    rest = [i for i in items if (i.query_id, i.doc_id) not in TIER]
    assert [i.best_rank for i in rest] == sorted(i.best_rank or 0 for i in rest)
    store.close()


def test_the_seed_changes_nothing_and_the_order_is_the_same_every_time() -> None:
    store = _store()
    orders = [_pairs(queue.ordered_queue(store, "disagreement", seed=s)) for s in (0, 1, 7, 0)]
    assert all(o == orders[0] for o in orders)
    store.close()


def test_with_no_machine_label_it_is_the_impact_order() -> None:
    store = _store(machine=False)
    plain = queue.ordered_queue(store, "impact")
    assert queue.ordered_queue(store, "disagreement") == plain
    store.close()


def test_a_stratum_and_an_assessors_assignments_work_as_in_every_order() -> None:
    store = _store()
    store.settings.set_stratum(Stratum(name="t", weight=0.0))
    only = queue.ordered_queue(store, "disagreement", stratum="t")
    assert only == []
    store.log.assign([("q1", "d7", "ann"), ("q1", "d7", "bob")])
    mine = queue.ordered_queue(store, "disagreement", assessor="ann")
    rest = [p for p in _expected(store) if p != ("q1", "d7")]
    assert _pairs(mine) == [("q1", "d7"), *rest] and mine[0].source == "assigned"
    store.close()


def test_a_judging_session_follows_it() -> None:
    store = _store()
    session = JudgingSession(store, "cy", order="disagreement")
    assert _pairs(session.queue()) == _expected(store)
    assert session.next_query() == "q1"
    docs = [d.doc_id for d in session.order_docs("q1", session.documents("q1"))]
    queued = [d for q, d in _expected(store) if q == "q1"]
    assert [d for d in docs if d in queued] == queued
    session.close()


def _cli_store(run_cli: Cli, *, machine: bool = True) -> None:
    _store(str(run_cli.db), machine=machine).close()


def test_the_cli_lists_it_and_says_what_it_left_out(run_cli: Cli) -> None:
    _cli_store(run_cli)
    result = run_cli("queue", "--order", "disagreement", "--format", "tsv")
    with Store.open(run_cli.db) as store:
        expected = _expected(store)
    lines = [line.split("\t") for line in result.stdout.splitlines()]
    assert [(q, d) for q, d, _ in lines] == expected
    assert "1 human-labeled pairs where a machine's grade differs are not queued" in result.stderr
    assert "impact order" not in result.stderr


def test_the_cli_says_so_when_it_falls_back_to_impact(run_cli: Cli) -> None:
    _cli_store(run_cli, machine=False)
    result = run_cli("queue", "--order", "disagreement", "--format", "tsv")
    assert result.stdout == run_cli("queue", "--order", "impact", "--format", "tsv").stdout
    assert "no machine grade on any queued pair: the disagreement order is the impact order" in result.stderr


@pytest.mark.parametrize("order", ["disagreement"])
def test_the_judge_command_takes_it(run_cli: Cli, order: str) -> None:
    _cli_store(run_cli)
    result = run_cli("judge", "--order", order, "--help")
    assert "disagreement" in result.output
