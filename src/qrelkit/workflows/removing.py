"""Removing strata, queries, documents and profiles: what is refused, and why.

A query or a document that holds labels (a vote or a skip) is removed only with `with_labels`:
its labels are then cleared (recorded in the log, by the person who removed it) and the removal is
recorded with the removed rows (`store.removals.recorded`). A stratum is removed only once no query is in it
and no profile names it. Frozen versions are never touched: they keep what they froze.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UsageError
from ..models import Query, Removal
from ..storage import Footprint, Store
from .judging import assessor_or_current


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
    missing = ("no query {!r} in the golden set", "see them with `qrelkit queries list`")
    return _remove_all(
        store,
        "query",
        query_ids,
        store.removals.query_footprint,
        store.removals.remove_query,
        missing,
        with_labels,
        assessor,
    )


def _remove_all(
    store: Store,
    kind: str,
    names: Sequence[str],
    footprint_of: Callable[[str], Footprint | None],
    remove: Callable[..., Removal],
    missing: tuple[str, str],
    with_labels: bool,
    assessor: str | None,
) -> list[Removal]:
    """The one rule of `queries remove` and `docs remove`: check every name (it exists; it holds
    no label unless `with_labels`), then remove them all, in one transaction."""
    who = assessor_or_current(assessor)
    with store.transaction():
        for name in names:
            footprint = footprint_of(name)
            if footprint is None:
                raise UsageError(missing[0].format(name), missing[1])
            if footprint.judged_pairs and not with_labels:
                raise _label_hint(kind, name, footprint.judged_pairs)
        return [remove(name, assessor=who) for name in dict.fromkeys(names)]


def queries_of_stratum(store: Store, stratum: str) -> list[str]:
    """The ids of the queries in a stratum (for `queries remove --stratum`); an unknown stratum
    is a usage error."""
    if store.removals.stratum_footprint(stratum) is None:
        raise UsageError(f"no stratum {stratum!r}", "see them with `qrelkit strata list`")
    return sorted(q for q, s in store.settings.query_strata().items() if s == stratum)


def queries(store: Store) -> list[Query]:
    """The golden set's queries, by id (`qrelkit queries list`)."""
    return sorted(store.reads.queries(), key=lambda q: q.id)


def remove_documents(
    store: Store, doc_ids: Sequence[str], *, with_labels: bool = False, assessor: str | None = None
) -> list[Removal]:
    """Remove documents (text, pooled pairs; labels only with `with_labels`) in one transaction,
    every one checked first."""
    missing = ("no document {!r} in the store", "ids as `qrelkit export qrels` prints them")
    return _remove_all(
        store,
        "document",
        doc_ids,
        store.removals.document_footprint,
        store.removals.remove_document,
        missing,
        with_labels,
        assessor,
    )


def remove_stratum(store: Store, name: str, *, assessor: str | None = None) -> Removal:
    """Remove a stratum and its weight, once no query is in it and no profile names it."""
    who = assessor_or_current(assessor)
    with store.transaction():
        footprint = store.removals.stratum_footprint(name)
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
        return store.removals.remove_stratum(name, assessor=who)


def remove_profile(store: Store, name: str, *, assessor: str | None = None) -> Removal:
    """Remove a scoring profile."""
    removal = store.removals.remove_profile(name, assessor=assessor_or_current(assessor))
    if removal is None:
        raise UsageError(f"no profile {name!r}", "see them with `qrelkit profiles list`")
    return removal


def removals(store: Store) -> list[dict[str, Any]]:
    """Every recorded removal, oldest first: id, ts, kind, name, assessor, body (JSON text)."""
    return store.removals.recorded()
