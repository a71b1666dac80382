"""The resolved state of every pair, in SQL: the twin of `qrelkit.resolution`, for speed.

`qrelkit.resolution` is the rule; this module computes the same rule inside SQLite so that a store
of a million events resolves in one scan of a covering index. `tests/test_resolution.py` holds the
two equal on generated logs (times out of log order and tied across zones included), for both
label policies. One-query variants take the named parameter `:qid`.
"""

from __future__ import annotations

from ..models import LabelPolicy

CURRENT = """(
    SELECT v.query_id, v.doc_id,
           CASE WHEN a.grade IS NOT NULL OR v.n_graded > 0 THEN 'graded'
                WHEN v.n_skipped > 0 THEN 'skipped' ELSE 'cleared' END AS state,
           CASE WHEN a.grade IS NOT NULL THEN a.grade WHEN v.lo = v.hi THEN v.lo ELSE {policy} END AS grade,
           (a.grade IS NULL AND v.lo != v.hi) AS disputed,
           max(v.seq, coalesce(a.seq, 0)) AS seq
    FROM (
        SELECT l.query_id, l.doc_id,
               sum(l.state = 'graded' AND l.seq > coalesce(c.seq, 0)) AS n_graded,
               sum(l.state = 'skipped' AND l.seq > coalesce(c.seq, 0)) AS n_skipped,
               min(CASE WHEN l.state = 'graded' AND l.seq > coalesce(c.seq, 0) THEN l.grade END) AS lo,
               max(CASE WHEN l.state = 'graded' AND l.seq > coalesce(c.seq, 0) THEN l.grade END) AS hi,
               {counts}
               max(l.seq) AS seq, max(c.seq) AS cleared
        FROM (SELECT query_id, doc_id, assessor, state, grade, max(seq) AS seq FROM judgments
              WHERE state != 'noted' {where} GROUP BY query_id, doc_id, assessor) l
        LEFT JOIN (SELECT query_id, doc_id, max(seq) AS seq FROM judgments INDEXED BY judgments_cleared
                   WHERE state = 'cleared' {where} GROUP BY query_id, doc_id) c
          ON c.query_id = l.query_id AND c.doc_id = l.doc_id
        GROUP BY l.query_id, l.doc_id
    ) v
    LEFT JOIN (SELECT query_id, doc_id, grade, max(seq) AS seq FROM judgments INDEXED BY judgments_adjudicated
               WHERE state = 'adjudicated' {where} GROUP BY query_id, doc_id) a
      ON a.query_id = v.query_id AND a.doc_id = v.doc_id AND a.seq > coalesce(v.cleared, 0)
)"""
"""Every pair's resolved state (`resolution`, here in SQL): each assessor's latest event (notes
left out) after the pair's latest clear is a vote (a retraction is a vote for nothing; an
adjudicator's own adjudication replaces their vote here, which changes nothing: it overrides
every vote), an adjudication (after that clear) overrides them; disagreeing grades resolve by
the policy (`latest`: the grade of the most recent graded vote by the events' times, ties by log
order, `LATEST_GRADED`; `median`: the lower median, from per-grade vote counts). One scan of the
covering index `judgments_votes`, plus the small partial indexes of clears and adjudications
(and, under `latest`, the rows of the votes of each disputed pair)."""

ONE_QUERY = "AND query_id = :qid"


def utc_key(ts: str) -> str:
    """SQL of a sortable text for the time stored in column `ts` (ISO 8601 as `datetime.isoformat`
    writes it, with or without a zone): `YYYY-MM-DDTHH:MM:SS.ffffff` in UTC, always that long, so
    that text order is time order (`resolution.recency`); NULL for a time SQLite cannot read
    (before every known time). A time in UTC (`+00:00`: every time the store itself writes) is
    cut as it is; another zone is applied to the minutes alone (zones are whole minutes), and the
    seconds are copied as written: SQLite's own times are milliseconds, which would round
    07:59:59.9999 up to the next minute."""
    fraction = f"substr({ts}, 20, 1) = '.'"
    zone = f"substr({ts}, CASE WHEN {fraction} THEN 27 ELSE 20 END)"
    shifted = f"strftime('%Y-%m-%dT%H:%M', substr({ts}, 1, 16) || {zone})"
    minutes = f"CASE WHEN substr({ts}, -6) = '+00:00' THEN substr({ts}, 1, 16) ELSE {shifted} END"
    seconds = f"substr({ts}, 17, 3) || CASE WHEN {fraction} THEN substr({ts}, 20, 7) ELSE '.000000' END"
    return f"(({minutes}) || {seconds})"


VOTES = "group_concat(CASE WHEN {valid} THEN l.seq END) AS votes, "
"""`CURRENT`'s `v.votes` for `latest`: the sequence numbers of a pair's graded votes (each
assessor's latest event, after the pair's last clear), as `12,15,19`."""
LATEST_GRADED = (
    "(SELECT j.grade FROM judgments j WHERE j.seq IN (SELECT value FROM json_each('[' || v.votes || ']')) "
    "ORDER BY {key} DESC, j.seq DESC LIMIT 1)"
)
"""The grade `latest` picks for a disputed pair of `CURRENT`'s `v`: of its graded votes
(`VOTES`), the one with the latest time (`utc_key`), then the latest in the log. Run only for a
pair whose votes disagree and that no one adjudicated (the CASE of `CURRENT`): a few rows by
their sequence numbers, a disputed pair."""


def current_sql(policy: LabelPolicy, max_grade: int, *, one_query: bool = False, grades: bool = True) -> str:
    """The resolved state of every pair, or (with `one_query`, parameter `:qid`) of one query's.
    Without `grades`, the grade column is left NULL for disputed pairs (cheaper: for counts)."""
    where = ONE_QUERY if one_query else ""
    if not grades:
        return CURRENT.format(where=where, counts="", policy="NULL")
    valid = "l.state = 'graded' AND l.seq > coalesce(c.seq, 0)"
    if policy == "latest":
        latest = LATEST_GRADED.format(key=utc_key("j.ts"))
        return CURRENT.format(where=where, counts=VOTES.format(valid=valid), policy=latest)
    counts = "".join(f"sum({valid} AND l.grade = {g}) AS c{g}, " for g in range(max_grade + 1))
    half = "(v.n_graded + 1) / 2"
    steps = " ".join(
        f"WHEN {' + '.join(f'v.c{k}' for k in range(g + 1))} >= {half} THEN {g}" for g in range(max_grade + 1)
    )
    return CURRENT.format(where=where, counts=counts, policy=f"CASE {steps} END")
