"""The judging queue of a large store, computed in a process of its own, is the queue the thread
computes; a small or in-memory store, or a process that fails, is computed in the thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from qrelkit.models import Judgment, JudgmentState, QueueItem
from qrelkit.storage import Store
from qrelkit.workflows import queue_process
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.queue import ordered_queue
from qrelkit.workflows.queue_process import QueueProcess

from .conftest import make_store


def as_rows(items: list[QueueItem]) -> list[tuple[str, str, float, int | None, str]]:
    return [(i.query_id, i.doc_id, i.priority, i.best_rank, i.source) for i in items]


@pytest.fixture
def file_store(tmp_path: Path) -> Store:
    store = make_store(str(tmp_path / "store.db"))
    store.log.assign([("q1", "d4", "ann")])  # an assignment comes first, marked `assigned`
    store.log.record(Judgment(query_id="q2", doc_id="d3", state=JudgmentState.GRADED, grade=2, assessor="cy"))
    return store


@pytest.mark.parametrize("order", ["impact", "depth", "random"])
def test_the_process_computes_the_threads_queue(file_store: Store, order: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue_process, "PROCESS_ABOVE", 0)  # every store is large
    process = QueueProcess()
    try:
        items = process.compute(file_store, order, seed=3, stratum=None, assessor="ann")  # type: ignore[arg-type]
        again = process.compute(file_store, order, seed=3, stratum="nav", assessor="ann")  # type: ignore[arg-type]
    finally:
        process.close()
    assert items is not None and again is not None
    assert as_rows(items) == as_rows(ordered_queue(file_store, order, seed=3, assessor="ann"))  # type: ignore[arg-type]
    assert as_rows(again) == as_rows(ordered_queue(file_store, order, seed=3, stratum="nav", assessor="ann"))  # type: ignore[arg-type]
    assert items[0].source == "assigned" and [i for i in items if i.source == "assigned"] == items[:1]


def test_a_session_of_a_large_store_takes_the_processs_queue(
    file_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_process, "PROCESS_ABOVE", 0)
    session = JudgingSession(file_store, "ann")
    used: list[int] = []
    compute = session._process.compute

    def counted(*args: object, **kwargs: object) -> list[QueueItem] | None:
        result = compute(*args, **kwargs)  # type: ignore[arg-type]
        used.append(len(result) if result is not None else -1)
        return result

    monkeypatch.setattr(session._process, "compute", counted)
    session.refresh_queue()  # as the app's worker calls it
    assert used == [len(session.queue())] and used[0] > 0
    assert as_rows(session.queue()) == as_rows(ordered_queue(file_store, "impact", assessor="ann"))
    child = session._process._process
    assert child is not None and child.poll() is None  # kept for the next computation
    session.close()
    assert child.poll() is not None and session._process._process is None  # closing the session ends it
    assert session._process.compute(Store.memory(), "impact", seed=0, stratum=None, assessor=None) == []


def test_small_and_in_memory_stores_stay_in_the_thread(file_store: Store, store: Store) -> None:
    process = QueueProcess()
    assert process.compute(file_store, "impact", seed=0, stratum=None, assessor=None) is None  # 1 event
    assert process.compute(store, "impact", seed=0, stratum=None, assessor=None) is None
    assert process._process is None  # no process was started for them


def test_a_process_that_dies_leaves_the_queue_to_the_thread(file_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue_process, "PROCESS_ABOVE", 0)

    monkeypatch.setattr(queue_process, "CHILD", "raise SystemExit(3)")
    session = JudgingSession(file_store, "ann")
    session.refresh_queue()
    assert as_rows(session.queue()) == as_rows(ordered_queue(file_store, "impact", assessor="ann"))
    session.close()


def test_closing_ends_a_computation_under_way_at_once(file_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Quitting `judge` while a large queue is computed: the process is killed, the waiting worker
    thread gets an empty queue and ends, so the app does not wait seconds to exit."""
    monkeypatch.setattr(queue_process, "PROCESS_ABOVE", 0)
    monkeypatch.setattr(queue_process, "CHILD", "import sys, time; sys.stdin.buffer.read(1); time.sleep(120)")
    process = QueueProcess()
    got: list[list[QueueItem] | None] = []
    worker = threading.Thread(
        target=lambda: got.append(process.compute(file_store, "impact", seed=0, stratum=None, assessor=None))
    )
    worker.start()
    deadline = time.monotonic() + 30
    while process._process is None:  # the computation has started
        assert time.monotonic() < deadline
        time.sleep(0.01)
    process.close()
    worker.join(timeout=10)
    assert not worker.is_alive() and got == [[]]
