"""Paired comparison of two score reports: deltas, bootstrap intervals, randomization tests, the
two-tile diagnosis (the CI gates over a comparison are `qrelkit.workflows.compare`'s).

Both reports must hold per-query values (`score --per-query`); queries are paired by id. The
bootstrap resamples queries with replacement (the same resampled query sets for every metric) and
takes the 2.5th and 97.5th percentiles of the mean difference. The randomization test flips the
sign of each query's difference at random (two-sided; exact, over every sign pattern, when there
are no more patterns than resamples; else Monte Carlo with the (count + 1) / (R + 1) estimate).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from ..models import (
    DEFAULT_STRATUM,
    HEADLINE,
    RECALL,
    Collision,
    Comparison,
    Diagnosis,
    MetricComparison,
    QueryScore,
    ScoreReport,
    StratumDelta,
    weight_shares,
)
from . import power
from .names import parse_measure

FloatArray = npt.NDArray[np.float64]

DIAGNOSES = tuple(Diagnosis)
TIE = 1e-12
"""Per-query differences at most this large are ties."""
SAME_MEAN = 5e-5
"""Two means closer than this print alike at 4 decimals: the collision guard looks at them."""
_CELLS = 4_000_000
"""Resample cells (queries x resamples) drawn at once."""


def _resampled_means(diffs: FloatArray, resamples: int, rng: np.random.Generator) -> FloatArray:
    """[metrics, resamples]: the mean of each row of `diffs` [metrics, queries] over queries
    (columns) drawn with replacement, the same draws for every row, in blocks of bounded size."""
    m, n = diffs.shape
    means = np.empty((m, resamples))
    step = max(1, _CELLS // max(n, 1))
    for start in range(0, resamples, step):
        k = min(step, resamples - start)
        draws = rng.integers(0, n, size=(k, n))
        # how often each query was drawn, per resample: the mean of the drawn rows is then one
        # matrix product for every row at once (the same draws as indexing, far fewer reads)
        counts = np.bincount((draws + (np.arange(k) * n)[:, None]).ravel(), minlength=k * n).reshape(k, n)
        means[:, start : start + k] = diffs @ (counts.T / n)
    return means


def bootstrap_ci(diffs: FloatArray, resamples: int, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
    """95% percentile interval of the mean of each row of `diffs` [metrics, queries], resampling
    queries (columns) with replacement, the same resamples for every row."""
    lo, hi = np.percentile(_resampled_means(diffs, resamples, rng), [2.5, 97.5], axis=1)
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


def randomization_p(diffs: FloatArray, resamples: int, rng: np.random.Generator) -> tuple[FloatArray, bool]:
    """Two-sided paired sign-flip test of mean(diff) = 0 for each row; (p-values, exact)."""
    m, n = diffs.shape
    observed = np.abs(diffs.mean(axis=1))
    tolerance = 1e-12 * np.maximum(1.0, observed)
    if 2**n <= resamples:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n))).reshape(-1, n)
        flipped = np.abs(signs @ diffs.T) / n  # [patterns, metrics]
        return (flipped >= observed - tolerance).mean(axis=0), True
    count = np.zeros(m)
    step = max(1, _CELLS // max(n, 1))
    for start in range(0, resamples, step):
        k = min(step, resamples - start)
        signs = rng.integers(0, 2, size=(k, n)) * 2.0 - 1.0
        flipped = np.abs(signs @ diffs.T) / n
        count += (flipped >= observed - tolerance).sum(axis=0)
    return (count + 1) / (resamples + 1), False


def stratified_ci(
    diffs: FloatArray, strata: Sequence[str], weights: dict[str, float], resamples: int, seed: int
) -> tuple[dict[str, list[tuple[float, float]]], list[tuple[float, float]] | None]:
    """Per stratum, the bootstrap interval of each metric's mean difference over that stratum's
    queries; and the interval of the traffic-weighted delta, resampling within each stratum."""
    rng = np.random.default_rng([seed, 2])
    names = sorted(set(strata))
    column = np.array(strata)
    means = {s: _resampled_means(diffs[:, column == s], resamples, rng) for s in names}
    by = {
        s: [(float(a), float(b)) for a, b in zip(*np.percentile(means[s], [2.5, 97.5], axis=1), strict=True)]
        for s in names
    }
    shares = weight_shares({s: weights.get(s, 0.0) for s in names})
    if not shares:
        return by, None
    mix = sum(w * means[s] for s, w in shares.items())
    lo, hi = np.percentile(mix, [2.5, 97.5], axis=1)
    return by, [(float(a), float(b)) for a, b in zip(lo, hi, strict=True)]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _metric(
    name: str,
    queries: Sequence[str],
    a: ScoreReport,
    b: ScoreReport,
    strata: dict[str, str],
    weights: dict[str, float],
) -> tuple[MetricComparison, FloatArray]:
    pa, pb = a.per_query or {}, b.per_query or {}
    va = np.array([pa[q][name].value for q in queries])
    vb = np.array([pb[q][name].value for q in queries])
    d = vb - va

    def cov(report: dict[str, dict[str, QueryScore]], among: Sequence[str] = queries) -> float | None:
        return _mean([c for q in among if (c := report[q][name].coverage) is not None])

    by_stratum: dict[str, StratumDelta] = {}
    for s in sorted(set(strata.get(q, DEFAULT_STRATUM) for q in queries)):
        rows = np.array([strata.get(q, DEFAULT_STRATUM) == s for q in queries])
        ds = d[rows]
        inside = [q for q, keep in zip(queries, rows, strict=True) if keep]
        by_stratum[s] = StratumDelta(
            n=int(rows.sum()), delta=float(ds.mean()), wins=int((ds > TIE).sum()), losses=int((ds < -TIE).sum()),
            coverage_a=cov(pa, inside), coverage_b=cov(pb, inside),
        )  # fmt: skip
    shares = weight_shares({s: weights.get(s, 0.0) for s in by_stratum})
    weighted = sum(w * by_stratum[s].delta for s, w in shares.items()) if shares else None

    def bounds_of(report: dict[str, dict[str, QueryScore]]) -> list[tuple[float, float]] | None:
        found = [b for q in queries if (b := report[q][name].bounds) is not None]
        return found if len(found) == len(queries) else None

    bounds = None
    ba, bb = bounds_of(pa), bounds_of(pb)
    if ba is not None and bb is not None:
        (low_a, high_a), (low_b, high_b) = np.mean(ba, axis=0), np.mean(bb, axis=0)
        bounds = (float(low_b - high_a), float(high_b - low_a))
    comparison = MetricComparison(
        n=len(queries),
        mean_a=float(va.mean()),
        mean_b=float(vb.mean()),
        delta=float(d.mean()),
        ci95=(0.0, 0.0),
        p_value=1.0,
        p_exact=True,
        wins=int((d > TIE).sum()),
        ties=int((np.abs(d) <= TIE).sum()),
        losses=int((d < -TIE).sum()),
        by_stratum=by_stratum,
        weighted_delta=weighted,
        coverage_a=cov(pa),
        coverage_b=cov(pb),
        delta_bounds=bounds,
        mde=power.min_detectable_effect(float(d.std(ddof=1)), len(queries)) if len(queries) >= 2 else None,
    )
    return comparison, d


def _warning(c: MetricComparison) -> str | None:
    if c.delta_bounds is None or abs(c.delta) <= TIE:
        return None
    lo, hi = c.delta_bounds
    if (c.delta > 0 and lo < -TIE) or (c.delta < 0 and hi > TIE):  # the other sign is within reach
        return (  # each run's bounds apart: an outer range, which may hold a sign no labeling gives
            f"the runs' bounds leave the delta in [{lo:+.4f}, {hi:+.4f}] (an outer range): judging the "
            "unlabeled documents may reverse its sign (qrelkit settled says whether it can)"
        )
    return None


def falls(c: MetricComparison) -> bool:
    return c.direction == "down"


def rises(c: MetricComparison) -> bool:
    return c.direction == "up"


def diagnose(headline: str, h: MetricComparison, recall: str, r: MetricComparison) -> tuple[Diagnosis, str]:
    """The two-tile diagnosis: (code, one sentence). "Falls" = the paired interval lies below 0."""
    hd = f"{headline} {h.delta:+.4f} [{h.ci95[0]:+.4f}, {h.ci95[1]:+.4f}]"
    rd = f"{recall} {r.delta:+.4f} [{r.ci95[0]:+.4f}, {r.ci95[1]:+.4f}]"
    if falls(h) and falls(r):
        return Diagnosis.UPSTREAM, (
            f"Both tiles fell ({hd}; {rd}): something upstream of ranking changed (analyzer, chunking, ingestion)."
        )
    if falls(h):
        return Diagnosis.ORDERING, (
            f"The headline fell while recall held ({hd}; {rd}): the candidates are still retrieved but "
            "ranked worse; look at the reranker or fusion."
        )
    if falls(r):
        return Diagnosis.EARLY_WARNING, (
            f"Recall fell while the headline held ({rd}; {hd}): an early warning of an upstream problem "
            "the headline does not show yet."
        )
    if rises(h) or rises(r):
        return Diagnosis.IMPROVED, f"Nothing fell and at least one tile rose ({hd}; {rd})."
    return Diagnosis.STABLE, f"Both tiles held ({hd}; {rd}): no change beyond sampling noise."


def _collisions(side: str, report: ScoreReport, names: Sequence[str], queries: Sequence[str]) -> list[Collision]:
    per = report.per_query or {}
    found = []
    for x, y in itertools.combinations(names, 2):
        vx = np.array([per[q][x].value for q in queries])
        vy = np.array([per[q][y].value for q in queries])
        if abs(vx.mean() - vy.mean()) < SAME_MEAN:
            differ = int((np.abs(vx - vy) > 1e-9).sum())
            if differ:
                found.append(
                    Collision(side=side, metrics=(x, y), mean=float(vx.mean()), queries_differ=differ, n=len(queries))
                )
    return found


def compare(
    a: ScoreReport,
    b: ScoreReport,
    *,
    metrics: Sequence[str] | None = None,
    headline: str = HEADLINE,
    recall: str = RECALL,
    resamples: int = 10_000,
    seed: int = 0,
    mismatches: Sequence[str] = (),
) -> Comparison:
    """Compare baseline `a` with candidate `b` over the queries both hold per-query values for.
    Metrics are named canonically (`AP` for `MAP`), in the arguments as in the reports."""
    a, b = canonical_report(a, "report A"), canonical_report(b, "report B")
    if a.per_query is None or b.per_query is None:
        which = "A" if a.per_query is None else "B"
        raise ScoringError(f"report {which} has no per-query values", "save reports with `score --per-query`")
    if resamples < 1:
        raise ScoringError("--resamples must be at least 1")
    queries = sorted(set(a.per_query) & set(b.per_query))
    if not queries:
        raise ScoringError("the two reports share no query", "score both runs against the same golden set")
    headline, recall = parse_measure(headline).name, parse_measure(recall).name
    names = _metric_names(a, b, queries, metrics, (headline, recall))
    strata = {**(a.query_strata or {}), **(b.query_strata or {})}
    query_strata = {q: strata.get(q, DEFAULT_STRATUM) for q in queries}
    weights = a.stratum_weights or b.stratum_weights
    results, diffs = {}, []
    for m in names:
        results[m], d = _metric(m, queries, a, b, query_strata, weights)
        diffs.append(d)
    results = _with_intervals(results, np.vstack(diffs), list(query_strata.values()), weights, resamples, seed)
    code, text = diagnose(headline, results[headline], recall, results[recall])
    return Comparison(
        baseline=a.fingerprint,
        candidate=b.fingerprint,
        queries=len(queries),
        mismatches=list(mismatches),
        resamples=resamples,
        seed=seed,
        headline=headline,
        recall=recall,
        diagnosis=code,
        diagnosis_text=text,
        metrics=results,
        collisions=_collisions("A", a, names, queries) + _collisions("B", b, names, queries),
        per_query={m: {q: (a.per_query[q][m].value, b.per_query[q][m].value) for q in queries} for m in names},
        query_strata=query_strata,
        missing_a=lacking(a, queries),
        missing_b=lacking(b, queries),
        baseline_queries=a.queries,
        candidate_queries=b.queries,
    )


def lacking(report: ScoreReport, queries: Sequence[str]) -> list[str]:
    """The `queries` (sorted) the report's run has no document for: scored 0 there, paired as 0.
    A report saved before reports named them (`missing_from_run` null) names none."""
    missing = set(report.missing_from_run or ())
    return [q for q in queries if q in missing]


UNIT_SLACK = 1e-9
"""How far above 1 a value of a measure in [0, 1] may lie: float rounding (RBPResid's sum can
come to 1.0000000000000002)."""


def _check_range(report: ScoreReport, metric: str, source: str) -> None:
    """A value of a measure whose values lie in [0, 1] (`MeasureSpec.unit_interval`) outside it, or
    not a number, cannot have come from scoring: the report was edited or damaged (a mean that is
    NaN is one over no query)."""
    if not parse_measure(metric).spec.unit_interval:
        return
    mean = report.metrics[metric].mean
    if not (math.isnan(mean) or 0 <= mean <= 1 + UNIT_SLACK):
        _out_of_range(f"the mean of {metric}", mean, metric, source)
    for q, row in (report.per_query or {}).items():
        qs = row.get(metric)
        if qs is not None and not 0 <= qs.value <= 1 + UNIT_SLACK:
            _out_of_range(f"{metric} of query {q!r}", qs.value, metric, source)


def _out_of_range(what: str, value: float, metric: str, source: str) -> None:
    raise ScoringError(
        f"{source}: {what} is {value:g}, outside [0, 1] where {metric} lies",
        "the report was edited or damaged: score the run again with `score --format json --per-query`",
    )


def canonical_report(report: ScoreReport, source: str = "a report") -> ScoreReport:
    """The report with its metrics under their canonical names (reports saved before names were
    canonical may say `MAP` for `AP`). The one rule for every comparison, leaderboard and
    sensitivity: a name that does not parse, two names of one measure, or a value of a measure in
    [0, 1] outside it (`_check_range`) are refused (`source` says whose), never compared under a
    guess."""
    rename: dict[str, str] = {}
    for m in report.metrics:
        try:
            c = parse_measure(m).name
        except ScoringError as exc:
            raise ScoringError(
                f"{source} holds a metric qrelkit does not know: {m!r} ({exc.message})",
                "score the run again with this version, or leave that report out",
            ) from None
        if c in rename.values():
            twin = next(k for k, v in rename.items() if v == c)
            raise ScoringError(f"{source} holds {c} twice, as {twin!r} and {m!r}", "keep one of the two in the report")
        _check_range(report, m, source)
        rename[m] = c
    if all(m == c for m, c in rename.items()):
        return report
    per_query = {q: {rename.get(m, m): s for m, s in row.items()} for q, row in (report.per_query or {}).items()}
    metrics = {rename[m]: r for m, r in report.metrics.items()}
    return report.model_copy(
        update={"metrics": metrics, "per_query": per_query if report.per_query is not None else None}
    )


def _metric_names(
    a: ScoreReport, b: ScoreReport, queries: Sequence[str], metrics: Sequence[str] | None, tiles: Sequence[str]
) -> list[str]:
    """The metrics to compare: the chosen ones (default: every one both reports hold), then the
    tiles; each must be in both reports, with a per-query value for every query."""
    shared = [m for m in a.metrics if m in b.metrics]
    chosen = [parse_measure(m).name for m in (list(metrics) if metrics is not None else shared)]
    names = list(dict.fromkeys([*chosen, *tiles]))
    for m in names:
        if m not in shared:
            raise ScoringError(
                f"{m} is not in both reports (they have {', '.join(shared) or 'no common metric'})",
                "score both with it (--metrics), or choose the tiles with --headline / --recall",
            )
    for side, report in (("A", a.per_query or {}), ("B", b.per_query or {})):
        for q in queries:
            missing = [m for m in names if m not in report[q]]
            if missing:
                raise ScoringError(
                    f"report {side} has no per-query {', '.join(missing)} for query {q!r}",
                    "save the report again with `score --per-query`",
                )
    return names


def _with_intervals(
    results: dict[str, MetricComparison],
    diffs: FloatArray,
    strata: Sequence[str],
    weights: dict[str, float],
    resamples: int,
    seed: int,
) -> dict[str, MetricComparison]:
    """`results` (in the rows' order of `diffs` [metrics, queries]) with their bootstrap intervals,
    randomization p-values, per-stratum and weighted intervals, and warnings."""
    lo, hi = bootstrap_ci(diffs, resamples, np.random.default_rng([seed, 0]))
    p, exact = randomization_p(diffs, resamples, np.random.default_rng([seed, 1]))
    by_stratum, weighted = stratified_ci(diffs, strata, weights, resamples, seed)
    out = {}
    for i, (m, r) in enumerate(results.items()):
        c = r.model_copy(
            update={
                "ci95": (float(lo[i]), float(hi[i])),
                "p_value": float(p[i]),
                "p_exact": exact,
                "weighted_ci95": weighted[i] if weighted is not None else None,
                "by_stratum": {s: sd.model_copy(update={"ci95": by_stratum[s][i]}) for s, sd in r.by_stratum.items()},
            }
        )
        out[m] = c.model_copy(update={"warning": _warning(c)})
    return out
