"""How a pair's judgment events resolve to its current label: the rule, in pure Python.

Each assessor's latest event is their vote (graded or skipped); a retracted event withdraws that
assessor's own vote, and a noted event (a note) is no vote at all. A cleared event (an
adjudication action) resets the pair for everyone: the votes and adjudications before it no longer
count. An adjudicated event (`state: adjudicated`) overrides every vote. Otherwise:

* at least one graded vote, all equal: that grade (a single assessor's latest grade included);
* graded votes that disagree: the golden set's policy, `median` (the lower median of the grades,
  so ties go to the less relevant grade) or `latest` (the most recent graded vote, by the times
  the events carry: an imported vote may be older than votes recorded before it; votes of the
  same instant, in whatever zone it is written, go by log order, the later one winning);
* no graded vote but a skip: skipped (unsure); nothing left: unlabeled.

Which event is an assessor's latest, and what a clear resets, go by log order: `latest` alone
reads the times (`recency`).

The store computes the same rule in SQL for every pair at once (`storage/resolved.py`;
`tests/test_resolution.py` holds the two equal) and uses `votes_of` for a pair's votes. Frozen
versions resolve their event log here (`resolve_events`); the judging screen's pair state
(`workflows.pairs`) calls `resolve` on one pair's votes, and agreement, the disagreements to
adjudicate and the screen's list of votes read `graded_votes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple, get_args

from .models import Judgment, JudgmentState, LabelPolicy, LabelState

POLICIES: tuple[LabelPolicy, ...] = get_args(LabelPolicy)
DEFAULT_POLICY: LabelPolicy = "median"


@dataclass(frozen=True)
class Vote:
    assessor: str
    state: str
    grade: int | None
    seq: int
    note: str | None = None
    at: datetime | None = None
    """When: its event's timestamp (None: unknown)."""
    evidence: str | None = None
    """The passage its assessor marked as the evidence for it (None: none)."""


_NEVER = datetime.min.replace(tzinfo=UTC)


def recency(vote: Vote) -> tuple[bool, datetime, int]:
    """How recent a vote is, for `latest`: by its time (a time without a zone is UTC, as the
    store's are; an unknown time comes before every known one), then by its place in the log."""
    if vote.at is None:
        return False, _NEVER, vote.seq
    return True, vote.at if vote.at.tzinfo is not None else vote.at.replace(tzinfo=UTC), vote.seq


def resolve(
    votes: Sequence[Vote], adjudicated: int | None, policy: LabelPolicy = DEFAULT_POLICY
) -> tuple[LabelState, int | None]:
    """(state, grade) of a pair from each assessor's latest vote and the latest adjudicated grade."""
    if adjudicated is not None:
        return LabelState.GRADED, adjudicated
    graded = [v for v in votes if v.state == JudgmentState.GRADED and v.grade is not None]
    if graded:
        grades = sorted(v.grade for v in graded if v.grade is not None)
        if grades[0] == grades[-1]:
            return LabelState.GRADED, grades[0]
        if policy == "latest":
            return LabelState.GRADED, max(graded, key=recency).grade
        return LabelState.GRADED, grades[(len(grades) - 1) // 2]
    if any(v.state == JudgmentState.SKIPPED for v in votes):
        return LabelState.SKIPPED, None
    return LabelState.UNLABELED, None


class PairVotes(NamedTuple):
    """A pair's votes: each assessor's latest, and the latest adjudicated grade (None: none)."""

    votes: list[Vote]
    adjudicated: int | None


def votes_of(events: Iterable[tuple[int, Judgment]]) -> dict[tuple[str, str], PairVotes]:
    """Pair -> (each assessor's latest vote, latest adjudicated grade) from (seq, event) in log order."""
    latest: dict[tuple[str, str], dict[str, Vote]] = {}
    adjudicated: dict[tuple[str, str], int | None] = {}
    for seq, e in events:
        pair = (e.query_id, e.doc_id)
        if e.state == JudgmentState.CLEARED:
            latest[pair] = {}
            adjudicated[pair] = None
            continue
        if e.state == JudgmentState.ADJUDICATED:
            adjudicated[pair] = e.grade
            latest.setdefault(pair, {})
            continue
        if e.state == JudgmentState.NOTED:  # a known pair, but no vote
            latest.setdefault(pair, {})
            continue
        if e.state == JudgmentState.RETRACTED:
            latest.setdefault(pair, {}).pop(e.assessor, None)
            continue
        latest.setdefault(pair, {})[e.assessor] = Vote(
            e.assessor, e.state.value, e.grade, seq, e.note, e.timestamp, e.evidence
        )
    return {pair: PairVotes(list(by.values()), adjudicated.get(pair)) for pair, by in latest.items()}


def resolve_events(
    events: Iterable[Judgment], policy: LabelPolicy = DEFAULT_POLICY
) -> dict[tuple[str, str], tuple[LabelState, int | None]]:
    """Every pair's resolved (state, grade) from a log in order."""
    return {pair: resolve(v, adj, policy) for pair, (v, adj) in votes_of(enumerate(events, 1)).items()}


def graded_votes(votes: Iterable[Vote]) -> dict[str, int]:
    """Assessor -> grade of the graded votes (skips and clears left out)."""
    return {v.assessor: v.grade for v in votes if v.state == "graded" and v.grade is not None}


LabelRow = tuple[str, str, int]


def fill_holes(
    human: Iterable[LabelRow], skipped: Iterable[tuple[str, str]], machine: Iterable[LabelRow]
) -> list[LabelRow]:
    """The `human+machine` labels, sorted by (query, doc): every human label as it resolved, and a
    machine grade (of a reply that parsed) on each pair no human labeled. A pair humans skipped
    stays skipped: a machine grade never fills a skip. Grade 0 is a label like any other (a human
    0 is never replaced). The one rule of `--labels human+machine`, for scores, exports, freezes
    and the check of a frozen version (`holds_human_labels`)."""
    merged = {(q, d): g for q, d, g in human}
    held = merged.keys() | set(skipped)
    for q, d, g in machine:
        if (q, d) not in held:
            merged[(q, d)] = g
    return sorted((q, d, g) for (q, d), g in merged.items())


def holds_human_labels(
    labels: Iterable[LabelRow], human: Iterable[LabelRow], skipped: Iterable[tuple[str, str]]
) -> bool:
    """Whether `labels` could be `fill_holes` of these human labels and skips: each human label
    with its grade, no skipped pair labeled (the machine's grades fill the rest)."""
    have = {(q, d): g for q, d, g in labels}
    return all(have.get((q, d)) == g for q, d, g in human) and not any(pair in have for pair in skipped)
