"""What changed between two versions (`diff`), and whether two score reports can be compared
(`comparability`): only when both were computed over the same content hash, metrics (with
cutoffs) and relevance threshold."""

from __future__ import annotations

from collections import Counter

from ..models import (
    DEFAULT_STRATUM,
    CoverageChange,
    DocumentChanges,
    LabelChange,
    LabelChanges,
    ProfileChanges,
    QueryChanges,
    ScoreReport,
    VersionDiff,
    WeightChange,
)
from .snapshot import Snapshot


def diff(a: Snapshot, b: Snapshot, a_name: str, b_name: str) -> VersionDiff:
    """Queries added, removed, moved and edited (text, guidelines); documents added, removed and
    edited; labels added, removed and regraded; weight, profile and coverage changes, from `a` to `b`."""
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
    strata = {
        n: WeightChange(from_weight=wa.get(n), to_weight=wb.get(n))
        for n in sorted(wa.keys() | wb.keys())
        if wa.get(n) != wb.get(n)
    }
    pa = {p.name: p for p in a.info.profiles}
    pb = {p.name: p for p in b.info.profiles}

    def cover(s: Snapshot) -> float | None:
        labels = sum(1 for _ in s.labels)
        total = labels + len(s.unlabeled)
        return labels / total if total else None

    changes = [
        LabelChange(query_id=q, doc_id=d, from_grade=la.get((q, d)), to_grade=lb.get((q, d)))
        for q, d in sorted(la.keys() ^ lb.keys() | {k for k in la.keys() & lb.keys() if la[k] != lb[k]})
    ]
    return VersionDiff(
        from_version=a_name,
        to_version=b_name,
        same_golden_set=a.info.name == b.info.name,
        content_changed=a.content_hash() != b.content_hash(),
        queries=_query_changes(a, b),
        documents=_document_changes(a, b),
        labels=LabelChanges(
            added=len(lb.keys() - la.keys()),
            removed=len(la.keys() - lb.keys()),
            regraded=dict(sorted(regraded.items())),
            regraded_by_stratum={s: dict(sorted(c.items())) for s, c in sorted(by_stratum.items())},
            changes=changes,
        ),
        strata=strata,
        profiles=ProfileChanges(
            added=sorted(pb.keys() - pa.keys()),
            removed=sorted(pa.keys() - pb.keys()),
            changed=sorted(n for n in pa.keys() & pb.keys() if pa[n] != pb[n]),
        ),
        coverage=CoverageChange(from_coverage=cover(a), to_coverage=cover(b)),
    )


def _query_changes(a: Snapshot, b: Snapshot) -> QueryChanges:
    qa = {q.id: q for q in a.queries}
    qb = {q.id: q for q in b.queries}
    both = sorted(qa.keys() & qb.keys())
    return QueryChanges(
        added=sorted(qb.keys() - qa.keys()),
        removed=sorted(qa.keys() - qb.keys()),
        moved=[q for q in both if qa[q].stratum != qb[q].stratum],
        text_changed=[q for q in both if qa[q].text != qb[q].text],
        guidelines_changed=[q for q in both if qa[q].description != qb[q].description],
    )


def _document_changes(a: Snapshot, b: Snapshot) -> DocumentChanges:
    da = {d.id: (d.title, d.text) for d in a.documents}
    db = {d.id: (d.title, d.text) for d in b.documents}
    return DocumentChanges(
        added=sorted(db.keys() - da.keys()),
        removed=sorted(da.keys() - db.keys()),
        changed=sorted(d for d in da.keys() & db.keys() if da[d] != db[d]),
    )


def labels_of(report: ScoreReport) -> str:
    """Which labels a report was scored with: `human` (also a qrels file's), `machine (lexical)`,
    `human+machine (llm:m)`."""
    golden = report.fingerprint.golden
    if golden is None or golden.labels == "human":
        return "human"
    return f"{golden.labels} ({golden.machine_assessor})"


def mixed_labels(a: ScoreReport, b: ScoreReport) -> str | None:
    """Why two reports' labels differ (one human, one with a machine's; or two machines'), or None."""
    la, lb = labels_of(a), labels_of(b)
    return None if la == lb else f"labels differ ({la} vs {lb})"


def comparability(a: ScoreReport, b: ScoreReport) -> list[str]:
    """Why the numbers of two reports cannot be compared (empty when they can): other golden
    content, metrics, relevance threshold, tie or query policy, or (when both hold per-query
    values) other queries."""
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
        found.append(
            "metric definitions or cutoffs differ "
            f"(only in A: {', '.join(only_a) or '-'}; only in B: {', '.join(only_b) or '-'})"
        )
    if fa.relevance_threshold != fb.relevance_threshold:
        found.append(f"relevance threshold differs ({fa.relevance_threshold} vs {fb.relevance_threshold})")
    if fa.tie_policy != fb.tie_policy or fa.query_policy != fb.query_policy:
        found.append("tie or query policy differs")
    qa, qb = set(a.per_query or {}), set(b.per_query or {})
    if a.per_query is not None and b.per_query is not None and qa != qb:
        found.append(f"the reports cover other queries (A {len(qa)}, B {len(qb)}, both {len(qa & qb)})")
    return found
