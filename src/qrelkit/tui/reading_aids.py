"""The judging screen's reading aids, kept for the whole session (every query's judging screen):
the query terms' highlighting (`h` turns it off and on again) and the evidence passages (`m`).

A passage marked before the assessor has voted on the document is held here (`pending`) and
written with their vote, in the vote's own event (`JudgingScreen.judge` takes it); marked on a
document they have a vote on, it is written at once (`workflows.evidence.mark`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import App

from ..errors import NotInGoldenSet
from ..models import DocState, JudgmentState
from ..render.styles import data
from ..workflows import evidence
from ..workflows.evidence import EvidenceChange
from ..workflows.judging import JudgingSession
from .modals.evidence import EvidenceScreen


@dataclass
class ReadingAids:
    highlight: bool = True
    """The query's terms are highlighted in the document (`h`)."""
    pending: dict[tuple[str, str], str] = field(default_factory=dict)
    """(query, document) -> the evidence marked there before this assessor voted: saved with the vote."""

    def take(self, pair: tuple[str, str], state: JudgmentState) -> str | None:
        """The evidence to write with a vote on `pair` (a grade or a skip), no longer held."""
        return self.pending.pop(pair, None) if state in (JudgmentState.GRADED, JudgmentState.SKIPPED) else None


def aids(app: App[Any]) -> ReadingAids:
    """The app's reading aids: one for the session, whichever screen asks."""
    found = getattr(app, "reading_aids", None)
    if not isinstance(found, ReadingAids):
        found = ReadingAids()
        app.reading_aids = found  # type: ignore[attr-defined]
    return found


Said = Callable[[Text, DocState | None], None]
"""What the screen does once a passage is marked: say what happened, and show the pair's state
after it (None: nothing written)."""


def mark_evidence(
    app: App[Any], session: JudgingSession, pair: tuple[str, str], said: Said, refused: Callable[[NotInGoldenSet], None]
) -> None:
    """`m`: the modal on the document of `pair`, prefilled with the evidence marked there (held or
    stored); what it returns is marked (`workflows.evidence.mark`)."""
    query_id, doc_id = pair
    held = aids(app).pending.get(pair)
    current = held if held is not None else evidence.current(session, query_id, doc_id)

    def done(text: str | None) -> None:
        if text is None:
            return
        try:
            change, state, keep = evidence.mark(session, query_id, doc_id, text, pending=held)
        except NotInGoldenSet as error:
            refused(error)
            return
        aids(app).pending.pop(pair, None)
        if keep is not None:
            aids(app).pending[pair] = keep
        words = change.value + (" " if change is EvidenceChange.PENDING else " for ")
        said(Text.assemble(words, data(doc_id, "bold")), state)

    app.push_screen(EvidenceScreen(doc_id, session.document(doc_id), current), done)
