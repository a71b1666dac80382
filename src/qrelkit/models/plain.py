"""A score report as plain data: what scoring builds and `score` renders and writes, with no
pydantic (issue 31: importing pydantic and building its model classes was about 85 ms of a small
`score`). Each class is the twin of the `reports` model of the same name without `Plain`: the
same fields, in the same order, with the same defaults and the same rules for what the JSON leaves
out (`EXCLUDED`); `tests/test_plain_reports.py` holds them equal. The `reports` models stay the one
published schema and the validator of every report that is read; `reports.to_model` and
`reports.to_plain` are the one conversion between the two."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

NOT_WRITTEN: dict[str, dict[str, object]] = {
    "PlainGoldenFingerprint": {"labels": "human", "machine_assessor": None},
}
"""Class -> field -> the value with which the JSON leaves the field out (the models' `exclude_if`)."""


@dataclass(frozen=True, kw_only=True)
class PlainGoldenFingerprint:
    name: str
    version: str | None
    content_hash: str
    labels: str = "human"
    machine_assessor: str | None = None


@dataclass(frozen=True, kw_only=True)
class PlainFileFingerprint:
    name: str
    sha256: str


@dataclass(frozen=True, kw_only=True)
class PlainFingerprint:
    golden: PlainGoldenFingerprint | None = None
    qrels: PlainFileFingerprint | None = None
    run: PlainFileFingerprint
    metrics: list[str]
    relevance_threshold: int
    max_grade: int
    tie_policy: str = "score desc, then doc id desc (byte order); rank column ignored"
    query_policy: str = "golden-set queries; missing from run = 0; run-only ignored"
    qrelkit_version: str


@dataclass(frozen=True, kw_only=True)
class PlainQueryCounts:
    evaluated: int
    missing_from_run: int
    run_only: int
    no_relevant: int
    outside_profile: int = 0
    unlabeled: int = 0
    unlabeled_kept: bool = False


@dataclass(frozen=True, kw_only=True)
class PlainSummary:
    n: int
    mean: float
    """NaN over zero queries (null in JSON)."""
    sd: float
    se: float
    ci95: tuple[float, float]
    coverage: float | None
    bounds: tuple[float, float] | None
    exact: bool


@dataclass(frozen=True, kw_only=True)
class PlainMetricReport(PlainSummary):
    weighted_mean: float | None
    by_stratum: dict[str, PlainSummary]


@dataclass(frozen=True, kw_only=True)
class PlainQueryScore:
    value: float
    coverage: float | None
    bounds: tuple[float, float] | None
    exact: bool = True


@dataclass(frozen=True, kw_only=True)
class PlainScoreReport:
    fingerprint: PlainFingerprint
    aggregation: str = "macro mean over evaluated queries"
    queries: PlainQueryCounts
    strata_without_queries: list[str] = field(default_factory=list)
    metrics: dict[str, PlainMetricReport]
    per_query: dict[str, dict[str, PlainQueryScore]] | None = None
    query_strata: dict[str, str] | None = None
    stratum_weights: dict[str, float] = field(default_factory=dict)
    run_read_as: str | None = None
    missing_from_run: list[str] | None = None
    unlabeled_queries: list[str] | None = None


PLAIN_CLASSES = (
    PlainGoldenFingerprint,
    PlainFileFingerprint,
    PlainFingerprint,
    PlainQueryCounts,
    PlainSummary,
    PlainMetricReport,
    PlainQueryScore,
    PlainScoreReport,
)


def json_data(value: Any) -> Any:
    """`value` (a plain report, or what it holds) as JSON data: dicts in field order, the fields
    `NOT_WRITTEN` names left out at their value, tuples as lists, floats as floats (NaN and the
    infinities as None, as pydantic writes them), what `formats.json_text.dumps` writes as pydantic's
    `model_dump_json` of the twin model would."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        skip = NOT_WRITTEN.get(type(value).__name__, {})
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name in skip and v == skip[f.name]:
                continue
            out[f.name] = json_data(_as_declared(v, f.type))
        return out
    if isinstance(value, dict):
        return {k: json_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_data(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _as_declared(value: Any, declared: object) -> Any:
    """An int where the field declares a float, as a float (pydantic's lax mode makes it one, and
    writes `1.0`, not `1`), in a float field, a pair of floats or a dict of floats."""
    kind = str(declared)
    if isinstance(value, bool) or "float" not in kind:
        return value
    if isinstance(value, int) and kind.startswith("float"):
        return float(value)
    if isinstance(value, tuple) and kind.startswith("tuple[float"):
        return tuple(float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value)
    if isinstance(value, dict) and kind == "dict[str, float]":
        return {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in value.items()}
    return value
