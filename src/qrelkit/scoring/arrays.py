"""From qrels and a run to integer-coded arrays the kernels work on.

`Ranked.grades[i, r]` is the label of the document at rank r+1 for evaluated query i:
a grade >= 0 when labeled, `UNLABELED` (-1) when retrieved but not labeled (never judged, skipped,
or pooled-but-unjudged), `ABSENT` (-2) past the end of the run. Documents are ranked as trec_eval
ranks them: by score descending, ties by document id descending in byte order; the rank column of
a run file is ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError

UNLABELED = -1
ABSENT = -2

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Ranked:
    """Ranked, labeled lists for the evaluated queries."""

    query_ids: list[str]
    grades: npt.NDArray[np.int16]
    """[queries, depth]: grade, UNLABELED or ABSENT."""
    n_ret: IntArray
    """[queries]: documents retrieved."""
    label_counts: IntArray
    """[queries, max_grade + 1]: labeled documents of each grade (retrieved or not)."""
    max_grade: int
    in_run: npt.NDArray[np.bool_]
    """[queries]: the run has at least one document for the query."""
    run_only: int
    """Queries in the run but not in the evaluated set (ignored, counted)."""

    @property
    def depth(self) -> int:
        return int(self.grades.shape[1])


def _doc_key(doc_id: str) -> bytes:
    return doc_id.encode("utf-8")


def rank(
    labels: Mapping[str, Mapping[str, int]],
    run: Iterable[tuple[str, str, float]],
    *,
    queries: Iterable[str] | None = None,
    max_grade: int | None = None,
) -> Ranked:
    """Build `Ranked` from labels (query -> doc -> grade; a negative grade means pooled but not
    judged, i.e. unlabeled) and run rows (query, doc, score).

    `queries` is the evaluated set (default: the keys of `labels`). A duplicate (query, doc) in
    the run is an error.
    """
    qids = list(dict.fromkeys(queries if queries is not None else labels.keys()))
    index = {q: i for i, q in enumerate(qids)}
    top = max((g for docs in labels.values() for g in docs.values()), default=1)
    max_grade = max(max_grade if max_grade is not None else 1, top, 1)

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
        grade = labels.get(qid, {}).get(doc_id, UNLABELED)
        per_query[i].append((score, _doc_key(doc_id), grade if grade >= 0 else UNLABELED))

    depth = max((len(rows) for rows in per_query), default=0)
    grades = np.full((len(qids), max(depth, 1)), ABSENT, dtype=np.int16)
    n_ret = np.zeros(len(qids), dtype=np.int64)
    for i, rows in enumerate(per_query):
        rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
        n_ret[i] = len(rows)
        if rows:
            grades[i, : len(rows)] = [r[2] for r in rows]

    counts = np.zeros((len(qids), max_grade + 1), dtype=np.int64)
    for q, i in index.items():
        for g in labels.get(q, {}).values():
            if g >= 0:
                counts[i, g] += 1
    return Ranked(
        query_ids=qids,
        grades=grades,
        n_ret=n_ret,
        label_counts=counts,
        max_grade=max_grade,
        in_run=n_ret > 0,
        run_only=len(run_only),
    )
