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
