"""Flags on queries: an assessor tells the query's owner it cannot be judged as it stands (the
judging screen's `!`, with a short reason); the owner lists them (`qrelkit flags`, and a line of
`qrelkit status`). A flag is not a vote: it changes no label, no vote and no agreement figure."""

from __future__ import annotations

from ..errors import UsageError
from ..models import FLAG_REASON_MAX, Flag, utcnow
from ..storage import Store
from .judging import JudgingSession


def check_reason(text: str) -> str:
    """A flag's reason: one line of 1 to `FLAG_REASON_MAX` characters, no control character
    (a `UsageError` saying so)."""
    reason = text.strip()
    try:
        Flag(query_id="q", assessor="a", reason=reason)
    except ValueError:
        raise UsageError(
            f"a reason is one line of 1 to {FLAG_REASON_MAX} characters, without control characters",
            "say in a few words why the query cannot be judged",
        ) from None
    return reason


def raise_flag(store: Store, query_id: str, doc_id: str | None, assessor: str, reason: str) -> Flag:
    """Record `assessor`'s flag on the query (committed on return); a query not in the golden
    set is refused (`NotInGoldenSet`), a busy store raises `StoreBusy` (nothing recorded)."""
    flag = Flag(query_id=query_id, doc_id=doc_id, assessor=assessor, reason=check_reason(reason), timestamp=utcnow())
    store.flags.raise_flag(flag)
    return flag


def flag_query(session: JudgingSession, query_id: str, doc_id: str | None, reason: str) -> Flag:
    """The judging screen's `!`: this session's assessor flags the query."""
    return raise_flag(session.store, query_id, doc_id, session.assessor, reason)


def flags(store: Store, query_id: str | None = None) -> list[Flag]:
    """The flags on the golden set's queries (or on one), oldest first."""
    if query_id is not None and store.reads.query(query_id) is None:
        raise UsageError(f"query {query_id!r} is not in the golden set", "see `qrelkit queries list`")
    return store.flags.listed(query_id)


def flag_count(store: Store) -> int:
    return store.flags.count()
