"""`qrelkit settled A B`: per measure, whether any labeling of the unlabeled documents could still
change the sign of B - A or the paired t-test's verdict, and an estimate of the judgments, in the
`settle` order, until neither can (`scoring.settle`, `scoring.settle_order`).

The two runs are read as `score` reads them and scored against the same source (the store,
--golden or --qrels, with --max-grade and --relevance-level), over the same queries: the golden
set's queries with a label (or, --keep-unlabeled-queries, all of them), a query a run lacks
scoring 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import HEADLINE
from .scoring import check_shared_queries, display_names
from .sources import ScoringSource, choose_source, plan

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..formats.trec import RunFormat
    from ..scoring.measures import Measure
    from ..scoring.settle import DeltaRange, QueryCase, Scale
    from ..scoring.settle_order import Matchup, Pair
    from ..storage import Store


@dataclass(frozen=True)
class SettledRow:
    """One measure: the delta now, its range, the verdicts, and the estimate."""

    metric: str
    now: float
    low: float
    high: float
    sign: str
    significance: str
    exact_queries: int
    queries: int
    open_pairs: int
    """Unlabeled (query, document) pairs whose label can move some query's delta."""
    to_settle_sign: int | None
    """Judgments in the settle order until the sign is settled (an estimate; None: not by judging
    every open pair at the assumed grade, which cannot happen, kept for safety)."""
    to_settle: int | None
    """... until both verdicts are settled (an estimate)."""
    exactness: str

    @property
    def exact(self) -> bool:
        return self.exact_queries == self.queries


@dataclass(frozen=True)
class SettledReport:
    """`qrelkit settled`: the two runs, the assumed grade of the estimate, a row per measure."""

    baseline: str
    candidate: str
    queries: int
    assumed_grade: int
    rows: list[SettledRow] = field(default_factory=list)


def read_ranked(path: Path, run_format: RunFormat = "auto") -> dict[str, list[str]]:
    """A run's documents per query, whole, in trec_eval order (as `score` ranks them)."""
    from ..formats.runs import read_run_file
    from ..scoring.arrays import top_columns

    run = read_run_file(path, run_format)
    return top_columns(run.columns, len(run.columns.query))


def source_labels(source: ScoringSource) -> dict[str, dict[str, int]]:
    """query -> document -> grade of the source's labels (a negative grade is no label)."""
    labels: dict[str, dict[str, int]] = {}
    cols = source.labels
    for q, d, g in zip(cols.query.tolist(), cols.doc.tolist(), cols.value.tolist(), strict=True):
        if g >= 0:
            labels.setdefault(q.decode("utf-8"), {})[d.decode("utf-8")] = int(g)
    return labels


def evaluated(source: ScoringSource, queries: Sequence[str] | None, keep_unlabeled: bool) -> list[str]:
    """The queries `score` evaluates (`evaluation.evaluated_queries`)."""
    from ..scoring.evaluation import evaluated_queries, query_ids

    chosen, _ = evaluated_queries(source.labels, queries, source.info.scale.relevance_threshold, keep_unlabeled)
    return chosen if chosen is not None else sorted(query_ids(source.labels))


def cases(
    queries: Sequence[str],
    a: Mapping[str, Sequence[str]],
    b: Mapping[str, Sequence[str]],
    labels: Mapping[str, Mapping[str, int]],
) -> list[QueryCase]:
    from ..scoring.settle import QueryCase

    return [QueryCase(q, a.get(q, ()), b.get(q, ()), labels.get(q, {})) for q in queries]


def prior_of(labels: Mapping[str, Mapping[str, int]], max_grade: int) -> npt.NDArray[np.float64]:
    """The grade prior of the current labels (`impact.grade_prior`, as the impact order uses)."""
    from ..scoring.settle import grade_prior

    return grade_prior([g for docs in labels.values() for g in docs.values()], max_grade)


def settle_sequence(
    m: Measure, matchups: Sequence[Matchup], scale: Scale, prior: npt.NDArray[np.float64]
) -> list[Pair]:
    """Every open pair of the comparisons in the settle order (priority, then depth: best rank
    in the compared runs, query, document), as `queue --order settle` would list them."""
    from ..scoring.settle import query_range
    from ..scoring.settle_order import priorities

    best: dict[Pair, int] = {}
    for mu in matchups:
        for c in mu.cases:
            r = query_range(m, c, scale)
            if not r.open_docs:
                continue
            rank: dict[str, int] = {}
            for run in (c.run_b, c.run_a):
                rank.update({d: min(i + 1, rank.get(d, i + 1)) for i, d in enumerate(run)})
            for d in r.open_docs:
                best[(c.query_id, d)] = min(best.get((c.query_id, d), rank[d]), rank[d])
    weight = priorities(m, matchups, scale, prior)
    return sorted(best, key=lambda p: (-weight.get(p, 0.0), best[p], p[0], p[1]))


def settled(
    paths: Sequence[Path],
    metrics: Sequence[str],
    open_store: Callable[[], Store],
    *,
    golden: Path | None = None,
    qrels: Path | None = None,
    verify: bool = True,
    max_grade: int | None = None,
    relevance_level: int | None = None,
    run_format: RunFormat = "auto",
    keep_unlabeled: bool = False,
    estimate: bool = True,
    covered_only: bool = False,
    source: ScoringSource | None = None,
) -> SettledReport:
    """The report of `qrelkit settled` for runs A, B (`paths`) and `metrics` (default: the headline).
    `estimate=False` leaves out the judgments until settled (None); `covered_only` leaves out the
    measures the stopping rule does not cover instead of refusing them (`compare`'s lines).
    `source`: these labels instead of the ones chosen from the store, --golden or --qrels (the
    judging screen's: those its assessor sees, `settle_watch.seen_by`)."""
    from ..scoring.names import parse_measure
    from ..scoring.settle import EXACTNESS, Scale, delta_range, refuse_unsupported
    from ..scoring.settle_order import Matchup, expected_grade, replay

    if len(paths) != 2:
        raise UsageError(f"settled compares two runs, got {len(paths)}", "give a baseline A and a candidate B")
    source = source or choose_source(
        open_store, golden=golden, qrels=qrels, verify=verify, max_grade=max_grade, relevance_level=relevance_level
    )
    chosen = plan(source, metrics=",".join(metrics) if metrics else HEADLINE, keep_unlabeled=keep_unlabeled)
    scale = Scale(source.info.scale.max_grade, source.info.scale.relevance_threshold)
    measures = [m for m in map(parse_measure, chosen.metrics) if not covered_only or covers(m, scale)]
    for m in measures:
        refuse_unsupported(m, scale)
    names = display_names(paths)
    ranked = []
    for path, name in zip(paths, names, strict=True):
        lists = read_ranked(path, run_format)
        check_shared_queries(source, set(lists), next(iter(lists), None), name)
        ranked.append(lists)
    labels = source_labels(source)
    queries = evaluated(source, chosen.queries, keep_unlabeled)
    both = cases(queries, ranked[0], ranked[1], labels)
    prior = prior_of(labels, scale.max_grade)
    grade = expected_grade(prior)
    rows = []
    for m in measures:
        r: DeltaRange = delta_range(m, both, scale)
        matchup = [Matchup(names[0], names[1], both)]
        est = replay(m, matchup, scale, settle_sequence(m, matchup, scale, prior), grade) if estimate else None
        rows.append(
            SettledRow(
                metric=m.name, now=r.now, low=r.low, high=r.high, sign=r.sign, significance=r.significance,
                exact_queries=r.exact_queries, queries=len(r.queries), open_pairs=r.open_pairs,
                to_settle_sign=est.sign[0] if est else None, to_settle=est.settled[0] if est else None,
                exactness=EXACTNESS[m.family],
            )
        )  # fmt: skip
    return SettledReport(names[0], names[1], len(queries), grade, rows)


def covers(m: Measure, scale: Scale) -> bool:
    """Whether the stopping rule covers the measure (`settle.refuse_unsupported` accepts it)."""
    from ..errors import ScoringError
    from ..scoring.settle import refuse_unsupported

    try:
        refuse_unsupported(m, scale)
    except ScoringError:
        return False
    return True


def settled_line(r: SettledRow) -> str:
    """`compare`'s one line per measure: the range over every labeling and the two verdicts."""
    exact = "exact" if r.exact else f"exact on {r.exact_queries}/{r.queries} queries"
    return (
        f"{r.metric} B - A {r.now:+.4f} in [{r.low:+.4f}, {r.high:+.4f}] over every labeling ({exact}): "
        f"sign {r.sign}, t-test {r.significance}"
    )
