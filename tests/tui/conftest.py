from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from qrelkit.models import Document, Judgment, JudgmentState, PoolEntry, Query, QueueOrder, Stratum
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.workflows.judging import JudgingSession


def make_store(path: str | None = None) -> Store:
    """Two queries; q1 has four pooled documents (one already graded by bob), q2 two."""
    store = Store.open(path) if path else Store.memory()
    store.settings.configure(name="tiny")
    store.settings.set_stratum(Stratum(name="nav", weight=0.6))
    store.settings.set_stratum(Stratum(name="howto", weight=0.4))
    store.imports.queries(
        [
            (1, Query(id="q1", text="assert statement", stratum="nav", description="The assert reference.")),
            (2, Query(id="q2", text="sort a list", stratum="howto")),
        ],
        source="t",
    )
    docs = [
        Document(id="d1", title="The assert statement", text="Assert statements insert debugging assertions."),
        Document(id="d2", title="Keywords", text="assert, async, await are keywords."),
        Document(id="d3", title="Lists", text="list.sort() sorts a list in place."),
        Document(id="d4", title="Exceptions", text="AssertionError is raised by a failed assert."),
        Document(id="d5", title="sorted", text="sorted() returns a new sorted list."),
    ]
    store.imports.documents(docs)
    store.imports.pool_entries(
        [PoolEntry(query_id="q1", doc_id=d, best_rank=r) for r, d in enumerate(["d1", "d2", "d3", "d4"], 1)]
        + [PoolEntry(query_id="q2", doc_id=d, best_rank=r) for r, d in enumerate(["d3", "d5"], 1)]
    )
    store.imports.judgments(
        [
            (
                1,
                Judgment(
                    query_id="q1",
                    doc_id="d2",
                    state=JudgmentState.GRADED,
                    grade=1,
                    assessor="bob",
                    timestamp=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
                ),
            )
        ],
        source="t",
    )
    return store


@pytest.fixture
def tiny_store() -> Iterator[Store]:
    store = make_store()
    yield store
    store.close()


def judge_app(
    store: Store,
    assessor: str,
    *,
    stratum: str | None = None,
    query: str | None = None,
    order: QueueOrder = "impact",
    seed: int = 0,
    adjudicate: bool = False,
) -> JudgeApp:
    """`qrelkit judge` on `store`, as `assessor`."""
    session = JudgingSession(store, assessor, stratum=stratum, order=order, seed=seed)
    return JudgeApp(session, query=query, adjudicate=adjudicate)


async def until(pilot: Pilot[Any], check: Callable[[], object], limit: float = 30.0) -> None:
    """Wait until `check()` holds (the app running meanwhile), failing after `limit` seconds: a
    test waits for what it needs, never for a time that a busy machine may not keep."""
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"still not so after {limit} s: {check}"
        await pilot.pause(0.02)


async def drawn(pilot: Pilot[Any], app: App[Any]) -> None:
    """Until the screen on top has drawn what it shows (`tui.sight`): a key that acts on it,
    pressed before, is refused, as it would be for a person who typed it before seeing it."""

    def done() -> bool:
        sight = getattr(app.screen, "sight", None)
        return sight is None or bool(sight.drawn())

    await until(pilot, done)
    await pilot.pause()
