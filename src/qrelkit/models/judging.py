"""What the judging screens show: a document's state in its query's queue, a query's progress,
the pooled runs' ranks of a document, an assessor's flag on a query, a session's decisions."""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, Field, StringConstraints

from .domain import (
    Identifier,
    JudgmentState,
    LabelState,
    _Model,
)

Role = Literal["assessor", "adjudicator"]
"""What a judging session may do: an assessor judges; an adjudicator also settles and clears pairs
(the adjudication screen). A `qrelkit serve` token carries one; a local `qrelkit judge` is an
adjudicator (whoever runs it holds the store file)."""
ROLES: tuple[Role, ...] = get_args(Role)


class NoteVersion(_Model):
    """An earlier version of a note (edited since)."""

    text: str
    timestamp: datetime | None = None


FLAG_REASON_MAX = 300
"""The longest reason a flag takes (a short line: the note box holds longer texts)."""


def _reason(v: str) -> str:
    if not v.strip() or any(unicodedata.category(c) == "Cc" for c in v):
        raise ValueError("a reason is a non-empty line without control characters")
    return v


class PairNote(_Model):
    """An assessor's note on a pair (a note event, or the note carried by a vote): its text now,
    when it was last written, and its earlier versions, oldest first (`workflows.pairs`)."""

    assessor: str
    text: str
    timestamp: datetime | None = None
    earlier: list[NoteVersion] = Field(default_factory=list)


class DocState(_Model):
    """A document in a query's judging queue, with its current state."""

    doc_id: str
    state: LabelState
    grade: int | None = None
    assessor: str | None = None
    timestamp: datetime | None = None
    note: str | None = None
    """The latest note on the pair (every note, with its author: `notes`)."""
    notes: list[PairNote] = Field(default_factory=list)
    votes: dict[str, int] = Field(default_factory=dict)
    """Assessor -> grade when several assessors graded the pair."""
    evidence: dict[str, str] = Field(default_factory=dict)
    """Assessor -> the passage they marked as the evidence for their current vote (a blind pair:
    this assessor's own alone)."""
    adjudicated: bool = False
    blind: bool = False
    """Others' grades are hidden until this assessor has judged (overlap assignments)."""
    shared: bool = False
    """Assigned to several assessors (`qrelkit assign --overlap`)."""
    waiting: bool = False
    """This assessor's latest judgment of the pair is held in memory until the busy store takes it."""
    held_by: str | None = None
    """Another assessor has the document open now (a lease that expires when they go idle)."""


class QueryProgress(_Model):
    """Judging progress of one query."""

    query_id: str
    stratum: str
    text: str
    labeled: int
    skipped: int
    unlabeled: int
    """Pooled documents with no label (skipped ones not included)."""

    @property
    def total(self) -> int:
        return self.labeled + self.skipped + self.unlabeled


def default_assessor(environ: dict[str, str], login: str | None) -> str:
    """`$QRELKIT_ASSESSOR`, else the login name, else "unknown"."""
    return environ.get("QRELKIT_ASSESSOR") or login or "unknown"


class RunRank(_Model):
    """Where one pooled run ranked a document for a query (the judging screen's context line)."""

    run: str
    rank: int
    score: float | None = None
    """The run's score for it (None: pooled before scores were kept, or a run of ranks only)."""


class Flag(_Model):
    """An assessor's flag on a query for its owner ("cannot judge", "bad query"): no vote, no label."""

    query_id: Identifier
    doc_id: Identifier | None = None
    """The document on screen when it was raised."""
    assessor: str
    reason: Annotated[str, StringConstraints(max_length=FLAG_REASON_MAX), AfterValidator(_reason)]
    timestamp: datetime | None = None


class Decision(_Model):
    """One judgment keyed in this session (`l`: the last five, to go back to one)."""

    query_id: str
    doc_id: str
    state: JudgmentState
    grade: int | None = None
    at: datetime
