"""What scoring needs from a version: its settings, queries and labels, checked without loading
the rest. Every data file's sha256 must match the manifest and the content hash (which covers
the labels, queries, documents, scale, strata and profiles) must match it too; the documents
and the judgment log are hashed, not parsed (their models are what made scoring against a
version twelve times slower than against its qrels.txt). `qrelkit verify` and `import version`
also check the counts and that the label policy resolves the log to qrels.txt (`folders.read`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import VersionError
from ..formats import jsonl
from ..formats._io import PlainFile
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
from .snapshot import content_hash

HINT = "restore the files, or pass --no-verify to use them anyway"


@dataclass(frozen=True)
class VersionLabels:
    info: GoldenSetInfo
    queries: list[Query]
    labels: list[tuple[str, str, int]]
    """(query, doc, grade), sorted by query and doc."""
    content_hash: str
    manifest: Manifest


def read_labels(folder: Path, *, check: bool = True) -> VersionLabels:
    """A version's labels for scoring. With `check`, an altered file or a content hash that does
    not match the manifest is a `VersionError`; without it, the files are read as they are."""
    manifest = read_manifest(folder)
    if not check:
        snap = read(folder, check=False)
        as_read = sorted((x.query_id, x.doc_id, x.grade) for x in snap.labels)
        return VersionLabels(snap.info, snap.queries, as_read, snap.content_hash(), manifest)
    problems: list[str] = []
    queries_file = PlainFile(folder / "queries.jsonl", MAX_FILE_BYTES)
    queries: list[Query] = []
    rows: list[tuple[str, str, int]] = []
    for name in FILES:
        if _plain_file(folder, name) is None:
            problems.append(f"{name}: missing")
        elif name == "queries.jsonl":  # parsed and hashed by one read (a file swapped meanwhile is caught)
            queries = [q for _, q in jsonl.read_models(queries_file, Query)]
            problems += [] if queries_file.sha256() == manifest.files[name] else [f"{name}: changed"]
        elif name == "qrels.txt":  # the numpy fast path (the exact reader when a line is irregular)
            from ..formats.runs import read_qrels_file

            qrels = read_qrels_file(folder / name, plain_limit=MAX_FILE_BYTES)
            c = qrels.columns
            rows = [(q.decode(), d.decode(), int(g)) for q, d, g in zip(c.query, c.doc, c.value, strict=True)]
            problems += [] if qrels.sha256 == manifest.files[name] else [f"{name}: changed"]
        elif _file_digest(folder / name) != manifest.files[name]:
            problems.append(f"{name}: changed (sha256 differs from the manifest)")
    problems += _extra_files(folder, manifest)
    info = GoldenSetInfo(
        name=manifest.name, scale=manifest.scale, strata=manifest.strata, profiles=manifest.profiles,
        label_policy=manifest.label_policy,
    )  # fmt: skip
    if not problems:
        if any(a > b for a, b in zip(rows, rows[1:], strict=False)):  # freeze writes them sorted
            rows.sort()
        if content_hash(info, queries, rows, manifest.documents_sha256, presorted=True) != manifest.content_hash:
            problems.append(CONTENT_MISMATCH)
    if problems:
        raise VersionError(f"{folder} was altered: {'; '.join(problems)}", HINT)
    return VersionLabels(info, queries, rows, manifest.content_hash, manifest)
