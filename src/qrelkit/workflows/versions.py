"""Frozen versions of the store: snapshot it, freeze it under `goldensets/NAME/VERSION/`, load one
back. The folders themselves (hashes, verify, diff) are `qrelkit.versioning`'s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .. import versioning
from ..errors import StoreError, UsageError, VersionError
from ..models import STORE_MAX_GRADE, Label, Manifest, PoolEntry, is_identifier
from ..storage import Store
from .label_sets import HUMAN, LabelChoice, label_rows, machine_pairs, machine_rows
from .outputs import refuse_inside_version


def snapshot(store: Store, labels: LabelChoice = HUMAN) -> versioning.Snapshot:
    """Everything in the store (with the humans' labels, or those `labels` chooses), read in one
    transaction (a judgment arriving meanwhile is either wholly in the snapshot or not at all)."""
    with store.read_transaction():
        return _read(store, stream_events=False, labels=labels)


def _read(store: Store, *, stream_events: bool, labels: LabelChoice = HUMAN) -> versioning.Snapshot:
    """The snapshot, inside the caller's read transaction; with `stream_events` the event log is
    an iterator over the cursor, to be written before the transaction ends. With machine labels
    (`labels`), qrels.txt holds the chosen labels and the pool leaves out the pairs they fill;
    the event log stays the humans', and the machine labels used come with their provenance."""
    if not labels.human:
        return _read_with_machine(store, labels, stream_events=stream_events)
    return versioning.Snapshot(
        info=store.settings.info(),
        queries=store.reads.queries(),
        documents=list(store.reads.documents()),
        labels=_StoreLabels(store) if stream_events else store.reads.labels(),
        events=store.log.iter_events() if stream_events else store.log.events(),
        unlabeled=store.pool.unlabeled(),
        skipped=store.reads.skipped(),
        labels_sorted=stream_events,
    )


def _read_with_machine(store: Store, labels: LabelChoice, *, stream_events: bool) -> versioning.Snapshot:
    rows = label_rows(store, labels)
    filled = machine_pairs(store, labels)
    return versioning.Snapshot(
        info=store.settings.info(),
        queries=store.reads.queries(),
        documents=list(store.reads.documents()),
        labels=[Label.model_construct(query_id=q, doc_id=d, grade=g) for q, d, g in rows],
        events=store.log.iter_events() if stream_events else store.log.events(),
        unlabeled=[p for p in store.pool.unlabeled() if (p.query_id, p.doc_id) not in filled],
        skipped=store.reads.skipped(),
        labels_sorted=True,
        label_set=(labels.labels, labels.machine_assessor),
        machine=machine_rows(store, labels),
    )


class _StoreLabels:
    """The store's current labels, read again from its cursor each time they are iterated (sorted
    by query and doc), as `Label`s: a freeze reads them three times in flat memory."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __iter__(self) -> Iterator[Label]:
        return (Label.model_construct(query_id=q, doc_id=d, grade=g) for q, d, g in self.store.reads.iter_label_rows())


def check_name(name: str, version: str) -> None:
    """A golden-set name and version are folder names: non-empty, no white space, control
    characters or slashes, and not `.` or `..`."""
    bad = not (is_identifier(name) and is_identifier(version)) or any(c in "/\\" for c in name + version)
    if bad or {name, version} & {".", ".."}:
        raise UsageError(
            f"invalid name or version {name!r} {version!r}",
            "no spaces, control characters or slashes, and not . or .., e.g. pydocs 1.2",
        )


def freeze(
    store: Store, out: Path, name: str, version: str, *, note: str | None = None, labels: LabelChoice = HUMAN
) -> Manifest:
    """Freeze the store as `out/name/version/` (never inside another version), with the humans'
    labels or those `labels` chooses (recorded in the manifest and its content hash)."""
    check_name(name, version)
    refuse_inside_version(out / name, "--out")
    with store.read_transaction():  # one consistent read; the event log streams into the folder
        snap = _read(store, stream_events=True, labels=labels)
        return versioning.freeze(snap, out, name, version, note=note)


def load_version(store: Store, folder: Path, *, check: bool = True) -> Manifest:
    """Load a frozen version (settings, queries, documents, the event log, the unlabeled pool)
    in one transaction; with `check`, an altered version is refused. The labels the log
    resolves to must equal the version's qrels.txt. Loading it again into the store that holds
    it changes nothing; a store holding other data is refused (the two would mix)."""
    return _load(store, folder, check=check)[0]


def load_version_again(store: Store, folder: Path, *, check: bool = True) -> tuple[Manifest, bool]:
    """As `load_version`, and whether the store already held this version (nothing was written)."""
    return _load(store, folder, check=check)


def _holds(store: Store, snap: versioning.Snapshot, labels: LabelChoice) -> bool:
    """Whether the store holds exactly `snap`: the same content (with `labels`) and the same event log."""
    mine = snapshot(store, labels)
    return mine.content_hash() == snap.content_hash() and sum(1 for _ in mine.events) == len(list(snap.events))


_HELD = ("queries", "documents", "judgments", "pool", "machine_labels")
"""The tables a store receiving a whole version must hold nothing in."""


def _load(store: Store, folder: Path, *, check: bool) -> tuple[Manifest, bool]:
    snap = versioning.read(folder, check=check)
    manifest = versioning.read_manifest(folder)
    if snap.info.scale.max_grade > STORE_MAX_GRADE:
        raise VersionError(
            f"{folder / 'manifest.json'}: its scale reaches grade {snap.info.scale.max_grade}; a store's scale "
            f"ends at {STORE_MAX_GRADE} at most",
            f"score runs against it as it is: qrelkit score RUN --golden {folder}",
        )
    labels = LabelChoice(manifest.labels, manifest.machine_assessor)
    with store.transaction():
        counts = store.reads.table_counts()
        held = {t: counts[t] for t in _HELD if counts[t]}
        if held:
            if _holds(store, snap, labels):
                return manifest, True
            raise StoreError(
                f"the store already holds other data ({', '.join(f'{n} {t}' for t, n in held.items())}); "
                f"loading {folder} would mix the two",
                "load the version into a new store: qrelkit --db NEW.db import version FOLDER",
            )
        store.settings.apply_info(snap.info)
        store.imports.queries(enumerate(snap.queries, 1), source=str(folder / "queries.jsonl"))
        store.imports.documents(snap.documents, source=str(folder / "documents.jsonl"))
        store.imports.judgments(enumerate(snap.events, 1), source=str(folder / "judgments.jsonl"), keep_repeats=True)
        store.imports.pool_entries(snap.unlabeled)
        store.machine.record(snap.machine)  # machine labels go to their own table, never into the log
        # the pairs they fill are still waiting for a person: back into the pool (a label or skip
        # in the log keeps a pair out of the queue, as for any pooled pair)
        store.imports.pool_entries(
            PoolEntry.model_construct(query_id=x.query_id, doc_id=x.doc_id, source=f"{x.assessor} (machine label)")
            for x in snap.machine
        )
        if set(label_rows(store, labels)) != {(x.query_id, x.doc_id, x.grade) for x in snap.labels}:
            raise VersionError(
                f"{folder}: the judgment log{' and machine labels do' if snap.machine else ' does'} not resolve to "
                "qrels.txt",
                "the version is inconsistent; freeze it again from its store",
            )
    return manifest, False
