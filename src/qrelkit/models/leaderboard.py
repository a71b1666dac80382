"""Many runs at once: the leaderboard `qrelkit compare BASELINE RUN...` writes, and the
sensitivity report (`qrelkit sensitivity RUNS...`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .domain import _Model
from .reports import Comparison, Fingerprint, QueryCounts
from .vocabulary import Direction, interval_direction

Correction = Literal["holm", "bonferroni", "tukey", "none"]
"""How the p-values of several candidates are corrected: Holm or Bonferroni over the paired
randomization tests against the baseline (one family per metric), the randomized Tukey HSD over
every pair of runs (Carterette 2012), or not at all."""
CORRECTIONS: tuple[Correction, ...] = ("holm", "bonferroni", "tukey", "none")


class RunCell(_Model):
    """One run's value of one metric, and (for a candidate) its paired delta to the baseline."""

    mean: float | None
    """Macro mean over the queries the runs are compared on; None over zero queries."""
    ci95: tuple[float, float] | None = None
    """Student-t 95% interval of the mean."""
    coverage: float | None = None
    bounds: tuple[float, float] | None = None
    delta: float | None = None
    """mean(run - baseline); None for the baseline."""
    delta_ci95: tuple[float, float] | None = None
    """Paired bootstrap percentile interval of the delta."""
    delta_ci_gate: tuple[float, float] | None = None
    """The interval `--fail-if-worse` reads: under a correction, the simultaneous (Bonferroni)
    bootstrap interval at 1 - 0.05 / (number of candidates); without one, the 95% interval."""
    p_value: float | None = None
    """Two-sided paired randomization test against the baseline, uncorrected."""
    p_adjusted: float | None = None
    """The p-value under the chosen correction (Tukey: the HSD p of this run against the baseline)."""
    significant: bool = False
    """p_adjusted < alpha."""

    @property
    def direction(self) -> Direction | None:
        return interval_direction(self.delta_ci95) if self.delta_ci95 is not None else None


class LeaderboardRow(_Model):
    run: str
    fingerprint: Fingerprint
    baseline: bool = False
    cells: dict[str, RunCell]
    """Metric -> the run's cell."""
    missing_queries: list[str] = Field(default_factory=list)
    """Queries of the comparison this run's report has no value for (named, never paired)."""
    missing_from_run: list[str] = Field(default_factory=list)
    """Compared queries this run has no document for (scored 0, paired as 0)."""
    queries: QueryCounts | None = None
    """The run's report's query counts (missing from the run, run-only, unlabeled)."""
    path: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The run file `compare` scored, as an absolute path (`queue --leaderboard` reads it again and
    checks it against the fingerprint's sha256); left out for a saved report or standard input."""


class Sensitivity(_Model):
    """How well this golden set can tell runs apart on one metric (overall or in one stratum)."""

    metric: str
    stratum: str | None
    """None: over every query."""
    n: int
    sd: float | None
    """SD of the baseline's (the first run's) per-query values."""
    se: float | None
    """sd / sqrt(n)."""
    sd_diff: float | None
    """SD of the paired per-query differences with the baseline: the median over the candidates
    (one very different run does not set it)."""
    mde: float | None
    """Minimum detectable effect of a paired t-test at `alpha`, `power` on these n queries."""
    queries_needed: int | None = None
    """Queries needed to detect `delta` at `alpha`, `power` (with `--delta`)."""
    discriminative_power: float | None = None
    """Share of the run pairs found different at `alpha` (three or more runs; Sakai 2006)."""


class SensitivityReport(_Model):
    """What `qrelkit sensitivity --format json` writes (and what a leaderboard carries)."""

    runs: list[str]
    alpha: float = 0.05
    power: float = 0.8
    delta: float | None = None
    rows: list[Sensitivity]


class Leaderboard(_Model):
    """What `qrelkit compare BASELINE RUN RUN... --format json` writes."""

    baseline: str
    runs: list[str]
    """Every run, the baseline first."""
    metrics: list[str]
    queries: int
    """Queries the runs are compared on."""
    correction: Correction
    alpha: float = 0.05
    resamples: int
    seed: int
    headline: str
    recall: str
    rows: list[LeaderboardRow]
    tukey: dict[str, list[list[float]]] | None = None
    """Metric -> [i][j] randomized Tukey HSD p-value of runs i and j (in `runs` order)."""
    sensitivity: SensitivityReport | None = None
    best: str | None = None
    """The candidate with the highest headline mean."""
    best_comparison: Comparison | None = None
    """Baseline against the best candidate, paired (the two tiles)."""
    mismatches: list[str] = Field(default_factory=list)
