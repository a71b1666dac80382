"""The duplicates line under the label line: the document's duplicates in the query (the same
text, near duplicates: `workflows.duplicates`), each with the viewing assessor's own vote on it
and nothing of anyone else's ("same text as d17, which you graded 0"); `D` gives them the
assessor's grade on the document shown. Hidden when the document has no duplicate.

`DuplicateAid` keeps what the line reads: the query's duplicates, found once when the query is
opened, and the assessor's own votes on its documents, read then and kept up to date with the
assessor's own judgments, so that a keystroke reads nothing more for it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.text import Text
from textual.widgets import Static

from ...models import GradeScale, JudgmentState
from ...render.styles import data
from ...resolution import Vote
from ...workflows.duplicates import Duplicate, Duplicates
from ...workflows.judging import JudgingSession

SHOWN = 3
"""At most this many duplicates named on the line (the rest counted)."""


def own_words(vote: Vote | None, scale: GradeScale) -> str:
    """What the assessor's own vote on a duplicate is, in words."""
    if vote is None:
        return "you have not judged it"
    if vote.state == JudgmentState.GRADED and vote.grade is not None:
        return f"which you graded {vote.grade} ({scale.name_of(vote.grade)})"
    return "which you skipped"


def kind_words(d: Duplicate) -> str:
    return "same text as " if d.same else "near-duplicate of "


def duplicates_text(found: Sequence[Duplicate], own: Mapping[str, Vote], scale: GradeScale, hint: bool) -> Text:
    """`same text as d17, which you graded 0 (not relevant) · near-duplicate of d4 (94%), you have
    not judged it`, at most `SHOWN` of them; `hint`: say what `D` does."""
    line = Text()
    for n, d in enumerate(found[:SHOWN]):
        line.append(" · " if n else "", "dim")
        line.append(kind_words(d))
        line.append_text(data(d.doc_id, "bold"))
        line.append("" if d.same else f" ({d.percent}%)")
        line.append(f", {own_words(own.get(d.doc_id), scale)}", "dim")
    if len(found) > SHOWN:
        line.append(f" · {len(found) - SHOWN} more", "dim")
    if hint:
        line.append("  D", "bold")
        line.append(" gives them your grade", "dim")
    return line


class DuplicateAid:
    """The query's duplicates and the assessor's own votes there, for the duplicates line and `D`."""

    def __init__(self, session: JudgingSession) -> None:
        self.session = session
        self.query_id: str | None = None
        self.found = Duplicates()
        self.own: dict[str, Vote] = {}

    def load(self, query_id: str, doc_ids: Iterable[str]) -> None:
        """A query opened: its duplicates (once per query) and the assessor's votes there."""
        if query_id != self.query_id:
            self.query_id = query_id
            self.found = self.session.duplicates(doc_ids)
        self.reread()

    def reread(self) -> None:
        """The assessor's own votes, as the store holds them (after an undo, a clear elsewhere)."""
        self.own = self.session.own_votes(self.query_id) if self.query_id is not None and self.found.group else {}

    def voted(self, doc_id: str, state: JudgmentState, grade: int | None) -> None:
        """The assessor just recorded this vote (retracted: none)."""
        if state is JudgmentState.RETRACTED:
            self.own.pop(doc_id, None)
        elif state in (JudgmentState.GRADED, JudgmentState.SKIPPED):
            self.own[doc_id] = Vote(self.session.assessor, state.value, grade, 0)

    def grade_on(self, doc_id: str) -> int | None:
        """The assessor's own grade on the document (None: none, or a skip)."""
        vote = self.own.get(doc_id)
        return vote.grade if vote is not None and vote.state == JudgmentState.GRADED else None

    def to_apply(self, doc_id: str) -> list[Duplicate]:
        """The document's duplicates that do not hold the assessor's grade on it yet."""
        grade = self.grade_on(doc_id)
        return [d for d in self.found.of(doc_id) if grade is not None and self.grade_on(d.doc_id) != grade]

    def line(self, doc_id: str) -> Text | None:
        """The duplicates line for the document (None: it has no duplicate)."""
        found = self.found.of(doc_id)
        if not found:
            return None
        return duplicates_text(found, self.own, self.session.scale, hint=bool(self.to_apply(doc_id)))


class DuplicatesLine(Static):
    """`DuplicateAid.line` for the document shown; hidden when it has no duplicate."""

    def show(self, line: Text | None) -> None:
        self.display = line is not None
        if line is not None:
            self.update(line)
