"""The messages the screens and the app exchange (instead of looking each other up).

QueueStale   a screen to the app: labels moved the impacts, recompute the judging queue
QueueReady   the app to every screen: the judging queue was recomputed
HeldSaved    the app to every screen: the judgments held for a busy store are committed now
"""

from __future__ import annotations

from textual.message import Message


class QueueStale(Message):
    """Labels moved the impacts: the app recomputes the judging queue (in its one worker)."""


class QueueReady(Message, bubble=False):
    """The judging queue was recomputed (`first`: its first computation, started with the app).
    Posted to each screen; it does not bubble back to the app."""

    def __init__(self, *, first: bool) -> None:
        super().__init__()
        self.first = first


class HeldSaved(Message, bubble=False):
    """The judgments held in memory for a busy store were all committed (by the app's timer):
    each screen re-reads the counts it shows from the store. Posted to each screen."""
