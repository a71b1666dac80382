"""The one check of a frozen version, for `verify`, `import version` and `score --golden` alike.

Each data file is read once, hashed and parsed by the same read (a file swapped meanwhile cannot be
what was checked), and streamed: the documents go into `doc_hash.SortedLinesHash` (bounded memory)
and the judgment log into the resolution rule, one event at a time. Found, as problems:

- the files: missing, not listed, changed (sha256), unreadable; a data file with more than one
  hard link (editing it would edit another version) is refused like a symlink;
- the manifest: `content_hash`, `documents_sha256`, `counts`, and that `label_policy` resolves the
  judgment log to the labels of qrels.txt;
- with machine labels: `machine_labels.jsonl` holds one row of the version's machine assessor,
  with a parsed grade, for exactly each pair of qrels.txt a machine's grade fills (every pair for
  `machine`; for `human+machine`, each pair no human labeled or skipped), with that grade;
- the data rules an import enforces: query and document ids once each, every query's stratum
  among the version's strata, labels and events on the version's queries only, every grade within
  the scale (0 to its highest grade).

`keep` keeps the documents, the events and the pooled pairs for an import; otherwise only the
queries and the labels (as columns, which scoring needs) stay in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import resolution
from ..errors import InputError, VersionError
from ..formats import jsonl
from ..formats.hashing import PlainFile
from ..models import Document, GoldenSetInfo, Judgment, LabelState, Manifest, PoolEntry, Query
from ..models.machine import MachineLabel
from .doc_hash import SPILL_BYTES, SortedLinesHash
from .folders import (
    CONTENT_MISMATCH,
    MACHINE_FILE,
    MANIFEST,
    MAX_FILE_BYTES,
    _extra_files,
    _file_digest,
    _plain_file,
    read_as_is,
    read_manifest,
)
from .snapshot import LabelSetKey, Snapshot, content_hash_of, counts_of, labels_json_bytes, machine_labels_hash

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..formats.columns import Columns


@dataclass
class Checked:
    """What the check read, and what it found wrong (`problems`: none means the version holds)."""

    manifest: Manifest
    info: GoldenSetInfo
    problems: list[str] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    labels: Columns | None = None
    """(query, doc, grade) columns of qrels.txt, sorted by query and doc."""
    labels_hash: npt.NDArray[np.uint64] | None = None
    documents: list[Document] = field(default_factory=list)
    events: list[Judgment] = field(default_factory=list)
    unlabeled: list[PoolEntry] = field(default_factory=list)
    unlabeled_queries: list[str] = field(default_factory=list)
    """The query of each pooled unlabeled pair (for the counts, kept or not)."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    machine: list[MachineLabel] = field(default_factory=list)
    """The rows of `machine_labels.jsonl` (none for a human-label version)."""


DEEP = ("documents", "events", "unlabeled")
"""The files read after the queries and the labels, in order (`check(files=...)`)."""


def check(
    folder: Path, *, keep: bool = False, spill_bytes: int = SPILL_BYTES, files: tuple[str, ...] = DEEP
) -> Checked:
    """Check the version at `folder` (see the module); a manifest that does not read is an
    `InputError`, everything else a problem in the result. `files`: of `DEEP`, which to read
    (all but for `check_labels`, which hashes the others and checks no more)."""
    manifest = read_manifest(folder)
    info = GoldenSetInfo(
        name=manifest.name, scale=manifest.scale, strata=manifest.strata, profiles=manifest.profiles,
        label_policy=manifest.label_policy,
    )  # fmt: skip
    c = Checked(manifest, info, problems=_extra_files(folder, manifest))
    try:
        _read_queries(folder, c)
        _read_labels(folder, c)
        _read_machine(folder, c)
        if "documents" in files:
            _read_documents(folder, c, keep=keep, spill_bytes=spill_bytes)
        if "events" in files:
            _read_events(folder, c, keep=keep)
        if "unlabeled" in files:
            _read_unlabeled(folder, c, keep=keep)
    except _Stop:
        return c
    if files == DEEP:
        _check_manifest(c)
    return c


class _Stop(Exception):
    """A file is missing or unreadable: the checks that need it cannot run."""


def _source(folder: Path, name: str, c: Checked) -> PlainFile:
    if _plain_file(folder, name) is None:
        c.problems.append(f"{name}: missing")
        raise _Stop
    return PlainFile(folder / name, MAX_FILE_BYTES)


def _models(source: PlainFile, model: type[Any], name: str, c: Checked) -> Iterator[tuple[int, Any]]:
    """The file's records; one that does not read (or a rule it breaks) is the file's problem."""
    try:
        yield from jsonl.read_models(source, model)
    except InputError as exc:
        c.problems.append(f"{name}: changed (it no longer reads: {exc.message})")
        raise _Stop from None


def _hashed(source: PlainFile, name: str, c: Checked) -> None:
    if source.sha256() != c.manifest.files[name]:
        c.problems.append(f"{name}: changed (sha256 differs from the manifest)")


def _read_queries(folder: Path, c: Checked) -> None:
    name = "queries.jsonl"
    source = _source(folder, name, c)
    strata = {s.name for s in c.info.strata}
    seen: dict[str, int] = {}
    for line, q in _models(source, Query, name, c):
        if q.id in seen:
            c.problems.append(f"{name}:{line}: query {q.id!r} repeats line {seen[q.id]}")
        elif strata and q.stratum not in strata:
            c.problems.append(f"{name}:{line}: query {q.id!r} is in stratum {q.stratum!r}, not one of the version's")
        seen.setdefault(q.id, line)
        c.queries.append(q)
    _hashed(source, name, c)


def _read_labels(folder: Path, c: Checked) -> None:
    """qrels.txt through the numpy reader (the exact one when a line is irregular), sorted."""
    import numpy as np

    from ..formats.columns import Columns
    from ..formats.runs import read_qrels_file

    name = "qrels.txt"
    _source(folder, name, c)
    if (folder / name).stat().st_size == 0:  # a version without a label (the reader wants a line)
        if _file_digest(folder / name) != c.manifest.files[name]:
            c.problems.append(f"{name}: changed (sha256 differs from the manifest)")
        c.labels, c.labels_hash = Columns.from_rows([], integer=True), None
        return
    try:
        qrels = read_qrels_file(folder / name, plain_limit=MAX_FILE_BYTES)
    except InputError as exc:
        c.problems.append(f"{name}: changed (it no longer reads: {exc.message})")
        raise _Stop from None
    if qrels.sha256 != c.manifest.files[name]:
        c.problems.append(f"{name}: changed (sha256 differs from the manifest)")
    c.labels, c.labels_hash = _sorted(qrels.columns, qrels.doc_hash)
    grades = c.labels.value
    top = c.info.scale.max_grade
    if len(grades) and (int(grades.min()) < 0 or int(grades.max()) > top):
        bad = int(grades[(grades < 0) | (grades > top)][0])
        c.problems.append(f"{name}: grade {bad} is outside the scale (0 to {top})")
    known = np.array(sorted({q.id.encode() for q in c.queries}), dtype=c.labels.query.dtype)
    stray = ~np.isin(c.labels.query, known) if len(known) else np.ones(len(grades), dtype=bool)
    if stray.any():
        c.problems.append(f"{name}: labels of query {c.labels.query[stray][0].decode()!r}, not in queries.jsonl")


def _sorted(c: Columns, doc_hash: npt.NDArray[np.uint64] | None) -> tuple[Columns, npt.NDArray[np.uint64] | None]:
    """The columns sorted by (query, doc) in byte order (UTF-8's byte order is code-point order,
    Python's str order); freeze writes them so, and then nothing moves."""
    import numpy as np

    q, d = c.query, c.doc
    ordered = (q[1:] > q[:-1]) | ((q[1:] == q[:-1]) & (d[1:] >= d[:-1]))
    if ordered.all():
        return c, doc_hash
    order = np.lexsort((d, q))
    columns = type(c)(query=q[order], doc=d[order], value=c.value[order])
    return columns, None if doc_hash is None else doc_hash[order]


def _read_documents(folder: Path, c: Checked, *, keep: bool, spill_bytes: int) -> None:
    name = "documents.jsonl"
    source = _source(folder, name, c)
    hashed = SortedLinesHash(spill_bytes)
    for _, doc in _models(source, Document, name, c):
        hashed.add(doc)
        if keep:
            c.documents.append(doc)
    _hashed(source, name, c)
    digest, repeated = hashed.finish()
    if repeated is not None:
        c.problems.append(f"{name}: document {repeated!r} appears twice")
    if digest != c.manifest.documents_sha256:
        c.problems.append(f"{MANIFEST}: documents_sha256 does not match {name}")


def _read_events(folder: Path, c: Checked, *, keep: bool) -> None:
    """The log, streamed into the resolution rule; its grades and queries checked on the way."""
    name = "judgments.jsonl"
    source = _source(folder, name, c)
    known = {q.id for q in c.queries}
    top = c.info.scale.max_grade
    found: list[str] = []

    def events() -> Iterator[Judgment]:
        for line, e in _models(source, Judgment, name, c):
            if e.grade is not None and e.grade > top and not found:
                found.append(f"{name}:{line}: grade {e.grade} is above the scale's highest grade {top}")
            if e.query_id not in known and not found:
                found.append(f"{name}:{line}: an event on query {e.query_id!r}, not in queries.jsonl")
            if keep:
                c.events.append(e)
            yield e

    resolved = resolution.resolve_events(events(), c.info.label_policy)
    kind = c.manifest.labels
    c.problems += found
    _hashed(source, name, c)
    graded = sorted((q, d, g) for (q, d), (state, g) in resolved.items() if state is LabelState.GRADED)
    c.skipped = sorted(pair for pair, (state, _) in resolved.items() if state is LabelState.SKIPPED)
    cols = c.labels
    if cols is None:  # (qrels.txt is read first: a failed read stops the check before this)
        return
    labels = list(zip([x.decode() for x in cols.query.tolist()], [x.decode() for x in cols.doc.tolist()],
                      [int(g) for g in cols.value.tolist()], strict=True))  # fmt: skip
    if kind == "human" and graded != labels:
        policy = c.info.label_policy
        c.problems.append(f"{MANIFEST}: label_policy {policy!r} does not resolve {name} to qrels.txt")
    elif kind == "human+machine" and not resolution.holds_human_labels(
        labels, [(q, d, g) for q, d, g in graded if g is not None], c.skipped
    ):
        policy = c.info.label_policy
        c.problems.append(f"{MANIFEST}: qrels.txt does not hold the labels {policy!r} resolves {name} to")
    if kind != "human":
        _check_machine(c, labels, {(q, d) for q, d, _ in graded} | set(c.skipped))


def _read_machine(folder: Path, c: Checked) -> None:
    """`machine_labels.jsonl` of a machine-label version: its rows, each of the version's machine
    assessor, with a grade, on a query of the version, one per pair."""
    if c.manifest.labels == "human":
        return
    name = MACHINE_FILE
    source = _source(folder, name, c)
    known = {q.id for q in c.queries}
    seen: dict[tuple[str, str], int] = {}
    for line, x in _models(source, MachineLabel, name, c):
        pair = (x.query_id, x.doc_id)
        if x.assessor != c.manifest.machine_assessor:
            c.problems.append(f"{name}:{line}: a label of {x.assessor!r}, not of {c.manifest.machine_assessor!r}")
        elif x.status != "ok":
            c.problems.append(f"{name}:{line}: a {x.status} reply is no label")
        elif pair in seen:
            c.problems.append(f"{name}:{line}: pair {x.query_id} {x.doc_id} repeats line {seen[pair]}")
        elif x.query_id not in known:
            c.problems.append(f"{name}:{line}: a label of query {x.query_id!r}, not in queries.jsonl")
        seen.setdefault(pair, line)
        c.machine.append(x)
    _hashed(source, name, c)


def _check_machine(c: Checked, labels: list[tuple[str, str, int]], human: set[tuple[str, str]]) -> None:
    """Each pair of qrels.txt a machine's grade fills has its row in `machine_labels.jsonl`, with
    that grade; no row is on a pair humans labeled or skipped, nor missing from qrels.txt."""
    name = MACHINE_FILE
    filled = {(q, d): g for q, d, g in labels if c.manifest.labels == "machine" or (q, d) not in human}
    rows = {(x.query_id, x.doc_id): x.grade for x in c.machine}
    if c.manifest.labels == "human+machine":
        on_human = sorted(rows.keys() & human)
        if on_human:
            q, d = on_human[0]
            c.problems.append(f"{name}: a machine label on pair {q} {d}, which humans labeled")
            return
    missing = sorted(filled.keys() - rows.keys())
    if missing:
        q, d = missing[0]
        c.problems.append(f"qrels.txt: pair {q} {d} holds a machine's grade, and {name} has no row of it")
        return
    other = sorted(p for p, g in rows.items() if filled.get(p) != g)
    if other:
        q, d = other[0]
        c.problems.append(f"{name}: pair {q} {d} has grade {rows[(q, d)]}, not qrels.txt's {filled.get((q, d))}")


def _read_unlabeled(folder: Path, c: Checked, *, keep: bool) -> None:
    name = "unlabeled.jsonl"
    source = _source(folder, name, c)
    known = {q.id for q in c.queries}
    stray = False
    for line, p in _models(source, PoolEntry, name, c):
        if p.query_id not in known and not stray:
            c.problems.append(f"{name}:{line}: a pooled pair of query {p.query_id!r}, not in queries.jsonl")
            stray = True
        c.unlabeled_queries.append(p.query_id)
        if keep:
            c.unlabeled.append(p)
    _hashed(source, name, c)


def _check_manifest(c: Checked) -> None:
    """The manifest's counts and content hash against what the files hold."""
    cols = c.labels
    if cols is None:
        return
    labels = zip([q.decode() for q in cols.query.tolist()], [int(g) for g in cols.value.tolist()], strict=True)
    skipped = (q for q, _ in c.skipped)
    if counts_of(c.info, c.queries, labels, skipped, c.unlabeled_queries) != c.manifest.counts:
        c.problems.append(f"{MANIFEST}: counts do not match the files")
    found = _content_hash(c, _label_pieces(cols))
    if found != c.manifest.content_hash:
        c.problems.append(CONTENT_MISMATCH)


def _label_set(manifest: Manifest) -> LabelSetKey:
    """Which labels a version's qrels.txt holds, as its content hash covers them."""
    return manifest.labels, manifest.machine_assessor


def _content_hash(c: Checked, pieces: Iterator[bytes]) -> str:
    """The content hash of what `c` read (its machine labels' provenance included)."""
    machine = None if c.manifest.labels == "human" else machine_labels_hash(c.machine)
    label_set = _label_set(c.manifest)
    return content_hash_of(
        c.info, c.queries, pieces, c.manifest.documents_sha256, label_set=label_set, machine_hash=machine
    )


def _label_pieces(cols: Columns, size: int = 10_000) -> Iterator[bytes]:
    for lo in range(0, len(cols.query), size):
        hi = lo + size
        yield labels_json_bytes(cols.query[lo:hi].tolist(), cols.doc[lo:hi].tolist(), cols.value[lo:hi].tolist())


HINT = "restore the files, or pass --no-verify to use them anyway"


def check_labels(folder: Path, memo: Path | None = None) -> Checked:
    """`check`, for scoring: the queries and labels, with the same problems found. With `memo`
    (a folder of records of contents that passed), a version whose files hash to contents that
    passed before is not read a second time through: its files are hashed (and its queries and
    labels parsed and checked, as every time), the rest of the check is what was found for those
    same bytes. A version that fails is never recorded; a record is an empty file named by the
    sha256 of the whole manifest (which holds every file's digest)."""
    if memo is None:
        return check(folder)
    import hashlib

    c = _hashed_only(folder)
    if c.problems:
        return c
    # the whole manifest (its files' digests, counts, label policy...): an edit to any field is new bytes
    key = hashlib.sha256(c.manifest.model_dump_json().encode())
    record = memo / (key.hexdigest() + ".passed")
    if record.is_file():
        return c
    full = check(folder)
    if not full.problems:
        try:
            memo.mkdir(parents=True, exist_ok=True)
            record.touch()
        except OSError:  # a read-only cache: checked again next time, nothing else changes
            pass
    return full


def _hashed_only(folder: Path) -> Checked:
    """The queries and labels read and checked (`_read_queries`, `_read_labels`), every other
    file's sha256 against the manifest, the content hash: what each scoring run reads anyway."""
    c = check(folder, files=())
    if c.problems or c.labels is None:
        return c
    for name in ("documents.jsonl", "judgments.jsonl", "unlabeled.jsonl"):
        if _plain_file(folder, name) is None:
            c.problems.append(f"{name}: missing")
        elif _file_digest(folder / name) != c.manifest.files[name]:
            c.problems.append(f"{name}: changed (sha256 differs from the manifest)")
    found = _content_hash(c, _label_pieces(c.labels))
    if found != c.manifest.content_hash:
        c.problems.append(CONTENT_MISMATCH)
    return c


def verify(folder: Path) -> list[str]:
    """What `qrelkit verify` reports: the problems `check` finds (none: the version holds)."""
    return check(folder).problems


def read(folder: Path, *, check: bool = True) -> Snapshot:
    """A version in memory, for an import or a diff. With `check`, one that fails `check.check`
    is a `VersionError` naming what was found; without it, the files as they are."""
    from ..models import Label

    if not check:
        return read_as_is(folder)
    c = check_folder(folder, keep=True)
    if c.problems or c.labels is None:
        raise VersionError(f"{folder} was altered: {'; '.join(c.problems)}", HINT)
    cols = c.labels
    labels = [
        Label.model_construct(query_id=q.decode(), doc_id=d.decode(), grade=int(g))
        for q, d, g in zip(cols.query.tolist(), cols.doc.tolist(), cols.value.tolist(), strict=True)
    ]
    return Snapshot(
        c.info, c.queries, c.documents, labels, c.events, c.unlabeled, c.skipped, label_set=_label_set(c.manifest),
        machine=c.machine,
    )  # fmt: skip


check_folder = check
