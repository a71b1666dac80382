"""Calibration of a machine assessor against the humans (`qrelkit calibrate`): how its labels
agree with the resolved human labels, how consistent it is with itself, and what its labels do to
the ranking of runs. A report, never a label: nothing here changes what any score uses.
"""

from __future__ import annotations

from pydantic import Field

from .domain import _Model


class GradeRow(_Model):
    """The pairs one human grade holds, and what the machine said of them."""

    grade: int
    pairs: int
    agree: int
    """The machine gave the same grade."""
    over: int
    """The machine gave a higher grade."""
    under: int
    """The machine gave a lower grade."""
    agree_rate: float | None
    over_rate: float | None
    under_rate: float | None


class AgreementFigures(_Model):
    """Machine against human labels over one slice of the pairs (every pair, or one stratum's).

    `pairs` counts the pairs both graded: a human label (resolved) and the machine's latest row
    parsed (`ok`). The other pairs are counted apart, never as a grade: a human skip the machine
    labeled, a human label whose machine row did not parse (by parse status), a human label the
    machine never answered, a machine grade on a pair no human labeled."""

    pairs: int
    kappa_linear: float | None
    """Cohen's kappa, linear weights |i - j| over the scale's grades; None when undefined (no
    pair, or chance disagreement 0: both sides gave one and the same grade throughout)."""
    kappa_quadratic: float | None
    """Cohen's kappa, quadratic weights (i - j)^2; None when undefined."""
    alpha_ordinal: float | None
    """Krippendorff's alpha, ordinal metric, the two sides as two coders; None when undefined."""
    exact_agreement: float | None
    """Share of the pairs given the same grade."""
    over_rate: float | None
    """Share of the pairs the machine graded above the humans."""
    under_rate: float | None
    """Share of the pairs the machine graded below the humans."""
    confusion: list[list[int]]
    """[human grade][machine grade]: pairs, over the scale's grades 0..max."""
    by_grade: list[GradeRow]
    """One row per human grade of the scale."""
    human_skipped: int
    """Pairs humans skipped that the machine graded (not a grade on the human side)."""
    machine_not_ok: dict[str, int] = Field(default_factory=dict)
    """Human-labeled pairs whose machine row did not parse: parse status -> pairs."""
    machine_missing: int = 0
    """Human-labeled pairs the machine has no row of."""
    machine_only: int = 0
    """Pairs the machine graded that no human labeled nor skipped."""


class Consistency(_Model):
    """Self-consistency: over each pair's latest `samples` parsed rows, the pairs that hold two
    or more, and of those the ones whose grades are not all the same."""

    samples: int
    pairs: int
    """Pairs with 2 or more parsed rows among their latest `samples`."""
    flipped: int
    flip_rate: float | None
    """flipped / pairs; None when no pair was asked twice."""
    deterministic: bool
    """The judge gives the same answer to the same question by construction (the lexical
    judge): its flip rate is 0 whatever is asked."""


class RunCalibration(_Model):
    """One run scored with human and with machine labels over the same queries."""

    run: str
    human: float
    machine: float
    inflation: float
    """machine - human."""
    relative: float | None
    """This run's inflation minus the mean inflation of every run (per query, then averaged)."""
    relative_se: float | None
    """Standard error of `relative` over the queries."""
    favoured: bool
    """`relative` is more than 2 standard errors above 0: the machine's labels favour this run."""
    human_rank: int
    machine_rank: int


class RankingFigures(_Model):
    """What machine labels do to the ranking of the runs given (`--runs`)."""

    metric: str
    queries: int
    """Queries both label sets score, over which every figure is computed."""
    runs: list[RunCalibration]
    """Sorted by the human score, best first."""
    tau: float | None
    """Kendall's tau-b between the two rankings; None with fewer than 2 runs or a constant side."""
    top_k: int
    tau_top: float | None
    """Kendall's tau-b among the top k runs by human score."""
    alpha: float
    resamples: int
    significant_pairs: int
    """Run pairs the paired randomization test (`compare`'s, uncorrected) finds different at
    `alpha` under human labels."""
    stayed: int
    """Of those, the ones still different, the same way round, under machine labels."""
    reversed: int
    """Of those, the ones different the other way round under machine labels."""
    stay_share: float | None
    """stayed / significant_pairs; None when no pair is significant under human labels."""
    machine_only_significant: int
    """Run pairs different under machine labels only."""


class CalibrationReport(_Model):
    """What `qrelkit calibrate --format json` writes."""

    machine_assessor: str
    max_grade: int
    overall: AgreementFigures
    by_stratum: dict[str, AgreementFigures]
    consistency: Consistency
    ranking: RankingFigures | None = None
    """With `--runs` only."""
