"""Removing strata, queries, documents and profiles: what is refused, and why.

A query or a document that holds labels (a vote or a skip) is removed only with `with_labels`:
its labels are then cleared (recorded in the log, by the person who removed it) and the removal is
recorded with the removed rows (`Store.removals`). A stratum is removed only once no query is in it
and no profile names it. Frozen versions are never touched: they keep what they froze.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..models import Query, Removal
from ..storage import Store
from .judging import current_assessor


def _label_hint(kind: str, name: str, pairs: int) -> UsageError:
    what = "a label" if pairs == 1 else f"{pairs} labels"
    return UsageError(
        f"{kind} {name!r} holds {what}",
        f"add --with-labels to clear them with it (recorded; frozen versions keep them), or keep the {kind}",
    )


def remove_queries(
    store: Store, query_ids: Sequence[str], *, with_labels: bool = False, assessor: str | None = None
) -> list[Removal]:
    """Remove queries in one transaction; every one is checked first (an unknown query, or one
    with labels without `with_labels`, refuses the whole command and changes nothing)."""
    who = assessor or current_assessor()
    with store.transaction():
        for qid in query_ids:
            footprint = store.query_footprint(qid)
            if footprint is None:
                raise UsageError(f"no query {qid!r} in the golden set", "see them with `qrelkit queries list`")
            if footprint.judged_pairs and not with_labels:
                raise _label_hint("query", qid, footprint.judged_pairs)
        return [store.remove_query(qid, assessor=who) for qid in dict.fromkeys(query_ids)]


def queries_of_stratum(store: Store, stratum: str) -> list[str]:
    """The ids of the queries in a stratum (for `queries remove --stratum`); an unknown stratum
    is a usage error."""
    if store.stratum_footprint(stratum) is None:
        raise UsageError(f"no stratum {stratum!r}", "see them with `qrelkit strata list`")
    return sorted(q for q, s in store.query_strata().items() if s == stratum)


def queries(store: Store) -> list[Query]:
    """The golden set's queries, by id (`qrelkit queries list`)."""
    return sorted(store.queries(), key=lambda q: q.id)


def remove_documents(
    store: Store, doc_ids: Sequence[str], *, with_labels: bool = False, assessor: str | None = None
) -> list[Removal]:
    """Remove documents (text, pooled pairs; labels only with `with_labels`) in one transaction,
    every one checked first."""
    who = assessor or current_assessor()
    with store.transaction():
        for did in doc_ids:
            footprint = store.document_footprint(did)
            if footprint is None:
                raise UsageError(f"no document {did!r} in the store", "ids as `qrelkit export qrels` prints them")
            if footprint.judged_pairs and not with_labels:
                raise _label_hint("document", did, footprint.judged_pairs)
        return [store.remove_document(did, assessor=who) for did in dict.fromkeys(doc_ids)]


def remove_stratum(store: Store, name: str, *, assessor: str | None = None) -> Removal:
    """Remove a stratum and its weight, once no query is in it and no profile names it."""
    who = assessor or current_assessor()
    with store.transaction():
        footprint = store.stratum_footprint(name)
        if footprint is None:
            raise UsageError(f"no stratum {name!r}", "see them with `qrelkit strata list`")
        if footprint.queries:
            raise UsageError(
                f"stratum {name!r} holds {footprint.queries} quer{'y' if footprint.queries == 1 else 'ies'}",
                f"remove them first (`qrelkit queries remove --stratum {name}`) or move them (import them with "
                "another stratum)",
            )
        if footprint.profiles:
            raise UsageError(
                f"stratum {name!r} is named by the profiles {', '.join(footprint.profiles)}",
                "remove or change those profiles first (`qrelkit profiles remove NAME` or `profiles set`)",
            )
        return store.remove_stratum(name, assessor=who)


def remove_profile(store: Store, name: str, *, assessor: str | None = None) -> Removal:
    """Remove a scoring profile."""
    removal = store.remove_profile(name, assessor=assessor or current_assessor())
    if removal is None:
        raise UsageError(f"no profile {name!r}", "see them with `qrelkit profiles list`")
    return removal


def removals(store: Store) -> list[dict[str, Any]]:
    """Every recorded removal, oldest first: id, ts, kind, name, assessor, body (JSON text)."""
    return store.removals()
