"""The public entry point: `evaluate(qrels, run, metrics)` -> `Evaluation`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ScoringError
from ..models import (
    DEFAULT_STRATUM,
    Fingerprint,
    Label,
    MetricReport,
    QueryCounts,
    QueryScore,
    ScoreReport,
)
from .aggregate import strata_rows, summarize, weighted_mean
from .arrays import Ranked, rank
from .kernels import Scores, compute
from .measures import DEFAULT_METRICS, Measure, parse_measures

QrelsLike = Mapping[str, Mapping[str, int]] | Iterable[Label]
RunLike = Mapping[str, Mapping[str, float]] | Iterable[tuple[str, str, float]]


@dataclass
class Evaluation:
    """Per-query values, coverage and bounds of every measure, with aggregates on demand."""

    measures: list[Measure]
    ranked: Ranked
    scores: dict[str, Scores]
    query_strata: list[str]
    weights: dict[str, float] = field(default_factory=dict)
    relevance_threshold: int = 1

    @property
    def query_ids(self) -> list[str]:
        return self.ranked.query_ids

    def values(self, measure: str) -> dict[str, float]:
        """Query id -> standard value of one measure."""
        scores = self.scores[measure]
        return {q: float(v) for q, v in zip(self.query_ids, scores.value, strict=True)}

    def per_query(self) -> dict[str, dict[str, float]]:
        """Query id -> measure -> value (the shape pytrec_eval returns)."""
        return {
            q: {m.name: float(self.scores[m.name].value[i]) for m in self.measures}
            for i, q in enumerate(self.query_ids)
        }

    def means(self) -> dict[str, float]:
        return {
            m.name: float(self.scores[m.name].value.mean()) if self.query_ids else 0.0 for m in self.measures
        }

    def counts(self) -> QueryCounts:
        r = self.ranked
        default_t = self.relevance_threshold
        thresholds = {m.threshold(default_t) for m in self.measures if m.family != "nDCG"} or {default_t}
        t = min(thresholds)
        no_rel = int((r.label_counts[:, t:].sum(axis=1) == 0).sum()) if t <= r.max_grade else len(r.query_ids)
        return QueryCounts(
            evaluated=len(r.query_ids),
            missing_from_run=int((~r.in_run).sum()),
            run_only=r.run_only,
            no_relevant=no_rel,
        )

    def report(self, fingerprint: Fingerprint, *, per_query: bool = False) -> ScoreReport:
        groups = strata_rows(self.query_strata)
        all_rows = np.arange(len(self.query_ids), dtype=np.int64)
        metrics: dict[str, MetricReport] = {}
        for m in self.measures:
            scores = self.scores[m.name]
            by_stratum = {s: summarize(scores, rows) for s, rows in groups.items()}
            overall = summarize(scores, all_rows)
            metrics[m.name] = MetricReport(
                **overall.model_dump(),
                weighted_mean=weighted_mean(by_stratum, self.weights or dict.fromkeys(groups, 1.0)),
                by_stratum=by_stratum,
            )
        pq = None
        if per_query:
            pq = {
                q: {
                    m.name: QueryScore(
                        value=float(self.scores[m.name].value[i]),
                        coverage=_nan_to_none(float(self.scores[m.name].coverage[i])),
                        bounds=(float(self.scores[m.name].low[i]), float(self.scores[m.name].high[i])),
                    )
                    for m in self.measures
                }
                for i, q in enumerate(self.query_ids)
            }
        return ScoreReport(
            fingerprint=fingerprint,
            queries=self.counts(),
            strata_without_queries=sorted(s for s, w in self.weights.items() if s not in groups and w > 0),
            metrics=metrics,
            per_query=pq,
        )


def _nan_to_none(x: float) -> float | None:
    return None if math.isnan(x) else x


def _labels_dict(qrels: QrelsLike) -> dict[str, dict[str, int]]:
    if isinstance(qrels, Mapping):
        return {str(q): {str(d): int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    out: dict[str, dict[str, int]] = {}
    for label in qrels:
        out.setdefault(label.query_id, {})[label.doc_id] = label.grade
    return out


def _run_rows(run: RunLike) -> Iterable[tuple[str, str, float]]:
    if isinstance(run, Mapping):
        return ((str(q), str(d), float(s)) for q, docs in run.items() for d, s in docs.items())
    return ((r[0], r[1], float(r[2])) for r in run)


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    *,
    queries: Sequence[str] | None = None,
    strata: Mapping[str, str] | None = None,
    weights: Mapping[str, float] | None = None,
    relevance_threshold: int = 1,
    max_grade: int | None = None,
) -> Evaluation:
    """Score `run` against `qrels` with trec_eval semantics, plus judged coverage and bounds.

    :param qrels: query -> doc -> grade (a negative grade means pooled but not judged), or labels.
    :param run: query -> doc -> score, or (query, doc, score) rows.
    :param metrics: measure names such as ``"nDCG@10,R@50,RR"``.
    :param queries: the evaluated query set (default: the queries of `qrels`); a query absent from
        the run scores 0, a run query outside the set is ignored.
    :param strata: query -> stratum, for per-stratum and traffic-weighted aggregates.
    :param weights: stratum -> traffic weight.
    :param relevance_threshold: lowest grade binary measures count as relevant.
    :param max_grade: top of the grade scale (default: the highest grade in `qrels`); bounds let
        unlabeled documents take any grade up to it.
    """
    measures = parse_measures(metrics if isinstance(metrics, str) else list(metrics))
    if relevance_threshold < 1:
        raise ScoringError("the relevance threshold must be at least 1")
    labels = _labels_dict(qrels)
    ranked = rank(labels, _run_rows(run), queries=queries, max_grade=max_grade)
    scores = {m.name: compute(ranked, m, relevance_threshold) for m in measures}
    strata = strata or {}
    return Evaluation(
        measures=measures,
        ranked=ranked,
        scores=scores,
        query_strata=[strata.get(q, DEFAULT_STRATUM) for q in ranked.query_ids],
        weights=dict(weights or {}),
        relevance_threshold=relevance_threshold,
    )
