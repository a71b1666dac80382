"""From qrels and a run to integer-coded arrays the kernels work on.

`Ranked.grades[i, r]` is the label of the document at rank r+1 for evaluated query i:
a grade >= 0 when labeled, `UNLABELED` (-1) when retrieved but not labeled (never judged, skipped,
or pooled-but-unjudged), `ABSENT` (-2) past the end of the run. Documents are ranked as trec_eval
ranks them: by score descending, ties by document id descending in byte order; the rank column of
a run file is ignored (`score_precision="float32"` first rounds every score to float32, as
trec_eval 9 and pytrec_eval store them). Grades are stored as codes (`Ranked.levels`), so any
int32 grade fits; a negative qrels grade is UNLABELED, marked in `Ranked.pooled` for infAP.
`RunLists` holds a run as ranked document ids, for pooling, the judging queue and coverage.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from ..formats.columns import Columns
from ..formats.fast_columns import id_changes
from .join_check import JoinLabels, candidates, check_rest, fold, fold_index, narrow_order
from .ties import byte_order_keys as _byte_order_keys
from .ties import distinct
from .ties import tie_order as _tie_order

UNLABELED = -1
ABSENT = -2

DENSE_GRADES = 64
"""Grades 0..DENSE_GRADES (up to the scale's top) keep their own value as their code; any other grade
(up to 2^31 - 1) gets the next free code, so the arrays grow with the number of distinct grades,
never with their size."""
SCORE_PRECISIONS = ("float64", "float32")
"""How scores are compared: float64 (trec_eval 10) or rounded to float32 first (trec_eval 9.0.x and
pytrec_eval, which store scores as C floats)."""

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Ranked:
    """Ranked, labeled lists for the evaluated queries."""

    query_ids: list[str]
    grades: npt.NDArray[np.int32]
    """[queries, depth]: grade code (see `levels`), UNLABELED or ABSENT."""
    n_ret: IntArray
    """[queries]: documents retrieved."""
    label_counts: IntArray
    """[queries, max_grade + 1]: labeled documents of each grade code (retrieved or not)."""
    max_grade: int
    """The top grade code (`top_grade` is its grade)."""
    run_only: int
    """Queries in the run but not in the evaluated set (ignored, counted)."""
    levels: IntArray | None = None
    """[max_grade + 1]: the grade of each code, ascending; None: code = grade (0..max_grade)."""
    pooled: npt.NDArray[np.bool_] | None = None
    """[queries, depth]: the UNLABELED documents the qrels list with a negative grade (pooled but
    not judged: infAP's sample); None: none."""

    @property
    def grade_values(self) -> IntArray:
        """The grade of each code."""
        return self.levels if self.levels is not None else np.arange(self.max_grade + 1, dtype=np.int64)

    @property
    def top_grade(self) -> int:
        return int(self.grade_values[-1])

    def code(self, grade: int) -> int:
        """The smallest code whose grade is at least `grade` (a threshold in code space)."""
        return int(np.searchsorted(self.grade_values, grade, side="left"))

    @property
    def in_run(self) -> npt.NDArray[np.bool_]:
        """[queries]: the run has at least one document for the query."""
        return self.n_ret > 0

    @property
    def depth(self) -> int:
        return int(self.grades.shape[1])

    def rows(self, lo: int, hi: int) -> Ranked:
        """The queries lo..hi-1 only (kernels work in blocks to bound their temporaries)."""
        return Ranked(
            query_ids=self.query_ids[lo:hi],
            grades=self.grades[lo:hi],
            n_ret=self.n_ret[lo:hi],
            label_counts=self.label_counts[lo:hi],
            max_grade=self.max_grade,
            run_only=self.run_only,
            levels=self.levels,
            pooled=None if self.pooled is None else self.pooled[lo:hi],
        )


@dataclass(frozen=True)
class RunLists:
    """One run's ranked document ids per query (trec_eval order, already cut to the pooled depth)."""

    name: str
    ranked: Mapping[str, Sequence[str]]
    scores: Mapping[str, Sequence[float]] | None = None
    """The scores of `ranked`'s documents, in the same order (None: not kept, or a run of ranks)."""


def _doc_key(doc_id: str) -> bytes:
    return doc_id.encode("utf-8")


def grade_levels(grades: npt.NDArray[np.int64], max_grade: int | None) -> IntArray | None:
    """The grade of each code for these (non-negative, possibly repeated) grades and the scale's
    top; None when every grade is its own code (all of them within 0..DENSE_GRADES)."""
    top = max(max_grade if max_grade is not None else 1, int(grades.max(initial=1)), 1)
    if top <= DENSE_GRADES:
        return None
    dense = np.arange(min(max_grade if max_grade is not None else 1, DENSE_GRADES) + 1, dtype=np.int64)
    return np.union1d(np.union1d(dense, grades), [top]).astype(np.int64)


def _encode(grades: npt.NDArray[np.int64], levels: IntArray | None) -> npt.NDArray[np.int64]:
    """Grade -> code (grades are all in `levels`; negative grades stay negative)."""
    if levels is None:
        return grades
    return np.where(grades < 0, grades, np.searchsorted(levels, np.maximum(grades, 0)))


def rounded_scores(scores: npt.NDArray[np.float64], precision: str) -> npt.NDArray[np.float64]:
    """Scores as they are compared: float64 as given, or rounded to the nearest float32."""
    if precision == "float64":
        return scores
    if precision == "float32":
        with np.errstate(over="ignore"):
            return scores.astype(np.float32).astype(np.float64)
    raise ScoringError(f"unknown score precision {precision!r}", f"use one of {', '.join(SCORE_PRECISIONS)}")


def rank(
    labels: Mapping[str, Mapping[str, int]],
    run: Iterable[tuple[str, str, float]],
    *,
    queries: Iterable[str] | None = None,
    max_grade: int | None = None,
    score_precision: str = "float64",
) -> Ranked:
    """Build `Ranked` from labels (query -> doc -> grade; a negative grade means pooled but not
    judged, i.e. unlabeled) and run rows (query, doc, score).

    `queries` is the evaluated set (default: the keys of `labels`). A duplicate (query, doc) in
    the run is an error.
    """
    qids = list(dict.fromkeys(queries if queries is not None else labels.keys()))
    index = {q: i for i, q in enumerate(qids)}
    all_grades = np.array([g for docs in labels.values() for g in docs.values() if g >= 0], dtype=np.int64)
    levels = grade_levels(all_grades, max_grade)
    codes = {int(g): int(c) for g, c in zip(all_grades, _encode(all_grades, levels), strict=True)}
    rounded_scores(np.zeros(0), score_precision)  # refuses an unknown precision before any work

    per_query: list[list[tuple[float, bytes, int]]] = [[] for _ in qids]
    run_only: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for qid, doc_id, score in run:
        if (qid, doc_id) in seen:
            raise ScoringError(
                f"document {doc_id!r} appears twice for query {qid!r} in the run",
                "a run lists each document at most once per query",
            )
        seen.add((qid, doc_id))
        i = index.get(qid)
        if i is None:
            run_only.add(qid)
            continue
        grade = labels.get(qid, {}).get(doc_id)
        code = UNLABELED if grade is None else (codes[grade] if grade >= 0 else _POOLED)
        per_query[i].append((_rounded(score, score_precision), _doc_key(doc_id), code))

    grades, n_ret = _sorted_grades(per_query)
    pooled = grades == _POOLED
    grades[pooled] = UNLABELED

    top = len(levels) - 1 if levels is not None else max(max_grade or 1, int(all_grades.max(initial=1)), 1)
    counts = np.zeros((len(qids), top + 1), dtype=np.int64)
    for q, i in index.items():
        for g in labels.get(q, {}).values():
            if g >= 0:
                counts[i, codes[g]] += 1
    return Ranked(
        query_ids=qids,
        grades=grades,
        n_ret=n_ret,
        label_counts=counts,
        max_grade=top,
        run_only=len(run_only),
        levels=levels,
        pooled=pooled if pooled.any() else None,
    )


def _rounded(score: float, precision: str) -> float:
    return score if precision == "float64" else float(rounded_scores(np.array([score]), precision)[0])


_POOLED = -3
"""Working code (never stored in `Ranked.grades`) of a document with a negative qrels grade."""


def _sorted_grades(per_query: list[list[tuple[float, bytes, int]]]) -> tuple[npt.NDArray[np.int32], IntArray]:
    """Each query's (score, doc key, code) rows in trec_eval order -> grades [queries, depth], n_ret."""
    depth = max((len(rows) for rows in per_query), default=0)
    grades = np.full((len(per_query), max(depth, 1)), ABSENT, dtype=np.int32)
    n_ret = np.zeros(len(per_query), dtype=np.int64)
    for i, rows in enumerate(per_query):
        rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
        n_ret[i] = len(rows)
        if rows:
            grades[i, : len(rows)] = [r[2] for r in rows]
    return grades, n_ret


def condensed(r: Ranked) -> Ranked:
    """The condensed lists (trec_eval -J, ir_measures `judged_only=True`): every unlabeled document
    removed, the labeled ones moved up in their order."""
    keep = r.grades >= 0
    n_ret = keep.sum(axis=1).astype(np.int64)
    grades = np.full((len(r.query_ids), max(int(n_ret.max(initial=0)), 1)), ABSENT, dtype=np.int32)
    rows, cols = np.nonzero(keep)
    grades[rows, (np.cumsum(keep, axis=1) - 1)[rows, cols]] = r.grades[rows, cols]
    return Ranked(
        query_ids=r.query_ids,
        grades=grades,
        n_ret=n_ret,
        label_counts=r.label_counts,
        max_grade=r.max_grade,
        run_only=r.run_only,
        levels=r.levels,
    )


def top_documents(run: Iterable[tuple[str, str, float]], depth: int) -> dict[str, list[str]]:
    """Query -> its `depth` best documents in trec_eval order (score descending, then document id
    descending in byte order), the order every measure sees them in."""
    per_query: dict[str, list[tuple[float, bytes, str]]] = {}
    for qid, doc_id, score in run:
        per_query.setdefault(qid, []).append((score, _doc_key(doc_id), doc_id))
    return {q: [r[2] for r in heapq.nlargest(depth, rows)] for q, rows in per_query.items()}


def _descending_doc_keys(docs: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.generic], ...]:
    """`np.lexsort` keys that order ids descending in byte order (least significant first)."""
    keys = _byte_order_keys(docs)
    if keys[0].dtype == np.uint64:  # the complement of a big-endian word reverses its order
        return tuple(np.invert(np.asarray(k, dtype=np.uint64)) for k in keys)
    _, rank_of = np.unique(docs, return_inverse=True)
    return (-rank_of.ravel().astype(np.int64),)


def top_columns(run: Columns, depth: int) -> dict[str, list[str]]:
    """`top_documents` of a run's columns (the same dict, queries in the order they first
    appear), with numpy: one sort by query, score descending, document id descending in byte
    order; only the `depth` best documents of each query become Python strings."""
    return top_columns_scored(run, depth)[0]


def top_columns_scored(run: Columns, depth: int) -> tuple[dict[str, list[str]], dict[str, list[float]]]:
    """`top_columns`, and the scores of those documents in the same order."""
    if len(run.query) == 0:
        return {}, {}
    change = np.concatenate(([True], run.query[1:] != run.query[:-1]))
    names, first, inverse = np.unique(run.query[change], return_index=True, return_inverse=True)
    by_appearance = np.argsort(first)
    code_of = np.empty(len(names), dtype=np.int64)
    code_of[by_appearance] = np.arange(len(names))
    code = code_of[inverse.ravel()][np.cumsum(change) - 1]
    del change, inverse
    order = np.lexsort((*_descending_doc_keys(run.doc), -np.asarray(run.value, dtype=np.float64), code))
    counts = np.bincount(code, minlength=len(names))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    kept = np.minimum(counts, max(depth, 0))
    position = np.arange(len(order)) - np.repeat(starts, counts)
    chosen = order[position < kept[code[order]]]
    del order, position
    docs = [d.decode("utf-8") for d in run.doc[chosen].tolist()]
    scores = np.asarray(run.value, dtype=np.float64)[chosen].tolist()
    bounds = np.concatenate(([0], np.cumsum(kept))).tolist()  # codes are in order of appearance
    queries = [q.decode("utf-8") for q in names[by_appearance].tolist()]
    spans = [(q, bounds[i], bounds[i + 1]) for i, q in enumerate(queries)]
    return {q: docs[lo:hi] for q, lo, hi in spans}, {q: scores[lo:hi] for q, lo, hi in spans}


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _codes(values: npt.NDArray[np.bytes_], vocab_sorted: npt.NDArray[np.bytes_]) -> IntArray:
    """Index of each value in the sorted vocabulary, -1 when absent (exact comparison)."""
    if len(vocab_sorted) == 0:
        return np.full(len(values), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(vocab_sorted, values), len(vocab_sorted) - 1)
    return np.where(vocab_sorted[pos] == values, pos, -1).astype(np.int64)


def _run_query_codes(
    query: npt.NDArray[np.bytes_], vocab_sorted: npt.NDArray[np.bytes_], to_eval: IntArray
) -> tuple[IntArray, npt.NDArray[np.bool_], int]:
    """Each run row's evaluated query index (`len(to_eval)` for a query outside the evaluated
    set), where the query changes, and how many distinct queries lie outside. Looks up only
    where the query changes (runs are grouped by query) and repeats each group's code."""
    n = len(query)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), 0
    change = id_changes(query)
    heads = np.flatnonzero(change)
    head_codes = _codes(query[heads], vocab_sorted)
    outside = head_codes < 0
    run_only = len(distinct(query[heads[outside]])) if outside.any() else 0
    mapped = np.where(outside, len(to_eval), to_eval[np.where(outside, 0, head_codes)] if len(to_eval) else 0)
    sizes = np.diff(np.append(heads, n))
    return np.repeat(mapped.astype(np.int64), sizes), change, run_only


def _ranked_grades(
    code: IntArray,
    score: npt.NDArray[np.float64],
    grade: npt.NDArray[np.int32],
    position: IntArray | None,
    docs: npt.NDArray[np.bytes_],
    n_q: int,
) -> tuple[npt.NDArray[np.int32], IntArray]:
    """The (query, rank) matrix of grades (ABSENT past a query's last document) and each query's
    number of documents: rows ranked by score descending, ties by document id descending.
    `position` is each row's rank within its query (`_grouped_positions`), or None to sort."""
    if position is None:
        return _lexsorted_grades(code, score, grade, docs, n_q)
    n_ret = np.bincount(code, minlength=n_q + 1)[:n_q].astype(np.int64)
    width = max(int(n_ret.max(initial=0)), int(position.max(initial=0)) + 1, 1)
    # one more row takes the rows of queries outside the evaluated set (code n_q): no mask needed
    grades = np.full((n_q + 1) * width, ABSENT, dtype=np.int32)
    flat = code * width
    flat += position
    grades[flat] = grade
    del flat
    depth = max(int(n_ret.max(initial=0)), 1)
    matrix = grades.reshape(n_q + 1, width)[:n_q]
    return (matrix if depth == width else np.ascontiguousarray(matrix[:, :depth])), n_ret


def _grouped_positions(
    code: IntArray,
    score: npt.NDArray[np.float64],
    change: npt.NDArray[np.bool_],
    docs: npt.NDArray[np.bytes_],
    n_q: int,
) -> IntArray | None:
    """Each row's rank within its query (0 first) when the run comes grouped by query (each
    evaluated query once) with scores descending, as runs usually do: no row has to move, only
    tied rows swap ranks. None otherwise."""
    n = len(code)
    if n == 0 or not ((score[1:] <= score[:-1]) | change[1:]).all():
        return None
    starts = np.flatnonzero(change)
    evaluated = code[starts]
    evaluated = evaluated[evaluated < n_q]  # groups of queries outside the evaluated set may repeat
    evaluated.sort()  # a repeat sits beside its twin
    if (evaluated[1:] == evaluated[:-1]).any():
        return None
    sizes = np.diff(np.append(starts, n))
    position = np.arange(n, dtype=np.int64)
    position -= np.repeat(starts, sizes)
    same = ~change[1:] & (score[1:] == score[:-1])  # row i+1 ties row i
    tied = np.flatnonzero(np.concatenate(([False], same)) | np.concatenate((same, [False])))
    if len(tied):
        block = np.cumsum(~np.concatenate(([False], same))[tied])
        position[tied[_tie_order(block, docs[tied])]] = position[tied]
    return position


def _lexsorted_grades(
    code: IntArray,
    score: npt.NDArray[np.float64],
    grade: npt.NDArray[np.int32],
    docs: npt.NDArray[np.bytes_],
    n_q: int,
) -> tuple[npt.NDArray[np.int32], IntArray]:
    """`_ranked_grades` for a run in any order: rows sorted by (query, score descending), then
    the tied rows by document id."""
    srt = np.asarray(np.lexsort((-score, code)), dtype=np.int64)
    s_code, s_score = code[srt], score[srt]
    same = (s_code[1:] == s_code[:-1]) & (s_score[1:] == s_score[:-1])  # row i+1 ties row i
    where = np.flatnonzero(np.concatenate(([False], same)) | np.concatenate((same, [False])))
    if len(where):
        block = np.cumsum(~np.concatenate(([False], same))[where])
        sub = srt[where]
        srt[where] = sub[_tie_order(block, docs[sub])]
    del same, s_score
    n_ret = np.bincount(s_code, minlength=n_q + 1)[:n_q].astype(np.int64)
    first = np.concatenate(([0], np.cumsum(n_ret)))
    grades = np.full((n_q, max(int(n_ret.max(initial=0)), 1)), ABSENT, dtype=np.int32)
    inside = int(n_ret.sum())  # rows of evaluated queries come first (the dummy code sorts last)
    if inside:
        grades[s_code[:inside], np.arange(inside) - first[s_code[:inside]]] = grade[srt[:inside]]
    return grades, n_ret


def _join(
    labels: JoinLabels, r_code: IntArray, run: Columns, run_hash: npt.NDArray[np.uint64], run_unique: bool
) -> npt.NDArray[np.int32] | None:
    """Each run row's label (UNLABELED when the qrels have none, _POOLED for a negative grade);
    None when a duplicate run pair or a hash collision needs the exact path. The rows matched are
    chosen by the ids' bytes (`join_check.candidates`), then matched by hash and confirmed byte for
    byte; a candidate the hash left unmatched that equals a label raises `InternalError`."""
    if not run_unique:  # every query counts here, run-only ones included (trec_eval refuses them too)
        change = np.concatenate(([True], run.query[1:] != run.query[:-1])) if len(run.query) else np.zeros(0, bool)
        _, head_codes = np.unique(run.query[change], return_inverse=True)
        all_codes = head_codes.ravel()[np.cumsum(change) - 1].astype(np.uint64)
        sorted_keys = np.sort(all_codes * _MIX + run_hash)
        if len(sorted_keys) > 1 and (sorted_keys[1:] == sorted_keys[:-1]).any():
            return None
        del sorted_keys, all_codes
    r_grade = np.full(len(r_code), UNLABELED, dtype=np.int32)
    q_key = labels.key
    if len(q_key) and labels.folds is not None:
        run_fold = fold(run.doc)
        cand = candidates(labels.folds, run_fold)
        c_code = r_code[cand]
        r_key = c_code.astype(np.uint64)
        r_key *= _MIX
        r_key += run_hash[cand]
        pos = np.minimum(np.searchsorted(q_key, r_key), len(q_key) - 1)
        hit = q_key[pos] == r_key
        rows, at = cand[hit], labels.row[pos[hit]]  # the matched labels' rows
        if not (labels.doc[at] == run.doc[rows]).all() or not (labels.code[at] == r_code[rows]).all():
            return None
        r_grade[rows] = np.where(labels.grade[at] < 0, _POOLED, labels.grade[at])
        rest = cand[~hit]
        check_rest(labels.folds, r_code[rest], run.doc[rest], run_fold[rest])
    return r_grade


@dataclass(frozen=True)
class LabelIndex:
    """The evaluated queries and their labels, indexed for the join (`label_index`)."""

    qids: list[str]
    vocab_sorted: npt.NDArray[np.bytes_]
    to_eval: IntArray
    """Sorted position -> evaluated index."""
    labels: JoinLabels
    levels: IntArray | None
    top: int

    def ranked(self, grades: npt.NDArray[np.int32], n_ret: IntArray, run_only: int) -> Ranked:
        """`Ranked` of these ranked grades (_POOLED where a negative grade matched, changed here)."""
        pooled = grades == _POOLED
        grades[pooled] = UNLABELED
        counts = np.zeros((len(self.qids), self.top + 1), dtype=np.int64)
        labeled = self.labels.grade >= 0
        np.add.at(counts, (self.labels.code[labeled], self.labels.grade[labeled]), 1)
        return Ranked(
            query_ids=self.qids,
            grades=grades,
            n_ret=n_ret,
            label_counts=counts,
            max_grade=self.top,
            run_only=run_only,
            levels=self.levels,
            pooled=pooled if pooled.any() else None,
        )


def label_index(
    qrels: Columns,
    qrels_hash: npt.NDArray[np.uint64],
    queries: list[str] | None,
    max_grade: int | None,
) -> LabelIndex | None:
    """The evaluated queries (default: the qrels' own, in order) and their labels, indexed by pair
    key (`JoinLabels`); None when two labels share a key (a duplicate or a collision: the exact path decides).
    The join's check (`join_check.fold_index`) is built here, once for every block of a run."""
    if queries is None:
        _, first = np.unique(qrels.query, return_index=True)
        qids = [q.decode("utf-8") for q in qrels.query[np.sort(first)]]
    else:
        qids = list(dict.fromkeys(queries))
    vocab = np.array([q.encode("utf-8") for q in qids] or [b""], dtype=np.bytes_)[: len(qids)]
    order = np.argsort(vocab, kind="stable")
    vocab_sorted = vocab[order]
    all_codes, _, _ = _run_query_codes(qrels.query, vocab_sorted, order)  # qrels come grouped too
    keep = all_codes < len(order)
    rows = slice(None) if keep.all() else keep  # (every label's query evaluated: no copies)
    q_code = all_codes[rows].astype(np.int32)
    del all_codes, keep
    q_key = qrels_hash[rows] + q_code.astype(np.uint64) * _MIX
    key_order = np.argsort(q_key)  # equal keys make it give up below: no stability needed
    q_key = q_key[key_order]
    if len(q_key) > 1 and (q_key[1:] == q_key[:-1]).any():
        return None
    key_row = narrow_order(key_order)
    del key_order
    grade = np.asarray(qrels.value[rows], dtype=np.int64)
    levels = grade_levels(grade[grade >= 0], max_grade)
    codes = np.maximum(_encode(grade, levels), -1)  # a negative grade as -1: its sign is all that is read
    most = int(codes.max(initial=0))  # the narrowest type that holds every code (int8 below 128)
    narrow = np.int8 if most < 2**7 else np.int16 if most < 2**15 else np.int32
    q_grade = cast(npt.NDArray[np.signedinteger[Any]], codes.astype(narrow))
    q_doc = qrels.doc[rows]  # the labels in file order: the qrels' own column when all are evaluated
    del grade, codes
    top = len(levels) - 1 if levels is not None else max(max_grade or 1, int(q_grade.max(initial=1)), 1)
    folds = fold_index(q_code, q_doc) if len(q_key) else None
    labels = JoinLabels(q_key, key_row, q_code, q_doc, q_grade, folds)
    return LabelIndex(qids, vocab_sorted, order, labels, levels, top)


def rank_columns(
    qrels: Columns,
    qrels_hash: npt.NDArray[np.uint64],
    run: Columns,
    run_hash: npt.NDArray[np.uint64],
    *,
    queries: list[str] | None = None,
    max_grade: int | None = None,
    run_unique: bool = False,
    score_precision: str = "float64",
) -> Ranked | None:
    """Vectorised `rank`: the same result from columns, or None when a duplicate (or a hash
    collision, verified exactly) needs the exact path to report or resolve it. `run_unique`
    skips the run's duplicate check when the parser already made it."""
    index = label_index(qrels, qrels_hash, queries, max_grade)
    if index is None:
        return None
    # run: codes (rows of queries outside the evaluated set get the dummy code n_q), join
    n_q = len(index.qids)
    r_code, query_change, run_only = _run_query_codes(run.query, index.vocab_sorted, index.to_eval)
    r_score = rounded_scores(np.asarray(run.value, dtype=np.float64), score_precision)
    # the join (labels of the run's rows), then the ranking, in this thread: see `evaluation._compute_all`
    r_grade = _join(index.labels, r_code, run, run_hash, run_unique)
    if r_grade is None:
        return None
    position = _grouped_positions(r_code, r_score, query_change, run.doc, n_q)

    # rank: score descending, ties by doc id descending (bytes)
    grades, n_ret = _ranked_grades(r_code, r_score, r_grade, position, run.doc, n_q)
    return index.ranked(grades, n_ret, run_only)
