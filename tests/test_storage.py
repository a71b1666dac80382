from __future__ import annotations

from pathlib import Path

import pytest

from qrelkit.errors import InputError
from qrelkit.formats.trec import QrelRecord
from qrelkit.models import Judgment, JudgmentState, Label, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.storage.schema import MIGRATIONS
from qrelkit.workflows.pairs import documents


def _queries(store: Store, *ids: str) -> None:
    store.imports.queries(((i, Query(id=q, text=q)) for i, q in enumerate(ids, 1)), source="t")


def ev(q: str, d: str, state: JudgmentState, grade: int | None = None, who: str = "ann") -> Judgment:
    return Judgment(query_id=q, doc_id=d, state=state, grade=grade, assessor=who)


def test_current_label_is_derived_from_the_latest_event(store: Store) -> None:
    _queries(store, "q1")
    store.log.record(ev("q1", "a", JudgmentState.GRADED, 2))
    store.log.record(ev("q1", "b", JudgmentState.GRADED, 0))
    store.log.record(ev("q1", "c", JudgmentState.GRADED, 3))
    store.log.record(ev("q1", "c", JudgmentState.SKIPPED))
    store.log.record(ev("q1", "a", JudgmentState.GRADED, 1, who="bob"))
    store.log.record(ev("q1", "d", JudgmentState.GRADED, 3))
    store.log.record(ev("q1", "d", JudgmentState.CLEARED))
    assert sorted(store.reads.labels(), key=lambda lab: lab.doc_id) == [
        Label(query_id="q1", doc_id="a", grade=1),
        Label(query_id="q1", doc_id="b", grade=0),
    ]
    assert store.reads.skipped() == [("q1", "c")]
    # the log keeps every event, in order
    assert [(e.doc_id, e.state, e.grade) for e in store.log.events()] == [
        ("a", "graded", 2),
        ("b", "graded", 0),
        ("c", "graded", 3),
        ("c", "skipped", None),
        ("a", "graded", 1),
        ("d", "graded", 3),
        ("d", "cleared", None),
    ]


def test_unlabeled_pool_excludes_labeled_and_skipped(store: Store) -> None:
    _queries(store, "q1")
    store.imports.pool_entries([PoolEntry(query_id="q1", doc_id=d, best_rank=r) for r, d in enumerate("abcd", 1)])
    store.log.record(ev("q1", "a", JudgmentState.GRADED, 0))
    store.log.record(ev("q1", "b", JudgmentState.SKIPPED))
    store.log.record(ev("q1", "c", JudgmentState.GRADED, 2))
    store.log.record(ev("q1", "c", JudgmentState.CLEARED))
    assert [p.doc_id for p in store.pool.unlabeled()] == ["c", "d"]
    st = store.reads.status()
    assert (st.labels, st.skipped, st.unlabeled_pool) == ({"0": 1}, 1, 2)


def test_failed_qrels_import_leaves_the_store_unchanged(store: Store) -> None:
    _queries(store, "q1")
    before = store.reads.table_counts()
    records = [QrelRecord("q1", "a", 1, 1), QrelRecord("q1", "b", -1, 2), QrelRecord("q9", "c", 1, 3)]
    with pytest.raises(InputError, match=r"f.qrels:3: query 'q9' is not in the golden set"):
        store.imports.qrels(iter(records), source="f.qrels", assessor="x")
    assert store.reads.table_counts() == before


def test_grade_above_scale_is_refused_with_the_line(store: Store) -> None:
    _queries(store, "q1")
    with pytest.raises(InputError, match=r"f:1: grade 4 is above the scale's highest grade 3"):
        store.imports.qrels(iter([QrelRecord("q1", "a", 4, 1)]), source="f", assessor="x")


def test_unknown_stratum_is_refused_unless_created(store: Store) -> None:
    with pytest.raises(InputError, match="unknown stratum 'nav'"):
        store.imports.queries(iter([(1, Query(id="q", text="t", stratum="nav"))]), source="f")
    assert store.reads.table_counts()["queries"] == 0
    store.imports.queries(iter([(1, Query(id="q", text="t", stratum="nav"))]), source="f", create_strata=True)
    assert [s.name for s in store.settings.strata()] == ["nav"]


def test_file_store_is_wal_and_synchronous_full(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    _queries(store, "q1")
    store.log.record(ev("q1", "a", JudgmentState.GRADED, 3))
    store.close()
    # a second connection sees the committed event: nothing was left in a transaction
    again = Store.open(tmp_path / "s.db")
    assert again.reads.labels() == [Label(query_id="q1", doc_id="a", grade=3)]
    assert again.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_load_version_is_one_transaction(tmp_path: Path, store: Store) -> None:
    from qrelkit.workflows import versions

    source = Store.memory()
    _queries(source, "q1")
    source.log.record(ev("q1", "a", JudgmentState.GRADED, 2))
    versions.freeze(source, tmp_path, "g", "1")
    folder = tmp_path / "g" / "1"
    with open(folder / "judgments.jsonl", "a") as fh:  # an event for an unknown query, on line 2
        fh.write('{"query_id": "q9", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "a"}\n')
    before = store.reads.table_counts()
    with pytest.raises(InputError, match="judgments.jsonl:2: query 'q9'"):
        versions.load_version(store, folder, check=False)
    assert store.reads.table_counts() == before


def test_a_version_1_store_is_migrated_in_place(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version=1")
    conn.execute("INSERT INTO queries VALUES ('q1', 'x', 'default', NULL)")
    conn.execute(
        "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) VALUES "
        "('q1', 'a', 'graded', 2, 'ann', 't1'), ('q1', 'a', 'graded', 3, 'bob', 't2')"
    )
    conn.close()
    store = Store.open(path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    # judged before votes existed: the store keeps "the latest event wins"
    assert store.settings.label_policy == "latest"
    assert store.reads.labels() == [Label(query_id="q1", doc_id="a", grade=3)]
    assert documents(store, "q1")[0].assessor == "bob"


def test_the_one_event_per_pair_fast_path_gives_the_resolved_labels(tmp_path: Path) -> None:
    """When every pair holds one event (notes aside), labels are read straight off the log; they
    must equal the labels the vote resolution gives, for every kind of single event."""
    from qrelkit import resolution
    from qrelkit.models import Judgment, JudgmentState, LabelState, Query

    store = Store.open(tmp_path / "s.db")
    store.imports.queries([(1, Query(id="q", text="x", stratum="s"))], source="t", create_strata=True)
    kinds = [
        (JudgmentState.GRADED, 2), (JudgmentState.GRADED, 0), (JudgmentState.SKIPPED, None),
        (JudgmentState.RETRACTED, None), (JudgmentState.CLEARED, None), (JudgmentState.ADJUDICATED, 3),
    ]  # fmt: skip
    for i, (state, grade) in enumerate(kinds):
        store.log.record(Judgment(query_id="q", doc_id=f"d{i}", state=state, grade=grade, assessor="a"))
    store.log.record(Judgment(query_id="q", doc_id="d0", state=JudgmentState.NOTED, assessor="b", note="n"))

    def expected() -> list[tuple[str, str, int]]:
        resolved = resolution.resolve_events(store.log.events(), store.settings.label_policy)
        return sorted((q, d, g) for (q, d), (st, g) in resolved.items() if st is LabelState.GRADED and g is not None)

    assert (
        [tuple(r) for r in store.reads.label_rows()] == expected() == [("q", "d0", 2), ("q", "d1", 0), ("q", "d5", 3)]
    )
    assert [tuple(r) for r in store.reads.iter_label_rows()] == expected()
    store.log.record(Judgment(query_id="q", doc_id="d0", state=JudgmentState.GRADED, grade=0, assessor="b"))
    assert [tuple(r) for r in store.reads.label_rows()] == expected()  # two votes now: resolved by the policy


def test_a_new_store_has_the_schema_every_earlier_store_has(tmp_path: Path) -> None:
    """The migrations' SQL builds the tables, columns, types, keys and indexes that stores made by
    earlier versions hold (tests/data/store_schema.json was read off a store they made)."""
    import json
    import sqlite3

    Store.open(tmp_path / "new.db").conn.close()
    conn = sqlite3.connect(tmp_path / "new.db")
    shape: dict[str, object] = {}
    for kind, name, table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"):
        if kind == "table":
            shape[name] = {
                "type": kind,
                "columns": conn.execute(f'PRAGMA table_xinfo("{name}")').fetchall(),
                "foreign_keys": conn.execute(f'PRAGMA foreign_key_list("{name}")').fetchall(),
                "indexes": sorted(conn.execute(f'PRAGMA index_list("{name}")').fetchall()),
            }
        elif kind == "index":
            where = sql.split(" WHERE ", 1)[1] if sql and " WHERE " in sql else None
            shape[name] = {
                "type": kind,
                "table": table,
                "columns": conn.execute(f'PRAGMA index_xinfo("{name}")').fetchall(),
                "where": where,
            }
    shape["user_version"] = conn.execute("PRAGMA user_version").fetchone()[0]
    expected = json.loads((Path(__file__).parent / "data" / "store_schema.json").read_text())
    assert json.loads(json.dumps(shape)) == expected
