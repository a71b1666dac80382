"""The narrow label index (`arrays.label_index`) and the packed prefilter of the join
(`join_check.fold_index`, `candidates`) against their exact twins.

The index keeps query codes as int32, grade codes in the narrowest signed type that holds them
(int8 up to 127 codes, int16 up to 32767, else int32; a negative grade as -1) and the join check's
bitmap one bit a slot. Hypothesis makes labels and runs with ids of 1-20 bytes (ASCII and UTF-8,
across the 8-byte words), negative grades, grades spread so the codes cross the int8 limit, and
run-only queries; the fast ranking must equal the dict-based `rank` with and without every
threshold lowered (`thresholds.lowered`: a one-byte bitmap, int64 orders and offsets). The code
types' limits are crossed on purpose below, and the packed bitmap is held equal to one boolean a slot.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.formats.columns import Columns, hash_docs
from qrelkit.scoring import join_check
from qrelkit.scoring.arrays import Ranked, label_index, rank, rank_columns
from thresholds import lowered

Labels = dict[str, dict[str, int]]
RunRows = list[tuple[str, str, float]]

IDS = st.text(alphabet=st.sampled_from("ab9-_.XÿЖ中"), min_size=1, max_size=20)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Labels, RunRows]:
    queries = draw(st.lists(IDS, min_size=1, max_size=5, unique=True))
    spread = draw(st.sampled_from([3, 100, 300]))  # grades 0..3, or spread so the codes pass 127
    grade = st.one_of(st.integers(-3, -1), st.integers(0, spread))
    labels: Labels = {q: draw(st.dictionaries(IDS, grade, max_size=12)) for q in queries}
    rows: RunRows = []
    for q in [*queries, "run-only"]:
        docs = [*labels.get(q, {})][: draw(st.integers(0, 12))] + draw(st.lists(IDS, max_size=6))
        for d in dict.fromkeys(docs):
            rows.append((q, d, float(draw(st.integers(0, 4)))))  # ties: broken by document id
    return labels, rows


def _fast(labels: Labels, rows: RunRows) -> Ranked:
    qc = Columns.from_rows([(q, d, g) for q, docs in labels.items() for d, g in docs.items()], integer=True)
    rc = Columns.from_rows(rows)
    ranked = rank_columns(qc, hash_docs(qc.doc), rc, hash_docs(rc.doc), queries=list(labels))
    assert ranked is not None
    return ranked


def _same(a: Ranked, b: Ranked) -> None:
    assert (a.query_ids, a.run_only, a.max_grade) == (b.query_ids, b.run_only, b.max_grade)
    width = max(a.depth, b.depth)

    def pad(g: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.pad(g, ((0, 0), (0, width - g.shape[1])), constant_values=-2)

    assert (pad(a.grades) == pad(b.grades)).all()
    assert (a.label_counts == b.label_counts).all() and (a.n_ret == b.n_ret).all()
    assert (a.levels is None) == (b.levels is None) and (a.levels is None or (a.levels == b.levels).all())
    pooled_a = np.zeros((len(a.query_ids), width), bool) if a.pooled is None else pad(a.pooled.astype(np.int8)) == 1
    pooled_b = np.zeros((len(b.query_ids), width), bool) if b.pooled is None else pad(b.pooled.astype(np.int8)) == 1
    assert (pooled_a == pooled_b).all()


@settings(max_examples=150, deadline=None)
@given(cases(), st.booleans())
def test_the_narrow_index_ranks_as_the_exact_twin(case: tuple[Labels, RunRows], low: bool) -> None:
    labels, rows = case
    if low:  # (grades above 1 coded by value in both)
        with lowered():
            _same(rank(labels, rows), _fast(labels, rows))
    else:
        _same(rank(labels, rows), _fast(labels, rows))


@pytest.mark.parametrize(
    ("n_grades", "kind"), [(127, np.int8), (128, np.int8), (129, np.int16), (32768, np.int16), (32769, np.int32)]
)
def test_grade_codes_take_the_narrowest_type_across_its_limits(n_grades: int, kind: type[np.generic]) -> None:
    """Grades 0..n-1 (each once, over 50 queries): n codes, the largest n - 1."""
    labels: Labels = {f"q{i}": {} for i in range(50)}
    for g in range(n_grades):
        labels[f"q{g % 50}"][f"d{g}"] = g
    labels["q0"]["pooled"] = -7
    qc = Columns.from_rows([(q, d, g) for q, docs in labels.items() for d, g in docs.items()], integer=True)
    index = label_index(qc, hash_docs(qc.doc), list(labels), None)
    assert index is not None
    assert index.labels.grade.dtype == kind and index.labels.code.dtype == np.int32
    assert int(index.labels.grade.min()) == -1 and int(index.labels.grade.max()) == n_grades - 1
    rows = [(q, d, float(g % 7)) for q, docs in labels.items() for d, g in docs.items() if g > 0 and g % 3]
    rows += [("q0", "pooled", 9.0)]
    rows += [("q1", "unjudged", 1.5)]
    _same(rank(labels, rows), _fast(labels, rows))


@settings(max_examples=100, deadline=None)
@given(st.lists(IDS, min_size=1, max_size=40), st.lists(IDS, max_size=40), st.integers(3, 23))
def test_the_packed_bitmap_picks_what_a_boolean_one_picks(
    label_docs: list[str], run_docs: list[str], bits: int
) -> None:
    doc = np.array([d.encode() for d in label_docs], dtype=np.bytes_)
    run = np.array([d.encode() for d in [*run_docs, *label_docs[:3]]] or [b""], dtype=np.bytes_)
    code = np.zeros(len(doc), dtype=np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(join_check, "_BITS", bits)
        patch.setattr(join_check, "_MIN_BITS", min(bits, join_check._MIN_BITS))
        index = join_check.fold_index(code, doc)
    size = index.size
    assert len(index.bits) == max(1, (1 << size) // 8)
    plain = np.zeros(1 << size, dtype=bool)  # the twin: one boolean a slot
    plain[join_check._slots(join_check.fold(doc), size)] = True
    run_fold = join_check.fold(run)
    picked = join_check.candidates(index, run_fold)
    assert picked.tolist() == np.flatnonzero(plain[join_check._slots(run_fold, size)]).tolist()
    assert set(range(len(run_docs), len(run))) <= set(picked.tolist())  # a label's own id is always a candidate
    assert index.order.dtype == np.int32 and sorted(index.order.tolist()) == list(range(len(doc)))
