"""The golden-set settings (name, scale, label policy) are cached on each connection and read again
when they change: on this connection, on another connection of this process, or in another
process (several assessors judge one store file)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from qrelkit.errors import InputError
from qrelkit.models import GradeScale, Judgment, JudgmentState, Label, Query
from qrelkit.storage import Store


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two connections to one store file: a judging session's, and another's."""
    first = Store.open(tmp_path / "s.db")
    second = first.reader()
    first.imports.queries([(1, Query(id="q1", text="one"))], source="t")
    yield first, second
    second.close()
    first.close()


def _vote(store: Store, who: str, grade: int) -> None:
    store.log.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=grade, assessor=who))


def _policy(store: Store) -> str:
    return store.settings.label_policy


def _statements(store: Store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def test_reading_the_settings_again_costs_one_statement_that_reads_no_meta(stores: tuple[Store, Store]) -> None:
    first, _ = stores
    assert first.settings.scale.max_grade == 3
    seen = _statements(first)
    for _ in range(3):
        assert (first.settings.name, first.settings.scale.max_grade, first.settings.label_policy) == (
            "golden",
            3,
            "median",
        )
    first.conn.set_trace_callback(None)
    assert seen == ["PRAGMA data_version"] * 9


def test_another_connection_changing_the_scale_and_policy_is_seen(stores: tuple[Store, Store]) -> None:
    first, second = stores
    _vote(first, "ann", 1)
    _vote(first, "bob", 3)
    assert (first.settings.scale.max_grade, first.settings.label_policy) == (3, "median")
    assert first.reads.labels() == [Label(query_id="q1", doc_id="d1", grade=1)]  # the lower median
    second.settings.configure(name="renamed", scale=GradeScale.from_max(5, 2), label_policy="latest")
    assert first.settings.name == "renamed"
    assert (first.settings.scale.max_grade, first.settings.scale.relevance_threshold) == (5, 2)
    assert first.settings.label_policy == "latest"
    assert first.reads.labels() == [Label(query_id="q1", doc_id="d1", grade=3)]  # the latest vote now
    _vote(first, "cy", 5)  # the wider scale takes grade 5
    second.settings.configure(scale=GradeScale.from_max(5, 1))
    assert first.settings.scale.relevance_threshold == 1


def test_a_narrower_scale_set_elsewhere_refuses_a_grade_it_no_longer_has(stores: tuple[Store, Store]) -> None:
    first, second = stores
    _vote(first, "ann", 2)
    assert first.settings.scale.max_grade == 3
    second.settings.configure(scale=GradeScale.from_max(2))
    with pytest.raises(InputError, match="above the scale"):
        _vote(first, "ann", 3)
    assert len(first.log.events()) == 1


def test_another_process_changing_the_policy_is_seen(stores: tuple[Store, Store]) -> None:
    first, _ = stores
    assert _policy(first) == "median"
    db = first.path
    assert db is not None
    subprocess.run([sys.executable, "-m", "qrelkit", "--db", db, "policy", "latest"], check=True, capture_output=True)
    assert _policy(first) == "latest"


def test_this_connections_own_change_is_seen_and_a_rolled_back_one_is_not(stores: tuple[Store, Store]) -> None:
    first, second = stores
    assert _policy(first) == "median"
    first.settings.configure(label_policy="latest")
    assert _policy(first) == "latest" and _policy(second) == "latest"
    with pytest.raises(RuntimeError), first.transaction():
        first.settings.configure(label_policy="median", name="gone")
        assert _policy(first) == "median"  # inside: the transaction's own view
        raise RuntimeError("roll back")
    assert (first.settings.name, first.settings.label_policy) == ("golden", "latest")


def test_a_pair_read_brings_the_settings_of_its_own_snapshot(stores: tuple[Store, Store]) -> None:
    """The judging screen's read of a pair carries the settings it resolves by: a policy changed
    elsewhere just before is the one it uses, with no statement of its own."""
    first, second = stores
    _vote(first, "ann", 1)
    _vote(first, "bob", 3)
    assert first.log.pairs("q1", "d1", besides="ann").settings.label_policy == "median"
    second.settings.configure(label_policy="latest")
    seen = _statements(first)
    pairs = first.log.pairs("q1", "d1", besides="ann")
    first.conn.set_trace_callback(None)
    assert len(seen) == 1 and pairs.settings.label_policy == "latest"
    assert [(seq, e.assessor, e.grade) for seq, e in pairs.events] == [(1, "ann", 1), (2, "bob", 3)]
    assert _policy(first) == "latest"
