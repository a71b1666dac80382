"""Several assessors' votes resolve to one label: the SQL the store runs agrees with the pure
`qrelkit.resolution` on generated logs, for both policies, with the events' times out of log
order (an imported event may be older than those already recorded) and tied."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Cli
from qrelkit.models import Judgment, JudgmentState, LabelPolicy, LabelState, Query
from qrelkit.resolution import Vote, resolve, resolve_events
from qrelkit.storage import Store
from qrelkit.workflows.pairs import documents

EAST, WEST = timezone(timedelta(hours=2)), timezone(-timedelta(hours=9, minutes=30))
TIMES = [
    datetime(2026, 1, 1, 8, 0, tzinfo=UTC),
    datetime(2026, 1, 1, 10, 0, tzinfo=EAST),  # the same instant, written in another zone: a tie
    datetime(2026, 1, 1, 8, 0),  # no zone (an older store's, or Python's): UTC, so a tie too
    datetime(2026, 1, 1, 8, 0, 0, 1, tzinfo=UTC),  # a microsecond later
    datetime(2026, 1, 1, 7, 59, 59, 999900, tzinfo=UTC),  # earlier, by less than a millisecond
    datetime(2026, 1, 1, 9, 59, 59, 999950, tzinfo=EAST),  # between those two; a minute's edge
    datetime(2025, 12, 31, 22, 30, tzinfo=WEST),  # 2026-01-01T08:00Z, written the day before: a tie
    datetime(2025, 12, 31, 23, 0, tzinfo=WEST),  # 2026-01-01T08:30Z: the latest
    datetime(2025, 6, 1, 12, 0, tzinfo=UTC),  # months older than the rest
]
"""The times events carry, in no order: ties across zones, sub-millisecond steps, other dates."""

_EVENT = st.tuples(
    st.sampled_from(["a", "b"]),  # doc
    st.sampled_from(["ann", "bob", "cy"]),
    st.sampled_from(list(JudgmentState)),
    st.integers(0, 3),
    st.sampled_from(TIMES),
)


def _event(doc: str, who: str, state: JudgmentState, grade: int, when: datetime | None = None) -> Judgment:
    graded = state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED)
    note = "a note" if state is JudgmentState.NOTED else None  # notes and retractions are in the mix
    event = Judgment(query_id="q", doc_id=doc, state=state, grade=grade if graded else None, assessor=who, note=note)
    return event if when is None else event.model_copy(update={"timestamp": when})


@settings(max_examples=300, deadline=None)
@given(events=st.lists(_EVENT, max_size=14), policy=st.sampled_from(["median", "latest"]))
def test_the_store_resolves_as_the_reference(
    events: list[tuple[str, str, JudgmentState, int, datetime]], policy: LabelPolicy
) -> None:
    log = [_event(*e) for e in events]
    store = Store.memory()
    store.imports.queries([(1, Query(id="q", text="x"))], source="t")
    store.settings.configure(label_policy=policy)
    for e in log:
        store.log.record(e)
    expected = resolve_events(log, policy)
    labels = {(q, d): g for q, d, g in store.reads.label_rows()}
    assert labels == {p: g for p, (s, g) in expected.items() if s is LabelState.GRADED}
    assert set(store.reads.skipped()) == {p for p, (s, _) in expected.items() if s is LabelState.SKIPPED}
    shown = {d.doc_id: (d.state, d.grade) for d in documents(store, "q")}
    assert shown == {d: (s, g) for (_, d), (s, g) in expected.items()}
    store.close()


def test_rules_by_hand() -> None:
    v = [Vote("ann", "graded", 1, 1), Vote("bob", "graded", 3, 2)]
    assert resolve(v, None, "median") == (LabelState.GRADED, 1)  # lower median
    assert resolve(v, None, "latest") == (LabelState.GRADED, 3)
    # latest: the most recent by the events' times, a tie broken by log order
    older, newer = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    assert resolve([Vote("ann", "graded", 1, 1, at=newer), Vote("bob", "graded", 3, 2, at=older)], None, "latest") == (
        LabelState.GRADED,
        1,
    )
    assert resolve([Vote("ann", "graded", 1, 1, at=older), Vote("bob", "graded", 3, 2, at=older)], None, "latest") == (
        LabelState.GRADED,
        3,
    )
    assert resolve([*v, Vote("cy", "graded", 2, 3)], None) == (LabelState.GRADED, 2)
    assert resolve(v, 2) == (LabelState.GRADED, 2)  # adjudicated
    assert resolve([Vote("ann", "skipped", None, 1), Vote("bob", "graded", 0, 2)], None) == (LabelState.GRADED, 0)
    assert resolve([Vote("ann", "skipped", None, 1)], None) == (LabelState.SKIPPED, None)
    assert resolve([], None) == (LabelState.UNLABELED, None)
    # a clear by anyone resets the pair: the votes and the adjudication before it are gone
    log = [
        _event("a", "ann", JudgmentState.GRADED, 2),
        _event("a", "bob", JudgmentState.ADJUDICATED, 3),
        _event("a", "cy", JudgmentState.CLEARED, 0),
        _event("a", "bob", JudgmentState.GRADED, 1),
    ]
    assert resolve_events(log) == {("q", "a"): (LabelState.GRADED, 1)}


def test_latest_is_the_most_recent_grade_not_the_last_imported(run_cli: Cli) -> None:
    """An older vote imported after a newer one was recorded does not win `latest`: the README's
    "the most recent grade" is by the events' times."""
    run_cli("init", "--label-policy", "latest")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id="q1", doc_id="a", state=JudgmentState.GRADED, grade=3, assessor="bob"))
    older = {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "ann"}
    old_file = run_cli.write("old.jsonl", json.dumps({**older, "timestamp": "2020-01-01T00:00:00Z"}) + "\n")
    run_cli("import", "judgments", str(old_file))
    assert run_cli("export", "qrels").output == "q1 0 a 3\n"
    with Store.open(run_cli.db) as s:
        assert [(d.state, d.grade) for d in documents(s, "q1")] == [(LabelState.GRADED, 3)]
