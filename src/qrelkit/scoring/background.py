"""Work on a second core, for inputs large enough to pay for a thread: numpy lets go of the GIL in
most of the kernels, so two threads use two cores. Small inputs are worked one after the other in
the caller's thread, which starts no thread and imports no concurrent.futures (nor the logging it
loads, ~5 ms of a small `score`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")
V = TypeVar("V")

SERIAL_ROWS = 10_000
"""Rows (or matrix cells) up to which a job is done in one thread: a second one would save less
than it costs to start."""


def beside(background: Callable[[], T], here: Callable[[], U], *, serial: bool, name: str) -> tuple[T, U]:
    """`background()` on a thread of its own while `here()` runs in this one, or, when `serial`,
    both here, `background` first: their results."""
    if serial:
        return background(), here()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) as pool:
        future = pool.submit(background)
        mine = here()
        return future.result(), mine


def mapped(work: Callable[[V], T], items: Sequence[V], *, workers: int, serial: bool, name: str) -> Iterator[T]:
    """`work(item)` of each item, in order: `workers` at a time on a thread pool, or, when `serial`,
    one after the other in this thread."""
    if serial or workers <= 1:
        yield from (work(item) for item in items)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        futures = [pool.submit(work, item) for item in items]
        for future in futures:
            yield future.result()
