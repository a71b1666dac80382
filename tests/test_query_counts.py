"""The query list's counts kept between reads (`storage.counts`): after any sequence of events,
pool changes and removals, `progress()` equals the counts computed from the log by
`qrelkit.resolution` in Python, whether it recomputed everything, a few queries, or nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from qrelkit import resolution
from qrelkit.models import Judgment, JudgmentState, LabelState, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.storage import counts as counts_module

STATES = [JudgmentState.GRADED] * 4 + [
    JudgmentState.SKIPPED,
    JudgmentState.RETRACTED,
    JudgmentState.CLEARED,
    JudgmentState.ADJUDICATED,
    JudgmentState.NOTED,
]


def _expected(store: Store) -> dict[str, tuple[int, int, int]]:
    resolved = resolution.resolve_events(store.log.events(), store.settings.label_policy)
    out = {q.id: [0, 0, 0] for q in store.reads.queries()}
    for (q, _), (state, _) in resolved.items():
        if q in out and state is LabelState.GRADED:
            out[q][0] += 1
        elif q in out and state is LabelState.SKIPPED:
            out[q][1] += 1
    for q, d in store.conn.execute("SELECT query_id, doc_id FROM pool").fetchall():
        state = resolved.get((q, d), (LabelState.UNLABELED, None))[0]
        if q in out and state not in (LabelState.GRADED, LabelState.SKIPPED):
            out[q][2] += 1
    return {q: (a, b, c) for q, (a, b, c) in out.items()}


def _got(store: Store) -> dict[str, tuple[int, int, int]]:
    return {p.query_id: (p.labeled, p.skipped, p.unlabeled) for p in store.counts.progress()}


def _event(rnd: random.Random, queries: int) -> Judgment:
    state = rnd.choice(STATES)
    grade = rnd.randint(0, 3) if state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) else None
    return Judgment(
        query_id=f"q{rnd.randrange(queries)}", doc_id=f"d{rnd.randrange(8)}", state=state, grade=grade,
        assessor=rnd.choice(["ann", "bob", "cat"]), note="n" if state is JudgmentState.NOTED else None,
    )  # fmt: skip


def test_counts_stay_equal_to_the_log_through_every_kind_of_change(tmp_path: Path) -> None:
    rnd = random.Random(20261201)
    store = Store.open(tmp_path / "s.db")
    queries = 12
    store.imports.queries([(i, Query(id=f"q{i}", text="x", stratum="s")) for i in range(queries)], source="t",
                         create_strata=True)  # fmt: skip
    assert _got(store) == _expected(store)
    for step in range(60):
        kind = rnd.random()
        if kind < 0.7:
            for _ in range(rnd.randint(1, 5)):
                store.log.record(_event(rnd, queries))
        elif kind < 0.85:
            store.imports.pool_entries(
                PoolEntry(
                    query_id=f"q{rnd.randrange(queries)}", doc_id=f"d{rnd.randrange(12)}", source="r", best_rank=1
                )
                for _ in range(3)
            )
        elif kind < 0.92 and step % 3 == 0:
            victim = f"q{rnd.randrange(queries)}"
            if store.removals.query_footprint(victim) is not None:
                store.removals.remove_query(victim, assessor="owner")
        else:
            store.imports.queries([(1, Query(id=f"q{rnd.randrange(queries)}", text="back", stratum="s"))], source="t")
        assert _got(store) == _expected(store), f"step {step}"


def test_many_changes_recompute_everything_and_a_few_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(tmp_path / "s.db")
    store.imports.queries([(i, Query(id=f"q{i}", text="x", stratum="s")) for i in range(30)], source="t",
                         create_strata=True)  # fmt: skip
    store.counts.progress()
    recomputed: list[object] = []
    original = counts_module.Counts._recompute

    def spy(self, stale, *, everything):  # type: ignore[no-untyped-def]
        recomputed.append("all" if everything else sorted(stale))
        return original(self, stale, everything=everything)

    monkeypatch.setattr(counts_module.Counts, "_recompute", spy)
    store.log.record(Judgment(query_id="q3", doc_id="d", state=JudgmentState.GRADED, grade=1, assessor="a"))
    store.counts.progress()
    store.counts.progress()
    assert recomputed == [["q3"], []]  # only the query with a new event, then nothing
    monkeypatch.setattr(counts_module, "FULL_RECOMPUTE", 5)
    for i in range(10):
        store.log.record(Judgment(query_id=f"q{i}", doc_id="d", state=JudgmentState.SKIPPED, assessor="a"))
    assert _got(store) == _expected(store) and recomputed[-1] == "all"
