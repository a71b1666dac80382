"""The domain: queries, documents, strata, the grade scale and judgment events.

Three states of a (query, document) pair are kept apart everywhere:

* **unlabeled**: no event, or the latest event cleared the label;
* **skipped**: the latest event is a skip/unsure (not a label, not relevant, not irrelevant);
* **graded**: the latest event gives a grade; grade 0 means *confirmed irrelevant*.

No IO, numpy or sqlite here.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

Identifier = Annotated[str, StringConstraints(min_length=1, max_length=1024, pattern=r"^[^\s\x00-\x1f\x7f]+$")]
"""Query and document ids: non-empty, no white space (TREC files are white-space separated)."""

DEFAULT_STRATUM = "default"
"""The stratum of a query that names none."""

LabelPolicy = Literal["median", "latest"]
"""How disagreeing assessors' grades resolve when no one adjudicated (see `resolution`)."""

QueueOrder = Literal["impact", "depth", "random"]
"""Orders of the judging queue (`qrelkit queue --order`, `qrelkit judge --order`)."""

ReportKind = Literal["score", "comparison"]
"""What a report saved in the store is: a score report or a comparison."""


Direction = Literal["down", "up", "flat"]
"""Where a paired delta went: its 95% interval lies below 0, above 0, or spans it."""


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


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class GradeLevel(_Model):
    """One level of the grade scale."""

    grade: int
    """The integer written in qrels files."""
    name: str
    """What assessors see, e.g. `relevant`."""


def _default_levels() -> list[GradeLevel]:
    names = ["irrelevant", "related", "relevant", "perfect"]
    return [GradeLevel(grade=i, name=n) for i, n in enumerate(names)]


class GradeScale(_Model):
    """The grades assessors may give, and the threshold that makes a grade relevant."""

    levels: list[GradeLevel] = Field(default_factory=_default_levels)
    """Consecutive integer grades starting at 0, lowest first."""
    relevance_threshold: int = 1
    """Binary metrics (P, R, RR, AP, ...) count a document relevant when its grade is >= this."""

    @model_validator(mode="after")
    def _check(self) -> GradeScale:
        grades = [level.grade for level in self.levels]
        if len(grades) < 2 or grades != list(range(len(grades))):
            raise ValueError("grade levels must be the consecutive integers 0, 1, ..., n (n >= 1)")
        if not 1 <= self.relevance_threshold <= grades[-1]:
            raise ValueError(f"relevance_threshold must lie in 1..{grades[-1]}")
        return self

    @classmethod
    def from_max(cls, max_grade: int, relevance_threshold: int = 1) -> GradeScale:
        """A scale 0..max_grade; levels are named by their number unless it is the 0-3 default."""
        if max_grade == 3:
            return cls(relevance_threshold=relevance_threshold)
        names = {0: "irrelevant"}
        levels = [GradeLevel(grade=g, name=names.get(g, f"grade {g}")) for g in range(max_grade + 1)]
        return cls(levels=levels, relevance_threshold=relevance_threshold)

    @property
    def max_grade(self) -> int:
        return self.levels[-1].grade

    def name_of(self, grade: int) -> str:
        return self.levels[grade].name if 0 <= grade <= self.max_grade else str(grade)


class Stratum(_Model):
    """A class of queries (navigational, how-to, ...) with the share of traffic it stands for."""

    name: Identifier
    weight: float = Field(ge=0.0)
    """Traffic weight; aggregates renormalise the weights over strata that have queries."""

    @field_validator("weight")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("weight must be a finite number")
        return v


class Query(_Model):
    """A golden-set query."""

    id: Identifier
    text: str
    stratum: Identifier = DEFAULT_STRATUM
    description: str | None = None
    """Assessor guidelines: what a relevant document must contain."""


class Document(_Model):
    """A document (or passage) that can be judged."""

    id: Identifier
    title: str = ""
    text: str = ""


class JudgmentState(StrEnum):
    """What one judgment event says about a pair."""

    GRADED = "graded"
    SKIPPED = "skipped"
    """Skip / unsure: recorded, but neither relevant nor irrelevant."""
    CLEARED = "cleared"
    """The assessor withdraws their judgment of the pair."""
    ADJUDICATED = "adjudicated"
    """The pair's final grade, settling a disagreement between assessors (overrides every vote)."""


class LabelState(StrEnum):
    """The current state of a pair, derived from its latest event."""

    UNLABELED = "unlabeled"
    SKIPPED = "skipped"
    GRADED = "graded"


def utcnow() -> datetime:
    return datetime.now(UTC)


class Judgment(_Model):
    """One event in the append-only judgment log."""

    query_id: Identifier
    doc_id: Identifier
    state: JudgmentState
    grade: int | None = None
    """Present exactly when `state` is `graded` or `adjudicated`."""
    assessor: str = Field(min_length=1)
    timestamp: datetime = Field(default_factory=utcnow)
    note: str | None = None
    seconds: float | None = Field(default=None, ge=0.0)
    """Time the assessor spent on the document before this event."""

    @model_validator(mode="after")
    def _grade_matches_state(self) -> Judgment:
        if self.state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) and self.grade is None:
            raise ValueError(f"a {self.state.value} judgment needs a grade")
        if self.state not in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) and self.grade is not None:
            raise ValueError(f"a {self.state.value} judgment carries no grade")
        if self.grade is not None and self.grade < 0:
            raise ValueError("grades are >= 0 (a negative qrels grade means pooled, not judged)")
        return self


class Label(_Model):
    """The current label of a graded pair."""

    query_id: Identifier
    doc_id: Identifier
    grade: int = Field(ge=0)


class PoolEntry(_Model):
    """A candidate pair waiting to be judged."""

    query_id: Identifier
    doc_id: Identifier
    source: str = ""
    """Where it came from: a run name, or the qrels file that marked it pooled-but-unjudged."""
    best_rank: int | None = None


class PoolResult(_Model):
    """What `qrelkit pool` did."""

    added: int
    """Pairs newly pooled."""
    updated: int
    """Pairs already pooled that another run or a better rank now also surfaced."""
    labeled: int
    """Retrieved pairs left out because they already carry a label or were skipped."""
    missing_documents: list[str]
    """Pooled or ranked document ids the store has no text for (pooled by id all the same)."""
    queries_not_in_runs: list[str]
    run_only_queries: list[str]


class QueryCoverage(_Model):
    query_id: str
    stratum: str
    retrieved: int
    """Documents the run returned in its top k."""
    labeled: int
    """Of those, documents with a current label (skipped and unlabeled ones are not)."""

    @property
    def holes(self) -> int:
        return self.retrieved - self.labeled


class RunCoverage(_Model):
    """How much of a run's top k the golden set has labeled (`qrelkit status --runs`)."""

    run: str
    k: int
    coverage: float | None
    """Mean over queries of labeled / retrieved in the top k (queries the run missed are left out)."""
    by_stratum: dict[str, float | None]
    queries: list[QueryCoverage]


QUEUE_ORDERS: tuple[QueueOrder, ...] = get_args(QueueOrder)


class QueueItem(_Model):
    """An unlabeled pooled pair in judging order."""

    query_id: Identifier
    doc_id: Identifier
    priority: float
    """Higher comes first: the impact (impact order), 1 / best rank (depth), 1 - position / N (random)."""
    best_rank: int | None = None
    source: str = ""
    """The runs (comma-separated) or file that pooled it."""


class ScoringProfile(_Model):
    """A consumer's view: which metrics, over which strata."""

    name: Identifier
    metrics: list[str] = Field(min_length=1)
    strata: list[str] | None = None
    """None: every stratum."""


class GoldenSetInfo(_Model):
    """Everything about a golden set that is not queries, documents or judgments."""

    name: Identifier = "golden"
    scale: GradeScale = Field(default_factory=GradeScale)
    strata: list[Stratum] = Field(default_factory=list)
    profiles: list[ScoringProfile] = Field(default_factory=list)
    label_policy: LabelPolicy = "median"
    """How disagreeing assessors' grades resolve when no one adjudicated (see `resolution`)."""


class StratumStatus(_Model):
    """Counts for one stratum in `qrelkit status`."""

    name: str
    weight: float | None
    """None: queries name this stratum but no weight was set."""
    queries: int
    labels: dict[str, int]
    """Grade (as text, JSON keys are strings) -> number of pairs whose current label is it."""
    skipped: int
    unlabeled_pool: int


class StoreStatus(_Model):
    """What `qrelkit status` reports."""

    name: str
    queries: int
    documents: int
    judgment_events: int
    labels: dict[str, int]
    skipped: int
    unlabeled_pool: int
    strata: list[StratumStatus]


# -- score reports ------------------------------------------------------------------------------


class GoldenFingerprint(_Model):
    """Which golden set the numbers were computed over."""

    name: str
    version: str | None
    """None for a working store that was not frozen."""
    content_hash: str


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
    no_relevant: int
    """Evaluated queries with no document at or above the relevance threshold."""


class Summary(_Model):
    """Aggregate of one metric over a set of queries (macro mean)."""

    n: int
    mean: float
    sd: float
    se: float
    ci95: tuple[float, float]
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
    stratum_weights: dict[str, float] = Field(default_factory=dict)
    """Traffic weights the weighted means used."""


# -- agreement --------------------------------------------------------------------------------


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
    notes: dict[str, str] = Field(default_factory=dict)
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

    @property
    def direction(self) -> Direction:
        """`down` ("falls") when the interval lies below 0, `up` ("rises") above it, else `flat`."""
        return "down" if self.ci95[1] < 0 else "up" if self.ci95[0] > 0 else "flat"


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


# -- frozen versions ----------------------------------------------------------------------------


class StratumCounts(_Model):
    queries: int
    labels: dict[str, int]
    """Grade (as text) -> labeled pairs."""
    skipped: int
    unlabeled: int
    """Pooled pairs with no label."""


class Manifest(_Model):
    """`manifest.json` of a frozen golden-set version."""

    format_version: int = 1
    name: Identifier
    version: Identifier
    parent_version: str | None = None
    created: datetime
    note: str | None = None
    scale: GradeScale
    strata: list[Stratum]
    profiles: list[ScoringProfile]
    label_policy: LabelPolicy = "median"
    """How disagreeing assessors' grades resolve in qrels.txt when no one adjudicated."""
    counts: dict[str, StratumCounts]
    """Stratum -> counts; the key `all` holds the totals."""
    files: dict[str, str]
    """File name -> `sha256:<hex>` of its bytes."""
    documents_sha256: str
    """Order-independent hash of the documents (see `versioning.documents_hash`)."""
    content_hash: str
    """Canonical hash of documents, queries, labels, strata, weights, scale and profiles."""


class VersionDiff(_Model):
    """What changed from one version to another (`qrelkit diff --format json`)."""

    from_version: str
    to_version: str
    content_changed: bool
    queries: dict[str, list[str]]
    """`added`, `removed`, `moved` (to another stratum): query ids."""
    labels: dict[str, Any]
    """`added`, `removed`: counts; `regraded`: {"OLD->NEW": count}; `regraded_by_stratum`."""
    strata: dict[str, dict[str, float | None]]
    """Stratum -> {"from": weight, "to": weight} for every added, removed or reweighted one."""
    profiles: dict[str, list[str]]
    """`added`, `removed`, `changed`: profile names."""
    coverage: dict[str, float | None]
    """`from`, `to`: labeled / (labeled + pooled-unlabeled) pairs."""


class DocState(_Model):
    """A document in a query's judging queue, with its current state."""

    doc_id: str
    state: LabelState
    grade: int | None = None
    assessor: str | None = None
    timestamp: str | None = None
    note: str | None = None
    votes: dict[str, int] = Field(default_factory=dict)
    """Assessor -> grade when several assessors graded the pair."""
    adjudicated: bool = False
    blind: bool = False
    """Others' grades are hidden until this assessor has judged (overlap assignments)."""
    shared: bool = False
    """Assigned to several assessors (`qrelkit assign --overlap`)."""


class QueryProgress(_Model):
    """Judging progress of one query."""

    query_id: str
    stratum: str
    text: str
    labeled: int
    skipped: int
    unlabeled: int
    """Pooled documents with no label (skipped ones not included)."""

    @property
    def total(self) -> int:
        return self.labeled + self.skipped + self.unlabeled


def default_assessor(environ: dict[str, str], login: str | None) -> str:
    """`$QRELKIT_ASSESSOR`, else the login name, else "unknown"."""
    return environ.get("QRELKIT_ASSESSOR") or login or "unknown"
