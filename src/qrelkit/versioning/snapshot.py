"""The content of a version in memory (`Snapshot`), its counts, and its content identity.

A version's `content_hash` covers documents, queries, labels, strata with weights, the grade
scale and scoring profiles (and, for machine labels, which ones and every machine label's
provenance); not row order, creation time, name or version. Two freezes of an unchanged store give
the same `content_hash`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..models import (
    DEFAULT_STRATUM,
    Document,
    GoldenSetInfo,
    Judgment,
    Label,
    PoolEntry,
    Query,
    StratumCounts,
)
from ..models.machine import LabelSet, MachineLabel

LabelSetKey = tuple[LabelSet, str | None]
"""(label set, machine assessor) of a content: `("human", None)`, `("human+machine", "lexical")`."""
HUMAN_LABELS: LabelSetKey = ("human", None)


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _document_row(d: Document) -> list[Any]:
    """What the hash covers of a document: id, title, text, and its metadata when it has any (a
    document without metadata hashes as before metadata existed, so older versions still verify)."""
    return [d.id, d.title, d.text] if d.metadata is None else [d.id, d.title, d.text, d.metadata]


_ESCAPED = re.compile(r'["\\\x00-\x1f]')
"""What JSON escapes in a string (with ensure_ascii off): quotes, backslashes, C0 controls."""


def _label_json(q: str, d: str, g: int) -> str:
    """`_canonical([q, d, g])` as text, without json.dumps for the ids that need no escaping
    (nearly all: ids hold no control character), which is most of a content hash's time."""
    if _ESCAPED.search(q) or _ESCAPED.search(d):
        return _canonical([q, d, g]).decode("utf-8")
    return f'["{q}","{d}",{int(g)}]'


def _batches(rows: Iterable[tuple[str, str, int]], size: int) -> Iterator[list[tuple[str, str, int]]]:
    it = iter(rows)
    while batch := list(itertools.islice(it, size)):
        yield batch


def documents_hash(docs: Iterable[Document]) -> str:
    """sha256 over the documents (metadata included), independent of their order."""
    lines = sorted(_canonical(_document_row(d)) for d in docs)
    h = hashlib.sha256()
    for line in lines:
        h.update(line + b"\n")
    return "sha256:" + h.hexdigest()


def machine_labels_hash(rows: Iterable[MachineLabel]) -> str:
    """sha256 over machine labels with their provenance (`machine_labels.jsonl`'s rows as
    canonical JSON, None fields left out), independent of their order."""
    lines = sorted(_canonical(x.model_dump(mode="json", exclude_none=True)) for x in rows)
    h = hashlib.sha256()
    for line in lines:
        h.update(line + b"\n")
    return "sha256:" + h.hexdigest()


def content_hash(
    info: GoldenSetInfo,
    queries: Iterable[Query],
    labels: Iterable[tuple[str, str, int]],
    docs_hash: str,
    *,
    presorted: bool = False,
    label_set: LabelSetKey = HUMAN_LABELS,
    machine_hash: str | None = None,
) -> str:
    """The canonical content hash, prefixed `sha256:`; `labels` as (query, doc, grade) rows.

    The hashed bytes are the canonical JSON of {documents, labels, profiles, queries, scale,
    strata} (keys sorted, compact separators, labels and queries sorted). With `presorted` the
    labels arrive sorted by (query, doc) and stream into the hash (the same bytes as sorting
    them first; a store's million labels never sit in memory together). `label_set`: which labels
    they are (`LabelSetKey`), `machine_hash` the `machine_labels_hash` of the machine labels among
    them."""
    rows = labels if presorted else sorted((q, d, g) for q, d, g in labels)
    pieces = (labels_json(batch) for batch in _batches(rows, 10_000))
    return content_hash_of(info, queries, pieces, docs_hash, label_set=label_set, machine_hash=machine_hash)


def labels_json(batch: list[tuple[str, str, int]]) -> bytes:
    """Labels (sorted) as the comma-separated canonical JSON arrays the content hash takes."""
    if _ESCAPED.search("".join(itertools.chain.from_iterable((q, d) for q, d, _ in batch))):
        return ",".join(_label_json(q, d, g) for q, d, g in batch).encode("utf-8")
    return ",".join([f'["{q}","{d}",{g:d}]' for q, d, g in batch]).encode("utf-8")  # nothing to escape


_ESCAPED_BYTES = re.compile(_ESCAPED.pattern.encode())


def labels_json_bytes(query: list[bytes], doc: list[bytes], grade: list[int]) -> bytes:
    """`labels_json` of labels given as UTF-8 ids (a column's values), without decoding them when
    none needs escaping (nearly always)."""
    if _ESCAPED_BYTES.search(b"".join(query) + b"".join(doc)):
        return labels_json([(q.decode(), d.decode(), int(g)) for q, d, g in zip(query, doc, grade, strict=True)])
    return b",".join([b'["%s","%s",%d]' % row for row in zip(query, doc, grade, strict=True)])


def content_hash_of(
    info: GoldenSetInfo,
    queries: Iterable[Query],
    labels: Iterable[bytes],
    docs_hash: str,
    *,
    label_set: LabelSetKey = HUMAN_LABELS,
    machine_hash: str | None = None,
) -> str:
    """`content_hash` with the labels given as `labels_json` pieces, in (query, doc) order. Human
    labels hash as they always have; other labels add `label_set` {labels, machine_assessor,
    machine_labels: `machine_hash`} (its key sorts before `labels`), so that no machine-label
    content passes for human and a machine label's provenance is part of the content."""
    h = hashlib.sha256()
    h.update(b'{"documents":' + _canonical(docs_hash))
    if label_set != HUMAN_LABELS:
        kind, assessor = label_set
        machine = machine_hash or machine_labels_hash([])
        h.update(
            b',"label_set":' + _canonical({"labels": kind, "machine_assessor": assessor, "machine_labels": machine})
        )
    h.update(b',"labels":[')
    first = True
    for piece in labels:
        if piece:
            h.update(piece if first else b"," + piece)
            first = False
    h.update(b'],"profiles":')
    h.update(_canonical(sorted((p.model_dump(mode="json") for p in info.profiles), key=lambda p: p["name"])))
    h.update(b',"queries":' + _canonical(sorted([q.id, q.text, q.stratum, q.description] for q in queries)))
    h.update(b',"scale":' + _canonical(info.scale.model_dump(mode="json")))
    h.update(b',"strata":' + _canonical(sorted([s.name, s.weight] for s in info.strata)) + b"}")
    return "sha256:" + h.hexdigest()


@dataclass
class Snapshot:
    """Everything a version holds, in memory."""

    info: GoldenSetInfo
    queries: list[Query]
    documents: list[Document]
    labels: Iterable[Label]
    """A list when read from a folder; when freezing, a re-readable stream from the store, sorted
    by (query, doc) (`labels_sorted`), read three times (qrels.txt, counts, content hash)."""
    events: Iterable[Judgment]
    """The event log: a list when read from a folder, an iterator over the store's cursor when
    freezing (written once, in order)."""
    unlabeled: list[PoolEntry]
    skipped: list[tuple[str, str]]
    labels_sorted: bool = False
    """Whether `labels` come sorted by (query, doc): then they stream, never sorted in memory."""
    label_set: LabelSetKey = HUMAN_LABELS
    """Which labels `labels` are: the humans' (resolved from `events`), or machine labels too."""
    machine: list[MachineLabel] = field(default_factory=list)
    """The machine labels among `labels`, with their provenance (`machine_labels.jsonl`): one
    per pair a machine's grade fills; none for human labels."""

    def content_hash(self) -> str:
        rows = ((lab.query_id, lab.doc_id, lab.grade) for lab in self.labels)
        docs = documents_hash(self.documents)
        machine = None if self.label_set == HUMAN_LABELS else machine_labels_hash(self.machine)
        return content_hash(
            self.info, self.queries, rows, docs, presorted=self.labels_sorted, label_set=self.label_set,
            machine_hash=machine,
        )  # fmt: skip

    def counts(self) -> dict[str, StratumCounts]:
        """Stratum -> counts of queries, labels by grade, skipped and unlabeled pairs; `all` holds the totals."""
        labels = ((lab.query_id, lab.grade) for lab in self.labels)
        unlabeled = (p.query_id for p in self.unlabeled)
        return counts_of(self.info, self.queries, labels, (q for q, _ in self.skipped), unlabeled)


def counts_of(
    info: GoldenSetInfo,
    queries: list[Query],
    labels: Iterable[tuple[str, int]],
    skipped: Iterable[str],
    unlabeled: Iterable[str],
) -> dict[str, StratumCounts]:
    """A version's counts (`Snapshot.counts`) from (query, grade) per label, and the query of each
    skipped and each pooled unlabeled pair: what a manifest records and `verify` checks."""
    stratum_of = {q.id: q.stratum for q in queries}
    names = sorted({s.name for s in info.strata} | set(stratum_of.values()))
    by_stratum = Counter(stratum_of.values())
    grades: dict[str, Counter[str]] = {s: Counter() for s in names}
    for query_id, grade in labels:
        grades.setdefault(stratum_of.get(query_id, DEFAULT_STRATUM), Counter())[str(grade)] += 1
    skips = Counter(stratum_of.get(q, DEFAULT_STRATUM) for q in skipped)
    pooled = Counter(stratum_of.get(q, DEFAULT_STRATUM) for q in unlabeled)
    out = {
        s: StratumCounts(
            queries=by_stratum[s], labels=dict(sorted(grades[s].items())), skipped=skips[s], unlabeled=pooled[s]
        )
        for s in names
    }
    total: Counter[str] = Counter()
    for c in out.values():
        total.update(c.labels)
    out["all"] = StratumCounts(
        queries=len(queries),
        labels=dict(sorted(total.items())),
        skipped=sum(skips.values()),
        unlabeled=sum(pooled.values()),
    )
    return out
