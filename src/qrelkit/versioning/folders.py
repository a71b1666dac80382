"""Frozen versions as folders: freeze, read, verify, and find them.

A version is a folder `NAME/VERSION/` holding `manifest.json` and the data files below. Writing
goes through a temporary folder renamed into place; reading checks every file's sha256 and the
content hash against the manifest. Pure: no sqlite, no textual, no click.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from .. import resolution
from ..errors import InputError, VersionError
from ..formats import jsonl, trec
from ..formats._io import WRITE_HINT
from ..formats.reports import read_json_model
from ..models import (
    Document,
    GoldenSetInfo,
    Judgment,
    Label,
    LabelState,
    Manifest,
    PoolEntry,
    Query,
    utcnow,
)
from .snapshot import Snapshot, documents_hash

MANIFEST = "manifest.json"
FILES = ("queries.jsonl", "documents.jsonl", "qrels.txt", "judgments.jsonl", "unlabeled.jsonl")
"""Every data file of a version, in the order they are written."""


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def freeze(snapshot: Snapshot, out: Path, name: str, version: str, *, note: str | None = None) -> Manifest:
    """Write `out/name/version/` atomically (a temporary folder renamed into place)."""
    target = out / name / version
    if target.exists():
        raise VersionError(f"{target} already exists: versions are immutable", "choose a new VERSION")
    parent = latest_version(out / name)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=target.parent))
    except OSError as exc:
        raise VersionError(f"{target}: cannot write: {exc.strerror}", WRITE_HINT) from None
    try:
        queries = sorted(snapshot.queries, key=lambda q: q.id)
        documents = sorted(snapshot.documents, key=lambda d: d.id)
        unlabeled = sorted(snapshot.unlabeled, key=lambda p: (p.query_id, p.doc_id))
        rows: dict[str, Sequence[BaseModel]] = {
            "queries.jsonl": queries,
            "documents.jsonl": documents,
            "judgments.jsonl": snapshot.events,
            "unlabeled.jsonl": unlabeled,
        }
        for file_name in FILES:
            with open(tmp / file_name, "w", encoding="utf-8", newline="\n") as fh:
                if file_name == "qrels.txt":
                    trec.write_qrels(snapshot.labels, fh)
                else:
                    jsonl.write_models(rows[file_name], fh)
                fh.flush()
                os.fsync(fh.fileno())
        manifest = Manifest(
            name=name,
            version=version,
            parent_version=parent.version if parent else None,
            created=utcnow(),
            note=note,
            scale=snapshot.info.scale,
            strata=snapshot.info.strata,
            profiles=snapshot.info.profiles,
            label_policy=snapshot.info.label_policy,
            counts=snapshot.counts(),
            files={f: _file_digest(tmp / f) for f in FILES},
            documents_sha256=documents_hash(snapshot.documents),
            content_hash=snapshot.content_hash(),
        )
        (tmp / MANIFEST).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        os.rename(tmp, target)  # atomic on one file system; fails if target appeared meanwhile
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise VersionError(f"{target}: cannot write: {exc.strerror}", WRITE_HINT) from None
        raise
    return manifest


def read_manifest(folder: Path) -> Manifest:
    """A version folder's manifest; a missing folder or file, or a manifest that does not parse,
    is an `InputError` naming it (a golden-set folder's error names the versions it holds)."""
    path = folder / MANIFEST
    if not folder.is_dir():
        raise InputError("no such version folder", "name a folder holding manifest.json", path=str(folder))
    if not path.exists():
        versions = sorted(p.parent.name for p in folder.glob(f"*/{MANIFEST}"))
        hint = (
            f"this folder holds versions {', '.join(versions)}: name one, e.g. {folder / versions[-1]}"
            if versions
            else "name a version folder made by `qrelkit freeze`"
        )
        raise InputError("no manifest.json here", hint, path=str(folder))
    return read_json_model(path, Manifest)


def latest_version(folder: Path) -> Manifest | None:
    """The most recently created version under `folder` (a NAME folder), if any."""
    found = []
    for child in folder.glob("*/" + MANIFEST) if folder.is_dir() else []:
        try:
            found.append(read_manifest(child.parent))
        except InputError:
            continue
    return max(found, key=lambda m: m.created, default=None)


def _file_problems(folder: Path, manifest: Manifest) -> list[str]:
    """Files missing, changed (sha256) or not in the manifest."""
    problems = []
    for file_name, digest in manifest.files.items():
        path = folder / file_name
        if not path.exists():
            problems.append(f"{file_name}: missing")
        elif _file_digest(path) != digest:
            problems.append(f"{file_name}: changed (sha256 differs from the manifest)")
    extra = sorted(p.name for p in folder.iterdir() if p.name not in manifest.files and p.name != MANIFEST)
    return problems + [f"{name}: not in the manifest" for name in extra]


CONTENT_MISMATCH = f"{MANIFEST}: content_hash does not match the files"


def verify(folder: Path) -> list[str]:
    """Problems found: files missing, changed or extra, or a content hash that does not match."""
    problems = _file_problems(folder, read_manifest(folder))
    if not problems:
        try:
            read(folder)
        except VersionError:
            problems.append(CONTENT_MISMATCH)
    return problems


def read(folder: Path, *, check: bool = True) -> Snapshot:
    """Load a version into memory (each file read once); with `check`, refuse one whose files
    were altered, or whose content does not hash to the manifest's `content_hash`."""
    manifest = read_manifest(folder)
    hint = "restore the files, or pass --no-verify to use them anyway"
    if check:
        problems = _file_problems(folder, manifest)
        if problems:
            raise VersionError(f"{folder} was altered: {'; '.join(problems)}", hint)
    info = GoldenSetInfo(
        name=manifest.name,
        scale=manifest.scale,
        strata=manifest.strata,
        profiles=manifest.profiles,
        label_policy=manifest.label_policy,
    )
    events = [j for _, j in jsonl.read_models(folder / "judgments.jsonl", Judgment)]
    resolved = resolution.resolve_events(events, manifest.label_policy)
    skipped = sorted(k for k, (state, _) in resolved.items() if state is LabelState.SKIPPED)
    snapshot = Snapshot(
        info=info,
        queries=[q for _, q in jsonl.read_models(folder / "queries.jsonl", Query)],
        documents=[d for _, d in jsonl.read_models(folder / "documents.jsonl", Document)],
        labels=[
            Label(query_id=r.query_id, doc_id=r.doc_id, grade=r.grade) for r in trec.read_qrels(folder / "qrels.txt")
        ],
        events=events,
        unlabeled=[p for _, p in jsonl.read_models(folder / "unlabeled.jsonl", PoolEntry)],
        skipped=skipped,
    )
    if check and snapshot.content_hash() != manifest.content_hash:
        raise VersionError(f"{folder} was altered: {CONTENT_MISMATCH}", hint)
    return snapshot
