"""Frozen versions as folders: freeze, read as they are (`read_as_is`, for --no-verify), find them.
The checked read (`verify`, `import version`, `score --golden`) is `check`.

A version is a folder `NAME/VERSION/` holding `manifest.json` and the data files below. Writing
goes through a temporary folder renamed into place. Pure: no sqlite, no textual, no click.

Only plain files directly inside the version folder are read: `manifest.files` must list exactly
the names in `FILES`, and a file that is a symlink, not a regular file (a device, a pipe), has
another hard link, or is larger than `MAX_FILE_BYTES` is refused, with an `InputError` naming it,
before it is opened.

None of the checks is a signature: anyone who can write the folder can edit the files and
recompute every hash and count, and `verify` will pass. It finds accidents, careless edits and
data an import would refuse; to trust a version from someone else, compare its `content_hash`
with one obtained from them over a channel you trust.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .. import resolution
from ..errors import InputError, VersionError
from ..formats import jsonl, trec
from ..formats.hashing import PlainFile
from ..formats.paths import MANIFEST as MANIFEST  # the version code names it too
from ..formats.reports import read_json_model
from ..formats.writing import WRITE_HINT, normal_mode
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
from ..models.machine import MachineLabel
from .snapshot import Snapshot, documents_hash

FILES = ("queries.jsonl", "documents.jsonl", "qrels.txt", "judgments.jsonl", "unlabeled.jsonl")
"""Every data file of a version, in the order they are written."""
MACHINE_FILE = "machine_labels.jsonl"
"""A version frozen with machine labels also holds each machine label it uses, with its provenance."""
MAX_FILE_BYTES = 4 << 30
"""The largest file of a version that is read (4 GiB)."""
MAX_MANIFEST_BYTES = 64 << 20
"""The largest manifest read (64 MiB: a manifest holds counts per stratum, not data)."""
_PLAIN_HINT = "a version folder holds only the regular files `qrelkit freeze` wrote"


def files_of(labels: str) -> tuple[str, ...]:
    """The data files of a version frozen with `labels` (`FILES`, and `MACHINE_FILE` unless human)."""
    return FILES if labels == "human" else (*FILES, MACHINE_FILE)


def _plain_file(folder: Path, name: str) -> Path | None:
    """`folder/name`, if it is a regular file of at most `MAX_FILE_BYTES` directly inside
    `folder` (None if it does not exist). A name that is not a plain file name, a symlink, a
    device, pipe or folder, or a file too large is an `InputError` naming it."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name or os.path.isabs(name):
        raise InputError(f"{name!r} is not a plain file name", _PLAIN_HINT, path=str(folder / MANIFEST))
    path = folder / name
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    if stat.S_ISLNK(st.st_mode):
        raise InputError("is a symlink: refused", _PLAIN_HINT, path=str(path))
    if not stat.S_ISREG(st.st_mode):
        raise InputError("is not a regular file: refused", _PLAIN_HINT, path=str(path))
    if st.st_nlink > 1:  # another name for the same file: editing one version would edit another
        raise InputError(
            f"has {st.st_nlink} hard links: refused", "copy the version (cp -r), do not link its files", path=str(path)
        )
    if st.st_size > MAX_FILE_BYTES:
        raise InputError(f"is larger than {MAX_FILE_BYTES >> 30} GiB: refused", _PLAIN_HINT, path=str(path))
    return path


def _file_digest(path: Path) -> str:
    """sha256 of a file `_plain_file` accepted, opened without following a symlink and read
    no further than `MAX_FILE_BYTES` (a file swapped meanwhile cannot make it read forever)."""
    h = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", _PLAIN_HINT, path=str(path)) from None
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise InputError("is not a regular file: refused", _PLAIN_HINT, path=str(path))
        seen = 0
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            seen += len(chunk)
            if seen > MAX_FILE_BYTES:
                raise InputError(f"is larger than {MAX_FILE_BYTES >> 30} GiB: refused", _PLAIN_HINT, path=str(path))
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
        os.chmod(tmp, normal_mode(folder=True))  # mkdtemp's 0o700 -> what a new folder gets under the umask
        queries = sorted(snapshot.queries, key=lambda q: q.id)
        documents = sorted(snapshot.documents, key=lambda d: d.id)
        unlabeled = sorted(snapshot.unlabeled, key=lambda p: (p.query_id, p.doc_id))
        machine = sorted(snapshot.machine, key=lambda x: (x.query_id, x.doc_id))
        rows: dict[str, Iterable[BaseModel]] = {
            "queries.jsonl": queries,
            "documents.jsonl": documents,
            "judgments.jsonl": snapshot.events,
            "unlabeled.jsonl": unlabeled,
            MACHINE_FILE: machine,
        }
        names = files_of(snapshot.label_set[0])
        for file_name in names:
            with open(tmp / file_name, "w", encoding="utf-8", newline="\n") as fh:
                if file_name == "qrels.txt":
                    trec.write_qrels(snapshot.labels, fh, presorted=snapshot.labels_sorted)
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
            files={f: _file_digest(tmp / f) for f in names},
            documents_sha256=documents_hash(snapshot.documents),
            content_hash=snapshot.content_hash(),
            labels=snapshot.label_set[0],
            machine_assessor=snapshot.label_set[1],
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
    if _plain_file(folder, MANIFEST) is None:  # a dangling symlink
        raise InputError("is a symlink: refused", _PLAIN_HINT, path=str(path))
    manifest = read_json_model(PlainFile(path, MAX_MANIFEST_BYTES), Manifest)
    names = files_of(manifest.labels)
    if set(manifest.files) != set(names):
        listed = ", ".join(sorted(manifest.files)[:8]) or "nothing"
        raise InputError(
            f"files lists {listed}; a version frozen with {manifest.labels} labels holds exactly {', '.join(names)}",
            _PLAIN_HINT,
            path=str(path),
        )
    return manifest


def latest_version(folder: Path) -> Manifest | None:
    """The most recently created version under `folder` (a NAME folder), if any."""
    found = []
    for child in folder.glob("*/" + MANIFEST) if folder.is_dir() else []:
        try:
            found.append(read_manifest(child.parent))
        except InputError:
            continue
    return max(found, key=lambda m: m.created, default=None)


def _extra_files(folder: Path, manifest: Manifest) -> list[str]:
    """Files in the folder that the manifest does not list."""
    extra = sorted(p.name for p in folder.iterdir() if p.name not in manifest.files and p.name != MANIFEST)
    return [f"{name}: not in the manifest" for name in extra]


CONTENT_MISMATCH = f"{MANIFEST}: content_hash does not match the files"


def read_as_is(folder: Path) -> Snapshot:
    """A version's files as they are, unchecked (`--no-verify`): a missing or unreadable file is
    an `InputError`. The checked read is `check.read`."""
    manifest = read_manifest(folder)
    parsed: dict[str, list[Any]] = {MACHINE_FILE: []}
    for file_name in files_of(manifest.labels):
        if _plain_file(folder, file_name) is None:
            raise InputError(
                "no such file", "a version holds the files its manifest lists", path=str(folder / file_name)
            )
        parsed[file_name] = _parse(file_name, PlainFile(folder / file_name, MAX_FILE_BYTES))
    info = GoldenSetInfo(
        name=manifest.name,
        scale=manifest.scale,
        strata=manifest.strata,
        profiles=manifest.profiles,
        label_policy=manifest.label_policy,
    )
    events = parsed["judgments.jsonl"]
    resolved = resolution.resolve_events(events, manifest.label_policy)
    return Snapshot(
        info=info,
        queries=parsed["queries.jsonl"],
        documents=parsed["documents.jsonl"],
        labels=parsed["qrels.txt"],
        events=events,
        unlabeled=parsed["unlabeled.jsonl"],
        skipped=sorted(k for k, (state, _) in resolved.items() if state is LabelState.SKIPPED),
        label_set=(manifest.labels, manifest.machine_assessor),
        machine=parsed[MACHINE_FILE],
    )


_MODELS: dict[str, type[BaseModel]] = {
    "queries.jsonl": Query,
    "documents.jsonl": Document,
    "judgments.jsonl": Judgment,
    "unlabeled.jsonl": PoolEntry,
    MACHINE_FILE: MachineLabel,
}


def _parse(file_name: str, source: PlainFile) -> list[Any]:
    """One data file's records, read to its end (so its sha256 is known)."""
    if file_name == "qrels.txt":
        return [Label(query_id=r.query_id, doc_id=r.doc_id, grade=r.grade) for r in trec.read_qrels(source)]
    return [m for _, m in jsonl.read_models(source, _MODELS[file_name])]
