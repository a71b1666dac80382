"""The pairs whose assessors disagree, for the adjudication screen (`judge --adjudicate`)."""

from __future__ import annotations

from .. import resolution
from ..models import Disagreement
from ..storage import Store
from .pairs import notes_by_pair
from .queue import impacts, labels_by_query


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
            found.append((q, d, graded, notes.get((q, d), [])))
    if not found:
        return []
    pairs = [(q, d) for q, d, _, _ in found]
    weights = impacts(store, pairs, labels_by_query(store.reads.label_rows(), leave_out=set(pairs)))
    if not any(weights):  # no pooled runs to weigh by: the grade distance alone orders them
        weights = [1.0] * len(pairs)
    items = [
        Disagreement(
            query_id=q,
            doc_id=d,
            votes=graded,
            notes=notes,
            distance=max(graded.values()) - min(graded.values()),
            priority=(max(graded.values()) - min(graded.values())) * impact,
        )
        for (q, d, graded, notes), impact in zip(found, weights, strict=True)
    ]
    return sorted(items, key=lambda x: (-x.priority, -x.distance, x.query_id, x.doc_id))
