"""Frozen golden-set versions: content identity, freeze, verify, diff, comparability.

A version is a folder `NAME/VERSION/` holding `manifest.json` and the data files below. The
manifest's `content_hash` covers documents, queries, labels, strata with weights, the grade
scale and scoring profiles; not row order, creation time, name or version. Two freezes of an
unchanged store give the same `content_hash`; a score is comparable with another only when
both were computed over the same content hash, metrics (with cutoffs) and relevance threshold.

Pure: no sqlite, no textual, no click. Writing goes through a temporary folder renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from . import resolution
from .errors import InputError, VersionError
from .formats import jsonl, trec
from .formats._io import WRITE_HINT, read_text
from .models import (
    DEFAULT_STRATUM,
    Document,
    GoldenSetInfo,
    Judgment,
    Label,
    LabelState,
    Manifest,
    PoolEntry,
    Query,
    ScoreReport,
    StratumCounts,
    VersionDiff,
    utcnow,
)

MANIFEST = "manifest.json"
FILES = ("queries.jsonl", "documents.jsonl", "qrels.txt", "judgments.jsonl", "unlabeled.jsonl")
"""Every data file of a version, in the order they are written."""


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def documents_hash(docs: Iterable[Document]) -> str:
    """sha256 over the documents, independent of their order."""
    lines = sorted(_canonical([d.id, d.title, d.text]) for d in docs)
    h = hashlib.sha256()
    for line in lines:
        h.update(line + b"\n")
    return "sha256:" + h.hexdigest()


def content_hash(
    info: GoldenSetInfo, queries: Iterable[Query], labels: Iterable[tuple[str, str, int]], docs_hash: str
) -> str:
    """The canonical content hash, prefixed `sha256:`; `labels` as (query, doc, grade) rows."""
    body = {
        "scale": info.scale.model_dump(mode="json"),
        "strata": sorted([s.name, s.weight] for s in info.strata),
        "profiles": sorted((p.model_dump(mode="json") for p in info.profiles), key=lambda p: p["name"]),
        "queries": sorted([q.id, q.text, q.stratum, q.description] for q in queries),
        "labels": sorted([q, d, g] for q, d, g in labels),
        "documents": docs_hash,
    }
    return "sha256:" + hashlib.sha256(_canonical(body)).hexdigest()


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


# -- the content of a version -------------------------------------------------------------------


@dataclass
class Snapshot:
    """Everything a version holds, in memory."""

    info: GoldenSetInfo
    queries: list[Query]
    documents: list[Document]
    labels: list[Label]
    events: list[Judgment]
    unlabeled: list[PoolEntry]
    skipped: list[tuple[str, str]]

    def content_hash(self) -> str:
        rows = ((lab.query_id, lab.doc_id, lab.grade) for lab in self.labels)
        return content_hash(self.info, self.queries, rows, documents_hash(self.documents))

    def counts(self) -> dict[str, StratumCounts]:
        stratum_of = {q.id: q.stratum for q in self.queries}
        names = sorted({s.name for s in self.info.strata} | set(stratum_of.values()))
        queries = Counter(stratum_of.values())
        labels: dict[str, Counter[str]] = {s: Counter() for s in names}
        for lab in self.labels:
            labels[stratum_of.get(lab.query_id, DEFAULT_STRATUM)][str(lab.grade)] += 1
        skipped = Counter(stratum_of.get(q, DEFAULT_STRATUM) for q, _ in self.skipped)
        unlabeled = Counter(stratum_of.get(p.query_id, DEFAULT_STRATUM) for p in self.unlabeled)
        out = {
            s: StratumCounts(
                queries=queries[s],
                labels=dict(sorted(labels[s].items())),
                skipped=skipped[s],
                unlabeled=unlabeled[s],
            )
            for s in names
        }
        total: Counter[str] = Counter()
        for c in out.values():
            total.update(c.labels)
        out["all"] = StratumCounts(
            queries=len(self.queries),
            labels=dict(sorted(total.items())),
            skipped=len(self.skipped),
            unlabeled=len(self.unlabeled),
        )
        return out


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
    try:
        return Manifest.model_validate(json.loads(read_text(path)))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path=str(path), line=exc.lineno) from None
    except ValidationError as exc:
        raise InputError(jsonl.describe_validation_error(exc), path=str(path)) from None


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


def diff(a: Snapshot, b: Snapshot, a_name: str, b_name: str) -> VersionDiff:
    """Queries added, removed and moved; labels added, removed and regraded; weight, profile and
    coverage changes, from `a` to `b`."""
    qa = {q.id: q.stratum for q in a.queries}
    qb = {q.id: q.stratum for q in b.queries}
    la = {(x.query_id, x.doc_id): x.grade for x in a.labels}
    lb = {(x.query_id, x.doc_id): x.grade for x in b.labels}
    regraded: Counter[str] = Counter()
    by_stratum: dict[str, Counter[str]] = {}
    for pair in la.keys() & lb.keys():
        if la[pair] != lb[pair]:
            key = f"{la[pair]}->{lb[pair]}"
            regraded[key] += 1
            by_stratum.setdefault(qb.get(pair[0], DEFAULT_STRATUM), Counter())[key] += 1
    wa = {s.name: s.weight for s in a.info.strata}
    wb = {s.name: s.weight for s in b.info.strata}
    strata = {n: {"from": wa.get(n), "to": wb.get(n)} for n in sorted(wa.keys() | wb.keys()) if wa.get(n) != wb.get(n)}
    pa = {p.name: p for p in a.info.profiles}
    pb = {p.name: p for p in b.info.profiles}

    def cover(s: Snapshot) -> float | None:
        total = len(s.labels) + len(s.unlabeled)
        return len(s.labels) / total if total else None

    return VersionDiff(
        from_version=a_name,
        to_version=b_name,
        content_changed=a.content_hash() != b.content_hash(),
        queries={
            "added": sorted(qb.keys() - qa.keys()),
            "removed": sorted(qa.keys() - qb.keys()),
            "moved": sorted(q for q in qa.keys() & qb.keys() if qa[q] != qb[q]),
        },
        labels={
            "added": len(lb.keys() - la.keys()),
            "removed": len(la.keys() - lb.keys()),
            "regraded": dict(sorted(regraded.items())),
            "regraded_by_stratum": {s: dict(sorted(c.items())) for s, c in sorted(by_stratum.items())},
        },
        strata=strata,
        profiles={
            "added": sorted(pb.keys() - pa.keys()),
            "removed": sorted(pa.keys() - pb.keys()),
            "changed": sorted(n for n in pa.keys() & pb.keys() if pa[n] != pb[n]),
        },
        coverage={"from": cover(a), "to": cover(b)},
    )


def comparability(a: ScoreReport, b: ScoreReport) -> list[str]:
    """Why the numbers of two reports cannot be compared (empty when they can)."""
    fa, fb = a.fingerprint, b.fingerprint
    found = []
    ga = fa.golden.content_hash if fa.golden else (fa.qrels.sha256 if fa.qrels else None)
    gb = fb.golden.content_hash if fb.golden else (fb.qrels.sha256 if fb.qrels else None)
    if ga != gb:
        name_a = f"{fa.golden.name} {fa.golden.version or 'working copy'}" if fa.golden else "qrels file"
        name_b = f"{fb.golden.name} {fb.golden.version or 'working copy'}" if fb.golden else "qrels file"
        found.append(f"golden content differs ({name_a} {str(ga)[:19]} vs {name_b} {str(gb)[:19]})")
    if fa.metrics != fb.metrics:
        only_a = sorted(set(fa.metrics) - set(fb.metrics))
        only_b = sorted(set(fb.metrics) - set(fa.metrics))
        found.append(f"metric definitions or cutoffs differ (only in A: {only_a or '-'}; only in B: {only_b or '-'})")
    if fa.relevance_threshold != fb.relevance_threshold:
        found.append(f"relevance threshold differs ({fa.relevance_threshold} vs {fb.relevance_threshold})")
    if fa.tie_policy != fb.tie_policy or fa.query_policy != fb.query_policy:
        found.append("tie or query policy differs")
    return found
