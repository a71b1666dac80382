"""Evidence passages: the passage of a document an assessor marks as the evidence for their grade
(`m` on the judging screen), stored with the vote (the `evidence` of a graded or skipped event).

Marking a passage on a pair the assessor has a vote on records that vote again with the passage
(a new event: the vote before it is its history, `z` undoes it); marking one before voting keeps
it for the vote to come (the judging screen holds it: `pending`), so that it is written with the
grade, in the grade's own event. An empty passage withdraws it (the vote again, without one)."""

from __future__ import annotations

from enum import Enum

from ..models import DocState, JudgmentState
from .judging import JudgingSession


class EvidenceChange(Enum):
    """What marking a passage as one's evidence on a pair did."""

    SAVED = "evidence saved"
    WITHDRAWN = "evidence withdrawn"
    UNCHANGED = "evidence unchanged"
    PENDING = "evidence kept: it is saved with your grade on"
    NONE = "no evidence to withdraw"


def passage(text: str) -> str | None:
    """The passage as stored: without the blanks around it; None for an empty one."""
    return text.strip() or None


def mark(
    session: JudgingSession, query_id: str, doc_id: str, text: str, *, pending: str | None = None
) -> tuple[EvidenceChange, DocState | None, str | None]:
    """Mark `text` as this assessor's evidence on the pair (`pending`: the passage kept for a vote
    not cast yet). With a vote of theirs on the pair, the vote is recorded again carrying it
    (nothing is written when it carries that passage already); without one, nothing is written
    and the passage is to be kept for the vote. What it did, the pair's state after a write (None:
    nothing written), and the passage to keep for the vote to come (None: none)."""
    given = passage(text)
    own = session.own_vote(query_id, doc_id)
    if own is None:
        if given is None:
            return (EvidenceChange.WITHDRAWN if pending else EvidenceChange.NONE), None, None
        return EvidenceChange.PENDING, None, given
    if given == own.evidence:
        return EvidenceChange.UNCHANGED, None, None
    state = JudgmentState(own.state)
    judged = session.judge_next(query_id, doc_id, state, own.grade, evidence=given)
    return (EvidenceChange.SAVED if given else EvidenceChange.WITHDRAWN), judged.state, None


def current(session: JudgingSession, query_id: str, doc_id: str) -> str | None:
    """The evidence passage of this assessor's own vote on the pair (None: none, or no vote)."""
    own = session.own_vote(query_id, doc_id)
    return own.evidence if own is not None else None
