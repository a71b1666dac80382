"""`qrelkit settled A B`: per measure, whether any labeling of the unlabeled documents could still
change the sign of B - A or the paired t-test's verdict, and an estimate of the judgments, in the
`settle` order, until neither can (`scoring.settle`, `scoring.settle_order`, `scoring.settle_joint`).

The two runs (or each adjacent pair of a saved leaderboard's ranking, `comparisons`) are read as
`score` reads them and scored against the same source (the store, --golden or --qrels, with
--max-grade and --relevance-level), over the same queries: the golden set's queries with a label
(or, --keep-unlabeled-queries, all of them; a --profile's strata only), a query a run lacks
scoring 0. `compare`'s `settled:` lines (`settled_rows`) take the source and plan `compare`
scored with instead of reading them again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import HEADLINE
from .comparisons import read_ranked
from .scoring import check_shared_queries, display_names
from .sources import ScoringPlan, ScoringSource, choose_source, plan

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

    chosen, _ = evaluated_queries(source.labels, queries, source.scale.relevance_threshold, keep_unlabeled)
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
    measures: Sequence[Measure], matchups: Sequence[Matchup], scale: Scale, prior: npt.NDArray[np.float64]
) -> list[Pair]:
    """Every open pair of the comparisons under any of the measures in the settle order (priority
    over every measure, `settle_joint`, then depth: best rank in the compared runs, query,
    document), as `queue --order settle` would list them."""
    from ..scoring.settle import query_range
    from ..scoring.settle_joint import joint_priorities

    best: dict[Pair, int] = {}
    for m in measures:
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
    weight = joint_priorities(measures, matchups, scale, prior)
    return sorted(best, key=lambda p: (-weight.get(p, 0.0), best[p], p[0], p[1]))


@dataclass(frozen=True)
class Settled:
    """`qrelkit settled`: a report per comparison, and the default measures left out because the
    stopping rule does not cover them (a profile's, a leaderboard's)."""

    reports: list[SettledReport]
    left_out: list[str] = field(default_factory=list)


def settled_all(
    pairs: Sequence[tuple[Path, Path]],
    metrics: Sequence[str],
    open_store: Callable[[], Store],
    *,
    names: Sequence[tuple[str, str]] = (),
    default_metrics: Sequence[str] = (),
    profile: str | None = None,
    golden: Path | None = None,
    qrels: Path | None = None,
    verify: bool = True,
    max_grade: int | None = None,
    relevance_level: int | None = None,
    run_format: RunFormat = "auto",
    keep_unlabeled: bool = False,
    estimate: bool = True,
    source: ScoringSource | None = None,
) -> Settled:
    """`qrelkit settled` for run pairs (A, B) named `names` (default: as `compare` names the two
    files), over `metrics` (each refused unless the stopping rule covers it), else
    `default_metrics`, else the profile's (of these defaults, those the rule does not cover are
    left out and named), else the headline; `profile`: its strata's queries too. The estimate
    replays the settle order over every pair and measure at once; `estimate=False` leaves it out.
    `source`: these labels instead of the ones chosen from the store, --golden or --qrels (the
    judging screen's: those its assessor sees, `settle_watch.seen_by`)."""
    if not pairs:
        raise UsageError("settled needs a comparison", "give runs A B, or --leaderboard FILE")
    source = source or choose_source(
        open_store, golden=golden, qrels=qrels, verify=verify, max_grade=max_grade, relevance_level=relevance_level
    )
    wanted = list(metrics) or list(default_metrics)
    chosen = plan(
        source, metrics=",".join(wanted) if wanted else (None if profile else HEADLINE), profile=profile,
        keep_unlabeled=keep_unlabeled,
    )  # fmt: skip
    measures, left_out = _measures(chosen.metrics, source, strict=bool(metrics) or not (default_metrics or profile))
    if not measures:
        raise UsageError(
            f"the stopping rule covers none of the measures ({', '.join(left_out)})", "name one with --metric"
        )
    named = list(names) or [_pair_names(pair) for pair in pairs]
    reports = against(source, chosen, pairs, named, measures, run_format=run_format, estimate=estimate)
    return Settled(reports, left_out)


def settled_rows(
    source: ScoringSource,
    chosen: ScoringPlan,
    paths: tuple[Path, Path],
    metrics: Sequence[str],
    run_format: RunFormat = "auto",
) -> list[SettledRow]:
    """`compare`'s `settled:` rows: runs A, B against the source and plan `compare` scored them
    with (read once there), over the `metrics` the stopping rule covers, without the estimate."""
    measures, _ = _measures(metrics, source, strict=False)
    if not measures:
        return []
    (report,) = against(source, chosen, [paths], [_pair_names(paths)], measures, run_format=run_format, estimate=False)
    return report.rows


def _pair_names(pair: tuple[Path, Path]) -> tuple[str, str]:
    a, b = display_names(list(pair))
    return a, b


def _measures(names: Sequence[str], source: ScoringSource, *, strict: bool) -> tuple[list[Measure], list[str]]:
    """The measures, each refused if the stopping rule does not cover it (`strict`), else those it
    covers and the names of the others."""
    from ..scoring.names import parse_measure
    from ..scoring.settle import refuse_unsupported

    scale = _scale(source)
    kept: list[Measure] = []
    left: list[str] = []
    for m in (parse_measure(x) for x in names):
        if strict:
            refuse_unsupported(m, scale)
            kept.append(m)
        elif covers(m, scale):
            kept.append(m)
        else:
            left.append(m.name)
    return kept, left


def _scale(source: ScoringSource) -> Scale:
    from ..scoring.settle import Scale

    return Scale(source.scale.max_grade, source.scale.relevance_threshold)


def against(
    source: ScoringSource,
    chosen: ScoringPlan,
    pairs: Sequence[tuple[Path, Path]],
    names: Sequence[tuple[str, str]],
    measures: Sequence[Measure],
    *,
    run_format: RunFormat = "auto",
    estimate: bool = True,
) -> list[SettledReport]:
    """A report per pair: each run read once (`comparisons.read_ranked`), every pair over the
    plan's queries, the estimate the settle order over every pair and measure replayed."""
    from ..scoring.settle import EXACTNESS, delta_range
    from ..scoring.settle_joint import replay_all
    from ..scoring.settle_order import Matchup, expected_grade

    scale = _scale(source)
    read: dict[Path, dict[str, list[str]]] = {}
    ranked: dict[str, dict[str, list[str]]] = {}
    for pair, pair_names in zip(pairs, names, strict=True):
        for path, name in zip(pair, pair_names, strict=True):
            if name not in ranked:
                if path not in read:
                    read[path] = read_ranked(path, run_format)
                lists = read[path]
                check_shared_queries(source, set(lists), next(iter(lists), None), name)
                ranked[name] = lists
    labels = source_labels(source)
    queries = evaluated(source, chosen.queries, chosen.keep_unlabeled)
    matchups = [Matchup(a, b, cases(queries, ranked[a], ranked[b], labels)) for a, b in names]
    prior = prior_of(labels, scale.max_grade)
    grade = expected_grade(prior)
    replays = (
        replay_all(measures, matchups, scale, settle_sequence(measures, matchups, scale, prior), grade)
        if estimate
        else None
    )
    reports = []
    for i, mu in enumerate(matchups):
        rows = []
        for j, m in enumerate(measures):
            r: DeltaRange = delta_range(m, mu.cases, scale)
            rows.append(
                SettledRow(
                    metric=m.name, now=r.now, low=r.low, high=r.high, sign=r.sign, significance=r.significance,
                    exact_queries=r.exact_queries, queries=len(r.queries), open_pairs=r.open_pairs,
                    to_settle_sign=replays[j].sign[i] if replays else None,
                    to_settle=replays[j].settled[i] if replays else None, exactness=EXACTNESS[m.family],
                )
            )  # fmt: skip
        reports.append(SettledReport(mu.a, mu.b, len(queries), grade, rows))
    return reports


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
