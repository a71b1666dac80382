"""The duplicates line under the label line: the document's duplicates in the query (the same
text, near duplicates: `workflows.duplicates`), each with the viewing assessor's own vote on it
and nothing of anyone else's ("same text as d17, which you graded 0"); `D` gives them the
assessor's grade on the document shown. Hidden when the document has no duplicate.

`DuplicateAid` keeps what the line reads: the query's duplicates, found once when the query is
opened, and the assessor's own votes on its documents, read then and kept up to date with the
assessor's own judgments, so that a keystroke reads nothing more for it. The duplicates are found
in a worker thread of the line's, on a connection of its own (`DuplicatesLine.load`: 0.5-0.7 s for
1,000 documents, which no key waits for); the line appears once they are, and `D` says until then
that they are still being looked for."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import islice
from typing import Any

from rich.text import Text
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from ...errors import QrelkitError
from ...models import GradeScale, JudgmentState
from ...render.styles import data
from ...resolution import Vote
from ...workflows.duplicates import Duplicate, Duplicates
from ...workflows.judging import JudgingSession

Found = tuple[str, Duplicates | None, str | None]
"""What the worker found for a query: its duplicates, or why they could not be looked for."""

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


def duplicates_text(
    found: Sequence[Duplicate], own: Mapping[str, Vote], scale: GradeScale, hint: bool, total: int | None = None
) -> Text:
    """`same text as d17, which you graded 0 (not relevant) · near-duplicate of d4 (94%), you have
    not judged it`, at most `SHOWN` of them (of `total`, default: all of `found`); `hint`: say
    what `D` does."""
    total = len(found) if total is None else total
    line = Text()
    if hint:  # first: the line is one line, cut at the screen's width
        line.append("D", "bold")
        line.append(" gives your grade to: ", "dim")
    for n, d in enumerate(found[:SHOWN]):
        line.append(" · " if n else "", "dim")
        line.append(kind_words(d))
        line.append_text(data(d.doc_id, "bold"))
        line.append("" if d.same else f" ({d.percent}%)")
        line.append(f", {own_words(own.get(d.doc_id), scale)}", "dim")
    if total > SHOWN:
        line.append(f" · {total - SHOWN} more", "dim")
    return line


class DuplicateAid:
    """The query's duplicates and the assessor's own votes there, for the duplicates line and `D`."""

    def __init__(self, session: JudgingSession) -> None:
        self.session = session
        self.query_id: str | None = None
        self.found = Duplicates()
        self.own: dict[str, Vote] = {}
        self.ready = False
        """The duplicates of `query_id` are found (until then: none, and `D` says so)."""
        self.failed: str | None = None
        """Why they could not be looked for (the store's error), if it failed."""

    def opened(self, query_id: str) -> bool:
        """A query opened: whether its duplicates are to be looked for (once per query); the
        assessor's votes there are read again."""
        new = query_id != self.query_id
        if new:
            self.query_id, self.found, self.ready, self.failed = query_id, Duplicates(), False, None
        self.reread()
        return new

    def arrived(self, query_id: str, found: Duplicates | None, failed: str | None = None) -> bool:
        """The worker found the query's duplicates (or failed: why); False when another query was
        opened meanwhile (nothing kept)."""
        if query_id != self.query_id:
            return False
        self.found, self.ready, self.failed = found or Duplicates(), True, failed
        self.reread()
        return True

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
        return [] if grade is None else [d for d in self.found.each(doc_id) if self.grade_on(d.doc_id) != grade]

    def any_to_apply(self, doc_id: str) -> bool:
        """Whether `to_apply` holds any (the first one found is enough)."""
        grade = self.grade_on(doc_id)
        return grade is not None and any(self.grade_on(d.doc_id) != grade for d in self.found.each(doc_id))

    def line(self, doc_id: str) -> Text | None:
        """The duplicates line for the document (None: it has no duplicate, or none is found yet)."""
        if self.failed is not None:
            return Text.assemble(("duplicates not looked for: ", "dim"), data(self.failed))
        found = list(islice(self.found.each(doc_id), SHOWN))  # the first few of maybe hundreds
        if not found:
            return None
        hint = self.any_to_apply(doc_id)
        return duplicates_text(found, self.own, self.session.scale, hint=hint, total=self.found.count(doc_id))


class DuplicatesLine(Static):
    """`DuplicateAid.line` for the document shown; hidden when it has no duplicate. `load` looks
    for a query's duplicates in a worker thread; `current` names the document shown then."""

    def __init__(self, aid: DuplicateAid, current: Callable[[], tuple[str, str | None]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.aid = aid
        self.current = current

    def load(self, query_id: str, doc_ids: Iterable[str]) -> None:
        """A query opened: its duplicates looked for off the UI thread (once per query)."""
        if self.aid.opened(query_id):
            self.run_worker(partial(self._find, query_id, list(doc_ids)), thread=True, exclusive=True,
                            group="duplicates")  # fmt: skip

    def _find(self, query_id: str, doc_ids: list[str]) -> Found:
        """In the worker thread: the duplicates, or why the store could not give the texts."""
        try:
            return query_id, self.aid.session.duplicates_apart(doc_ids), None
        except QrelkitError as error:
            return query_id, None, error.message

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker: Worker[Found] = event.worker
        if event.state is not WorkerState.SUCCESS or worker.result is None or not self.aid.arrived(*worker.result):
            return
        query_id, doc_id = self.current()
        if doc_id is not None and query_id == self.aid.query_id:
            self.show(self.aid.line(doc_id))

    def show(self, line: Text | None) -> None:
        self.display = line is not None
        if line is not None:
            self.update(line, layout=False)  # one line: showing or hiding it lays out, not its text
