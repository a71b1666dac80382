"""Exports (`qrelkit export`): the current labels, resolved from the votes, as TREC qrels or
JSON Lines (grade 0 included, never an unlabeled or skipped pair), and the event log of the golden
set's queries as JSON Lines, in log order, streamed from one read transaction (a removed query's
events stay in the store but are not exported). Reports kept in the store are `saved`'s."""

from __future__ import annotations

from typing import IO, Literal

from ..formats import jsonl, trec
from ..storage import Store

QrelsFormat = Literal["trec", "jsonl"]


def export_qrels(store: Store, stream: IO[str], fmt: QrelsFormat = "trec") -> int:
    """Write the current labels (grade 0 included; skipped and unlabeled pairs never); their count."""
    labels = store.reads.labels()
    return trec.write_qrels(labels, stream) if fmt == "trec" else jsonl.write_models(labels, stream)


def export_judgments(store: Store, stream: IO[str]) -> int:
    """Write the append-only event log as JSONL, streaming from one read transaction; the number
    of events."""
    with store.read_transaction():
        return jsonl.write_models(store.log.iter_events(), stream)
