"""Flags: an assessor's word to a query's owner that it cannot be judged as it stands ("bad
query", "cannot judge"), with the reason and the document on screen. A flag is no event of the
judgment log: no vote, no label, no agreement figure changes. Flags on a query removed from the
golden set stay in the table and are no longer listed."""

from __future__ import annotations

from ..errors import NotInGoldenSet
from ..models import Flag
from .base import Part, now, stored_time


class Flags(Part):
    """Flags raised on queries (`qrelkit flags`; the judging screen's `!`)."""

    def raise_flag(self, flag: Flag) -> None:
        """Record the flag (committed on return); a query not in the golden set is refused."""
        with self.db.transaction():
            if self._scalar("SELECT 1 FROM queries WHERE id = ?", [flag.query_id]) is None:
                raise NotInGoldenSet(
                    f"query {flag.query_id!r} is not in the golden set (removed?): no flag recorded",
                    "see `qrelkit removals`",
                )
            stamp = flag.timestamp.isoformat() if flag.timestamp else now()
            self.conn.execute(
                "INSERT INTO flags(query_id, doc_id, assessor, ts, reason) VALUES (?, ?, ?, ?, ?)",
                [flag.query_id, flag.doc_id, flag.assessor, stamp, flag.reason],
            )

    def listed(self, query_id: str | None = None) -> list[Flag]:
        """The flags on the golden set's queries (or on one), oldest first."""
        sql = (
            "SELECT query_id, doc_id, assessor, ts, reason FROM flags WHERE query_id IN (SELECT id FROM queries)"
            + (" AND query_id = ?" if query_id is not None else "")
            + " ORDER BY id"
        )
        return [
            Flag.model_construct(query_id=q, doc_id=d, assessor=a, timestamp=stored_time(ts), reason=r)
            for q, d, a, ts, r in self.conn.execute(sql, [] if query_id is None else [query_id])
        ]

    def count(self) -> int:
        """How many flags `listed` gives."""
        return int(self._scalar("SELECT count(*) FROM flags WHERE query_id IN (SELECT id FROM queries)") or 0)
