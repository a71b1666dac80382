"""The pairs whose assessors disagree, for the adjudication screen (`judge --adjudicate`)."""

from __future__ import annotations

from .. import resolution
from ..models import Disagreement
from ..storage import Store
from .pairs import evidence_of, notes_by_pair
from .queue import impacts, labels_by_query


def disagreement_on(store: Store, item: Disagreement) -> Disagreement | None:
    """The disagreement on `item`'s pair as the store holds it now: its votes and notes re-read
    (its priority kept, the impact is the queue's); None when it is no longer one (adjudicated,
    cleared, or the votes agree now). One indexed read of the pair's events."""
    events = store.log.query_events(item.query_id, item.doc_id)
    votes, adjudicated = resolution.votes_of(events).get((item.query_id, item.doc_id), ({}, None))
    graded = resolution.graded_votes(votes)
    if adjudicated is not None or len(set(graded.values())) < 2:
        return None
    distance = max(graded.values()) - min(graded.values())
    return item.model_copy(
        update={
            "votes": graded,
            "notes": notes_by_pair(events).get((item.query_id, item.doc_id), []),
            "evidence": evidence_of(votes),
            "distance": distance,
            "priority": item.priority if distance == item.distance else item.priority / item.distance * distance,
        }
    )


def disagreements(store: Store) -> list[Disagreement]:
    """Pairs whose assessors disagree and that no one adjudicated, most urgent first: grade
    distance times queue impact (the impact the pair would have were it unlabeled); each with
    every assessor's note on it (`pairs.notes_by_pair`)."""
    found = []
    with store.read_transaction():  # the votes and the notes of one moment
        votes_of = resolution.votes_of(store.log.numbered_events())
        notes = notes_by_pair(store.log.numbered_events(notes=True))
    for (q, d), (votes, adjudicated) in votes_of.items():
        graded = resolution.graded_votes(votes)
        if adjudicated is None and len(set(graded.values())) > 1:
            found.append((q, d, graded, notes.get((q, d), []), evidence_of(votes)))
    if not found:
        return []
    pairs = [(q, d) for q, d, _, _, _ in found]
    weights = impacts(store, pairs, labels_by_query(store.reads.label_rows(), leave_out=set(pairs)))
    if not any(weights):  # no pooled runs to weigh by: the grade distance alone orders them
        weights = [1.0] * len(pairs)
    items = [
        Disagreement(
            query_id=q,
            doc_id=d,
            votes=graded,
            notes=notes,
            evidence=evidence,
            distance=max(graded.values()) - min(graded.values()),
            priority=(max(graded.values()) - min(graded.values())) * impact,
        )
        for (q, d, graded, notes, evidence), impact in zip(found, weights, strict=True)
    ]
    return sorted(items, key=lambda x: (-x.priority, -x.distance, x.query_id, x.doc_id))
