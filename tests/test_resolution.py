"""Several assessors' votes resolve to one label: the SQL the store runs agrees with the pure
`qrelkit.resolution` on generated logs, for both policies."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.models import Judgment, JudgmentState, LabelPolicy, LabelState, Query
from qrelkit.resolution import Vote, resolve, resolve_events
from qrelkit.storage import Store
from qrelkit.workflows.pairs import documents

_EVENT = st.tuples(
    st.sampled_from(["a", "b"]),  # doc
    st.sampled_from(["ann", "bob", "cy"]),
    st.sampled_from(list(JudgmentState)),
    st.integers(0, 3),
)


def _event(doc: str, who: str, state: JudgmentState, grade: int) -> Judgment:
    graded = state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED)
    note = "a note" if state is JudgmentState.NOTED else None  # notes and retractions are in the mix
    return Judgment(query_id="q", doc_id=doc, state=state, grade=grade if graded else None, assessor=who, note=note)


@settings(max_examples=150, deadline=None)
@given(events=st.lists(_EVENT, max_size=14), policy=st.sampled_from(["median", "latest"]))
def test_the_store_resolves_as_the_reference(
    events: list[tuple[str, str, JudgmentState, int]], policy: LabelPolicy
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
