"""Scoring a run read in blocks of whole queries (`formats.runs.stream_run_file`), so memory holds
one block of the run at a time, not the whole file.

Each block's rows are joined to the labels (indexed once, `arrays.label_index`) and ranked as
`arrays.rank_columns` ranks them, and go into their queries' rows of one grade matrix; the
kernels then run over that matrix as for a run read whole, so per-query values and every
aggregate are the same numbers. A block ranked here holds only its own queries (local codes),
so its temporaries grow with the block, never with the evaluated set. `TopLists` keeps only each
query's top documents of a run read in blocks (for pooling).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..formats.columns import Columns, hash_docs
from .arrays import (
    ABSENT,
    IntArray,
    LabelIndex,
    _grouped_positions,
    _join,
    _ranked_grades,
    _run_query_codes,
    label_index,
    rounded_scores,
    top_columns_scored,
)
from .evaluation import Evaluation, MetricsLike, evaluated_queries, evaluation, measure_list
from .join_check import JoinLabels, fold_index, narrow_order
from .measures import DEFAULT_METRICS
from .ties import distinct

RunBlocks = Iterable[tuple[Columns, npt.NDArray[np.uint64]]]
"""A run's rows in blocks of whole queries (each query in one block only) with their doc hashes."""


class _Grades:
    """The [queries, depth] grade matrix of a run filled block by block (widened as needed)."""

    def __init__(self, n_q: int) -> None:
        self.matrix = np.full((n_q, 1), ABSENT, dtype=np.int32)
        self.n_ret = np.zeros(n_q, dtype=np.int64)

    def put(self, rows: IntArray, grades: npt.NDArray[np.int32], n_ret: IntArray) -> None:
        width = max(int(n_ret.max(initial=0)), 1)
        if width > self.matrix.shape[1]:
            wider = np.full((len(self.n_ret), width), ABSENT, dtype=np.int32)
            wider[:, : self.matrix.shape[1]] = self.matrix
            self.matrix = wider
        self.matrix[rows, : grades.shape[1]] = grades[:, : self.matrix.shape[1]]
        self.n_ret[rows] = n_ret


class _LabelsByQuery:
    """Each block's labels: those of the evaluated queries it holds, so a block is joined against
    them only (msmarco: ~2,000 of 182,000), whose keys and bitmap stay in the cache, instead of
    all of them. Exact: a row of the block has the code of one of its queries (or none
    evaluated), and a label of another query matches no row of it. The labels' sorted positions
    are grouped by query once (`by_code`, 4 bytes a label: 1 MiB at shared medium), so a block
    gathers its queries' ranges and sorts them back into key order."""

    def __init__(self, labels: JoinLabels, n_q: int) -> None:
        self.labels = labels
        grouped = np.argsort(labels.code, kind="stable")  # file rows by query: one pass when the qrels are grouped
        position = np.empty(len(labels.row), dtype=labels.row.dtype)
        position[labels.row] = np.arange(len(labels.row), dtype=labels.row.dtype)  # file row -> sorted key position
        self.by_code = position[grouped]
        """Sorted key positions, grouped by query code."""
        self.starts = np.searchsorted(labels.code[grouped], np.arange(n_q + 1))
        """Query code c's positions are `by_code[starts[c]:starts[c + 1]]`."""

    def of(self, present: IntArray) -> JoinLabels:
        """The labels of these evaluated queries (codes, ascending and distinct): their keys still
        sorted, and their codes, ids and grades in that order (so each key's row is its own
        position)."""
        labels = self.labels
        lo, hi = self.starts[present], self.starts[present + 1]
        sizes = hi - lo
        total = int(sizes.sum())
        ends = np.cumsum(sizes)
        sel = self.by_code[np.repeat(lo - (ends - sizes), sizes) + np.arange(total)]
        sel.sort()  # back into key order: the keys stay sorted
        at = labels.row[sel]
        code, doc = labels.code[at], labels.doc[at]
        folds = fold_index(code, doc) if total else None
        return JoinLabels(labels.key[sel], narrow_order(np.arange(total)), code, doc, labels.grade[at], folds)


def _rank_block(
    index: LabelIndex,
    by_query: _LabelsByQuery,
    run: Columns,
    run_hash: npt.NDArray[np.uint64],
    score_precision: str,
) -> tuple[IntArray, npt.NDArray[np.int32], IntArray, int] | None:
    """One block's evaluated queries (their indices), their ranked grades and lengths, and how many
    of its queries lie outside the evaluated set; None when the join needs the exact path."""
    n_q = len(index.qids)
    r_code, change, run_only = _run_query_codes(run.query, index.vocab_sorted, index.to_eval)
    present = distinct(r_code[change])  # np.unique would import numpy.ma (a small score need not)
    present = present[present < n_q]
    heads = np.flatnonzero(change)  # each query's rows are together: look up one row of each
    local = np.repeat(np.searchsorted(present, r_code[heads]), np.diff(np.append(heads, len(r_code))))
    local = local.astype(np.int64, copy=False)  # outside rows: len(present)
    r_score = rounded_scores(np.asarray(run.value, dtype=np.float64), score_precision)
    r_grade = _join(by_query.of(present), r_code, run, run_hash, True)  # one thread: see `evaluation._compute_all`
    if r_grade is None:
        return None
    position = _grouped_positions(local, r_score, change, run.doc, len(present))
    grades, n_ret = _ranked_grades(local, r_score, r_grade, position, run.doc, len(present))
    return present, grades, n_ret, run_only


def evaluate_stream(
    qrels: Columns,
    blocks: RunBlocks,
    metrics: MetricsLike = DEFAULT_METRICS,
    *,
    run_queries: Callable[[], set[str]],
    queries: Sequence[str] | None = None,
    strata: Mapping[str, str] | None = None,
    weights: Mapping[str, float] | None = None,
    relevance_threshold: int = 1,
    max_grade: int | None = None,
    qrels_hash: npt.NDArray[np.uint64] | None = None,
    bounds: bool = True,
    score_precision: str = "float64",
    keep_unlabeled: bool = False,
) -> Evaluation | None:
    """`evaluation.evaluate_columns` of a run given in blocks of whole queries, no (query, doc)
    pair twice (the reader checked); the same `Evaluation`. `run_queries` gives the run's query
    ids once the blocks are read. None when a label key or a run pair needs the exact path (a
    hash collision): the caller scores the run read whole."""
    measures = measure_list(metrics)
    query_list, unlabeled = evaluated_queries(qrels, queries, relevance_threshold, keep_unlabeled)
    index = label_index(qrels, qrels_hash if qrels_hash is not None else hash_docs(qrels.doc), query_list, max_grade)
    if index is None:
        return None
    rounded_scores(np.zeros(0), score_precision)  # refuses an unknown precision before any work
    grades, run_only = _Grades(len(index.qids)), 0
    by_query = _LabelsByQuery(index.labels, len(index.qids))
    for run, run_hash in blocks:
        ranked = _rank_block(index, by_query, run, run_hash, score_precision)
        if ranked is None:
            return None
        rows, block_grades, n_ret, outside = ranked
        grades.put(rows, block_grades, n_ret)
        run_only += outside
    width = max(int(grades.n_ret.max(initial=0)), 1)
    matrix = grades.matrix if grades.matrix.shape[1] == width else np.ascontiguousarray(grades.matrix[:, :width])
    found = index.ranked(matrix, grades.n_ret, run_only)
    outside_queries = run_queries() if unlabeled and not keep_unlabeled else set()
    return evaluation(
        found, measures, relevance_threshold, bounds, strata, weights, unlabeled, keep_unlabeled, outside_queries
    )


class TopLists:
    """Each query's best `depth` documents in trec_eval order (score descending, then document id
    descending in byte order) and their scores, gathered from a run given in blocks: only those
    are kept between blocks. A query may come back in a later block (its lists are merged)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.ranked: dict[str, list[str]] = {}
        """Query -> its top documents, queries in the order they first appear."""
        self.scores: dict[str, list[float]] = {}

    def add(self, run: Columns) -> None:
        """Take in one block of rows."""
        ranked, scores = top_columns_scored(run, self.depth)
        for q, docs in ranked.items():
            if q not in self.ranked:
                self.ranked[q], self.scores[q] = docs, scores[q]
                continue
            rows = [*zip(self.scores[q], self.ranked[q], strict=True), *zip(scores[q], docs, strict=True)]
            best = heapq.nlargest(self.depth, rows, key=lambda r: (r[0], r[1].encode("utf-8")))
            self.ranked[q], self.scores[q] = [r[1] for r in best], [r[0] for r in best]
