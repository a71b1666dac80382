"""Duplicate documents within a query (`workflows.duplicates`): the same text, near duplicates by
the exact Jaccard similarity of 5-word shingles, and a grade applied to a document's duplicates
as one vote per document, the assessor's own."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.models import Document, Judgment, JudgmentState, PoolEntry
from qrelkit.storage import Store
from qrelkit.workflows.duplicates import (
    THRESHOLD,
    find_duplicates,
    hashed_shingles,
    jaccard,
    normalise,
    shingles,
    similar_pairs,
)
from qrelkit.workflows.judging import JudgingSession
from tui.conftest import make_store

WORDS = "the a of assert list sort python raises error value key loop return import class def".split()
BODY = " ".join(f"word{i}" for i in range(40))


def test_the_same_text_after_normalising_is_the_same_text() -> None:
    texts = {"d1": "Café  au\tlait\nIS good", "d2": "CAFÉ au lait is GOOD", "d3": "cafe au lait is good"}
    found = find_duplicates({**texts, "d4": "ﬁne print"} | {"d5": "fine PRINT"})
    assert [(d.doc_id, d.same, d.similarity) for d in found.of("d1")] == [("d2", True, Fraction(1))]
    assert found.of("d3") == []  # é is not e: NFKC keeps the accent
    assert [d.doc_id for d in found.of("d4")] == ["d5"]  # the ligature ﬁ is fi under NFKC
    assert normalise("Straße\u00a0STRASSE") == "strasse strasse"  # casefold, and a no-break space is a space


def test_near_duplicates_at_and_above_the_threshold_below_it_none() -> None:
    words = [f"w{i}" for i in range(100)]
    base = " ".join(words)
    one_changed = " ".join([*words[:50], "changed", *words[51:]])  # 5 of 96 shingles differ
    many_changed = " ".join(w if i % 10 else "x" for i, w in enumerate(words))
    found = find_duplicates({"a": base, "b": one_changed, "c": many_changed})
    sa, sb = shingles(normalise(base)), shingles(normalise(one_changed))
    expected = Fraction(len(sa & sb), len(sa | sb))
    assert expected >= THRESHOLD
    assert [(d.doc_id, d.same, d.similarity) for d in found.of("a")] == [("b", False, expected)]
    assert found.of("b")[0].percent == int(expected * 100) >= 90
    assert found.of("c") == []
    assert found.pairs() == 1


def test_exactly_at_the_threshold_is_a_near_duplicate() -> None:
    a = frozenset(range(10))
    b = frozenset(range(9))  # 9 / 10
    c = frozenset(range(8))  # 8 / 10 with a, 8 / 9 with b
    assert {(x, y) for x, y, _ in similar_pairs({"a": a, "b": b, "c": c}, THRESHOLD)} == {("b", "a")}


def test_the_prefix_filter_finds_every_pair_a_full_comparison_finds() -> None:
    rng = random.Random(7)
    base = [rng.choice(WORDS) for _ in range(60)]
    texts = {}
    for n in range(60):
        words = list(base) if n % 3 else [rng.choice(WORDS) for _ in range(60)]
        for _ in range(rng.randrange(4)):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        texts[f"d{n}"] = " ".join(words[: rng.randrange(20, 60)])
    sets = {d: hashed_shingles(normalise(t)) for d, t in texts.items()}
    assert all(len(sets[d]) == len(shingles(normalise(t))) for d, t in texts.items())
    full = {
        frozenset((a, b))
        for a, b in combinations(sets, 2)
        if Fraction(len(sets[a] & sets[b]), len(sets[a] | sets[b])) >= THRESHOLD
    }
    found = {frozenset((a, b)) for a, b, _ in similar_pairs(sets, THRESHOLD)}
    assert found == full and full  # some pairs, all of them
    texts.update({f"x{n}": texts["d1"] for n in range(3)})  # a group of the same text too
    dupes = find_duplicates(texts)
    for d in texts:  # the judging screen counts and shows the first few without making them all
        assert dupes.count(d) == len(dupes.of(d)) == len(list(dupes.each(d)))
    assert max(dupes.count(d) for d in texts) > 3


def test_empty_and_one_document_have_no_duplicates() -> None:
    assert find_duplicates({"d1": "", "d2": "  \n ", "d3": ""}).of("d1") == []
    one = find_duplicates({"d1": "only me here"})
    assert one.of("d1") == [] and one.pairs() == 0
    assert find_duplicates({}).pairs() == 0


def test_short_texts_are_one_shingle() -> None:
    assert shingles("a b c") == frozenset([("a", "b", "c")])
    assert len(shingles("a b c d e f")) == 2
    found = find_duplicates({"d1": "a b c", "d2": "a b d"})
    assert found.of("d1") == []


def dup_store() -> Store:
    """The tiny store, with four more q1 documents: d7 the same text as d6, d8 near it, d9 not."""
    store = make_store()
    store.imports.documents(
        [
            Document(id="d6", title="The assert statement", text=f"{BODY}  tail"),
            Document(id="d7", title="the ASSERT statement", text=f"{BODY} tail"),
            Document(id="d8", title="The assert statement", text=f"{BODY} tail end"),
            Document(id="d9", title="Other", text="nothing alike"),
        ]
    )
    store.imports.pool_entries(
        [PoolEntry(query_id="q1", doc_id=f"d{d}", best_rank=10 + n) for n, d in enumerate("6789")]
    )
    return store


def test_a_query_s_duplicates_and_one_vote_applied_to_each() -> None:
    store = dup_store()
    session = JudgingSession(store, "ann")
    docs = [d.doc_id for d in session.documents("q1")]
    found = session.duplicates(docs)
    assert [(d.doc_id, d.same) for d in found.of("d6")] == [("d7", True), ("d8", False)]
    assert [(d.doc_id, d.same) for d in found.of("d8")] == [("d6", False), ("d7", False)]
    assert found.of("d9") == [] and found.of("d1") == []
    session.judge("q1", "d6", JudgmentState.GRADED, 2)
    session.judge("q1", "d8", JudgmentState.GRADED, 0, note="mine")
    store.log.record(Judgment(query_id="q1", doc_id="d7", state=JudgmentState.GRADED, grade=1, assessor="bob"))
    before = len(store.log.events("q1"))
    applied = session.apply_grade("q1", ["d7", "d8"], 2)
    assert [d.doc_id for d in applied.written] == ["d7", "d8"]
    new = store.log.events("q1")[before:]
    assert [(e.doc_id, e.assessor, e.grade, e.state) for e in new] == [
        ("d7", "ann", 2, JudgmentState.GRADED),
        ("d8", "ann", 2, JudgmentState.GRADED),
    ]
    assert session.own_votes("q1")["d7"].grade == 2
    assert session.votes_on("q1", "d7") == ["ann 2", "bob 1"]  # bob's vote stands
    again = session.apply_grade("q1", ["d7", "d8"], 2)
    assert again.written == [] and again.already == ["d7", "d8"]
    assert session.undo() == ("q1", "d8")  # each vote is one judgment of the session's: undone one by one
    assert session.own_votes("q1")["d8"].grade == 0


def test_a_duplicate_open_on_another_screen_is_left_alone() -> None:
    store = dup_store()
    session = JudgingSession(store, "ann")
    store.leases.hold("q1", "d7", "bob")
    applied = session.apply_grade("q1", ["d7", "d8"], 1)
    assert [d.doc_id for d in applied.written] == ["d8"]
    assert applied.open_elsewhere == [("d7", "bob")]
    assert "d7" not in session.own_votes("q1")


def test_a_grade_off_the_scale_is_refused_and_nothing_is_written() -> None:
    store = dup_store()
    session = JudgingSession(store, "ann")
    top = store.settings.scale.max_grade
    with pytest.raises(InputError, match="above the scale"):
        session.apply_grade("q1", ["d7"], top + 1)
    assert store.log.events("q1")[-1].doc_id == "d2"  # bob's grade, imported: still the last event


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "ß", "SS", "ﬁ", "fi", "x y", "\u00e9", "e\u0301"]), max_size=14),
        min_size=1,
        max_size=9,
    ),
    st.sampled_from([Fraction(9, 10), Fraction(1, 2), Fraction(3, 4)]),
)
def test_find_duplicates_equals_comparing_every_pair_on_the_shingles_themselves(
    docs: list[list[str]], threshold: Fraction
) -> None:
    """The shingles are numbered once per call (`find_duplicates`): the near pairs and their
    similarities are those of every pair compared on its word tuples (`shingles`, `jaccard`),
    with texts that casefold and NFKC-fold into each other and words that are two words."""
    texts = {f"d{i}": " ".join(words) for i, words in enumerate(docs)}
    dupes = find_duplicates(texts, threshold)
    normalised = {d: normalise(t) for d, t in texts.items()}
    want = {}
    for a, b in combinations(texts, 2):
        if not normalised[a] or not normalised[b] or normalised[a] == normalised[b]:
            continue
        similarity = jaccard(shingles(normalised[a]), shingles(normalised[b]))
        if similarity >= threshold:
            want[frozenset((a, b))] = similarity
    got = {}
    for d in texts:
        for dup in dupes.each(d):
            if not dup.same:
                got[frozenset((d, dup.doc_id))] = dup.similarity
    assert got == want
