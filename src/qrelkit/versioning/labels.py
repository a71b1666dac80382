"""What scoring needs from a version: its settings, queries and labels, checked without loading
the rest. Every data file's sha256 must match the manifest and the content hash (which covers
the labels, queries, documents, scale, strata and profiles) must match it too; the documents
and the judgment log are hashed, not parsed (their models are what made scoring against a
version twelve times slower than against its qrels.txt). `qrelkit verify` and `import version`
also check the counts and that the label policy resolves the log to qrels.txt (`folders.read`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import VersionError
from ..formats import jsonl
from ..formats.hashing import PlainFile
from ..models import GoldenSetInfo, Manifest, Query
from .folders import (
    CONTENT_MISMATCH,
    FILES,
    MAX_FILE_BYTES,
    _extra_files,
    _file_digest,
    _plain_file,
    read,
    read_manifest,
)
from .snapshot import content_hash_of, labels_json_bytes

if TYPE_CHECKING:  # numpy loads only when a version is scored
    import numpy as np
    import numpy.typing as npt

    from ..formats.columns import Columns

HINT = "restore the files, or pass --no-verify to use them anyway"


@dataclass(frozen=True)
class VersionLabels:
    info: GoldenSetInfo
    queries: list[Query]
    labels: Columns
    """(query, doc, grade) columns, sorted by query and doc."""
    labels_hash: npt.NDArray[np.uint64] | None
    """The fast parser's document hashes of `labels`, when it read them."""
    content_hash: str
    manifest: Manifest


def read_labels(folder: Path, *, check: bool = True) -> VersionLabels:
    """A version's labels for scoring. With `check`, an altered file or a content hash that does
    not match the manifest is a `VersionError`; without it, the files are read as they are."""
    from ..formats.columns import Columns

    manifest = read_manifest(folder)
    if not check:
        snap = read(folder, check=False)
        as_read = sorted((x.query_id, x.doc_id, x.grade) for x in snap.labels)
        columns = Columns.from_rows(as_read, integer=True)
        return VersionLabels(snap.info, snap.queries, columns, None, snap.content_hash(), manifest)
    problems: list[str] = []
    queries_file = PlainFile(folder / "queries.jsonl", MAX_FILE_BYTES)
    queries: list[Query] = []
    qrels = None
    for name in FILES:
        if _plain_file(folder, name) is None:
            problems.append(f"{name}: missing")
        elif name == "queries.jsonl":  # parsed and hashed by one read (a file swapped meanwhile is caught)
            queries = [q for _, q in jsonl.read_models(queries_file, Query)]
            problems += [] if queries_file.sha256() == manifest.files[name] else [f"{name}: changed"]
        elif name == "qrels.txt":  # the numpy fast path (the exact reader when a line is irregular)
            from ..formats.runs import read_qrels_file

            qrels = read_qrels_file(folder / name, plain_limit=MAX_FILE_BYTES)
            problems += [] if qrels.sha256 == manifest.files[name] else [f"{name}: changed"]
        elif _file_digest(folder / name) != manifest.files[name]:
            problems.append(f"{name}: changed (sha256 differs from the manifest)")
    problems += _extra_files(folder, manifest)
    info = GoldenSetInfo(
        name=manifest.name, scale=manifest.scale, strata=manifest.strata, profiles=manifest.profiles,
        label_policy=manifest.label_policy,
    )  # fmt: skip
    if qrels is None or problems:
        raise VersionError(f"{folder} was altered: {'; '.join(problems)}", HINT)
    columns, doc_hash = _sorted(qrels.columns, qrels.doc_hash)
    if content_hash_of(info, queries, _label_pieces(columns), manifest.documents_sha256) != manifest.content_hash:
        raise VersionError(f"{folder} was altered: {CONTENT_MISMATCH}", HINT)
    return VersionLabels(info, queries, columns, doc_hash, manifest.content_hash, manifest)


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


def _label_pieces(c: Columns, size: int = 10_000) -> Iterator[bytes]:
    """The labels as `snapshot.labels_json` writes them, a batch at a time, from the columns' bytes."""
    for lo in range(0, len(c.query), size):
        hi = lo + size
        yield labels_json_bytes(c.query[lo:hi].tolist(), c.doc[lo:hi].tolist(), c.value[lo:hi].tolist())
