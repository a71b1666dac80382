"""Exports (`qrelkit export`): the current labels, resolved from the votes, as TREC qrels or
JSON Lines (grade 0 included, never an unlabeled or skipped pair), and the event log of the golden
set's queries as JSON Lines, in log order, streamed from one read transaction (a removed query's
events stay in the store but are not exported). Reports kept in the store are `saved`'s."""

from __future__ import annotations

from typing import IO, Literal

from ..formats import jsonl, trec
from ..models import Label
from ..storage import Store
from .label_sets import HUMAN, LabelChoice, label_rows

QrelsFormat = Literal["trec", "jsonl"]


def export_qrels(store: Store, stream: IO[str], fmt: QrelsFormat = "trec", labels_of: LabelChoice = HUMAN) -> int:
    """Write the current labels (grade 0 included; skipped and unlabeled pairs never), the humans'
    or those `labels_of` chooses (`label_sets`); their count."""
    if labels_of.human:
        labels = store.reads.labels()
    else:
        with store.read_transaction():
            rows = label_rows(store, labels_of)
        labels = [Label.model_construct(query_id=q, doc_id=d, grade=g) for q, d, g in rows]
    return trec.write_qrels(labels, stream) if fmt == "trec" else jsonl.write_models(labels, stream)


def export_judgments(store: Store, stream: IO[str]) -> int:
    """Write the append-only event log as JSONL, streaming from one read transaction; the number
    of events."""
    with store.read_transaction():
        return jsonl.write_models(store.log.iter_events(), stream)
