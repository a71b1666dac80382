"""Progress of long operations, reported without knowing who shows it.

Readers report bytes read and the scoring engine the measures computed, through `report`; the
command line installs a callback with `reporting` (and draws a bar once an operation has run for a
second). Nothing is reported to when no callback is installed. No IO, no dependencies.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

Callback = Callable[[str, int, int], None]
"""(task, done, total): e.g. ("reading run.trec", bytes read, file size)."""

_CALLBACK: ContextVar[Callback | None] = ContextVar("qrelkit_progress", default=None)


def report(task: str, done: int, total: int) -> None:
    callback = _CALLBACK.get()
    if callback is not None:
        callback(task, done, total)


def active() -> bool:
    return _CALLBACK.get() is not None


@contextlib.contextmanager
def reporting(callback: Callback) -> Iterator[None]:
    token = _CALLBACK.set(callback)
    try:
        yield
    finally:
        _CALLBACK.reset(token)
