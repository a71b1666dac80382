"""Frozen versions with one data rule broken and every hash, count and the content hash
recomputed, so that only the data rules can find them (issue 30): for the version check's tests
and the reliability corpus."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from conftest import ROOT
from qrelkit import versioning
from qrelkit.models import Document, Judgment, JudgmentState, Label

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"


def forged(out: Path, change: str) -> Path:
    """The bundled version with one rule broken, frozen again: every sha256, count and the
    content hash recomputed, so only the data rules can find it."""
    snap = versioning.read(PYDOCS)
    events, labels, queries, docs = list(snap.events), list(snap.labels), list(snap.queries), list(snap.documents)
    first = labels[0]
    if change == "grade above the scale":
        events.append(
            Judgment(query_id=first.query_id, doc_id="forged", state=JudgmentState.GRADED, grade=9, assessor="x")
        )
        labels.append(Label(query_id=first.query_id, doc_id="forged", grade=9))
    elif change == "a document twice":
        docs.append(Document(id=docs[0].id, text="another text"))
    elif change == "an unknown stratum":
        queries[0] = queries[0].model_copy(update={"stratum": "nowhere"})
    elif change == "a query twice":
        queries.append(queries[0].model_copy(update={"text": "the same id again"}))
    elif change == "labels of a query the set lacks":
        queries = [q for q in queries if q.id != first.query_id]
    snap = dataclasses.replace(snap, events=events, labels=labels, queries=queries, documents=docs)
    versioning.freeze(snap, out, "forged", "1")
    return out / "forged" / "1"


FOUND = {
    "grade above the scale": "grade 9 is outside the scale (0 to 3)",
    "a document twice": "appears twice",
    "an unknown stratum": "stratum 'nowhere', not one of the version's",
    "a query twice": "repeats line",
    "labels of a query the set lacks": "not in queries.jsonl",
}
