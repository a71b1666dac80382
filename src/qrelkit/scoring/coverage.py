"""Judged coverage of a run's top k: how much of what a run shows the golden set has labeled.

Plain Python over document lists (no numpy): `status --runs` reports it without scoring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..models import QueryCoverage, RunCoverage

if TYPE_CHECKING:
    from .arrays import RunLists


def run_coverage(
    run: RunLists, strata: Mapping[str, str], labels: Mapping[str, Mapping[str, int]], k: int
) -> RunCoverage:
    """Judged coverage of the run's top k for every golden-set query (`strata`: query -> stratum)."""
    rows = []
    for q, s in sorted(strata.items()):
        top = run.ranked.get(q, ())[:k]
        known = labels.get(q, {})
        rows.append(QueryCoverage(query_id=q, stratum=s, retrieved=len(top), labeled=sum(d in known for d in top)))

    def mean(items: list[QueryCoverage]) -> float | None:
        values = [r.labeled / r.retrieved for r in items if r.retrieved]
        return sum(values) / len(values) if values else None

    by_stratum = {s: mean([r for r in rows if r.stratum == s]) for s in sorted(set(strata.values()))}
    return RunCoverage(run=run.name, k=k, coverage=mean(rows), by_stratum=by_stratum, queries=rows)
