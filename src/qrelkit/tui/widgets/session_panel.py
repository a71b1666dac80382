"""The session panel on the judging screen, one line: judgments this session, the median seconds
per document (mine: from the store, then this session's), the documents left in my queue and the
time they would take at that median, what I judged today, the active time on the document shown
(ticking every second; idle stretches left out, `workflows.pacing`), a break reminder when one is
due, and the digits of a grade being typed (scales above 9). Narrow, it says the same in fewer
words, and leaves out what does not fit (today first)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import Static

from ...workflows.judging import JudgingSession
from ...workflows.pacing import Pace, Today, duration
from ..palette import css

SEP = " · "


def clock(seconds: float) -> str:
    """`7s`, `1:05`, `1:02:03`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    minutes, s = divmod(s, 60)
    return f"{minutes}:{s:02d}" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d}:{s:02d}"


@dataclass(frozen=True)
class Figures:
    """What the panel shows, read off the session and the pace."""

    judged: int
    median: float | None
    left: int | None = None
    estimate: float | None = None
    today: int | None = None
    on_document: float | None = None
    break_due: bool = False
    typed: str = ""


@dataclass(frozen=True)
class _Piece:
    full: Text
    short: Text
    drop: int
    """Left out in this order when the line is too long (0: never)."""


def _pieces(f: Figures) -> list[_Piece]:
    median = "-" if f.median is None else f"{f.median:.1f}"
    pieces = [
        _Piece(
            Text.assemble(("judged ", "dim"), (str(f.judged), "bold"), (" this session", "dim")),
            Text.assemble(("judged ", "dim"), (str(f.judged), "bold"), (" this session", "dim")),
            0,
        )
    ]
    if f.break_due:
        pieces.append(
            _Piece(
                Text.assemble(("time for a break", css("bold yellow")), (" (b: dismiss)", "dim")),
                Text.assemble(("break?", css("bold yellow")), (" b", "dim")),
                0,
            )
        )
    pieces.append(
        _Piece(
            Text.assemble(("median ", "dim"), (median, "bold"), (" s/doc", "dim")),
            Text.assemble((median, "bold"), (" s/doc", "dim")),
            4,
        )
    )
    if f.left is not None:
        about = Text.assemble((" left, about ", "dim"), (duration(f.estimate), "bold")) if f.estimate else Text()
        near = Text.assemble((" left ~", "dim"), (duration(f.estimate), "bold")) if f.estimate else Text()
        pieces.append(
            _Piece(
                Text.assemble((str(f.left), "bold"), Text(" left", "dim") if not f.estimate else about),
                Text.assemble((str(f.left), "bold"), Text(" left", "dim") if not f.estimate else near),
                3,
            )
        )
    if f.today is not None:
        today = Text.assemble((str(f.today), "bold"), (" today", "dim"))
        pieces.append(_Piece(today, today, 5))
    if f.on_document is not None:
        pieces.append(
            _Piece(
                Text.assemble((clock(f.on_document), "bold"), (" on this document", "dim")),
                Text.assemble((clock(f.on_document), "bold"), (" here", "dim")),
                2,
            )
        )
    return pieces


def panel_line(f: Figures, width: int | None = None) -> Text:
    """`judged 12 this session · median 8.4 s/doc · 312 left, about 43m · 40 today · 0:12 on
    this document`, after the digits of a grade being typed, if any (first: a narrow terminal
    never cuts them off); shorter words, then fewer figures, when `width` cells cannot hold it."""
    head = Text()
    if f.typed:
        head = Text.assemble(
            "grade ", (f"{f.typed}_", css("bold reverse yellow")), (" enter: save · esc: cancel   ", "dim")
        )
    pieces = _pieces(f)

    def line(kept: list[_Piece], short: bool) -> Text:
        body = Text(SEP, "dim").join(p.short if short else p.full for p in kept)
        return Text.assemble(head, body)

    if width is None:
        return line(pieces, False)
    for short in (False, True):
        if (shown := line(pieces, short)).cell_len <= width:
            return shown
    kept = list(pieces)
    for piece in sorted((p for p in pieces if p.drop), key=lambda p: -p.drop):
        kept.remove(piece)
        if (shown := line(kept, True)).cell_len <= width:
            return shown
    return line(kept, True)


class SessionPanel(Static):
    """`panel_line` for the session, redrawn every second (and after each judgment): `seconds`
    gives the active seconds on the document on screen (None: no document). It reminds of a break
    when the pace says one is due (a notification: it stops no key)."""

    def __init__(self, session: JudgingSession, pace: Pace, seconds: Callable[[], float | None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.pace = pace
        self.seconds = seconds
        self.today = Today(session)
        self.typed = ""

    def on_mount(self) -> None:
        self.call_after_refresh(self.tick)  # once the screen has shown its first document
        self.set_interval(1.0, self.tick)

    def figures(self) -> Figures:
        left = self.session.left()
        return Figures(
            judged=self.session.judged,
            median=self.pace.median,
            left=left,
            estimate=self.pace.estimate(left),
            today=self.today.count(),
            on_document=self.seconds(),
            break_due=self.pace.break_due,
            typed=self.typed,
        )

    def tick(self) -> None:
        if self.pace.check_break():
            minutes = round(self.pace.worked() / 60)
            self.app.notify(
                f"{minutes} minutes of work since your last break: time for one? (b dismisses this)",
                title="break",
                severity="warning",
                timeout=60,
            )
        self.update(panel_line(self.figures(), self.content_size.width or None), layout=False)  # one line

    def show_typed(self, typed: str) -> None:
        self.typed = typed
        self.tick()
