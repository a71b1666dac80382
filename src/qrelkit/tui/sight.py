"""What the assessor has seen: a key acts only on what the screen had drawn when it came.

Keys typed before a screen is drawn (`2` a moment after `judge --query` starts, a search typed
before the query list appears), or before the document the screen moved to is drawn, would act on
something the assessor never saw. A screen keeps a `Sight` for what it shows: `changed()` when that
changes (a document shown, the screen shown again), and the widget showing it (a `Watched` one)
marks it drawn when it next paints. A key that would act before that is refused (dropped) and
the screen says so, naming it, so that the assessor types it again on what is now drawn.

"Drawn" is the widget's `render_lines`: Textual calls it while it writes a frame, with the content
as it is then. A key acts only if it was read from the terminal after that frame (`Key.time`; a key
typed while the app was still starting is read, and stamped, before its first frame) and is handled
while what it acts on is still the content drawn (a key of a burst, handled after the key before it
moved to another document, waits for no frame: it is refused). A callback after the next refresh
would not do: a table lays out its new rows on its own idle, after such a refresh.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from textual import events
from textual.geometry import Region
from textual.strip import Strip

PASSING = frozenset(
    {
        "escape", "q", "question_mark", "up", "down", "left", "right", "pageup", "pagedown", "home",
        "end", "n", "p", "g", "G", "N", "z", "backspace",
    }
)  # fmt: skip
"""Keys that act on nothing unseen (moving, reading, undoing what the screen said was saved,
leaving): they pass before the drawing too."""


CLOCK = time.perf_counter if sys.platform == "win32" else time.monotonic
"""The clock Textual stamps its events with (`Message.time`)."""


class Sight:
    """Whether what a screen shows now has been drawn; the keys refused meanwhile."""

    def __init__(self, say: Callable[[list[str]], Any], *, passing: frozenset[str] = PASSING) -> None:
        self.say = say
        """Told the keys refused since the last drawing (each time one more is refused)."""
        self.passing = passing
        self.refused: list[str] = []
        self._drawn = False
        self._drawn_at = 0.0

    def changed(self) -> None:
        """What the screen shows changed: keys are refused until it is drawn."""
        self._drawn = False

    def painted(self) -> None:
        """The widget showing it wrote a frame (`Watched`)."""
        if not self._drawn:
            self._drawn, self._drawn_at = True, CLOCK()
            self.refused = []

    def drawn(self) -> bool:
        return self._drawn

    def refuses(self, event: events.Key) -> bool:
        """Whether the key comes before what it would act on was drawn (then it is dropped, and
        `say` names it). Control keys (quit, the command palette) and `passing` keys always pass."""
        if self._drawn and event.time >= self._drawn_at:
            return False
        if event.key in self.passing or event.key.startswith("ctrl+"):
            return False
        self.refused.append(event.character if event.character and event.is_printable else event.key)
        self.say(self.refused)
        return True


@runtime_checkable
class Sighted(Protocol):
    """A screen whose keys are checked against what it has drawn (`JudgeApp.on_event` asks)."""

    def sight_for(self, event: events.Key) -> Sight | None:
        """The sight `event` would act on (None: the key acts on nothing it needs drawn)."""
        ...


class Watched:
    """A widget mixin (`class Text(Watched, Static)`): each frame it writes marks its sights drawn."""

    sights: tuple[Sight, ...] = ()

    def render_lines(self, crop: Region) -> list[Strip]:
        for sight in self.sights:
            sight.painted()
        return super().render_lines(crop)  # type: ignore[misc, no-any-return]
