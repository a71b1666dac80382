"""The public entry point: `evaluate(qrels, run, metrics)` -> `Evaluation`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import progress
from ..errors import ScoringError
from ..formats.columns import Columns, hash_docs
from ..formats.records import FrameLike
from ..models.plain import (
    PlainFingerprint,
    PlainMetricReport,
    PlainQueryCounts,
    PlainQueryScore,
    PlainScoreReport,
)
from ..models.vocabulary import DEFAULT_STRATUM
from .aggregate import geometric_mean, strata_rows, summarize, weighted_mean
from .arrays import Ranked, rank, rank_columns
from .kernels import Scores, compute
from .measures import DEFAULT_METRICS, Measure
from .names import parse_measure, parse_measures

if TYPE_CHECKING:  # the models (pydantic) load only where a report is validated
    from ..models import Fingerprint, Label, ScoreReport

QrelsLike = Mapping[str, Mapping[str, int]] | Iterable["Label"] | FrameLike
RunLike = Mapping[str, Mapping[str, float]] | Iterable[tuple[str, str, float]] | FrameLike
MetricsLike = str | Sequence[str | Measure]
"""Measure names (`"nDCG@10,AP"`), or a sequence of names and `Measure` objects."""


@dataclass
class Evaluation:
    """Per-query values, coverage and bounds of every measure, with aggregates on demand."""

    measures: list[Measure]
    ranked: Ranked
    scores: dict[str, Scores]
    query_strata: list[str]
    weights: dict[str, float] = field(default_factory=dict)
    relevance_threshold: int = 1
    unlabeled: list[str] = field(default_factory=list)
    """Queries of the given set with no label of any grade: left out of `query_ids` (trec_eval
    leaves out the queries its qrels lack), or among them, scored 0, when `unlabeled_kept`."""
    unlabeled_kept: bool = False
    unlabeled_in_run: int = 0
    """Left-out `unlabeled` queries the run has documents for: golden-set queries, not run-only."""

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

    def to_frame(self, names: str = "ir_measures") -> Any:
        """Per-query values as a pandas data frame, one row per (query, measure): the query id
        (`query_id`, or `qid` with `names="pyterrier"`), its stratum, `measure`, `value`, the judged
        `coverage` and the bounds `low`/`high` over every labeling of its unlabeled documents (NaN
        when not computed), and whether the value is `exact` (nothing unlabeled could change it)."""
        try:
            import pandas as pd
        except ImportError:
            raise ScoringError("data frames need pandas, which is not installed", "pip install pandas") from None
        if names not in ("ir_measures", "pyterrier"):
            raise ScoringError(f"unknown column names {names!r}", "give names='ir_measures' or names='pyterrier'")
        n, m = len(self.query_ids), len(self.measures)
        cols = {
            "query_id" if names == "ir_measures" else "qid": pd.Series(self.query_ids * m, dtype="string"),
            "stratum": pd.Series(self.query_strata * m, dtype="string"),
            "measure": pd.Series([x.name for x in self.measures for _ in range(n)], dtype="string"),
        }
        for column, attr in (("value", "value"), ("coverage", "coverage"), ("low", "low"), ("high", "high")):
            parts = [np.asarray(getattr(self.scores[x.name], attr), dtype=np.float64) for x in self.measures]
            cols[column] = pd.Series(np.concatenate(parts) if parts else np.zeros(0), dtype="float64")
        exact = [np.asarray(self.scores[x.name].exact, dtype=bool) for x in self.measures]
        cols["exact"] = pd.Series(np.concatenate(exact) if exact else np.zeros(0, dtype=bool), dtype="bool")
        return pd.DataFrame(cols)

    def means(self) -> dict[str, float]:
        """Each measure's macro mean (geometric for the gm_* families, `MeasureSpec.aggregate`); NaN over
        zero queries (as ir_measures), never 0."""
        return {m.name: _mean(self.scores[m.name].value, m.spec.aggregate) for m in self.measures}

    def counts(self) -> PlainQueryCounts:
        r = self.ranked
        default_t = self.relevance_threshold
        binary = [m for m in self.measures if any(p.name == "rel" for p in m.spec.params)]
        thresholds = {m.threshold(default_t) for m in binary} or {default_t}
        t = r.code(min(thresholds))
        no_rel = int((r.label_counts[:, t:].sum(axis=1) == 0).sum()) if t <= r.max_grade else len(r.query_ids)
        return PlainQueryCounts(
            evaluated=len(r.query_ids),
            missing_from_run=int((~r.in_run).sum()),
            run_only=r.run_only - self.unlabeled_in_run,
            no_relevant=no_rel,
            unlabeled=len(self.unlabeled),
            unlabeled_kept=self.unlabeled_kept,
        )

    def missing_from_run(self) -> list[str]:
        """The evaluated queries the run has no document for (each scored 0)."""
        return [q for q, found in zip(self.query_ids, self.ranked.in_run.tolist(), strict=True) if not found]

    def report(self, fingerprint: Fingerprint, *, per_query: bool = False) -> ScoreReport:
        """The score report (the model, validated) under `fingerprint`; `plain_report` is the same
        report as plain data, which `score` writes."""
        from ..models import to_model, to_plain

        return to_model(self.plain_report(to_plain(fingerprint), per_query=per_query))

    def plain_report(self, fingerprint: PlainFingerprint, *, per_query: bool = False) -> PlainScoreReport:
        """The score report under `fingerprint`, as plain data (`models.plain`): per-query values
        with `per_query`, and the stratum means and the traffic-weighted mean of every measure."""
        groups = strata_rows(self.query_strata)
        all_rows = np.arange(len(self.query_ids), dtype=np.int64)
        metrics: dict[str, PlainMetricReport] = {}
        for m in self.measures:
            scores = self.scores[m.name]
            by_stratum = {s: summarize(scores, rows, m.spec.aggregate) for s, rows in groups.items()}
            overall = summarize(scores, all_rows, m.spec.aggregate)
            metrics[m.name] = PlainMetricReport(
                **{f.name: getattr(overall, f.name) for f in fields(overall)},
                weighted_mean=weighted_mean(by_stratum, self.weights or dict.fromkeys(groups, 1.0)),
                by_stratum=by_stratum,
            )
        pq = None
        if per_query:
            pq = {
                q: {
                    m.name: PlainQueryScore(
                        value=float(self.scores[m.name].value[i]),
                        coverage=_nan_to_none(float(self.scores[m.name].coverage[i])),
                        bounds=_pair(self.scores[m.name].low[i], self.scores[m.name].high[i]),
                        exact=bool(self.scores[m.name].exact[i]),
                    )
                    for m in self.measures
                }
                for i, q in enumerate(self.query_ids)
            }
        return PlainScoreReport(
            fingerprint=fingerprint,
            queries=self.counts(),
            strata_without_queries=sorted(s for s, w in self.weights.items() if s not in groups and w > 0),
            metrics=metrics,
            per_query=pq,
            query_strata=dict(zip(self.query_ids, self.query_strata, strict=True)) if per_query else None,
            stratum_weights=dict(self.weights),
            missing_from_run=self.missing_from_run() if per_query else None,
            unlabeled_queries=list(self.unlabeled) if per_query else None,
        )


def _mean(values: npt.NDArray[np.float64], aggregate: str) -> float:
    if len(values) == 0:
        return math.nan
    return geometric_mean(values) if aggregate == "geometric" else float(values.mean())


def _pair(low: float, high: float) -> tuple[float, float] | None:
    return None if math.isnan(low) else (float(low), float(high))


def _nan_to_none(x: float) -> float | None:
    return None if math.isnan(x) else x


def _qrels_columns(qrels: QrelsLike) -> tuple[Columns, list[str]]:
    from ..formats.records import qrels_rows  # dicts, Labels, ir_measures Qrel and plain tuples

    rows, queries = qrels_rows(qrels)
    return Columns.from_rows(rows, integer=True), queries


def _run_columns(run: RunLike) -> Columns:
    from ..formats.records import run_rows  # dicts, ir_measures ScoredDoc and plain tuples

    return Columns.from_rows(run_rows(run))


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    metrics: MetricsLike = DEFAULT_METRICS,
    *,
    queries: Sequence[str] | None = None,
    strata: Mapping[str, str] | None = None,
    weights: Mapping[str, float] | None = None,
    relevance_threshold: int = 1,
    max_grade: int | None = None,
    bounds: bool = True,
    score_precision: str = "float64",
    keep_unlabeled: bool = False,
) -> Evaluation:
    """Score `run` against `qrels` with trec_eval semantics, plus judged coverage and bounds.

    :param qrels: query -> doc -> grade (a negative grade means pooled but not judged), or labels.
    :param run: query -> doc -> score, or (query, doc, score) rows.
    :param metrics: measure names such as ``"nDCG@10,R@50,RR"`` (or `Measure` objects).
    :param queries: the evaluated query set (default: the queries of `qrels`); a query absent from
        the run scores 0 (trec_eval -c), a run query outside the set is ignored. A query of the
        set with no label of any grade (none in `qrels`; an empty dict counts as none) is left out
        of the means and counted (`Evaluation.unlabeled`), as trec_eval leaves out the queries its
        qrels lack; a query whose labels are all grade 0 stays and scores 0.
    :param strata: query -> stratum, for per-stratum and traffic-weighted aggregates.
    :param weights: stratum -> traffic weight.
    :param relevance_threshold: lowest grade binary measures count as relevant.
    :param max_grade: top of the grade scale (default: the highest grade in `qrels`); bounds let
        unlabeled documents take any grade up to it.
    :param bounds: compute bounds (False skips them; they are then NaN, null in reports).
    :param score_precision: ``"float64"`` ranks by the scores as given (trec_eval 10);
        ``"float32"`` rounds them to float32 first, as trec_eval 9.0.x and pytrec_eval do, so
        scores that differ only past float32 precision tie (and the tie goes by document id).
    :param keep_unlabeled: evaluate the queries with no label too, each scoring 0 (trec_eval
        cannot: its qrels have no such query).
    """
    qrels_columns, qrels_queries = _qrels_columns(qrels)
    return evaluate_columns(
        qrels_columns,
        _run_columns(run),
        metrics,
        queries=list(queries) if queries is not None else qrels_queries,
        strata=strata,
        weights=weights,
        relevance_threshold=relevance_threshold,
        max_grade=max_grade,
        bounds=bounds,
        score_precision=score_precision,
        keep_unlabeled=keep_unlabeled,
    )


def query_ids(columns: Columns) -> set[str]:
    """The queries with at least one row in `columns` (qrels: a label of any grade, negative
    included; a run: a document)."""
    q = columns.query
    if not len(q):
        return set()
    heads = q[np.flatnonzero(np.r_[True, q[1:] != q[:-1]])]  # rows come grouped by query: few heads to look at
    return {x.decode("utf-8") for x in heads.tolist()}  # a set: no np.unique (it imports numpy.ma)


def split_unlabeled(qrels: Columns, queries: Sequence[str]) -> tuple[list[str], list[str]]:
    """`queries` (once each, in order) as (those with a label in `qrels`, those with none)."""
    labeled = query_ids(qrels)
    ordered = list(dict.fromkeys(queries))
    return [q for q in ordered if q in labeled], [q for q in ordered if q not in labeled]


def measure_list(metrics: MetricsLike) -> list[Measure]:
    if isinstance(metrics, str) or all(isinstance(m, str) for m in metrics):
        return parse_measures(metrics if isinstance(metrics, str) else [str(m) for m in metrics])
    measures = [m if isinstance(m, Measure) else parse_measure(m) for m in metrics]
    names = [m.name for m in measures]
    if len(set(names)) != len(names):
        raise ScoringError("the same measure is given twice", "give each measure once")
    return measures


def _compute_all(ranked: Ranked, measures: Sequence[Measure], threshold: int, bounds: bool) -> dict[str, Scores]:
    """Every measure's per-query scores, one after the other, in the caller's thread.

    Threads pay only where the work lets go of the GIL for long stretches (the file's sha256,
    pyarrow's reader). The join, the ranking and the kernels are many numpy calls of a few
    thousand rows each: two threads running them hand the GIL back and forth and finish later
    than one. Measured on 2026-12-04 (2 cores, shared bench data, whole `score` processes,
    medians of 9 or 5 alternated): a block's join on a thread beside its ranking cost shared
    medium 578 against 543 ms and shared msmarco 1,809 against 1,688 ms; the six measures two at
    a time cost medium with bounds 657 against 624 ms and msmarco with bounds 2,166 against
    2,071 ms. So neither has a thread now."""
    progress.report("computing measures", 0, len(measures))
    scores = {}
    for i, m in enumerate(measures):
        scores[m.name] = compute(ranked, m, threshold, bounds=bounds)
        progress.report("computing measures", i + 1, len(measures))
    return scores


def evaluate_columns(
    qrels: Columns,
    run: Columns,
    metrics: MetricsLike = DEFAULT_METRICS,
    *,
    queries: Sequence[str] | None = None,
    strata: Mapping[str, str] | None = None,
    weights: Mapping[str, float] | None = None,
    relevance_threshold: int = 1,
    max_grade: int | None = None,
    qrels_hash: npt.NDArray[np.uint64] | None = None,
    run_hash: npt.NDArray[np.uint64] | None = None,
    run_unique: bool = False,
    bounds: bool = True,
    score_precision: str = "float64",
    keep_unlabeled: bool = False,
) -> Evaluation:
    """`evaluate` over columns (what the fast TREC parser returns); same semantics.
    `bounds=False` skips the bounds (reported as null); `score_precision` and `keep_unlabeled`
    as in `evaluate`."""
    measures = measure_list(metrics)
    query_list, unlabeled = evaluated_queries(qrels, queries, relevance_threshold, keep_unlabeled)
    ranked = rank_columns(
        qrels,
        qrels_hash if qrels_hash is not None else hash_docs(qrels.doc),
        run,
        run_hash if run_hash is not None else hash_docs(run.doc),
        queries=query_list,
        max_grade=max_grade,
        run_unique=run_unique,
        score_precision=score_precision,
    )
    if ranked is None:  # a duplicate or a hash collision: the exact path reports or resolves it
        labels: dict[str, dict[str, int]] = {}
        for q, d, g in zip(qrels.query, qrels.doc, qrels.value, strict=True):
            labels.setdefault(q.decode(), {})[d.decode()] = int(g)
        rows = ((q.decode(), d.decode(), float(s)) for q, d, s in zip(run.query, run.doc, run.value, strict=True))
        ranked = rank(labels, rows, queries=query_list, max_grade=max_grade, score_precision=score_precision)
    run_queries = query_ids(run) if unlabeled and not keep_unlabeled else set()
    return evaluation(
        ranked, measures, relevance_threshold, bounds, strata, weights, unlabeled, keep_unlabeled, run_queries
    )


def evaluated_queries(
    qrels: Columns, queries: Sequence[str] | None, relevance_threshold: int, keep_unlabeled: bool
) -> tuple[list[str] | None, list[str]]:
    """The evaluated queries (None: the qrels' own) and the given ones left out for having no label."""
    if relevance_threshold < 1:
        raise ScoringError("the relevance threshold must be at least 1")
    query_list = list(queries) if queries is not None else None
    unlabeled: list[str] = []
    if query_list is not None:  # the queries of the qrels (the default) all have labels
        labeled, unlabeled = split_unlabeled(qrels, query_list)
        query_list = list(dict.fromkeys(query_list)) if keep_unlabeled else labeled
    return query_list, unlabeled


def evaluation(
    ranked: Ranked,
    measures: list[Measure],
    relevance_threshold: int,
    bounds: bool,
    strata: Mapping[str, str] | None,
    weights: Mapping[str, float] | None,
    unlabeled: list[str],
    keep_unlabeled: bool,
    run_queries: set[str],
) -> Evaluation:
    """The measures computed over `ranked`; `run_queries` are the run's queries (needed only when
    some given query is left out for having no label)."""
    scores = _compute_all(ranked, measures, relevance_threshold, bounds)
    strata = strata or {}
    return Evaluation(
        measures=measures,
        ranked=ranked,
        scores=scores,
        query_strata=[strata.get(q, DEFAULT_STRATUM) for q in ranked.query_ids],
        weights=dict(weights or {}),
        relevance_threshold=relevance_threshold,
        unlabeled=unlabeled,
        unlabeled_kept=keep_unlabeled and bool(unlabeled),
        unlabeled_in_run=len(run_queries & set(unlabeled)) if unlabeled and not keep_unlabeled else 0,
    )
