"""`qrelkit export hub`: a frozen version (checked first) as a Hugging Face dataset folder that
`datasets.load_dataset(DIR, CONFIG)` and MTEB v2's retrieval loader read as it is, with a dataset
card generated from the version, a `labels` config keeping what qrels cannot say (each pair's
state, stratum, weight and assessor kind) and `qrelkit.json` (the scale, every weight, the
profiles). Written into a temporary folder, then renamed into place. The import is `hub_import`.

What the folder does not hold: the judgment log's events (who voted what, when, notes,
adjudications): each pair's resolved state, its assessor kind and how many assessors' votes count
for it stand for them. `import hub` records one event per labeled or skipped pair instead, so a
version exported and imported again has the same content hash, not the same log.

A version frozen with machine labels (`freeze --labels machine|human+machine`): each pair whose
grade is a machine's is a `labels` row of assessor kind `machine` naming its machine assessor, and
`machine_labels.jsonl` holds those labels with their provenance, as the version does; `import hub`
brings them back as machine labels, never as votes. Of a `machine` version the humans' labels
under the machine's are not written (qrels holds the machine's grades), as the version's qrels.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import resolution, versioning
from ..errors import UsageError
from ..formats import hub, jsonl
from ..formats.hub_card import AssessorFacts, Card, ConfigFacts, render
from ..formats.hub_yaml import DEFAULT_CONFIG, DataFiles
from ..formats.writing import atomic_folder
from ..models import HubInfo, Judgment, JudgmentState, Manifest, assessor_kind
from ..models.machine import MachineLabel
from .outputs import check_output

HubFormat = Literal["jsonl", "parquet"]
WHOLE = "test"
"""The qrels split that holds every label (MTEB's default split)."""
SPLIT_NAME = re.compile(r"\w+(\.\w+)*")
"""What `datasets` takes as a split name (`datasets.naming._split_re`)."""
LICENSE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,63}")
"""A Hub licence identifier (`cc-by-4.0`, `apache-2.0`, `other`)."""


@dataclass(frozen=True)
class HubExport:
    """What `export hub` wrote."""

    out: Path
    manifest: Manifest
    documents: int
    queries: int
    labels: int
    rows: int
    """Rows of the `labels` config: labeled, skipped and pooled-unjudged pairs."""
    splits: dict[str, str | None]


def export_hub(
    version: Path,
    out: Path,
    *,
    fmt: HubFormat = "jsonl",
    split_by_stratum: bool = False,
    force: bool = False,
    license: str = "other",
    store: Path | None = None,
) -> HubExport:
    """Write the frozen version at `version` as a dataset folder at `out` (see the module)."""
    if not LICENSE.fullmatch(license):
        raise UsageError(f"--license {license!r:.40} is not a licence identifier", "e.g. cc-by-4.0, mit, other")
    _check_out(version, out, store=store, force=force)
    manifest = versioning.read_manifest(version)
    if fmt == "parquet":
        hub.pyarrow_parquet()  # before reading anything: say what to install
    snap = versioning.read(version, check=True)
    _refuse_empty(snap, version)
    stratum_of = {q.id: q.stratum for q in snap.queries}
    labels = sorted((lab.query_id, lab.doc_id, lab.grade) for lab in snap.labels)
    splits = split_names(sorted({stratum_of[q] for q, _, _ in labels})) if split_by_stratum else {}
    plan = {WHOLE: None, **splits}
    votes = pair_assessors(list(snap.events))
    rows = label_rows(snap, labels, votes)
    ext = "jsonl" if fmt == "jsonl" else "parquet"
    with atomic_folder(out, replace=force) as tmp:
        configs = _write_configs(tmp, snap, labels, rows, plan, fmt, ext, stratum_of)
        if manifest.labels != "human":
            with open(tmp / hub.MACHINE, "w", encoding="utf-8", newline="\n") as fh:
                machine: list[MachineLabel] = sorted(snap.machine, key=_pair)
                jsonl.write_models(machine, fh)
        info = HubInfo(
            name=manifest.name,
            version=manifest.version,
            parent_version=manifest.parent_version,
            created=manifest.created,
            note=manifest.note,
            content_hash=manifest.content_hash,
            scale=manifest.scale,
            strata=manifest.strata,
            profiles=manifest.profiles,
            label_policy=manifest.label_policy,
            counts=manifest.counts,
            data_format=fmt,
            splits=plan,
            labels=manifest.labels,
            machine_assessor=manifest.machine_assessor,
        )
        (tmp / hub.INFO).write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
        facts = assessor_facts(snap.events, votes)
        card = Card(info=info, configs=configs, assessors=facts, license=license, machine_labels=len(snap.machine))
        (tmp / hub.README).write_text(render(card), encoding="utf-8", newline="\n")
    return HubExport(out, manifest, len(snap.documents), len(snap.queries), len(labels), len(rows), plan)


def _pair(x: MachineLabel) -> tuple[str, str]:
    return x.query_id, x.doc_id


def _check_out(version: Path, out: Path, *, store: Path | None, force: bool) -> None:
    """`--out` is a new folder, an empty one, or (with --force) a folder `export hub` wrote; never
    the store, the version or a folder holding it, nor inside any frozen version."""
    check_output(out, store=store, inputs=[version])
    if version.resolve().is_relative_to(out.resolve()):
        raise UsageError(f"--out {out} holds the version {version}", "write the dataset folder elsewhere")
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir() or out.is_symlink():
        raise UsageError(f"--out {out} exists and is not a folder", "name a new folder")
    if not any(out.iterdir()):
        return
    if not force:
        raise UsageError(f"--out {out} is not empty", "name a new folder, or pass --force to replace an earlier export")
    if not (out / hub.INFO).is_file():
        raise UsageError(
            f"--out {out} holds files `export hub` did not write (no {hub.INFO}): --force replaces only an earlier"
            " export",
            "name a new folder",
        )


def _refuse_empty(snap: versioning.Snapshot, version: Path) -> None:
    """`datasets` refuses a split without rows: a version without documents, queries or labels
    cannot be a retrieval dataset."""
    labels = any(True for _ in snap.labels)
    for what, present in (("documents", bool(snap.documents)), ("queries", bool(snap.queries)), ("labels", labels)):
        if not present:
            raise UsageError(
                f"the version {version} has no {what}: its {what} config would be empty, which datasets refuses",
                "export a version that holds documents, queries and labels",
            )


def split_names(strata: Iterable[str]) -> dict[str, str]:
    """Qrels split name -> stratum, one per stratum: a name `datasets` takes (`\\w+(\\.\\w+)*`)
    as it is, another with each character that is not a letter, digit or `_` written `_`
    (`how-to` -> `how_to`). Two strata that would share a split name (letter case aside, as some
    file systems see it), or one named like the split of every label (`test`), are refused."""
    found: dict[str, str] = {}
    for stratum in strata:
        name = stratum if SPLIT_NAME.fullmatch(stratum) else re.sub(r"\W", "_", stratum)
        clash = next((s for n, s in found.items() if n.casefold() == name.casefold()), None)
        if clash is not None or name.casefold() == WHOLE:
            other = f"stratum {clash!r}" if clash is not None else f"the split {WHOLE!r} of every label"
            raise UsageError(
                f"--split-by-stratum: stratum {stratum!r} would be split {name!r}, as {other}",
                "rename one stratum (qrelkit strata), freeze again, or export without --split-by-stratum",
            )
        found[name] = stratum
    return found


def pair_assessors(events: list[Judgment]) -> dict[tuple[str, str], set[str]]:
    """Pair -> the assessors whose votes count for it (each one's latest vote, graded or skipped),
    and its adjudicator (the latest adjudication since the pair was last cleared)."""
    found = {pair: {v.assessor for v in pv.votes} for pair, pv in resolution.votes_of(enumerate(events, 1)).items()}
    adjudicator: dict[tuple[str, str], str] = {}
    for e in events:
        if e.state is JudgmentState.CLEARED:
            adjudicator.pop((e.query_id, e.doc_id), None)
        elif e.state is JudgmentState.ADJUDICATED:
            adjudicator[(e.query_id, e.doc_id)] = e.assessor
    for pair, who in adjudicator.items():
        found.setdefault(pair, set()).add(who)
    return found


def kind_of(assessors: set[str]) -> str | None:
    """The assessor kind of a pair: that of each assessor counting for it, `mixed` if they differ."""
    kinds = {assessor_kind(a) for a in assessors}
    return None if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"


def label_rows(
    snap: versioning.Snapshot, labels: list[tuple[str, str, int]], votes: dict[tuple[str, str], set[str]]
) -> list[dict[str, Any]]:
    """The `labels` config: every labeled, skipped and pooled-unjudged pair, by (query, doc); a pair
    whose grade is a machine's is of kind `machine`, with its machine assessor (a column only a
    machine-label version has)."""
    stratum_of = {q.id: q.stratum for q in snap.queries}
    weights = {s.name: s.weight for s in snap.info.strata}
    machine = {(x.query_id, x.doc_id): x.assessor for x in snap.machine}
    states: list[tuple[str, str, str, int | None, str | None, int | None]] = [
        *((q, d, "graded", g, None, None) for q, d, g in labels),
        *((q, d, "skipped", None, None, None) for q, d in snap.skipped if (q, d) not in machine),
        *((p.query_id, p.doc_id, "unlabeled", None, p.source or None, p.best_rank) for p in snap.unlabeled),
    ]
    rows = []
    for q, d, state, grade, pooled_by, best_rank in sorted(states, key=lambda r: (r[0], r[1])):
        who = votes.get((q, d), set()) if state != "unlabeled" else set()
        by_machine = machine.get((q, d)) if state == "graded" else None
        stratum = stratum_of[q]
        row = {
            "query-id": q,
            "corpus-id": d,
            "state": state,
            "grade": grade,
            "stratum": stratum,
            "weight": weights.get(stratum),
            "assessor_kind": "machine" if by_machine else kind_of(who),
            "assessors": 1 if by_machine else len(who),
            "pooled_by": pooled_by,
            "best_rank": best_rank,
        }
        if snap.label_set[0] != "human":
            row["machine_assessor"] = by_machine
        rows.append(row)
    return rows


def assessor_facts(events: Iterable[Judgment], votes: dict[tuple[str, str], set[str]]) -> AssessorFacts:
    events = list(events)
    people = {e.assessor for e in events}
    adjudicated = {(e.query_id, e.doc_id) for e in events if e.state is JudgmentState.ADJUDICATED}
    return AssessorFacts(
        by_kind=dict(Counter(assessor_kind(a) for a in people)),
        events=len(events),
        pairs_with_several=sum(1 for who in votes.values() if len(who) > 1),
        adjudicated=len(adjudicated),
    )


def _write_configs(
    tmp: Path,
    snap: versioning.Snapshot,
    labels: list[tuple[str, str, int]],
    rows: list[dict[str, Any]],
    plan: dict[str, str | None],
    fmt: HubFormat,
    ext: str,
    stratum_of: dict[str, str],
) -> list[ConfigFacts]:
    """Write every config's files into `tmp`; what the card says of each."""

    def write(path: str, kind: str, data: Iterable[dict[str, Any]], cols: list[str]) -> int:
        return hub.write_rows(tmp / path, data, cols, kind, fmt)

    doc_cols = ["_id", "title", "text"] + ["metadata"] * any(d.metadata is not None for d in snap.documents)
    query_cols = ["_id", "text", "stratum"] + ["description"] * any(q.description is not None for q in snap.queries)
    qrels_cols = list(hub.COLUMNS["qrels"])
    label_cols = [c for c in hub.COLUMNS["labels"] if c != "machine_assessor" or snap.label_set[0] != "human"]
    n_docs = write(f"corpus.{ext}", "corpus", _documents(snap, doc_cols), doc_cols)
    n_queries = write(f"queries.{ext}", "queries", _queries(snap, query_cols), query_cols)
    qrels_rows = {}
    for split, stratum in plan.items():
        chosen = (lab for lab in labels if stratum is None or stratum_of[lab[0]] == stratum)
        data = ({"query-id": q, "corpus-id": d, "score": g} for q, d, g in chosen)
        qrels_rows[split] = write(f"qrels/{split}.{ext}", "qrels", data, qrels_cols)
    n_rows = write(f"labels.{ext}", "labels", rows, label_cols)
    return [
        ConfigFacts(
            "corpus",
            [DataFiles("corpus", (f"corpus.{ext}",))],
            {"corpus": n_docs},
            doc_cols,
            "the documents" + (" (metadata: a JSON object as text)" if "metadata" in doc_cols else ""),
        ),
        ConfigFacts(
            "queries",
            [DataFiles("queries", (f"queries.{ext}",))],
            {"queries": n_queries},
            query_cols,
            "every query, with its stratum" + (" and guidelines" if "description" in query_cols else ""),
        ),
        ConfigFacts(
            DEFAULT_CONFIG,
            [DataFiles(s, (f"qrels/{s}.{ext}",)) for s in plan],
            qrels_rows,
            qrels_cols,
            "the labels as qrels (grade 0 included, skipped and unjudged pairs never)",
        ),
        ConfigFacts(
            "labels",
            [DataFiles("labels", (f"labels.{ext}",))],
            {"labels": n_rows},
            label_cols,
            "every labeled, skipped and pooled-but-unjudged pair: state, grade or null, stratum, weight, assessor kind"
            + (" (and the machine assessor of a machine label)" if "machine_assessor" in label_cols else ""),
        ),
    ]


def _documents(snap: versioning.Snapshot, columns: list[str]) -> Iterator[dict[str, Any]]:
    for d in sorted(snap.documents, key=lambda d: d.id):
        row: dict[str, Any] = {"_id": d.id, "title": d.title, "text": d.text}
        if "metadata" in columns:
            meta = d.metadata
            row["metadata"] = None if meta is None else json.dumps(meta, ensure_ascii=False, separators=(",", ":"))
        yield row


def _queries(snap: versioning.Snapshot, columns: list[str]) -> Iterator[dict[str, Any]]:
    for q in sorted(snap.queries, key=lambda q: q.id):
        row: dict[str, Any] = {"_id": q.id, "text": q.text, "stratum": q.stratum}
        if "description" in columns:
            row["description"] = q.description
        yield row
