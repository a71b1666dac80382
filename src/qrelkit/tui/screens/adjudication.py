"""Adjudication (`qrelkit judge --adjudicate`, or `A` on the query list; adjudicators only): the
pairs whose assessors disagree, most urgent first (`Disagreement.priority`: grade distance x queue
impact); the query's guidelines, every assessor's grade side by side (and the adjudicator's own
vote, if any), then the notes on the pair, a conversation: each with its author and time, in
order (`N` reads them all); a grade key records the adjudicated label (an `adjudicated` event that
names the votes it settles). What machine assessors (`qrelkit assess`) said of the pair shows on a
line of its own, each marked as a machine's (`lexical (machine): 2`): never a vote, never counted
in the votes, the distance or the priority; read once, when the screen opens.

A settled pair stays on screen, marked settled, and further grade keys are refused there: only
`n` (or `s`, `p`) moves on. So a key pressed twice, or a fast second key, can never settle a pair
the adjudicator has not seen.

The pair on screen is re-read from the store every `POLL_SECONDS` and before a grade is recorded:
another assessor's new vote or note shows at once, a pair someone else settled meanwhile leaves
the list (the screen says so), and a grade key pressed on votes that changed since they were drawn
records nothing: the screen shows the votes as they are, to be looked at again."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from rich.text import Text
from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from ...errors import NotInGoldenSet
from ...models import Disagreement, GradeScale, PairNote
from ...render.styles import data, visible
from ...workflows.disagreement_order import MachineSay, machine_says
from ...workflows.judging import JudgingSession
from ..grade_entry import GradeKeys
from ..modals.confirm import ConfirmScreen
from ..modals.help import HelpScreen
from ..modals.reading import grades, guidelines, notes
from ..palette import css
from ..widgets.document import DocumentView
from ..widgets.evidence_line import passages
from ..widgets.note_panel import NotePanel
from ..widgets.query_header import QueryHeader, query_header
from ..widgets.scale_bar import ScaleBar
from ..widgets.title_header import TitleHeader, quiet_sub_title
from .judging import POLL_SECONDS

NOT_ADJUDICATOR = "Adjudication is an adjudicator's: this session judges as an assessor."

KEYS = [
    ("n/p", "move"),
    ("s", "skip"),
    ("e", "note"),
    ("N", "notes"),
    ("X", "clear"),
    ("g", "guidelines"),
    ("?", "keys"),
    ("esc", "back"),
]


SHOWN_NOTES = 3
"""The latest notes shown under the votes (`N` reads every one)."""


def votes_text(
    item: Disagreement,
    scale: GradeScale,
    *,
    me: str,
    settled: int | None = None,
    width: int | None = None,
    machine: Sequence[MachineSay] = (),
) -> Text:
    """Every assessor's grade side by side, the adjudicator's own vote, what the machines said
    (`machine_text`), the distance and the priority, then the notes on the pair (`conversation`);
    a settled pair says so, and that `n` goes on."""
    text = Text()
    for n, (who, grade) in enumerate(sorted(item.votes.items())):
        text.append("  ·  " if n else "")
        text.append_text(data(who, "bold"))
        text.append(": ")
        text.append_text(data(f"{grade} ({scale.name_of(grade)})"))
    if me in item.votes:
        text.append_text(Text.assemble("\n", (f"you voted {item.votes[me]}", css("bold yellow")), " on this pair"))
    if machine:
        text.append_text(Text.assemble("\n", machine_text(machine, scale)))
    text.append(f"\ndistance {item.distance} · priority {item.priority:.4g}", style="dim")
    for who, passage in sorted(item.evidence.items()):  # what each assessor marked as the evidence
        text.append_text(Text.assemble("\n", passages({who: passage}, width)))
    if item.notes:
        text.append_text(Text.assemble("\n", conversation(item.notes, width)))
    if settled is not None:
        text.append_text(
            Text.assemble(
                "\n",
                data(f"settled: {settled} ({scale.name_of(settled)})", css("bold green")),
                ("  n: next disagreement (grade keys do nothing here now)", "dim"),
            )
        )
    return text


def machine_text(machine: Sequence[MachineSay], scale: GradeScale) -> Text:
    """`machines, not votes: lexical (machine): 2 (relevant) · llm:m (machine): unparsed`."""
    text = Text("machines, not votes: ", "dim")
    for n, say in enumerate(machine):
        text.append("  ·  " if n else "")
        text.append_text(data(say.assessor, "italic"))
        text.append(" (machine): ", "dim")
        shown = say.status if say.grade is None else f"{say.grade} ({scale.name_of(say.grade)})"
        text.append_text(data(shown, "italic"))
    return text


def conversation(found: Sequence[PairNote], width: int | None, shown: int = SHOWN_NOTES) -> Text:
    """The latest `shown` notes, oldest first, one line each (`author · time: “text”`, cut to
    `width`), after a line saying how many earlier ones `N` shows."""
    lines = []
    if len(found) > shown:
        lines.append(Text(f"… {len(found) - shown} earlier note(s) · N: every note", "dim"))
    for note in found[-shown:]:
        when = note.timestamp.strftime("%m-%d %H:%M") if note.timestamp else "?"
        edited = " (edited)" if note.earlier else ""
        first, *more = note.text.split("\n")
        line = Text.assemble(data(note.assessor, "bold"), (f" · {when}{edited}: ", "dim"))
        line.append_text(data(f"“{first}{' …' if more else ''}”", "italic"))
        if width is not None:
            line.truncate(width, overflow="ellipsis")
        lines.append(line)
    return Text("\n").join(lines)


class AdjudicationScreen(Screen[None]):
    """One disagreement at a time, in priority order."""

    CSS_PATH = "adjudication.tcss"
    sub_title = quiet_sub_title()
    BINDINGS = [
        Binding("n,right", "move(1)", "next", show=False),
        Binding("p,left", "move(-1)", "previous", show=False),
        Binding("s", "skip", "skip"),
        # priority: `e` opens the note box before the keys typed after it are routed (they are the note's)
        Binding("e", "note", "note", priority=True),
        Binding("N", "notes", "notes", show=False),
        Binding("X", "clear_for_everyone", "clear for everyone", show=False),
        Binding("g", "guidelines", "guidelines", show=False),
        Binding("G", "grades", "grades", show=False),
        Binding("question_mark", "help", "keys"),
        Binding("escape", "back", "back"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, session: JudgingSession) -> None:
        super().__init__()
        self.session = session
        self.items: list[Disagreement] = []
        self.machine: dict[tuple[str, str], list[MachineSay]] = {}
        """Pair -> what each machine assessor said of it (shown as a machine's, never a vote)."""
        self.position = 0
        self.settled = 0
        self.done: dict[tuple[str, str], int] = {}
        """Pairs settled on this screen -> the grade given (they stay until the screen moves on)."""
        self.grade_keys = GradeKeys(self, session.scale.max_grade, self.settle, show=self.show_typed, target=self.pair)

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        yield QueryHeader(id="query", classes="bar")
        yield DocumentView(id="document")
        yield Static(id="votes")
        yield NotePanel(id="note-panel")
        yield ScaleBar(self.session.scale, KEYS)

    def on_mount(self) -> None:
        self.title = self.app.title
        # an assessor's session lists nothing here, and settle() and clear() refuse it
        self.items = self.session.disagreements() if self.session.may_adjudicate else []
        if self.items:
            pairs = {(i.query_id, i.doc_id) for i in self.items}
            self.machine = {p: says for p, says in machine_says(self.session.store).items() if p in pairs}
        self.refresh_view()
        self.set_interval(POLL_SECONDS, self.reread)

    def reread(self) -> bool:
        """Re-read the pair on screen from the store; whether it is as drawn (False: it changed, or
        is no longer a disagreement, and the screen now shows that)."""
        pair = self.pair()
        if pair is None or pair in self.done:
            return True
        item = self.items[self.position]
        now = self.session.disagreement_now(item)
        if now == item:
            return True
        if now is None:
            del self.items[self.position]
            self.position = min(self.position, max(len(self.items) - 1, 0))
            said = f"{item.query_id} / {item.doc_id}: no longer a disagreement (settled, cleared or agreed meanwhile)"
        else:
            self.items[self.position] = now
            said = f"{item.query_id} / {item.doc_id}: its votes or notes changed meanwhile, shown as they are now"
        self.notify(visible(said), severity="warning", markup=False)
        self.refresh_view()
        return False

    def pair(self) -> tuple[str, str] | None:
        """The pair on screen (None: none)."""
        if not self.items:
            return None
        item = self.items[self.position]
        return item.query_id, item.doc_id

    def refresh_view(self, typed: str = "") -> None:
        query, document, votes = (
            self.query_one("#query", QueryHeader),
            self.query_one(DocumentView),
            self.query_one("#votes", Static),
        )
        if not self.items:
            self.sub_title = f"adjudication · {self.settled} settled"
            none = "No disagreement left to adjudicate." if self.session.may_adjudicate else NOT_ADJUDICATOR
            query.update(Text(none, "bold"))
            document.say("")
            votes.update(Text("esc / q quits", "dim"))
            return
        item = self.items[self.position]
        self.sub_title = f"adjudication · {self.position + 1}/{len(self.items)} by priority · {self.settled} settled"
        q = self.session.query(item.query_id)
        query.update(query_header(q) if q else data(item.query_id, "bold"))
        document.show(item.doc_id, self.session.document(item.doc_id), q.text if q else "")
        settled = self.done.get((item.query_id, item.doc_id))
        width = votes.content_size.width or None
        machine = self.machine.get((item.query_id, item.doc_id), [])
        line = votes_text(
            item, self.session.scale, me=self.session.assessor, settled=settled, width=width, machine=machine
        )
        if typed:
            line.append_text(Text.assemble("\n", ("grade ", "bold"), (f"{typed}_", css("bold reverse yellow"))))
        votes.update(line)

    def show_typed(self, typed: str) -> None:
        self.refresh_view(typed)

    def on_key(self, event: events.Key) -> None:
        if self.items and not self.query_one(NotePanel).is_open:  # keys typed in the note box are the note's
            self.grade_keys.key(event)

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_view()  # the notes are cut to the width

    def settle(self, grade: int) -> None:
        """Record the adjudicated grade (committed on return); the pair stays on screen, settled."""
        pair = self.pair()
        if pair is None:
            return
        if pair in self.done:
            self.notify(f"settled already ({self.done[pair]}): n goes to the next disagreement", severity="warning")
            return
        if not self.reread():  # what was drawn is not what the store holds: nothing recorded
            return
        try:
            saved = self.session.settle(self.items[self.position], grade)
        except NotInGoldenSet as error:  # its query or document was removed meanwhile
            self.notify(visible(f"not saved: {error.message}"), severity="error", markup=False)
            del self.items[self.position]
            self.position = min(self.position, max(len(self.items) - 1, 0))
            self.refresh_view()
            return
        if not saved:
            self.notify(
                f"store busy: {self.session.waiting} held in memory, saved in order once it is free",
                title="waiting",
                severity="warning",
            )
        self.done[pair] = grade
        self.settled += 1
        self.refresh_view()

    def _drop_settled(self) -> bool:
        """Take the pair on screen out of the list if it was settled; whether it was."""
        pair = self.pair()
        if pair is None or pair not in self.done:
            return False
        del self.items[self.position]
        return True

    def action_move(self, step: int) -> None:
        if not self.items:
            return
        if self._drop_settled() and step > 0:
            step = 0  # the next one has slid into this place
        self.position = max(0, min(len(self.items) - 1, self.position + step))
        self.refresh_view()

    def action_skip(self) -> None:
        """The next disagreement, this one left as it is (after the last: back to the first)."""
        if not self.items:
            return
        if self._drop_settled():
            self.position = self.position if self.position < len(self.items) else 0
        else:
            self.position = (self.position + 1) % len(self.items)
        self.refresh_view()

    def action_clear_for_everyone(self) -> None:
        """Reset the pair for every assessor: asks first, naming every vote the store holds on it
        (blind or not), and is recorded as this adjudicator's `cleared` event."""
        pair = self.pair()
        if pair is None:
            return
        votes = ", ".join(self.session.votes_on(*pair)) or "none"
        question = Text.assemble(
            "Clear ", data(pair[1], "bold"), " for everyone? Every vote on it stops counting (",
            data(votes), "); the clear is recorded as yours, ", data(self.session.assessor, "bold"), ".",
        )  # fmt: skip

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.session.clear(*pair)
            except NotInGoldenSet as error:
                self.notify(visible(str(error)), severity="warning")
                return
            self.done.pop(pair, None)
            del self.items[self.position]
            self.position = min(self.position, max(len(self.items) - 1, 0))
            self.notify(visible(f"cleared {pair[1]} for everyone"))
            self.refresh_view()

        self.app.push_screen(ConfirmScreen(question), answer)

    def action_note(self) -> None:
        """e: the adjudicator's own note on the pair (a `noted` event: no vote, no label), in the
        box under it, prefilled (saving it empty withdraws it)."""
        pair, panel = self.pair(), self.query_one(NotePanel)
        if pair is None or panel.is_open:
            raise SkipAction()  # an `e` typed in the box is the note's
        self.grade_keys.cancel()
        panel.open(pair[1], self.session.my_note(*pair), partial(self.note_done, pair))

    def note_done(self, pair: tuple[str, str], text: str | None) -> None:
        if text is None:
            return
        try:
            change, _ = self.session.set_note(*pair, text)
        except NotInGoldenSet as error:
            self.notify(visible(f"not saved: {error.message}"), severity="error", markup=False)
            return
        self.notify(change.value, timeout=3)
        for n, item in enumerate(self.items):  # the conversation as the store holds it now
            if (item.query_id, item.doc_id) == pair:
                self.items[n] = item.model_copy(update={"notes": self.session.notes_on(*pair)})
        self.refresh_view()

    def action_notes(self) -> None:
        """N: every note on the pair, with its author, time and earlier versions."""
        if self.items:
            item = self.items[self.position]
            self.app.push_screen(notes(item.doc_id, item.notes))

    def action_guidelines(self) -> None:
        pair = self.pair()
        q = self.session.query(pair[0]) if pair else None
        if q is not None:
            self.app.push_screen(guidelines(q))

    def action_grades(self) -> None:
        self.app.push_screen(grades(self.session.scale))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    async def action_back(self) -> None:
        """Back to the screen under this one; quit when adjudication is all there is."""
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            await self.app.action_quit()
