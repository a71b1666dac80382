"""The session panel on the judging screen, one line: judgments this session, the median seconds
per judged document, the time on the document shown (ticking every second), and the digits of a
grade being typed (scales above 9)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.widgets import Static

from ...workflows.judging import JudgingSession
from ..palette import css


@dataclass
class Pace:
    """Seconds spent on each document graded or skipped in this session (what each judgment
    records as its `seconds`), kept by the app across the judging screens it opens."""

    seconds: list[float] = field(default_factory=list)

    def add(self, seconds: float) -> None:
        self.seconds.append(seconds)

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


def clock(seconds: float) -> str:
    """`7s`, `1:05`, `1:02:03`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    minutes, s = divmod(s, 60)
    return f"{minutes}:{s:02d}" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d}:{s:02d}"


def panel_line(judged: int, pace: Pace, on_document: float | None, typed: str = "") -> Text:
    """`judged 12 this session · median 8.4 s/doc · 0:12 on this document`, after the digits of
    a grade being typed, if any (first: a narrow terminal never cuts them off)."""
    line = Text()
    if typed:
        line.append_text(
            Text.assemble("grade ", (f"{typed}_", css("bold reverse yellow")), (" enter: save · esc: cancel   ", "dim"))
        )
    median = pace.median
    line.append_text(
        Text.assemble(
            ("judged ", "dim"),
            (str(judged), "bold"),
            (" this session · median ", "dim"),
            ("-" if median is None else f"{median:.1f}", "bold"),
            (" s/doc", "dim"),
        )
    )
    if on_document is not None:
        line.append_text(Text.assemble((" · ", "dim"), (clock(on_document), "bold"), (" on this document", "dim")))
    return line


class SessionPanel(Static):
    """`panel_line` for the session, redrawn every second. `since` gives the monotonic time the
    document on screen was shown (None: no document); `now` is the clock (tests fix it)."""

    def __init__(self, session: JudgingSession, pace: Pace, since: Callable[[], float | None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.pace = pace
        self.since = since
        self.now: Callable[[], float] = time.monotonic
        self.typed = ""

    def on_mount(self) -> None:
        self.call_after_refresh(self.tick)  # once the screen has shown its first document
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        shown = self.since()
        self.update(
            panel_line(self.session.judged, self.pace, None if shown is None else self.now() - shown, self.typed)
        )

    def show_typed(self, typed: str) -> None:
        self.typed = typed
        self.tick()
