"""Frozen versions: the manifest, and what changed between two versions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AliasChoices, ConfigDict, Field, StrictInt, model_validator

from .domain import (
    GradeScale,
    Identifier,
    LabelPolicy,
    LabelState,
    ScoringProfile,
    Stratum,
    Weight,
    _Model,
)
from .machine import LabelSet, MachineAssessor

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
    """Canonical hash of documents, queries, labels, strata, weights, scale and profiles (and of
    the label set, when it is not human)."""
    labels: LabelSet = Field(default="human", exclude_if=lambda v: v == "human")
    """Which labels qrels.txt holds (`freeze --labels`); left out of the manifest when human."""
    machine_assessor: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Whose machine labels qrels.txt holds, when it holds any."""


class QueryChanges(_Model):
    """Query ids added, removed, moved to another stratum, and with another text or guidelines."""

    added: list[str]
    removed: list[str]
    moved: list[str]
    text_changed: list[str] = Field(default_factory=list)
    guidelines_changed: list[str] = Field(default_factory=list)
    """The description (assessor guidelines) changed, was added or was removed."""


class DocumentChanges(_Model):
    """Document ids added, removed, and with another title or text."""

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)


class LabelChange(_Model):
    """One labeled pair that changed: its grade before and after (null: no label there)."""

    query_id: str
    doc_id: str
    from_grade: int | None
    to_grade: int | None


class LabelChanges(_Model):
    """Labeled pairs added and removed (counts), and regrades as {"OLD->NEW": count}."""

    added: int
    removed: int
    regraded: dict[str, int]
    regraded_by_stratum: dict[str, dict[str, int]]
    """Stratum (in the newer version) -> {"OLD->NEW": count}."""
    changes: list[LabelChange] = Field(default_factory=list)
    """Every pair added, removed or regraded, by (query, doc)."""


class WeightChange(_Model):
    """A stratum's traffic weight before and after (null where the stratum does not exist);
    written as `{"from": ..., "to": ...}`."""

    model_config = ConfigDict(serialize_by_alias=True)

    from_weight: float | None = Field(serialization_alias="from", validation_alias=AliasChoices("from", "from_weight"))
    to_weight: float | None = Field(serialization_alias="to", validation_alias=AliasChoices("to", "to_weight"))


class ProfileChanges(_Model):
    """Scoring profile names added, removed, and changed."""

    added: list[str]
    removed: list[str]
    changed: list[str]


class CoverageChange(_Model):
    """Pool coverage, labeled / (labeled + pooled-unlabeled) pairs, before and after (null for an
    empty pool); written as `{"from": ..., "to": ...}`."""

    model_config = ConfigDict(serialize_by_alias=True)

    from_coverage: float | None = Field(
        serialization_alias="from", validation_alias=AliasChoices("from", "from_coverage")
    )
    to_coverage: float | None = Field(serialization_alias="to", validation_alias=AliasChoices("to", "to_coverage"))


class VersionDiff(_Model):
    """What changed from one version to another (`qrelkit diff --format json`)."""

    from_version: str
    to_version: str
    same_golden_set: bool = True
    """Whether both are versions of one golden set (the same name): a diff of two different sets
    says so first, since most of what differs is then no change at all."""
    content_changed: bool
    queries: QueryChanges
    documents: DocumentChanges = Field(default_factory=lambda: DocumentChanges())
    labels: LabelChanges
    strata: dict[str, WeightChange]
    """Stratum -> its weights, for every added, removed or reweighted one."""
    profiles: ProfileChanges
    coverage: CoverageChange


# -- Hugging Face dataset folders (`export hub`, `import hub`) --------------------------------------

HUB_FORMAT: Literal["qrelkit-hub"] = "qrelkit-hub"
"""What `qrelkit.json` says it is (its `format`)."""


class HubInfo(_Model):
    """`qrelkit.json` of a Hugging Face dataset folder written by `qrelkit export hub`: what the
    dataset's configs cannot hold (the scale, every stratum's weight, the profiles, the label
    policy), so that `qrelkit import hub` brings the golden set back with its content hash."""

    format: Literal["qrelkit-hub"] = HUB_FORMAT
    format_version: Literal[1] = 1
    name: Identifier
    version: Identifier
    parent_version: str | None = None
    created: datetime
    """When the version was frozen (not when it was exported: an export is reproducible)."""
    note: str | None = None
    content_hash: str
    """The frozen version's content hash: an import that brings back the same content has it too."""
    scale: GradeScale
    strata: list[Stratum]
    profiles: list[ScoringProfile]
    label_policy: LabelPolicy
    counts: dict[str, StratumCounts]
    data_format: Literal["jsonl", "parquet"]
    splits: dict[str, str | None]
    """Qrels split (of the `default` config) -> the stratum whose labels it holds; null: every label."""
    labels: LabelSet = Field(default="human", exclude_if=lambda v: v == "human")
    """Which labels the version holds (`freeze --labels`); left out when human."""
    machine_assessor: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Whose machine labels it holds, when it holds any (their provenance: `machine_labels.jsonl`)."""


class HubLabel(_Model):
    """One row of the `labels` config: a (query, document) pair of the version, labeled, skipped
    or pooled but not judged, with what the qrels config cannot say about it."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)

    query_id: Identifier = Field(alias="query-id")
    doc_id: Identifier = Field(alias="corpus-id")
    state: LabelState
    """graded, skipped (unsure: neither relevant nor irrelevant) or unlabeled (pooled, not judged)."""
    grade: Annotated[StrictInt, Field(ge=0)] | None = None
    """The label: present exactly when `state` is graded (grade 0: judged irrelevant)."""
    stratum: Identifier
    weight: Weight | None = None
    """The stratum's traffic weight (null: the stratum has none)."""
    assessor_kind: Literal["human", "machine", "mixed"] | None = None
    """Who judged it: `human` (each assessor whose vote counts is a person), `machine` (its grade
    is a machine assessor's label, `machine_assessor`); null: nobody."""
    assessors: Annotated[StrictInt, Field(ge=0)] = 0
    """How many assessors' votes count for the pair (an adjudication counts its adjudicator; a
    machine label counts its machine assessor)."""
    machine_assessor: MachineAssessor | None = None
    """The machine assessor whose label the grade is (`lexical`, `llm:MODEL`), for a machine row."""
    pooled_by: str | None = None
    """An unlabeled pair's pool source: the runs that surfaced it, or the file that pooled it."""
    best_rank: StrictInt | None = None

    @model_validator(mode="after")
    def _grade_matches_state(self) -> HubLabel:
        if (self.state is LabelState.GRADED) != (self.grade is not None):
            raise ValueError("a graded pair has a grade, a skipped or unlabeled one has none")
        if (self.assessor_kind == "machine") != (self.machine_assessor is not None):
            raise ValueError("a machine row names its machine assessor, and only a machine row does")
        if self.assessor_kind == "machine" and self.state is not LabelState.GRADED:
            raise ValueError("a machine row is a graded pair (a machine label is a grade)")
        return self
