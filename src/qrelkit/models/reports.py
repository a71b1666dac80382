"""Score reports, agreement and comparisons: what `score`, `agreement` and `compare` write."""

from __future__ import annotations

import dataclasses
import math
from typing import Annotated, cast, overload

from pydantic import BeforeValidator, Field, PlainSerializer, WithJsonSchema

from . import plain
from .domain import Weight, _Model
from .judging import PairNote
from .machine import LabelSet
from .vocabulary import Diagnosis, Direction, interval_direction

# -- score reports ------------------------------------------------------------------------------


def _nan_to_null(x: float) -> float | None:
    return None if math.isnan(x) else x


def _null_to_nan(x: object) -> object:
    return math.nan if x is None else x


MeanFloat = Annotated[
    float,
    BeforeValidator(_null_to_nan),
    PlainSerializer(_nan_to_null, return_type=float | None, when_used="json"),
    WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "null"}]}),
]
"""A statistic over queries: NaN in Python (as ir_measures gives for no query), null in JSON,
`n/a` in tables, when there is no query to take it over."""


class GoldenFingerprint(_Model):
    """Which golden set the numbers were computed over."""

    name: str
    version: str | None
    """None for a working store that was not frozen."""
    content_hash: str
    labels: LabelSet = Field(default="human", exclude_if=lambda v: v == "human")
    """Which labels the numbers were computed with (`--labels`); left out of the JSON when human."""
    machine_assessor: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Whose machine labels (`lexical`, `llm:MODEL`), when they were used."""


class FileFingerprint(_Model):
    name: str
    sha256: str


class Fingerprint(_Model):
    """Everything that must match for two score reports to be comparable."""

    golden: GoldenFingerprint | None = None
    qrels: FileFingerprint | None = None
    run: FileFingerprint
    metrics: list[str]
    relevance_threshold: int
    max_grade: int
    tie_policy: str = "score desc, then doc id desc (byte order); rank column ignored"
    query_policy: str = "golden-set queries; missing from run = 0; run-only ignored"
    qrelkit_version: str


class QueryCounts(_Model):
    evaluated: int
    missing_from_run: int
    run_only: int
    """Run queries that are not in the golden set (ignored)."""
    no_relevant: int
    """Evaluated queries with no document at or above the relevance threshold."""
    outside_profile: int = 0
    """Run queries of the golden set left out because the scoring profile names other strata."""
    unlabeled: int = 0
    """Golden-set queries with no label of any grade (none in the qrels): left out of `evaluated`
    and of every mean, as trec_eval leaves out queries its qrels lack; with `unlabeled_kept`
    (`--keep-unlabeled-queries`), evaluated and scored 0 instead."""
    unlabeled_kept: bool = False
    """True: the `unlabeled` queries are among the evaluated ones, each scored 0."""


class Summary(_Model):
    """Aggregate of one metric over a set of queries (macro mean)."""

    n: int
    mean: MeanFloat
    """NaN (null in JSON) over zero queries."""
    sd: MeanFloat
    se: MeanFloat
    ci95: tuple[MeanFloat, MeanFloat]
    coverage: float | None
    """Mean judged coverage of the metric's window over queries that retrieved anything."""
    bounds: tuple[float, float] | None
    """Mean of the per-query lower and upper bounds (null when computed with --no-bounds)."""
    exact: bool
    """False when some per-query bounds are a sound outer interval."""


class MetricReport(Summary):
    weighted_mean: float | None
    """Sum over strata of traffic weight x stratum mean, weights renormalised over strata with queries."""
    by_stratum: dict[str, Summary]


class QueryScore(_Model):
    value: float
    coverage: float | None
    bounds: tuple[float, float] | None
    exact: bool = True
    """False when `bounds` is a sound outer interval rather than the exact extremes."""


class ScoreReport(_Model):
    """What `qrelkit score --format json` writes for one run."""

    fingerprint: Fingerprint
    aggregation: str = "macro mean over evaluated queries"
    queries: QueryCounts
    strata_without_queries: list[str] = Field(default_factory=list)
    metrics: dict[str, MetricReport]
    per_query: dict[str, dict[str, QueryScore]] | None = None
    query_strata: dict[str, str] | None = None
    """Query -> stratum, with `per_query` (a later comparison reports per-stratum deltas)."""
    stratum_weights: dict[str, Weight] = Field(default_factory=dict)
    """Traffic weights the weighted means used."""
    run_read_as: str | None = None
    """How the run file was read when its lines hold no scores: `read as MS MARCO ranks (qid pid
    rank)` (ranked by rank, rank 1 first); null for scores."""
    missing_from_run: list[str] | None = None
    """With `per_query`: the evaluated queries the run has no document for (each scored 0)."""
    unlabeled_queries: list[str] | None = None
    """With `per_query`: the golden-set queries with no label (left out, or scored 0 in
    `per_query` when `queries.unlabeled_kept`)."""


class ScoreReports(_Model):
    """What `qrelkit score --format json` writes: one report per run scored, one run or several."""

    reports: list[ScoreReport]


# -- agreement --------------------------------------------------------------------------------


MIN_AGREEMENT_PAIRS = 2
"""Alpha and kappa over fewer pairs (with two graded votes) than this are not reported (null): one
pair graded 1 and 2 gives 0.000, a number that says nothing (one unit estimates no chance agreement)."""


class AgreementStats(_Model):
    """Inter-assessor agreement over pairs with two or more graded votes."""

    n_pairs: int
    """Pairs with at least two graded votes (the units)."""
    skipped: int
    """Skip / unsure votes left out (on any pair)."""
    raw_agreement: float | None
    """Share of assessor pairs, over all units, that gave the same grade."""
    alpha_ordinal: float | None
    """Krippendorff's alpha, ordinal metric (null when the grades never vary)."""
    kappa_linear: dict[str, float | None]
    """`A|B` (names sorted) -> Cohen's kappa with linear weights over the pairs both graded."""


class Disagreement(_Model):
    """A pair whose assessors' latest grades differ and that no one adjudicated yet."""

    query_id: str
    doc_id: str
    votes: dict[str, int]
    """Assessor -> grade."""
    notes: list[PairNote] = Field(default_factory=list)
    """Every assessor's note on the pair, in order (`workflows.pairs.notes_by_pair`)."""
    evidence: dict[str, str] = Field(default_factory=dict)
    """Assessor -> the passage they marked as the evidence for their vote (none: left out)."""
    distance: int
    """Highest grade minus lowest."""
    priority: float
    """Distance x the pair's queue impact (the distance alone when no runs were pooled)."""


class AgreementReport(_Model):
    """What `qrelkit agreement --format json` writes."""

    overall: AgreementStats
    by_stratum: dict[str, AgreementStats]


# -- comparisons ------------------------------------------------------------------------------


class StratumDelta(_Model):
    n: int
    delta: float
    """Mean of candidate - baseline over the stratum's queries."""
    ci95: tuple[float, float] | None = None
    """Bootstrap interval over the stratum's queries alone (wide for a small stratum)."""
    wins: int
    losses: int
    coverage_a: float | None = None
    """Mean coverage of the baseline over the stratum's queries."""
    coverage_b: float | None = None

    @property
    def direction(self) -> Direction:
        return interval_direction(self.ci95)


class MetricComparison(_Model):
    """One metric, baseline (A) against candidate (B), paired over the same queries."""

    n: int
    mean_a: float
    mean_b: float
    delta: float
    """mean(B - A)."""
    ci95: tuple[float, float]
    """Paired bootstrap percentile interval of the delta."""
    p_value: float
    """Two-sided paired randomization (sign-flip) test; exact when every sign pattern was enumerated."""
    p_exact: bool
    wins: int
    """Queries where B scores higher."""
    ties: int
    losses: int
    by_stratum: dict[str, StratumDelta]
    weighted_delta: float | None
    """Sum over strata of traffic weight x stratum delta, weights renormalised over strata with queries."""
    weighted_ci95: tuple[float, float] | None = None
    """Stratified bootstrap interval of the weighted delta (queries resampled within their stratum)."""
    coverage_a: float | None
    coverage_b: float | None
    delta_bounds: tuple[float, float] | None
    """The range unlabeled documents leave the delta in: [mean low_B - mean high_A, mean high_B - mean low_A]."""
    warning: str | None = None
    mde: float | None = None
    """Minimum detectable effect of a paired t-test (alpha 0.05, power 0.8) on these queries: a
    tile that holds with an MDE larger than the change that matters says "cannot tell", not "no change"."""

    @property
    def direction(self) -> Direction:
        """`down` ("falls") when the interval lies below 0, `up` ("rises") above it, else `flat`."""
        return interval_direction(self.ci95)


class Collision(_Model):
    """Two metrics with the same mean that still disagree query by query."""

    side: str
    """`A` or `B`."""
    metrics: tuple[str, str]
    mean: float
    queries_differ: int
    n: int


class Comparison(_Model):
    """What `qrelkit compare --format json` writes."""

    baseline: Fingerprint
    candidate: Fingerprint
    queries: int
    """Queries both sides were paired over."""
    mismatches: list[str] = Field(default_factory=list)
    """Comparability problems overridden with --allow-mismatch (empty otherwise)."""
    resamples: int
    seed: int
    headline: str
    recall: str
    diagnosis: Diagnosis
    diagnosis_text: str
    metrics: dict[str, MetricComparison]
    collisions: list[Collision] = Field(default_factory=list)
    per_query: dict[str, dict[str, tuple[float, float]]] = Field(default_factory=dict)
    """Metric -> query -> (A, B) values."""
    query_strata: dict[str, str] = Field(default_factory=dict)
    missing_a: list[str] = Field(default_factory=list)
    """Paired queries the baseline's run has no document for (scored 0 on that side)."""
    missing_b: list[str] = Field(default_factory=list)
    """Paired queries the candidate's run has no document for (scored 0 on that side)."""
    baseline_queries: QueryCounts | None = None
    """The baseline report's query counts (missing from the run, run-only, unlabeled)."""
    candidate_queries: QueryCounts | None = None


class SavedReport(_Model):
    """A report kept in the store (`score --save`, `compare --save`): exactly one of the two."""

    name: str
    created: str
    score: ScoreReport | None = None
    comparison: Comparison | None = None


# -- the plain twins of the score report (`plain`) ---------------------------------------------

TWINS: dict[type[_Model], type] = {
    GoldenFingerprint: plain.PlainGoldenFingerprint,
    FileFingerprint: plain.PlainFileFingerprint,
    Fingerprint: plain.PlainFingerprint,
    QueryCounts: plain.PlainQueryCounts,
    Summary: plain.PlainSummary,
    MetricReport: plain.PlainMetricReport,
    QueryScore: plain.PlainQueryScore,
    ScoreReport: plain.PlainScoreReport,
}
"""Each score report model -> its plain twin (the same fields, defaults and exclusions)."""


def to_model(report: plain.PlainScoreReport) -> ScoreReport:
    """A plain score report (what scoring builds) as the model, validated: what a comparison, a
    saved report and the store take. The one conversion this way."""
    return ScoreReport.model_validate(dataclasses.asdict(report))


@overload
def to_plain(model: ScoreReport) -> plain.PlainScoreReport: ...
@overload
def to_plain(model: Fingerprint) -> plain.PlainFingerprint: ...
def to_plain(model: ScoreReport | Fingerprint) -> plain.PlainScoreReport | plain.PlainFingerprint:
    """A score report model (one that was read), or its fingerprint, as plain data, which
    `render.score` draws. The one conversion this way."""
    return cast("plain.PlainScoreReport | plain.PlainFingerprint", _plain(model))


def _plain(value: object) -> object:
    if isinstance(value, _Model):
        twin = TWINS[type(value)]
        return twin(**{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(twin)})
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value
