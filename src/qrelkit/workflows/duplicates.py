"""Duplicate documents within a query, and one grade applied to a document's duplicates.

Two of a query's documents have the *same text* when their normalised texts are equal: the title
and the text, Unicode NFKC, casefolded, every run of whitespace one space. They are *near
duplicates* when the Jaccard similarity of their sets of 5-word shingles (every run of five
consecutive words of the normalised text; a text of fewer words is one shingle, all of it) is at
least `THRESHOLD` (0.9). The similarity is exact, with no sampling: a prefix filter picks the
candidate pairs (two sets that similar share one of the rarest few shingles of each), and every
candidate is then compared whole. An empty document is nobody's duplicate. The relation is
between two documents (it is not chained: a near duplicate of a near duplicate is not one itself).

What the judging screen says about a duplicate is the viewing assessor's own vote on it
(`DuplicateVotes.own_votes`), never anyone else's. `DuplicateVotes.apply_grade` records the
assessor's grade as their vote on each of a document's duplicates: one event per document, in one
transaction, leaving alone a document open on another assessor's screen.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import chain

from .. import resolution
from ..errors import NotInGoldenSet, StoreBusy
from ..models import DocState, Judgment, JudgmentState, LabelState
from ..storage import Store
from .pairs import states

THRESHOLD = Fraction(9, 10)
"""Near duplicates: the Jaccard similarity of their 5-word shingles is at least this."""
SHINGLE_WORDS = 5


def normalise(text: str) -> str:
    """`text` as duplicates are compared: NFKC, casefolded, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


Shingle = tuple[str, ...]


def shingles(normalised: str) -> frozenset[Shingle]:
    """The 5-word shingles of a normalised text (fewer words: one shingle; empty: none)."""
    return frozenset(_shingles(normalised))


def _shingles(normalised: str) -> Iterable[Shingle]:
    words = normalised.split(" ") if normalised else []
    if len(words) <= SHINGLE_WORDS:
        return [tuple(words)] if words else []
    return zip(*(words[i:] for i in range(SHINGLE_WORDS)), strict=False)  # the shorter slices end it


def hashed_shingles(normalised: str) -> frozenset[int]:
    """The text's shingles by their hashes: another coding of them for `similar_pairs` (whose
    answers are exact only for a coding without collisions, as `find_duplicates`' numbering is)."""
    return frozenset(map(hash, _shingles(normalised)))


def jaccard(a: frozenset[Shingle], b: frozenset[Shingle]) -> Fraction:
    common = len(a & b)
    return Fraction(common, len(a) + len(b) - common)


@dataclass(frozen=True)
class Duplicate:
    """A duplicate of a document: which, whether its text is the same, how similar."""

    doc_id: str
    same: bool
    """The same normalised text (else a near duplicate)."""
    similarity: Fraction
    """The Jaccard similarity of the two documents' shingles (1 for the same text)."""

    @property
    def percent(self) -> int:
        """The similarity in whole percent, rounded down (a near duplicate shows 90 and up)."""
        return int(self.similarity * 100)


@dataclass(frozen=True)
class Duplicates:
    """A query's duplicates (`find_duplicates`): documents with the same text share a group; the
    near duplicates are pairs of groups."""

    group: Mapping[str, str] = field(default_factory=dict)
    """Document -> its group's first document (documents with no duplicate are left out)."""
    members: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """A group's first document -> its documents, in the order given."""
    near: Mapping[str, Sequence[tuple[str, Fraction]]] = field(default_factory=dict)
    """A group's first document -> the groups near it, with the similarity, most similar first."""

    def of(self, doc_id: str) -> list[Duplicate]:
        """The document's duplicates: the same text first, then near ones, most similar first."""
        return list(self.each(doc_id))

    def each(self, doc_id: str) -> Iterator[Duplicate]:
        """`of`, one at a time (the judging screen shows the first few of hundreds)."""
        first = self.group.get(doc_id)
        if first is None:
            return
        yield from (Duplicate(d, True, Fraction(1)) for d in self.members[first] if d != doc_id)
        for other, similarity in self.near.get(first, ()):
            yield from (Duplicate(d, False, similarity) for d in self.members[other])

    def count(self, doc_id: str) -> int:
        """`len(of(doc_id))`, without making them."""
        first = self.group.get(doc_id)
        if first is None:
            return 0
        return len(self.members[first]) - 1 + sum(len(self.members[o]) for o, _ in self.near.get(first, ()))

    def pairs(self) -> int:
        """How many pairs of documents are duplicates."""
        same = sum(len(m) * (len(m) - 1) // 2 for m in self.members.values())
        near = sum(len(self.members[a]) * len(self.members[b]) for a, links in self.near.items() for b, _ in links)
        return same + near // 2


def find_duplicates(texts: Mapping[str, str], threshold: Fraction = THRESHOLD) -> Duplicates:
    """The duplicates among `texts` (document -> its text, in the order wanted; see the module)."""
    groups: dict[str, list[str]] = {}
    for doc_id, text in texts.items():
        normalised = normalise(text)
        if normalised:
            groups.setdefault(normalised, []).append(doc_id)
    codes: dict[str, int] = {}  # a shingle -> its number here: sets of numbers compare as the shingles do
    coded = {
        docs[0]: frozenset(codes.setdefault(" ".join(s), len(codes)) for s in _shingles(text))
        for text, docs in groups.items()
    }  # a shingle's words hold no space, so joined by one they are the shingle, one to one
    near: dict[str, list[tuple[str, Fraction]]] = {}
    for a, b, similarity in similar_pairs(coded, threshold):  # exact: no two shingles share a number
        near.setdefault(a, []).append((b, similarity))
        near.setdefault(b, []).append((a, similarity))
    order = {d: i for i, d in enumerate(texts)}
    for links in near.values():
        links.sort(key=lambda link: order[link[0]])
        links.sort(key=lambda link: link[1], reverse=True)  # stable: equals stay in the order given
    kept = {docs[0]: docs for docs in groups.values() if len(docs) > 1 or docs[0] in near}
    return Duplicates({d: first for first, docs in kept.items() for d in docs}, kept, near)


def similar_pairs(sets: Mapping[str, frozenset[int]], threshold: Fraction) -> list[tuple[str, str, Fraction]]:
    """Every pair of `sets` whose Jaccard similarity is at least `threshold`, exactly: the sets are
    taken smallest first; each is indexed by its prefix (its rarest `n - ceil(t n) + 1` elements,
    rarest by how many sets hold them, then by value); a pair that similar shares an element of
    their prefixes, and one of at least `ceil(t n)` elements is compared whole. An element of one
    set alone is rarest of all and meets no other set: a set whose prefix holds only such
    elements is neither looked up nor indexed."""
    seen: set[int] = set()
    again: set[int] = set()  # the elements of two sets or more
    for elements in sets.values():
        again |= elements & seen
        seen |= elements
    frequency = Counter(chain.from_iterable(elements & again for elements in sets.values()))
    index: dict[int, list[str]] = {}
    found = []
    for name in sorted(sets, key=lambda d: len(sets[d])):
        mine = sets[name]
        need = -(-threshold.numerator * len(mine) // threshold.denominator)  # ceil(t n), in integers
        shared = mine & again
        length = len(shared) - need + 1  # the prefix past the elements alone (rarest: first)
        compared: set[str] = set()
        for x in sorted(shared, key=lambda x: (frequency[x], x))[: max(length, 0)]:
            for other in index.get(x, ()):
                theirs = sets[other]
                if other in compared or len(theirs) < need:
                    continue
                compared.add(other)
                common = len(mine & theirs)
                union = len(mine) + len(theirs) - common
                if common * threshold.denominator >= threshold.numerator * union:  # >= t, in integers
                    found.append((other, name, Fraction(common, union)))
            index.setdefault(x, []).append(name)
    return found


def document_text(title: str, text: str) -> str:
    """What is compared of a document: its title and its text."""
    return f"{title}\n{text}"


@dataclass(frozen=True)
class Applied:
    """What `apply_grade` did."""

    written: list[DocState]
    """The duplicates voted on, as they resolve now for the assessor (held for a busy store:
    `waiting`)."""
    already: list[str] = field(default_factory=list)
    """Duplicates that already held this grade of the assessor's (nothing written)."""
    open_elsewhere: list[tuple[str, str]] = field(default_factory=list)
    """Duplicates left alone: open on another assessor's screen, (document, assessor)."""
    removed: list[str] = field(default_factory=list)
    """Duplicates removed from the golden set meanwhile (nothing written)."""


class DuplicateVotes:
    """The duplicates half of a judging session (`JudgingSession` is one)."""

    store: Store
    assessor: str
    _waiting: list[Judgment]

    def _remember(self, event: Judgment, previous: resolution.Vote | None) -> None:
        raise NotImplementedError  # the session's: what `undo` restores

    def _recorded(self, event: Judgment, seq: int) -> None:
        raise NotImplementedError  # the session's: its counts

    def duplicates(self, doc_ids: Iterable[str], store: Store | None = None) -> Duplicates:
        """The duplicates among a query's documents (`doc_ids`, in judging order): one read, on
        `store` (default: the session's connection)."""
        ids = list(doc_ids)
        texts = (store or self.store).reads.document_texts(ids)
        return find_duplicates({d: document_text(*texts[d]) for d in ids if d in texts})

    def duplicates_apart(self, doc_ids: Iterable[str]) -> Duplicates:
        """`duplicates`, the texts read on a connection of its own (call it from a worker thread:
        0.5-0.7 s for 1,000 documents, which no keystroke should wait for)."""
        reader = self.store.reader()
        try:
            return self.duplicates(doc_ids, reader)
        finally:
            if reader is not self.store:  # an in-memory store is its own reader
                reader.close()

    def own_votes(self, query_id: str) -> dict[str, resolution.Vote]:
        """This assessor's current vote on each of the query's documents (theirs alone: blind or not,
        it reveals nothing of anyone else's)."""
        return _own(self.store.log.query_events(query_id), self.assessor)

    def apply_grade(self, query_id: str, doc_ids: Sequence[str], grade: int) -> Applied:
        """Record `grade` as this assessor's vote on each of `doc_ids` (a document's duplicates): one
        event per document, all in one transaction that first reads the query's pairs, so that a
        document open on another assessor's screen (unless assigned to both), one removed from the
        golden set, or one already holding this grade of the assessor's is left alone. No other
        assessor's vote is touched. A busy store holds the events, in order, as `judge` does."""
        votes = [
            Judgment(query_id=query_id, doc_id=d, state=JudgmentState.GRADED, grade=grade, assessor=self.assessor)
            for d in dict.fromkeys(doc_ids)
        ]
        try:
            if self._waiting:  # earlier judgments wait for the busy store: these go after them
                raise StoreBusy("judgments are waiting for the store", "they are saved in order once it is free")
            with self.store.transaction():
                pairs = self.store.log.pairs(query_id, besides=self.assessor)
                pairs.settings.scale.refuse_above(grade)  # the scale as read with the pairs
                if pairs.no_query:
                    raise NotInGoldenSet(f"query {query_id!r} is not in the golden set (removed?): nothing recorded",
                                         "see `qrelkit removals`; `qrelkit import queries` adds it back")  # fmt: skip
                mine = _own(pairs.events, self.assessor)
                held = {
                    d: who for d, who in pairs.held.items() if not {who, self.assessor} <= pairs.shared.get(d, set())
                }
                to_write, applied = _sorted(votes, mine, held, pairs.removed, grade)
                writing = [v for v in votes if v.doc_id in to_write]
                seqs = self.store.log.append_events(writing)
        except StoreBusy:  # held in memory, in order, as `judge` holds a vote
            return self._hold(query_id, votes, grade)
        for v, seq in zip(writing, seqs, strict=True):
            self._remember(v, mine.get(v.doc_id))
            self._recorded(v, seq)
        after = replace(pairs, events=[*pairs.events, *zip(seqs, writing, strict=True)])
        shown = states(after, query_id, [v.doc_id for v in writing], assessor=self.assessor, blind=True)
        return replace(applied, written=shown)

    def _hold(self, query_id: str, votes: Sequence[Judgment], grade: int) -> Applied:
        """`apply_grade` on a busy store: the votes wait in memory (those already holding the grade
        aside), committed in order once it is free."""
        own = self.own_votes(query_id)
        written, applied = _sorted(votes, own, {}, (), grade)
        for v in votes:
            if v.doc_id in written:
                self._remember(v, own.get(v.doc_id))
                self._waiting.append(v)
        held = [DocState(doc_id=v.doc_id, grade=grade, state=LabelState.GRADED, waiting=True) for v in votes
                if v.doc_id in written]  # fmt: skip
        return replace(applied, written=held)


def _own(events: Iterable[tuple[int, Judgment]], assessor: str) -> dict[str, resolution.Vote]:
    """`assessor`'s current vote on each document of `events` (one query's)."""
    votes = resolution.votes_of(events)
    return {d: v for (_, d), pair in votes.items() for v in pair.votes if v.assessor == assessor}


def _sorted(
    votes: Sequence[Judgment],
    mine: Mapping[str, resolution.Vote],
    held: Mapping[str, str],
    removed: Iterable[str],
    grade: int,
) -> tuple[list[str], Applied]:
    """Which of `votes`' documents to vote on, and why the others are left alone."""
    gone = set(removed)
    written: list[str] = []
    already: list[str] = []
    open_elsewhere: list[tuple[str, str]] = []
    left: list[str] = []
    for v in votes:
        d = v.doc_id
        own = mine.get(d)
        if d in gone:
            left.append(d)
        elif own is not None and own.state == JudgmentState.GRADED and own.grade == grade:
            already.append(d)
        elif d in held:
            open_elsewhere.append((d, held[d]))
        else:
            written.append(d)
    return written, Applied([], already, open_elsewhere, left)
