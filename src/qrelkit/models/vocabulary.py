"""The vocabulary every layer shares that needs no validation: the default stratum, the two tiles,
the seeds' range, the top grade and the one rule of traffic shares. Plain Python (no pydantic), so
that scoring a qrels file (`score --qrels`) never imports pydantic; `domain` re-exports each name."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Literal

DEFAULT_STRATUM = "default"
"""The stratum of a query that names none."""

TILES = ("nDCG@10", "R@50")
"""The two tiles, (headline, recall at candidate depth): what a comparison, a leaderboard and the
dashboard lead with, and what the judging queue's impact order narrows, unless told otherwise."""

HEADLINE, RECALL = TILES

SEEDS = (0, 2**32 - 1)
"""The seeds of a random order, a resampling or a sample (every --seed): 0 <= seed < 2^32, what
numpy's and Python's generators take as one 32-bit word (numpy refuses a negative seed)."""

GRADE_TOP = 2**31 - 1
"""The highest grade any scale reaches (qrels files hold 32-bit grades, as trec_eval reads them)."""
STORE_MAX_GRADE = 100
"""The highest grade of a store's scale: the judging screen keys each grade, status counts each."""


def weight_shares(weights: Mapping[str, float]) -> dict[str, float]:
    """Each key's share of the total weight (the shares sum to 1), or {} when no weight is above 0;
    a weight below 0 counts as 0. Each weight is divided by the largest first, so that weights near
    the float maximum (three strata at 1e308) do not add up to infinity, which made every share 0.
    The one rule of every weighted mean and share of traffic."""
    top = max((w for w in weights.values() if w > 0), default=0.0)
    if not top > 0:
        return {}
    scaled = {k: w / top if w > 0 else 0.0 for k, w in weights.items()}
    total = sum(scaled.values())
    return {k: v / total for k, v in scaled.items()}


Direction = Literal["down", "up", "flat"]
"""Where a paired delta went: its 95% interval lies below 0, above 0, or spans it."""


def interval_direction(ci: tuple[float, float] | None) -> Direction:
    """`down` when the interval lies below 0, `up` when above, else (or with no interval) `flat`."""
    if ci is None:
        return "flat"
    return "down" if ci[1] < 0 else "up" if ci[0] > 0 else "flat"


class Diagnosis(StrEnum):
    """What the two tiles of a comparison say together (see `scoring.paired.diagnose`)."""

    STABLE = "stable"
    """Neither tile moved."""
    ORDERING = "ordering"
    """The headline falls, recall holds: the reranker or fusion."""
    UPSTREAM = "upstream"
    """Both fall: analyzer, chunking, ingestion changed."""
    EARLY_WARNING = "early_warning"
    """Recall falls, the headline holds: an upstream problem is coming."""
    IMPROVED = "improved"
    """Nothing fell, something rose."""
