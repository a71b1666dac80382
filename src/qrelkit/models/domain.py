"""The domain: queries, documents, strata, the grade scale, judgment events, labels, the pool
and the store's settings and counts. No IO, numpy or sqlite here."""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    Strict,
    StrictInt,
    StringConstraints,
    field_validator,
    model_validator,
)

from ..errors import InputError, UsageError
from .vocabulary import DEFAULT_STRATUM, GRADE_TOP, STORE_MAX_GRADE

_NOT_ID = r"\s\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069"
_ID_PATTERN = rf"^[^{_NOT_ID}#][^{_NOT_ID}]*$"
Identifier = Annotated[str, StringConstraints(min_length=1, max_length=1024, pattern=_ID_PATTERN)]
"""Query and document ids: non-empty, no white space (TREC files are white-space separated) or
control character (C0, DEL, C1, the invisible direction controls), not starting with `#` (a TREC
line starting with `#` is a comment: the id would vanish on export)."""

_ID = re.compile(_ID_PATTERN)


def is_identifier(text: str) -> bool:
    """Whether `text` is a valid `Identifier` (names of golden sets and versions follow it too)."""
    return 0 < len(text) <= 1024 and _ID.fullmatch(text) is not None


_MACHINE_NAME = re.compile(r"lexical|llm:.*", re.DOTALL)
"""The names kept for machine assessors (`models.machine`: `lexical`, `llm:MODEL`)."""
MACHINE_NAME_RULE = "'lexical' and names starting with 'llm:' are kept for machine assessors (qrelkit assess)"


def _person(name: str) -> str:
    if _MACHINE_NAME.fullmatch(name):
        raise ValueError(f"{name!r:.60} is a machine assessor's name: {MACHINE_NAME_RULE}")
    return name


Assessor = Annotated[Identifier, AfterValidator(_person)]
"""An assessor's name follows the id rule: it is shown in tables, kept in exports and frozen
versions, compared in assignments and agreement, so it must read as what it is. A person's name
is never a machine assessor's (`lexical`, `llm:...`): a human vote cannot pass for a machine's."""
ASSESSOR_RULE = (
    "an assessor name is one word of at most 1,024 characters: no white space or control characters, "
    "not starting with '#', and not 'lexical' or 'llm:...' (machine assessors' names)"
)


AssessorKind = Literal["human", "machine"]
"""Who made a judgment: a person, or a program (an LLM judge, a classifier)."""


def assessor_kind(assessor: str) -> AssessorKind:
    """What kind of assessor made an event of the judgment log: always a person (the judging
    screen, imported judgments and qrels). Machine labels (`qrelkit assess`) are never events of
    the log: they live apart (`storage.machine`, `models.machine`), and an export that reports an
    assessor kind marks a machine label `machine` from that table, never from here (`export hub`'s
    `labels` config: the pairs a machine-label version's grade is a machine's). The one place
    that says so."""
    del assessor
    return "human"


def check_assessor(name: str, given_as: str) -> str:
    """`name`, if it is an assessor name (`Assessor`); else a `UsageError` naming where it came
    from (`given_as`: `--assessor`, `$QRELKIT_ASSESSOR`, ...). The one check of every name given
    outside a file (a file's are its lines' `assessor` fields, checked as `Judgment.assessor`)."""
    if not is_identifier(name) or _MACHINE_NAME.fullmatch(name):
        raise UsageError(f"{given_as} {name!r:.60} is not an assessor name", ASSESSOR_RULE)
    return name


LabelPolicy = Literal["median", "latest"]
"""How disagreeing assessors' grades resolve when no one adjudicated (see `resolution`)."""

QueueOrder = Literal["impact", "depth", "random", "mtf", "bandit", "rbp", "disagreement", "settle"]
"""Orders of the judging queue (`qrelkit queue --order`, `qrelkit judge --order`); each is declared,
with its source, in `scoring.orders.ORDERS` (`disagreement`, which reads the machine assessors'
labels, is computed by `workflows.disagreement_order`)."""

ReportKind = Literal["score", "comparison"]
"""What a report saved in the store is: a score report or a comparison."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


LEVEL_NAME_MAX, DEFINITION_MAX = 40, 2000
"""The longest level name (it sits beside its key on the judging screen) and grade definition."""


def _level_name(v: str) -> str:
    if not v.strip() or ":" in v or any(unicodedata.category(c)[0] == "C" for c in v):
        raise ValueError("a level name is non-empty, without ':' or control characters")
    return v


def _definition(v: str | None) -> str | None:
    if v is not None and (not v.strip() or any(unicodedata.category(c) == "Cc" for c in v)):
        raise ValueError("a grade definition is non-empty text without control characters")
    return v


class GradeLevel(_Model):
    """One level of the grade scale."""

    grade: int
    """The integer written in qrels files."""
    name: Annotated[str, StringConstraints(max_length=LEVEL_NAME_MAX), AfterValidator(_level_name)]
    """What assessors see, e.g. `relevant`."""
    definition: Annotated[str | None, StringConstraints(max_length=DEFINITION_MAX), AfterValidator(_definition)] = (
        Field(default=None, exclude_if=lambda v: v is None)
    )
    """The rubric: when a document earns this grade (shown on the judging screen's `G`); left out
    of the JSON when not given."""


def _default_levels() -> list[GradeLevel]:
    names = ["irrelevant", "related", "relevant", "perfect"]
    return [GradeLevel(grade=i, name=n) for i, n in enumerate(names)]


def _grade_name(grade: int) -> str:
    return "irrelevant" if grade == 0 else f"grade {grade}"


class GradeScale(_Model):
    """The grades assessors may give, and the threshold that makes a grade relevant."""

    levels: list[GradeLevel] = Field(default_factory=_default_levels)
    """The named grades: consecutive integers starting at 0, lowest first."""
    relevance_threshold: int = 1
    """Binary metrics (P, R, RR, AP, ...) count a document relevant when its grade is >= this."""
    top: int | None = Field(default=None, exclude_if=lambda v: v is None)
    """The highest grade, when it lies above the last named level (the grades between are named
    `grade G`): a scale of a qrels file's grades up to 2^31 - 1 holds no object per grade. Left
    out of the JSON when not given."""

    @model_validator(mode="after")
    def _check(self) -> GradeScale:
        grades = [level.grade for level in self.levels]
        if not grades or grades != list(range(len(grades))) or (len(grades) < 2 and self.top is None):
            raise ValueError("grade levels must be the consecutive integers 0, 1, ..., n (n >= 1)")
        if self.top is not None and not grades[-1] < self.top <= GRADE_TOP:
            raise ValueError(f"top must lie above the named levels, up to {GRADE_TOP}")
        if not 1 <= self.relevance_threshold <= self.max_grade:
            raise ValueError(f"relevance_threshold must lie in 1..{self.max_grade}")
        return self

    @classmethod
    def from_max(cls, max_grade: int, relevance_threshold: int = 1) -> GradeScale:
        """A scale 0..max_grade; levels are named by their number unless it is the 0-3 default.
        Above `STORE_MAX_GRADE` only grade 0 is a named level (`top` holds the rest)."""
        if max_grade == 3:
            return cls(relevance_threshold=relevance_threshold)
        if max_grade > STORE_MAX_GRADE:
            return cls(levels=[GradeLevel(grade=0, name=_grade_name(0))], top=max_grade,
                       relevance_threshold=relevance_threshold)  # fmt: skip
        levels = [GradeLevel(grade=g, name=_grade_name(g)) for g in range(max_grade + 1)]
        return cls(levels=levels, relevance_threshold=relevance_threshold)

    def every_level(self) -> list[GradeLevel]:
        """One level per grade 0..max_grade, the unnamed ones named `grade G` (a store's scale:
        at most `STORE_MAX_GRADE` + 1 of them; a larger scale is refused here)."""
        if self.max_grade > STORE_MAX_GRADE:
            raise ValueError(f"a scale up to {self.max_grade} has too many grades to list")
        named = len(self.levels)
        return [*self.levels, *(GradeLevel(grade=g, name=_grade_name(g)) for g in range(named, self.max_grade + 1))]

    @property
    def max_grade(self) -> int:
        return self.top if self.top is not None else self.levels[-1].grade

    def name_of(self, grade: int) -> str:
        if 0 <= grade < len(self.levels):
            return self.levels[grade].name
        return _grade_name(grade) if 0 <= grade <= self.max_grade else str(grade)

    def refuse_above(self, grade: int | None, *, path: str | None = None, line: int | None = None) -> None:
        """The one check of a grade against the scale's top, for every judgment, import and record:
        an `InputError` naming where (`path`, `line`) and how to widen the scale."""
        if grade is not None and grade > self.max_grade:
            raise InputError(
                f"grade {grade} is above the scale's highest grade {self.max_grade}",
                f"widen the scale with `qrelkit init --max-grade {grade}`, or fix the grade",
                path=path,
                line=line,
            )


ALL = "all"
"""What tables and reports call the totals over every stratum: no stratum may be named so."""


def not_all(stratum: str) -> str:
    if stratum == ALL:
        raise ValueError(f"{ALL!r} names the totals over every stratum; give the stratum another name")
    return stratum


def _finite_weight(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError("weight must be a finite number")
    return v + 0.0  # -0.0 is 0


Weight = Annotated[float, Field(ge=0.0), AfterValidator(_finite_weight)]
"""A stratum's traffic weight: a finite number >= 0, wherever one is read (`strata set`, a
manifest, a saved report)."""


class Stratum(_Model):
    """A class of queries (navigational, how-to, ...) with the share of traffic it stands for."""

    name: Identifier
    weight: Weight
    """Traffic weight; aggregates renormalise the weights over strata that have queries."""

    @field_validator("name")
    @classmethod
    def _not_all(cls, v: str) -> str:
        return not_all(v)


class Query(_Model):
    """A golden-set query."""

    id: Identifier
    text: str
    stratum: Identifier = DEFAULT_STRATUM
    description: str | None = None
    """Assessor guidelines: what a relevant document must contain."""

    @field_validator("stratum")
    @classmethod
    def _stratum_not_all(cls, v: str) -> str:
        return not_all(v)


class Document(_Model):
    """A document (or passage) that can be judged."""

    id: Identifier
    title: str = ""
    text: str = ""
    metadata: dict[str, JsonValue] | None = None
    """Any other fields the document's line carried (`url`, a BEIR `metadata` object, ...), kept
    as given and round-tripping through the store and frozen versions; None: none."""


class JudgmentState(StrEnum):
    """What one judgment event says about a pair."""

    GRADED = "graded"
    SKIPPED = "skipped"
    """Skip / unsure: recorded, but neither relevant nor irrelevant."""
    RETRACTED = "retracted"
    """The assessor withdraws their own vote on the pair; the other assessors' votes stand."""
    CLEARED = "cleared"
    """The pair is reset for everyone: the votes and adjudications before it stop counting. An
    adjudication action (`judge --adjudicate`), recorded with who did it."""
    ADJUDICATED = "adjudicated"
    """The pair's final grade, settling a disagreement between assessors (overrides every vote)."""
    NOTED = "noted"
    """A note on the pair (in `note`), by its author: it changes no vote and no label."""


class LabelState(StrEnum):
    """The current state of a pair, derived from its latest event."""

    UNLABELED = "unlabeled"
    SKIPPED = "skipped"
    GRADED = "graded"


def utcnow() -> datetime:
    return datetime.now(UTC)


TIMESTAMP_FORM = (
    "an ISO 8601 date and time with its time zone, such as 2026-01-31T12:00:00Z or 2026-01-31T12:00:00+00:00"
)
"""How a time stamp is written in every file qrelkit reads (what `TIMESTAMP` takes)."""
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
"""A full date and time, to the second (a fraction to the microsecond), and its zone: anything
less (a year, a date, a time without its zone, a number of seconds since 1970, which pydantic
would read as one) says no single instant."""


class Judgment(_Model):
    """One event in the append-only judgment log. Read from a file, its fields are taken as
    written or refused: no number read as a time, no `true` or `2.0` as a grade, no text or
    infinity as seconds."""

    query_id: Identifier
    doc_id: Identifier
    state: JudgmentState
    grade: StrictInt | None = None
    """Present exactly when `state` is `graded` or `adjudicated`."""
    assessor: Assessor
    timestamp: datetime = Field(default_factory=utcnow)
    """When: a `datetime`, or text of the form `TIMESTAMP`."""
    note: str | None = None
    seconds: Annotated[float, Strict()] | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    """Time the assessor spent on the document before this event: a finite number of seconds."""
    evidence: str | None = None
    """The passage of the document the assessor marked as the evidence for this vote (`graded` or
    `skipped` events only; None: none marked)."""

    @field_validator("timestamp", mode="before")
    @classmethod
    def _full_time(cls, value: object) -> object:
        if isinstance(value, datetime) or (isinstance(value, str) and TIMESTAMP.fullmatch(value)):
            return value
        raise ValueError(f"must be {TIMESTAMP_FORM} (found {value!r:.40})")

    @model_validator(mode="after")
    def _grade_matches_state(self) -> Judgment:
        if self.state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) and self.grade is None:
            raise ValueError(f"a {self.state.value} judgment needs a grade")
        if self.state not in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) and self.grade is not None:
            raise ValueError(f"a {self.state.value} judgment carries no grade")
        if self.grade is not None and self.grade < 0:
            raise ValueError("grades are >= 0 (a negative qrels grade means pooled, not judged)")
        if self.state is JudgmentState.NOTED and not (self.note or "").strip():
            raise ValueError("a noted event needs its note")
        if self.evidence is not None and self.state not in (JudgmentState.GRADED, JudgmentState.SKIPPED):
            raise ValueError(f"a {self.state.value} judgment carries no evidence (only a vote, graded or skipped)")
        if self.evidence is not None and not self.evidence.strip():
            raise ValueError("an evidence passage is not empty (leave `evidence` out for none)")
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

    runs: list[str] = Field(default_factory=list)
    """The pooled runs' names."""
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
    """Higher comes first: the impact (impact order), 1 / best rank (depth), 1 - position / N (random),
    tier + impact share (disagreement: `workflows.disagreement_order`)."""
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


class Removal(_Model):
    """What one removal took out (counts) and the record it wrote."""

    kind: str
    name: str
    judged_pairs: int = 0
    """Pairs that held a vote or a skip, now cleared."""
    pooled: int = 0
    """Pooled (unlabeled) pairs dropped with it."""
