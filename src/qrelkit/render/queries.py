"""The sentences every output shares about which queries count: those a run lacks (scored 0)
and the golden-set queries with no label (left out, or scored 0 when kept). Plain text: the
terminal shows it as data, HTML escapes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the models (pydantic) load where a comparison is made: a score's notes need none
    from ..models import Comparison, PlainQueryCounts, QueryCounts

SHOWN = 10
"""Query ids a sentence names before `(+N more)`."""


def listed(ids: Sequence[str], most: int = SHOWN) -> str:
    """`a, b, c` (at most `most` of them, then how many more)."""
    more = f" (+{len(ids) - most} more)" if len(ids) > most else ""
    return ", ".join(ids[:most]) + more


def unlabeled_note(q: QueryCounts | PlainQueryCounts) -> str:
    """What became of the golden-set queries with no label (when `q.unlabeled` > 0)."""
    which = "query has" if q.unlabeled == 1 else "queries have"
    if q.unlabeled_kept:
        return f"{q.unlabeled} golden-set {which} no labels: scored 0 (--keep-unlabeled-queries)."
    return f"{q.unlabeled} golden-set {which} no labels: left out (--keep-unlabeled-queries scores them 0)."


def unlabeled_notes(sides: Sequence[tuple[str, QueryCounts | None]]) -> list[str]:
    """`unlabeled_note` once when every side says the same, else one per side (`A: ...`)."""
    found = [(side, q) for side, q in sides if q is not None and q.unlabeled]
    if not found:
        return []
    same = len(found) == len(sides) and len({(q.unlabeled, q.unlabeled_kept) for _, q in found}) == 1
    if same:
        return [unlabeled_note(found[0][1])]
    return [f"{side}: {unlabeled_note(q)}" for side, q in found]


def paired_note(c: Comparison) -> str:
    """How many of the paired queries each side's run lacks (each scored 0 on that side)."""
    a, b = len(c.missing_a), len(c.missing_b)
    if not a and not b:
        return "none missing from either run"
    return f"A's run lacks {a}, B's run lacks {b}: scored 0"


def board_note(runs_lacking: int) -> str:
    """Whether any run of a leaderboard lacks compared queries (each named below the table)."""
    if not runs_lacking:
        return "no run lacks any"
    return f"{runs_lacking} {'run lacks' if runs_lacking == 1 else 'runs lack'} some, scored 0 there"


def missing_notes(c: Comparison) -> list[str]:
    """A sentence per side whose run lacks paired queries, naming them."""
    notes = []
    for side, name, missing in (("A", c.baseline.run.name, c.missing_a), ("B", c.candidate.run.name, c.missing_b)):
        if missing:
            which = "query" if len(missing) == 1 else "queries"
            notes.append(
                f"{side} {name} has no document for {len(missing)} paired {which}, scored 0 there "
                f"(its delta is the other side's whole value): {listed(missing)}"
            )
    return notes


def comparison_notes(c: Comparison) -> list[str]:
    """Every sentence about the comparison's queries: what each run lacks, and the queries with
    no label."""
    return missing_notes(c) + unlabeled_notes([("A", c.baseline_queries), ("B", c.candidate_queries)])
