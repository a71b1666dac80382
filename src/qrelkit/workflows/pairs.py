"""A pair's state as a judging screen shows it: resolved from every assessor's votes
(`resolution`), blind on overlap assignments until this assessor has voted, with every note and
who has the document open now.

The notes on a pair are a conversation (`notes_by_pair`): each author has one note there, the
latest of their events on the pair that carries a note of theirs (a `noted` event, or a vote's
note); writing again edits it (a new event: the versions before it are its history), a `noted`
event whose note is `WITHDRAWN_TEXT` withdraws it. No event of one assessor's touches another's
note. The texts qrelkit writes (`is_system_text`) are never anyone's note; a clear resets the
notes with the votes. `note_change` says what saving a text as one's note writes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import Enum

from .. import resolution
from ..models import DocState, Judgment, JudgmentState, LabelPolicy, LabelState, NoteVersion, PairNote
from ..storage import Pairs, Store


def documents(store: Store, query_id: str, *, assessor: str | None = None, blind: bool = False) -> list[DocState]:
    """A query's documents in judging order, each with its resolved state (see the module)."""
    pooled = store.pool.documents(query_id)
    pairs = store.log.pairs(query_id, besides=assessor)
    seen = set(pooled)
    seen.update(pairs.removed)  # documents removed from the golden set are not judged (nor shown)
    order = pooled + [d for d in dict.fromkeys(e.doc_id for _, e in pairs.events) if d not in seen]
    return states(pairs, query_id, order, assessor=assessor, blind=blind)


def document_state(
    store: Store, query_id: str, doc_id: str, *, assessor: str | None = None, blind: bool = False
) -> DocState:
    """One document's state, as `documents` gives it, reading that pair alone (the judging screen
    calls this after every keystroke): one statement."""
    pairs = store.log.pairs(query_id, doc_id, besides=assessor)
    return states(pairs, query_id, [doc_id], assessor=assessor, blind=blind)[0]


def states(pairs: Pairs, query_id: str, order: list[str], *, assessor: str | None, blind: bool) -> list[DocState]:
    """Each document's resolved state from its events (`order`: the documents, in the order
    wanted); blind where it is assigned to `assessor` and others and `assessor` has not voted."""
    events, shared = pairs.events, pairs.shared
    votes = resolution.votes_of(events)
    times = {seq: e.timestamp for seq, e in events}
    hidden = blind_docs(votes, shared, query_id, assessor) if blind and assessor is not None else set()
    held = _held(pairs, assessor)
    notes = _notes(events)
    policy = pairs.settings.label_policy
    found = []
    for d in order:
        v, adjudicated = votes.get((query_id, d), ([], None))
        if d in hidden:
            found.append(_blind(d, [x for x in v if x.assessor == assessor], times, held.get(d)))
            continue
        state = _state(d, v, adjudicated, policy, times, shared=d in shared)
        mine = notes.get(d, [])
        update: dict[str, object] = {"notes": mine, "note": mine[-1].text if mine else None, "held_by": held.get(d)}
        update["evidence"] = evidence_of(v)
        found.append(state.model_copy(update=update))
    return found


def blind_docs(
    votes: dict[tuple[str, str], resolution.PairVotes], shared: dict[str, set[str]], query_id: str, assessor: str
) -> set[str]:
    """The query's documents blind to `assessor`: assigned to them and to others (`shared`), not
    adjudicated, and not graded by them yet (`votes`: the query's, `resolution.votes_of`)."""
    hidden = set()
    for d, who in shared.items():
        v, adjudicated = votes.get((query_id, d), ([], None))
        graded = any(x.assessor == assessor and x.grade is not None for x in v)
        if assessor in who and adjudicated is None and not graded:
            hidden.add(d)
    return hidden


def blind_pairs(store: Store, assessor: str) -> set[tuple[str, str]]:
    """Every (query, document) pair blind to `assessor` (`blind_docs`), read one query with a
    shared assignment of theirs at a time: what a judging screen leaves out of what it derives
    from the labels (`settle_watch.seen_by`)."""
    queries: dict[str, None] = dict.fromkeys(q for q, _ in store.log.shared_assignments(assessor))
    hidden: set[tuple[str, str]] = set()
    for q in queries:
        pairs = store.log.pairs(q, besides=assessor)
        hidden.update((q, d) for d in blind_docs(resolution.votes_of(pairs.events), pairs.shared, q, assessor))
    return hidden


def _blind(doc_id: str, mine: list[resolution.Vote], times: dict[int, datetime], held: str | None) -> DocState:
    """A blind pair as its assessor sees it before grading it: their own skip, if any, and
    nothing of anyone else's (no grade, author, note or count). A skip does not lift the
    blind: else skipping would show the others' grades, and the assessor could grade after
    seeing them."""
    own = mine[0] if mine else None
    state = LabelState.SKIPPED if own is not None and own.state == JudgmentState.SKIPPED else LabelState.UNLABELED
    return DocState(
        doc_id=doc_id,
        state=state,
        assessor=own.assessor if state is LabelState.SKIPPED and own else None,
        timestamp=times.get(own.seq) if state is LabelState.SKIPPED and own else None,
        blind=True,
        shared=True,
        held_by=held,
        evidence=evidence_of(mine),
    )


def evidence_of(votes: Iterable[resolution.Vote]) -> dict[str, str]:
    """Assessor -> the evidence passage of their vote, for the votes that carry one."""
    return {v.assessor: v.evidence for v in votes if v.evidence is not None}


def own_vote(events: list[tuple[int, Judgment]], query_id: str, doc_id: str, assessor: str) -> resolution.Vote | None:
    """`assessor`'s current vote on the pair in `events` (None: none)."""
    pair = resolution.votes_of(events).get((query_id, doc_id))
    return next((v for v in pair.votes if v.assessor == assessor), None) if pair else None


def _held(pairs: Pairs, assessor: str | None) -> dict[str, str]:
    """Documents open on another assessor's screen, unless assigned to both of them (then each
    judges it anyway)."""
    if assessor is None:
        return {}
    return {d: who for d, who in pairs.held.items() if not {who, assessor} <= pairs.shared.get(d, set())}


def _notes(events: list[tuple[int, Judgment]]) -> dict[str, list[PairNote]]:
    """The notes on each document of one query (`notes_by_pair`), by document."""
    return {d: found for (_, d), found in notes_by_pair(events).items()}


def notes_by_pair(events: Iterable[tuple[int, Judgment]]) -> dict[tuple[str, str], list[PairNote]]:
    """Pair -> its notes, a conversation: each author's note (see the module), in the order they
    were last written, each with its earlier versions; since the pair's last clear. Events in
    log order, as (sequence number, event)."""
    written: dict[tuple[str, str], dict[str, tuple[int, list[NoteVersion]]]] = {}
    for seq, e in events:
        pair = (e.query_id, e.doc_id)
        if e.state is JudgmentState.CLEARED:
            written.pop(pair, None)
        elif is_withdrawal(e):
            written.get(pair, {}).pop(e.assessor, None)
        elif e.note and not is_system_text(e):
            by_author = written.setdefault(pair, {})
            versions = by_author.pop(e.assessor, (0, []))[1]  # popped: it goes after the others now
            by_author[e.assessor] = (seq, [*versions, NoteVersion(text=e.note, timestamp=e.timestamp)])
    found = {}
    for pair, by_author in written.items():
        if by_author:
            ordered = sorted(by_author.items(), key=lambda item: item[1][0])
            found[pair] = [
                PairNote(assessor=who, text=v[-1].text, timestamp=v[-1].timestamp, earlier=v[:-1])
                for who, (_, v) in ordered
            ]
    return found


def own_note(events: Iterable[tuple[int, Judgment]], query_id: str, doc_id: str, assessor: str) -> str | None:
    """`assessor`'s note on the pair in `events` (None: none, or withdrawn)."""
    mine = [n for n in notes_by_pair(events).get((query_id, doc_id), []) if n.assessor == assessor]
    return mine[0].text if mine else None


class NoteChange(Enum):
    """What saving a text as one's note on a pair did."""

    SAVED = "note saved"
    EDITED = "note edited"
    WITHDRAWN = "note withdrawn"
    UNCHANGED = "note unchanged"
    NONE = "no note to withdraw"


def note_change(current: str | None, text: str) -> tuple[NoteChange, str | None]:
    """Saving `text` as one's note over `current` (one's note now, None: none): what it does, and
    the note of the `noted` event to write (None: nothing to write). An empty text (or exactly
    `WITHDRAWN_TEXT`) withdraws the note; the same text again writes nothing."""
    text = text.strip()
    if not text or text == WITHDRAWN_TEXT:
        return (NoteChange.WITHDRAWN, WITHDRAWN_TEXT) if current is not None else (NoteChange.NONE, None)
    if text == current:
        return NoteChange.UNCHANGED, None
    return (NoteChange.SAVED if current is None else NoteChange.EDITED), text


UNDO_TEXT = "undo"
"""The note an undo writes on the vote it puts back (`JudgingSession.undo`)."""
WITHDRAWN_TEXT = "(note withdrawn)"
"""The note of the `noted` event that withdraws its author's note on the pair (`note_change`)."""


def is_withdrawal(e: Judgment) -> bool:
    """Whether the event withdraws its author's note on the pair."""
    return e.state is JudgmentState.NOTED and e.note == WITHDRAWN_TEXT


def is_system_text(e: Judgment) -> bool:
    """Whether an event's note was written by qrelkit, not by its assessor: a clear's ("cleared
    for everyone by ann"), an adjudication's ("adjudicated over ..."), an undo's, a withdrawal's.
    Kept in the log, never shown as someone's note."""
    return (
        e.state in (JudgmentState.CLEARED, JudgmentState.ADJUDICATED)
        or (e.note == UNDO_TEXT and e.state is not JudgmentState.NOTED)
        or is_withdrawal(e)
    )


def _state(
    doc_id: str,
    votes: list[resolution.Vote],
    adjudicated: int | None,
    policy: LabelPolicy,
    times: dict[int, datetime],
    *,
    shared: bool,
) -> DocState:
    state, grade = resolution.resolve(votes, adjudicated, policy)
    if state is LabelState.UNLABELED:
        return DocState(doc_id=doc_id, state=state, shared=shared)
    graders = resolution.graded_votes(votes)
    # who set the state shown: the latest vote of its kind (a skip by ann does not author bob's grade)
    kind = JudgmentState.SKIPPED if state is LabelState.SKIPPED else JudgmentState.GRADED
    authors = [x for x in votes if x.state == kind] if adjudicated is None else []
    last = max(authors, key=lambda x: x.seq) if authors else None
    return DocState(
        doc_id=doc_id,
        state=state,
        grade=grade,
        assessor=last.assessor if last else None,
        timestamp=times.get(last.seq) if last else None,
        votes=graders if len(graders) > 1 else {},
        adjudicated=adjudicated is not None,
        shared=shared,
    )
