"""Looking at what the golden set holds: one query with its labels and pool, the documents, one
document with the labels it has (`qrelkit queries show`, `docs list`, `docs show`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from ..models import Document, Query
from ..storage import Store


@dataclass(frozen=True)
class QueryView:
    query: Query
    labels: list[tuple[str, int]]
    """(document, grade), by document."""
    skipped: list[str]
    unlabeled: list[str]
    """Pooled documents nobody has judged (in pool order)."""


@dataclass(frozen=True)
class DocumentView:
    document: Document | None
    """None: judged or pooled by id only (its text was never imported)."""
    labels: list[tuple[str, int]]
    """(query, grade), by query."""


def query(store: Store, query_id: str) -> QueryView:
    """One query: its text, stratum and guidelines, its labels, skips and unlabeled pooled pairs."""
    found = store.reads.query(query_id)
    if found is None:
        raise UsageError(f"no query {query_id!r} in the golden set", "see them with `qrelkit queries list`")
    labels = [(d, g) for _, d, g in store.reads.label_rows(query_id)]
    skipped = sorted(d for _, d in store.reads.skipped(query_id))
    unlabeled = [p.doc_id for p in store.pool.unlabeled(query_id)]
    return QueryView(found, labels, skipped, unlabeled)


def documents(store: Store, limit: int | None = None) -> list[Document]:
    """The documents by id (the first `limit`)."""
    docs: list[Document] = []
    for d in store.reads.documents():
        if limit is not None and len(docs) >= limit:
            break
        docs.append(d)
    return docs


def document(store: Store, doc_id: str) -> DocumentView:
    """One document: its text (if imported) and every query's label of it."""
    found = store.reads.document(doc_id)
    labels = store.reads.document_labels(doc_id)
    if found is None and not labels and not store.pool.has_document(doc_id):
        raise UsageError(f"no document {doc_id!r} in the store", "ids as `qrelkit export qrels` prints them")
    return DocumentView(found, labels)
