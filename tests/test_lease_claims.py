"""Choosing the next document and leasing it are one step in the store (`Leases.claim`): two
assessors claiming at once never get the same document; a claim skips documents open elsewhere or
voted on since the screen read them, and keeps the exceptions of assignments."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from qrelkit.models import Judgment, JudgmentState, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.storage.schema import MIGRATIONS


def _db(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with Store.open(path) as store:
        store.imports.queries([(1, Query(id="q", text="x"))], source="t")
        store.imports.pool_entries([PoolEntry(query_id="q", doc_id=d, best_rank=r) for r, d in enumerate("abc", 1)])
    return path


def test_two_assessors_claiming_at_once_never_take_the_same_document(tmp_path: Path) -> None:
    """Each round both threads claim from the same two documents at the same moment, on
    connections of their own: a read-then-write would let both read the first one free."""
    db = _db(tmp_path)
    rounds = 150
    barrier = threading.Barrier(2)
    taken: dict[str, list[str | None]] = {"ann": [], "bob": []}

    def claimer(assessor: str) -> None:
        store = Store.open(db)
        try:
            for n in range(rounds):
                barrier.wait(timeout=60)
                taken[assessor].append(store.leases.claim("q", [f"r{n}-1", f"r{n}-2"], assessor, seen=0))
        finally:
            store.close()

    threads = [threading.Thread(target=claimer, args=(a,)) for a in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(taken["ann"]) == len(taken["bob"]) == rounds
    for n, pair in enumerate(zip(taken["ann"], taken["bob"], strict=True)):
        assert sorted(d for d in pair if d is not None) == [f"r{n}-1", f"r{n}-2"], (n, pair)


def test_a_claim_skips_what_is_open_elsewhere_or_voted_on_since_and_ends_the_last_lease(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with Store.open(db) as store:
        store.leases.hold("q", "a", "bob")
        seq = store.log.record(Judgment(query_id="q", doc_id="b", state=JudgmentState.GRADED, grade=1, assessor="cy"))
        assert store.leases.claim("q", ["a", "b", "c"], "ann", seen=seq - 1) == "c"  # a bob's; b graded since
        assert store.leases.claim("q", ["a", "b", "c"], "ann", seen=seq) == "b"  # cy's grade was read already
        assert store.leases.claim("q", ["a"], "ann", seen=seq) is None  # nothing written ...
        rows = store.conn.execute("SELECT assessor, doc_id FROM leases ORDER BY assessor").fetchall()
        assert rows == [("ann", "b"), ("bob", "a")]  # ... and one lease each: ann's last one went
        store.log.assign([("q", "a", "ann"), ("q", "a", "bob"), ("q", "c", "ann")])
        assert store.leases.claim("q", ["a"], "ann", seen=seq) == "a"  # assigned to both: bob's lease does not hold it
        store.log.record(Judgment(query_id="q", doc_id="c", state=JudgmentState.GRADED, grade=2, assessor="bob"))
        assert store.leases.claim("q", ["c"], "ann", seen=seq) == "c"  # ann's assignment: hers whoever voted


def test_an_expired_lease_holds_nothing(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with Store.open(db) as store:
        store.leases.hold("q", "a", "bob", seconds=-1)
        assert store.leases.claim("q", ["a"], "ann", seen=0) == "a"


def test_a_store_holding_several_leases_of_one_assessor_is_migrated(tmp_path: Path) -> None:
    """Before `one_lease_each` an assessor could hold several leases (the primary key is the
    pair and the assessor): they end, and the store now keeps one lease per assessor."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    before = MIGRATIONS.index(next(m for m in MIGRATIONS if m.__name__ == "one_lease_each"))
    for migration in MIGRATIONS[:before]:
        migration(conn)
    conn.execute(f"PRAGMA user_version={before}")
    conn.execute("INSERT INTO leases VALUES ('q', 'a', 'ann', '2999-01-01'), ('q', 'b', 'ann', '2999-01-01')")
    conn.close()
    with Store.open(path) as store:
        assert store.conn.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
        store.leases.hold("q", "a", "ann")
        store.leases.hold("q", "b", "ann")
        assert store.conn.execute("SELECT doc_id FROM leases WHERE assessor = 'ann'").fetchall() == [("b",)]
