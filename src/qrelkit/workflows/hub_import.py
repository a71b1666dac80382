"""`qrelkit import hub`: a Hugging Face dataset folder (one `export hub` wrote, or any BEIR / MTEB
retrieval folder) into the store, in one transaction. The readers are `formats.hub` and
`formats.beir`; the writes are the store's own imports, with their checks (a repeated id or pair,
an unknown query, a grade above the scale: refused, naming the file and its line or row).

- corpus and queries: as `import beir` reads them; a query's `stratum` field is its stratum (else
  the `labels` config's stratum of its pairs, else `--stratum`), a `description` its guidelines.
- without a `labels` config: the qrels split, each grade an event by `--assessor` (a negative one
  pools the pair), as `import beir` does.
- with a `labels` config: each pair's state from it (graded: an event with its grade, skipped: a
  skip, unlabeled: a pooled pair), the stratum weights from it; the qrels split must agree with it.
- with `qrelkit.json` (a folder `export hub` wrote): the name, scale, every stratum's weight, the
  profiles and the label policy from it. Such a folder is a whole golden set: it goes into a store
  holding no queries, documents, judgments or pool yet, as `import version` does.
- a `labels` row of assessor kind `machine` (a machine-label version's): a machine label, from
  `machine_labels.jsonl` with its provenance, into the machine table; never a vote. Such a row
  without its provenance row (or one the file does not match) is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from ..errors import InputError, StoreError, UsageError, VersionError
from ..formats import beir, hub, jsonl
from ..formats.hub import DataFile, Layout
from ..formats.trec import QrelRecord
from ..models import (
    DEFAULT_STRATUM,
    STORE_MAX_GRADE,
    GoldenSetInfo,
    HubInfo,
    HubLabel,
    Judgment,
    JudgmentState,
    LabelState,
    PoolEntry,
    Query,
    Stratum,
    check_assessor,
)
from ..models.machine import MachineLabel
from ..storage import Store

LabelRows = list[tuple[DataFile, int, HubLabel]]


@dataclass(frozen=True)
class HubImport:
    """What `import hub` did."""

    documents: int
    queries: int
    labels: int
    skipped: int
    pooled: int
    split: str
    with_labels: bool
    """Whether the states came from a `labels` config."""
    exported_hash: str | None
    """The content hash `qrelkit.json` gives (None: no such file)."""
    content_hash: str | None
    """The store's content hash after the import, when the folder is a whole golden set."""


def import_hub(
    store: Store, folder: Path, *, split: str = "test", stratum: str = DEFAULT_STRATUM, assessor: str = "hub"
) -> HubImport:
    """Import the dataset folder `folder` (see the module)."""
    check_assessor(assessor, "--assessor")
    try:
        Query(id="q", text="", stratum=stratum)  # the one stratum rule, as `import queries --stratum` checks it
    except ValueError:
        raise UsageError(f"invalid stratum {stratum!r:.60}", "names have no spaces or control characters") from None
    layout = hub.find_layout(folder, split)
    info = hub.read_info(folder)
    with hub.rows_named([*layout.corpus, *layout.queries, *layout.qrels, *layout.labels]):
        rows: LabelRows = list(hub.read_labels(layout.labels))  # all read before anything is written
        machine = _machine_labels(folder, info, rows)
        strata = _query_strata(rows)
        with store.transaction():
            if info is not None:
                _apply_settings(store, info, folder)
            else:
                _weights_from_labels(store, rows)
            seen, docs = _Seen(len(layout.corpus)), 0
            for f in layout.corpus:
                docs += store.imports.documents(_documents(f, info, seen), source=f.name)
            seen, queries = _Seen(len(layout.queries)), 0
            for f in layout.queries:
                queries += store.imports.queries(_queries(f, stratum, strata, seen), source=f.name, create_strata=True)
            if rows:
                labels, skipped, pooled = _import_states(store, rows, assessor)
                store.machine.record(machine)  # their own table: never a vote
                _check_qrels(layout, rows, info)
            else:
                (labels, pooled), skipped = _import_qrels(store, layout, assessor), 0
    content = None
    if info is not None:
        from .label_sets import LabelChoice
        from .versions import snapshot

        content = snapshot(store, LabelChoice(info.labels, info.machine_assessor)).content_hash()
    return HubImport(
        docs, queries, labels, skipped, pooled, split, bool(rows), info.content_hash if info else None, content
    )


class _Seen:
    """The ids met so far when a config has several files (the store finds repeats within one)."""

    def __init__(self, files: int) -> None:
        self.on = files > 1
        self.where: dict[Any, str] = {}

    def check(self, key: Any, what: str, file: DataFile, n: int) -> None:
        if not self.on:
            return
        first = self.where.setdefault(key, file.name)
        if first != file.name:
            raise InputError(f"{what} is also in {first}", "keep one record per id", path=file.name, line=n)


def _apply_settings(store: Store, info: HubInfo, folder: Path) -> None:
    """The golden set's settings from `qrelkit.json`, into a store that holds no golden set yet."""
    counts = store.reads.table_counts()
    held = {t: counts[t] for t in ("queries", "documents", "judgments", "pool") if counts[t]}
    if held:
        raise StoreError(
            f"the store already holds other data ({', '.join(f'{n} {t}' for t, n in held.items())}); {folder} is a "
            "whole golden set (it has qrelkit.json), and the two would mix",
            "import it into a new store: qrelkit --db NEW.db import hub FOLDER",
        )
    if info.scale.max_grade > STORE_MAX_GRADE:
        raise VersionError(
            f"{folder / hub.INFO}: its scale reaches grade {info.scale.max_grade}; a store's scale ends at "
            f"{STORE_MAX_GRADE} at most",
            "score runs against the frozen version it came from: qrelkit score RUN --golden VERSION",
        )
    store.settings.apply_info(
        GoldenSetInfo(
            name=info.name, scale=info.scale, strata=info.strata, profiles=info.profiles, label_policy=info.label_policy
        )
    )


def _query_strata(rows: LabelRows) -> dict[str, str]:
    """Query -> stratum, from the `labels` config (a query in two strata is refused)."""
    found: dict[str, tuple[str, DataFile, int]] = {}
    for file, n, row in rows:
        first = found.setdefault(row.query_id, (row.stratum, file, n))
        if first[0] != row.stratum:
            raise InputError(
                f"query {row.query_id!r} is in stratum {row.stratum!r} here, {first[0]!r} on "
                f"{first[1].name}:{first[2]}",
                "give each query one stratum",
                path=file.name,
                line=n,
            )
    return {q: s for q, (s, _, _) in found.items()}


def _weights_from_labels(store: Store, rows: LabelRows) -> None:
    """Each stratum's weight from the `labels` config (one weight per stratum)."""
    weights: dict[str, tuple[float, int]] = {}
    for file, n, row in rows:
        if row.weight is None:
            continue
        first = weights.setdefault(row.stratum, (row.weight, n))
        if first[0] != row.weight:
            raise InputError(
                f"stratum {row.stratum!r} has weight {row.weight:g} here, {first[0]:g} on line {first[1]}",
                "give each stratum one weight",
                path=file.name,
                line=n,
            )
    for name, (weight, _) in weights.items():
        store.settings.set_stratum(Stratum(name=name, weight=weight))


def _documents(file: DataFile, info: HubInfo | None, seen: _Seen) -> Iterator[tuple[int, Any]]:
    for n, obj in hub.records(file):
        if info is not None and "metadata" in obj:  # qrelkit writes it as JSON text (one Arrow type)
            obj = {**obj, "metadata": hub.json_object(obj["metadata"], file.name, n, "metadata")}
        doc = beir.corpus_document(obj, file.name, n)
        seen.check(doc.id, f"document {doc.id!r}", file, n)
        yield n, doc


def _queries(file: DataFile, stratum: str, strata: dict[str, str], seen: _Seen) -> Iterator[tuple[int, Query]]:
    for n, obj in hub.records(file):
        raw = obj.get("_id", obj.get("id"))
        given = obj["stratum"] if "stratum" in obj else strata.get(str(raw), stratum)
        more = {"description": obj["description"]} if "description" in obj else {}
        query = beir.query_from(obj, file.name, n, given, **more)
        seen.check(query.id, f"query {query.id!r}", file, n)
        yield n, query


def _import_states(store: Store, rows: LabelRows, assessor: str) -> tuple[int, int, int]:
    """Each pair of the `labels` config as its state: (labels, skipped, pooled)."""
    known = store.settings.query_strata()
    for file, n, row in rows:
        stored = known.get(row.query_id)
        if stored is None:
            raise InputError(
                f"query {row.query_id!r} is not in the queries config",
                "give every query of the labels config in the queries config",
                path=file.name,
                line=n,
            )
        if stored != row.stratum:
            raise InputError(
                f"query {row.query_id!r} is in stratum {row.stratum!r} here, {stored!r} in the queries config",
                "give each query one stratum",
                path=file.name,
                line=n,
            )
    labels = skipped = 0
    for file, group in groupby(rows, key=lambda r: r[0]):
        items = [(n, row) for _, n, row in group]
        events = [
            (
                n,
                Judgment(
                    query_id=row.query_id,
                    doc_id=row.doc_id,
                    state=JudgmentState(row.state.value),
                    grade=row.grade,
                    assessor=assessor,
                ),
            )
            for n, row in items
            if row.state is not LabelState.UNLABELED and row.assessor_kind != "machine"
        ]
        store.imports.judgments(events, source=file.name)
        labels += sum(1 for _, row in items if row.state is LabelState.GRADED)  # the machine's too
        skipped += sum(1 for _, row in items if row.state is LabelState.SKIPPED)
    pool = [
        PoolEntry(query_id=row.query_id, doc_id=row.doc_id, source=row.pooled_by or "", best_rank=row.best_rank)
        for _, _, row in rows
        if row.state is LabelState.UNLABELED or row.assessor_kind == "machine"  # a machine's: still for a person
    ]
    return labels, skipped, store.imports.pool_entries(pool)


def _machine_labels(folder: Path, info: HubInfo | None, rows: LabelRows) -> list[MachineLabel]:
    """The machine labels of the `labels` rows of kind `machine`, from `machine_labels.jsonl`: one
    row of `qrelkit.json`'s machine assessor per such pair, with its grade, and no other."""
    wanted = [(f, n, r) for f, n, r in rows if r.assessor_kind == "machine"]
    path = folder / hub.MACHINE
    if not wanted:
        return []
    f, n, first = wanted[0]
    if info is None or info.labels == "human" or not path.is_file():
        raise InputError(
            f"query {first.query_id!r} doc {first.doc_id!r} is a machine label without its provenance "
            f"({hub.MACHINE} and a qrelkit.json naming its machine assessor)",
            "a machine label is never imported as a person's vote: export the folder again with qrelkit",
            path=f.name,
            line=n,
        )
    found: dict[tuple[str, str], MachineLabel] = {}
    for line, x in jsonl.read_models(path, MachineLabel):
        pair = (x.query_id, x.doc_id)
        if x.assessor != info.machine_assessor or x.status != "ok" or pair in found:
            why = "repeats a pair" if pair in found else f"is not an ok label of {info.machine_assessor!r}"
            raise InputError(f"this row {why}", "keep one parsed label per pair", path=str(path), line=line)
        found[pair] = x
    for f, n, r in wanted:
        given = found.get((r.query_id, r.doc_id))
        if given is None or given.grade != r.grade or given.assessor != r.machine_assessor:
            raise InputError(
                f"query {r.query_id!r} doc {r.doc_id!r}: this machine row does not match {hub.MACHINE}",
                "the labels config and the machine labels disagree: export the folder again",
                path=f.name,
                line=n,
            )
    stray = sorted(found.keys() - {(r.query_id, r.doc_id) for _, _, r in wanted})
    if stray:
        q, d = stray[0]
        raise InputError(f"a machine label of query {q!r} doc {d!r}, not a machine row of the labels config",
                         "export the folder again", path=str(path))  # fmt: skip
    return [found[pair] for pair in sorted(found)]


def _qrels_records(file: DataFile) -> Iterator[QrelRecord]:
    if file.kind == "tsv":
        yield from beir.read_qrels(file.path)
        return
    for n, obj in hub.records(file):
        yield beir.qrel_from(obj, file.name, n)


def _import_qrels(store: Store, layout: Layout, assessor: str) -> tuple[int, int]:
    """The qrels split as `import beir` imports it: (labels, pooled)."""
    labels = pooled = 0
    seen = _Seen(len(layout.qrels))
    for file in layout.qrels:

        def checked(f: DataFile = file) -> Iterator[QrelRecord]:
            for rec in _qrels_records(f):
                seen.check((rec.query_id, rec.doc_id), f"query {rec.query_id!r} doc {rec.doc_id!r}", f, rec.line)
                yield rec

        nl, npool = store.imports.qrels(checked(), source=file.name, assessor=assessor)
        labels, pooled = labels + nl, pooled + npool
    if labels + pooled == 0:
        raise InputError(
            f"no qrels in split {layout.split!r}",
            "is this the right split?",
            path=layout.qrels[0].name if layout.qrels else None,
        )
    return labels, pooled


def _check_qrels(layout: Layout, rows: LabelRows, info: HubInfo | None) -> None:
    """The qrels split against the `labels` config: each qrels row is a graded pair with that grade
    (a negative score: a pooled one); when `qrelkit.json` says what the split holds (every label,
    or one stratum's), every such graded pair is in it."""
    state = {(r.query_id, r.doc_id): (r.grade if r.state is LabelState.GRADED else r.state.value) for _, _, r in rows}
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for file in layout.qrels:
        for rec in _qrels_records(file):
            pair = (rec.query_id, rec.doc_id)
            if pair in seen:
                raise InputError(
                    f"query {rec.query_id!r} doc {rec.doc_id!r} is given twice (first on "
                    f"{seen[pair][0]}:{seen[pair][1]})",
                    "keep one record per pair",
                    path=file.name,
                    line=rec.line,
                )
            seen[pair] = (file.name, rec.line)
            expected = state.get(pair)
            if expected != (rec.grade if rec.grade >= 0 else "unlabeled"):
                shown = "absent" if expected is None else f"grade {expected}" if isinstance(expected, int) else expected
                raise InputError(
                    f"query {rec.query_id!r} doc {rec.doc_id!r} has score {rec.grade} here, but is {shown} in the "
                    "labels config",
                    "the qrels and labels configs disagree: export the folder again",
                    path=file.name,
                    line=rec.line,
                )
    if info is None or layout.split not in info.splits:
        return
    stratum = info.splits[layout.split]
    for file, n, row in rows:
        if (
            row.state is LabelState.GRADED
            and (stratum is None or row.stratum == stratum)
            and ((row.query_id, row.doc_id) not in seen)
        ):
            raise InputError(
                f"query {row.query_id!r} doc {row.doc_id!r} is graded here but not in the qrels split {layout.split!r}",
                "the qrels and labels configs disagree: export the folder again",
                path=file.name,
                line=n,
            )
