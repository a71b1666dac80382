"""Several assessors: overlap assignments (`qrelkit assign`) and how far they agree."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .. import resolution
from ..errors import UsageError
from ..models import AgreementReport, check_assessor
from ..storage import Store


@dataclass(frozen=True)
class Assignment:
    """What `assign` did: the sampled pairs, and how many of the assignments were new."""

    pairs: int
    overlap: int
    added: int
    per_assessor: dict[str, int]


def assign_overlap(
    store: Store,
    overlap: int,
    *,
    assessors: Sequence[str] | None = None,
    pairs: int = 50,
    stratum: str | None = None,
    seed: int = 0,
) -> Assignment:
    """Give each of a seeded random sample of `pairs` unlabeled pooled pairs to `overlap`
    assessors, in rotation so that the work is even. `assessors` default: everyone with a vote
    (a grade or a skip) in the log, judged here or imported (`Log.assessors`)."""
    if assessors is None:
        names = store.log.assessors()
        if len(names) < overlap:
            have = f"{len(names)} {'has' if len(names) == 1 else 'have'} a vote in the log"
            raise UsageError(
                f"--overlap {overlap} needs {overlap} assessors; {have}" + (f": {', '.join(names)}" if names else ""),
                "name them: --assessors ann,bob",
            )
    else:
        names = [check_assessor(a, "--assessors") for a in dict.fromkeys(a.strip() for a in assessors if a.strip())]
    if len(names) < overlap:
        raise UsageError(f"--overlap {overlap} needs at least {overlap} assessors, got {len(names)}")
    store.settings.check_stratum(stratum)
    stratum_of = store.settings.query_strata()
    pool = [
        (e.query_id, e.doc_id)
        for e in store.pool.unlabeled()
        if stratum is None or stratum_of.get(e.query_id) == stratum
    ]
    if not pool:
        raise UsageError("the pool has no unlabeled pair to assign", "pool runs first: `qrelkit pool RUN --depth K`")
    sample = sorted(random.Random(seed).sample(pool, min(pairs, len(pool))))
    rows = [(q, d, names[(i + j) % len(names)]) for i, (q, d) in enumerate(sample) for j in range(overlap)]
    added = store.log.assign(rows)
    per = {n: sum(1 for *_, a in rows if a == n) for n in names}
    return Assignment(pairs=len(sample), overlap=overlap, added=added, per_assessor=per)


def assign_recheck(
    store: Store,
    *,
    assessors: Sequence[str] | None = None,
    pairs: int = 50,
    stratum: str | None = None,
    seed: int = 0,
) -> Assignment:
    """Human-labeled pairs on which a machine assessor's latest parsed grade differs from the
    resolved human label (a seeded sample of `pairs` of them), each given to one more person who
    has no vote on it, in rotation: the pair is then shared with the assessors who voted, so the
    new assessor judges it blind (`workflows.pairs`), and `agreement` and adjudication see both
    votes. The machine's grade is never shown to them (issue 26: where the model disagrees with
    people, a second person looks, unanchored)."""
    from .disagreement_order import machine_says

    names = _names(store, assessors, 1)
    store.settings.check_stratum(stratum)
    stratum_of = store.settings.query_strata()
    human = {(q, d): g for q, d, g in store.reads.label_rows()}
    says = machine_says(store)
    found = sorted(
        p for p, s in says.items()
        if p in human and (stratum is None or stratum_of.get(p[0]) == stratum)
        and any(x.grade is not None and x.grade != human[p] for x in s)
    )  # fmt: skip
    if not found:
        raise UsageError(
            "no human-labeled pair where a machine's grade differs from the humans'",
            "label pairs humans labeled with a machine first: `qrelkit assess --pairs human`",
        )
    voters = {p: {v.assessor for v in votes} for p, (votes, _) in store.log.votes().items() if p in human}
    new: list[tuple[str, str, str]] = []
    shares: list[tuple[str, str, str]] = []
    for q, d in sorted(random.Random(seed).sample(found, min(pairs, len(found)))):
        free = [n for n in names if n not in voters.get((q, d), set())]
        if not free:
            continue  # everyone named has voted on it already
        new.append((q, d, free[len(new) % len(free)]))
        shares += [(q, d, v) for v in sorted(voters.get((q, d), set()))]  # shared: blind for the new one
    if not new:
        raise UsageError("every assessor named has voted on those pairs already", "name others: --assessors ann,bob")
    added = store.log.assign(new, shares)
    per = {n: sum(1 for *_, a in new if a == n) for n in names}
    return Assignment(pairs=len(new), overlap=1, added=added, per_assessor=per)


def _names(store: Store, assessors: Sequence[str] | None, least: int) -> list[str]:
    """`--assessors`, checked; default: everyone with a vote in the log (at least `least`)."""
    if assessors is not None:
        return [check_assessor(a, "--assessors") for a in dict.fromkeys(a.strip() for a in assessors if a.strip())]
    names = store.log.assessors()
    if len(names) < least:
        raise UsageError("no assessor has a vote in the log", "name them: --assessors ann,bob")
    return names


def agreement(store: Store, stratum: str | None = None) -> AgreementReport:
    """Agreement over the pairs two or more assessors graded (of one stratum, if given): raw
    agreement, Krippendorff's alpha (ordinal), linear-weighted Cohen's kappa per assessor pair;
    skip votes are left out and counted."""
    from ..scoring import agreement as agree

    store.settings.check_stratum(stratum)
    strata = store.settings.query_strata()
    units: dict[tuple[str, str], dict[str, int]] = {}
    skipped: dict[tuple[str, str], int] = {}
    for pair, (votes, _) in store.log.votes().items():
        if stratum is not None and strata.get(pair[0]) != stratum:
            continue
        graded = resolution.graded_votes(votes)
        if graded:
            units[pair] = graded
        skips = sum(v.state == "skipped" for v in votes)
        if skips:
            skipped[pair] = skips
    return agree.report(units, skipped, strata)
