"""`D` on the judging screen: give the document's duplicates (`widgets.duplicates_line`) the
assessor's own grade on it, after a confirmation naming how many documents and which. One vote of
the assessor's per document, each its own event (`JudgingSession.apply_grade`); nobody else's vote
changes, and a duplicate open on another assessor's screen is left alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from ..errors import NotInGoldenSet
from ..models import JudgmentState
from ..render.styles import data
from ..workflows.duplicates import Applied, Duplicate
from .modals.confirm import ConfirmScreen
from .palette import css
from .widgets.duplicates_line import DuplicateAid, kind_words, own_words

if TYPE_CHECKING:
    from .screens.judging import JudgingScreen


def ids(doc_ids: Sequence[str]) -> Text:
    """`d7, d9` (data)."""
    return Text(", ").join(data(d, "bold") for d in doc_ids)


def confirmation(aid: DuplicateAid, doc_id: str, grade: int, targets: Sequence[Duplicate]) -> Text:
    """`Give 2 documents your grade 2 (relevant) on d6?`, then each with what it is and your vote."""
    scale = aid.session.scale
    n = len(targets)
    message = Text.assemble(
        f"Give {n} document{'s' if n != 1 else ''} your grade ",
        (f"{grade} ({scale.name_of(grade)})", "bold"), " on ", data(doc_id, "bold"), "?\n",
    )  # fmt: skip
    for d in targets:
        similar = "" if d.same else f" ({d.percent}%)"
        message.append_text(Text.assemble("\n  ", data(d.doc_id, "bold"), "  ", kind_words(d), data(doc_id), similar))
        message.append(f", {own_words(aid.own.get(d.doc_id), scale)}", "dim")
    message.append("\n\nOne vote of yours on each; nobody else's vote changes.", "dim")
    return message


def duplicates_key(screen: JudgingScreen) -> None:
    """`D`: ask, then apply (see the module); says why when there is nothing to apply."""
    aid = screen.dupes
    if not screen.docs:
        return
    doc_id = screen.docs[screen.position].doc_id
    if not aid.ready or aid.failed is not None:
        why = "still looking for duplicates in this query" if not aid.ready else f"no duplicates: {aid.failed}"
        screen.say(Text.assemble(data(why), " (the line under the label shows them once found)", style="dim"))
        return
    grade = aid.grade_on(doc_id)
    found = aid.found.of(doc_id)
    if not found:
        screen.say(Text.assemble(data(doc_id, "bold"), " has no duplicate in this query", style="dim"))
        return
    if grade is None:
        screen.say(Text.assemble("grade ", data(doc_id, "bold"), " first: D gives its duplicates your grade on it"))
        return
    targets = aid.to_apply(doc_id)
    if not targets:
        screen.say(Text.assemble("every duplicate of ", data(doc_id, "bold"), f" already has your grade {grade}"))
        return

    def answer(yes: bool | None) -> None:
        if yes:
            apply(screen, doc_id, grade, [d.doc_id for d in targets])
        else:
            said = Text.assemble("D cancelled: nothing given to ", data(doc_id, "bold"), "'s duplicates", style="dim")
            screen.say(said)

    screen.app.push_screen(ConfirmScreen(confirmation(aid, doc_id, grade, targets)), answer)


def apply(screen: JudgingScreen, doc_id: str, grade: int, targets: list[str]) -> None:
    """Record the votes, show what the store holds now, and say what was done."""
    try:
        applied = screen.session.apply_grade(screen.query_id, targets, grade)
    except NotInGoldenSet as error:
        screen.refused(error)
        return
    at = {d.doc_id: i for i, d in enumerate(screen.docs)}
    for state in applied.written:
        screen.dupes.voted(state.doc_id, JudgmentState.GRADED, grade)
        if state.doc_id in at:
            screen.docs[at[state.doc_id]] = state
    screen.touched = True
    screen.refresh_view()
    screen.say(applied_line(applied, doc_id, grade))


def applied_line(applied: Applied, doc_id: str, grade: int) -> Text:
    """`gave 2 duplicates of d6 your grade 2: d7, d8; left alone: d9 (open on bob's screen)`."""
    written = [d.doc_id for d in applied.written]
    n = len(written)
    line = Text.assemble(f"gave {n} duplicate{'s' if n != 1 else ''} of ", data(doc_id, "bold"), f" your grade {grade}")
    if written:
        line.append_text(Text.assemble(": ", ids(written)))
    if any(d.waiting for d in applied.written):
        line.append(" (store busy: held in memory, saved in order once it is free)", css("yellow"))
    for d, who in applied.open_elsewhere:
        line.append_text(Text.assemble("; left alone: ", data(d, "bold"), " (open on ", data(who), "'s screen)"))
    if applied.already:
        line.append_text(Text.assemble("; already yours: ", ids(applied.already)))
    if applied.removed:
        line.append_text(Text.assemble("; removed from the golden set: ", ids(applied.removed)))
    return line
