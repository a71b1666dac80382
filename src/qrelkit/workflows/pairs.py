"""A pair's state as a judging screen shows it: resolved from every assessor's votes
(`resolution`), blind on overlap assignments until this assessor has voted, with every note and
who has the document open now."""

from __future__ import annotations

from datetime import datetime

from .. import resolution
from ..models import DocState, Judgment, JudgmentState, LabelPolicy, LabelState, PairNote
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
    hidden = {d for d, who in shared.items() if assessor in who} if blind and assessor is not None else set()
    held = _held(pairs, assessor)
    notes = _notes(events)
    policy = pairs.settings.label_policy
    found = []
    for d in order:
        v, adjudicated = votes.get((query_id, d), ([], None))
        if d in hidden and adjudicated is None and not any(x.assessor == assessor and x.grade is not None for x in v):
            found.append(_blind(d, [x for x in v if x.assessor == assessor], times, held.get(d)))
            continue
        state = _state(d, v, adjudicated, policy, times, shared=d in shared)
        mine = notes.get(d, [])
        update = {"notes": mine, "note": mine[-1].text if mine else None, "held_by": held.get(d)}
        found.append(state.model_copy(update=update))
    return found


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
    )


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
    """Every note on each document, oldest first: note events and the notes votes carry (since
    the pair's last clear, as the votes)."""
    found: dict[str, list[PairNote]] = {}
    for _, e in events:
        if e.state is JudgmentState.CLEARED:
            found.pop(e.doc_id, None)
        if e.note and not is_system_text(e):
            found.setdefault(e.doc_id, []).append(PairNote(assessor=e.assessor, text=e.note, timestamp=e.timestamp))
    return found


UNDO_TEXT = "undo"
"""The note an undo writes on the vote it puts back (`JudgingSession.undo`)."""


def is_system_text(e: Judgment) -> bool:
    """Whether an event's note was written by qrelkit, not by its assessor: a clear's ("cleared
    for everyone by ann"), an adjudication's ("adjudicated over ..."), an undo's. Kept in the log,
    never shown as someone's note."""
    return e.state in (JudgmentState.CLEARED, JudgmentState.ADJUDICATED) or (
        e.note == UNDO_TEXT and e.state is not JudgmentState.NOTED
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
