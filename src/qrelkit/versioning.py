"""Content identity of a golden set: one canonical hash over what a score depends on.

`content_hash` covers documents (or a corpus hash), queries, labels, strata with weights, the
grade scale and scoring profiles; not row order, export time, name or version. Two states of a
golden set with the same hash give the same scores for the same run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from .models import Document, GoldenSetInfo, Label, Query


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def documents_hash(docs: Iterable[Document]) -> str:
    """sha256 over the documents, independent of their order."""
    lines = sorted(_canonical([d.id, d.title, d.text]) for d in docs)
    h = hashlib.sha256()
    for line in lines:
        h.update(line + b"\n")
    return h.hexdigest()


def content_hash(
    info: GoldenSetInfo, queries: Iterable[Query], labels: Iterable[Label], docs_hash: str
) -> str:
    """The canonical content hash, prefixed `sha256:`."""
    body = {
        "scale": info.scale.model_dump(mode="json"),
        "strata": sorted([s.name, s.weight] for s in info.strata),
        "profiles": sorted((p.model_dump(mode="json") for p in info.profiles), key=lambda p: p["name"]),
        "queries": sorted([q.id, q.text, q.stratum, q.description] for q in queries),
        "labels": sorted([lab.query_id, lab.doc_id, lab.grade] for lab in labels),
        "documents": docs_hash,
    }
    return "sha256:" + hashlib.sha256(_canonical(body)).hexdigest()


def file_sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()
