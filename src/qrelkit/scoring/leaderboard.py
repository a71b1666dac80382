"""A baseline against any number of candidates, paired over the same queries: per run and metric
the mean, its interval, coverage and bounds; per candidate the paired delta to the baseline, its
bootstrap interval and randomization p-value, corrected for the number of candidates
(`multiple`); the sensitivity of each metric on these queries (`power`); and the pairwise
comparison of the baseline with the best candidate (the two tiles).

Every report must hold per-query values. The runs are compared over the queries every report
holds; a query some report lacks is named in that run's row (`missing_queries`), never paired;
a query a run has no document for is scored 0, paired, and named in its row (`missing_from_run`).
The family a correction controls is one metric's candidates against the baseline (Holm,
Bonferroni) or one metric's every pair of runs (Tukey); metrics are not corrected against each
other (each answers its own question).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import ScoringError
from ..models import (
    DEFAULT_STRATUM,
    HEADLINE,
    RECALL,
    Correction,
    Leaderboard,
    LeaderboardRow,
    RunCell,
    ScoreReport,
    Sensitivity,
    SensitivityReport,
)
from . import multiple, paired, power
from .aggregate import t975
from .names import parse_measure

FloatArray = npt.NDArray[np.float64]
ALPHA = 0.05
POWER = 0.8


@dataclass(frozen=True)
class Table:
    """The per-query values of every run, aligned: `values` [metrics, queries, runs]."""

    runs: list[str]
    metrics: list[str]
    queries: list[str]
    strata: list[str]
    values: FloatArray
    coverage: list[list[float | None]]
    """[metric][run]: mean coverage over the queries."""
    bounds: list[list[tuple[float, float] | None]]
    missing: list[list[str]]
    """[run]: the queries of the comparison's union this run's report lacks."""


def align(reports: Sequence[ScoreReport], names: Sequence[str], metrics: Sequence[str] | None = None) -> Table:
    """The reports' per-query values over the queries they all hold, for the metrics they all hold
    (or `metrics`, each of which must be in every report)."""
    for name, r in zip(names, reports, strict=True):
        if r.per_query is None:
            raise ScoringError(f"the report of {name} has no per-query values", "save reports with `score --per-query`")
    per = [r.per_query or {} for r in reports]
    union = sorted(set().union(*per))
    queries = sorted(set(per[0]).intersection(*per[1:]))
    if not queries:
        raise ScoringError("the runs share no query", "score every run against the same golden set")
    shared = [m for m in reports[0].metrics if all(m in r.metrics for r in reports[1:])]
    chosen = [parse_measure(m).name for m in metrics] if metrics is not None else shared
    for m in chosen:
        if m not in shared:
            raise ScoringError(
                f"{m} is not in every report (they share {', '.join(shared) or 'no metric'})",
                "score every run with it (--metrics)",
            )
    values = np.empty((len(chosen), len(queries), len(reports)))
    coverage: list[list[float | None]] = []
    bounds: list[list[tuple[float, float] | None]] = []
    for i, m in enumerate(chosen):
        coverage.append([])
        bounds.append([])
        for j, (name, p) in enumerate(zip(names, per, strict=True)):
            try:
                cells = [p[q][m] for q in queries]
            except KeyError:
                raise ScoringError(
                    f"the report of {name} lacks per-query {m} for some query", "save it again with `score --per-query`"
                ) from None
            values[i, :, j] = [c.value for c in cells]
            covered = [c.coverage for c in cells if c.coverage is not None]
            coverage[i].append(sum(covered) / len(covered) if covered else None)
            known = [c.bounds for c in cells if c.bounds is not None]
            bounds[i].append(
                (float(np.mean([b[0] for b in known])), float(np.mean([b[1] for b in known])))
                if len(known) == len(cells)
                else None
            )
    strata_of: dict[str, str] = {}
    for r in reports:
        strata_of.update(r.query_strata or {})
    return Table(
        runs=list(names),
        metrics=chosen,
        queries=queries,
        strata=[strata_of.get(q, DEFAULT_STRATUM) for q in queries],
        values=values,
        coverage=coverage,
        bounds=bounds,
        missing=[sorted(set(union) - set(p)) for p in per],
    )


def _t_interval(x: FloatArray) -> tuple[float, float] | None:
    n = len(x)
    if n < 2:
        return None
    half = t975(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    m = float(x.mean())
    return (max(0.0, m - half), min(1.0, m + half)) if 0.0 <= m <= 1.0 else (m - half, m + half)


def adjust(p: FloatArray, correction: Correction, tukey: FloatArray | None) -> FloatArray:
    """Candidates' p-values against the baseline under `correction` (`tukey`: the HSD p-values of
    baseline (run 0) against each candidate)."""
    if correction == "holm":
        return multiple.holm(p)
    if correction == "bonferroni":
        return multiple.bonferroni(p)
    if correction == "tukey":
        if tukey is None:
            raise ScoringError("the Tukey p-values were not computed")
        return np.asarray(tukey[0, 1:], dtype=np.float64)
    return p


def _candidates(
    t: Table, correction: Correction, resamples: int, seed: int, alpha: float
) -> tuple[list[dict[str, RunCell]], dict[str, list[list[float]]] | None]:
    """Each candidate's cells (paired with run 0) and, under `tukey`, the HSD matrices."""
    runs = len(t.runs)
    cells: list[dict[str, RunCell]] = [{} for _ in range(runs)]
    base = t.values[:, :, 0]
    tukey = None
    if correction == "tukey":
        hsd, _ = multiple.randomized_tukey_hsd(t.values, resamples, np.random.default_rng([seed, 3]))
        tukey = {m: hsd[i].tolist() for i, m in enumerate(t.metrics)}
    m_count, n = len(t.metrics), len(t.queries)
    # every candidate's differences stacked [candidates * metrics, queries]: one set of resampled
    # query draws and sign patterns for all (the same as a two-run `compare` of each pair draws)
    diffs = (t.values[:, :, 1:] - base[:, :, None]).transpose(2, 0, 1).reshape(-1, n)
    means = paired._resampled_means(diffs, resamples, np.random.default_rng([seed, 0]))
    level = alpha / (2 * max(runs - 1, 1)) if correction != "none" else alpha / 2
    lo, hi, glo, ghi = np.percentile(means, [2.5, 97.5, 100 * level, 100 * (1 - level)], axis=1)
    del means
    p_all, _ = paired.randomization_p(diffs, resamples, np.random.default_rng([seed, 1]))
    shape = (runs - 1, m_count)
    deltas = diffs.mean(axis=1).reshape(shape)
    cis = [(lo.reshape(shape)[k], hi.reshape(shape)[k]) for k in range(runs - 1)]
    gate_cis = [(glo.reshape(shape)[k], ghi.reshape(shape)[k]) for k in range(runs - 1)]
    ps = list(p_all.reshape(shape))
    for i, m in enumerate(t.metrics):
        raw = np.array([p[i] for p in ps])
        adjusted = adjust(raw, correction, np.asarray(tukey[m]) if tukey else None)
        for j in range(1, runs):
            k = j - 1
            cells[j][m] = RunCell(
                mean=None,
                delta=float(deltas[k][i]),
                delta_ci95=(float(cis[k][0][i]), float(cis[k][1][i])),
                delta_ci_gate=(float(gate_cis[k][0][i]), float(gate_cis[k][1][i])),
                p_value=float(raw[k]),
                p_adjusted=float(adjusted[k]),
                significant=bool(adjusted[k] < alpha),
            )
    return cells, tukey


def _rows(t: Table, reports: Sequence[ScoreReport], paired_cells: list[dict[str, RunCell]]) -> list[LeaderboardRow]:
    rows = []
    for j, (name, report) in enumerate(zip(t.runs, reports, strict=True)):
        cells = {}
        for i, m in enumerate(t.metrics):
            x = t.values[i, :, j]
            own = {
                "mean": float(x.mean()),
                "ci95": _t_interval(x),
                "coverage": t.coverage[i][j],
                "bounds": t.bounds[i][j],
            }
            base = paired_cells[j].get(m)
            cells[m] = base.model_copy(update=own) if base is not None else RunCell(**own)  # type: ignore[arg-type]
        rows.append(
            LeaderboardRow(
                run=name, fingerprint=report.fingerprint, baseline=j == 0, cells=cells, missing_queries=t.missing[j],
                missing_from_run=paired.lacking(report, t.queries), queries=report.queries,
            )
        )  # fmt: skip
    return rows


def sensitivity(
    t: Table,
    *,
    alpha: float = ALPHA,
    power_: float = POWER,
    delta: float | None = None,
    resamples: int = 10_000,
    seed: int = 0,
) -> SensitivityReport:
    """Per metric, overall and per stratum: SD, SE, SD of the paired differences with the baseline
    (run 0), the minimum detectable effect, the queries needed for `delta`, and (three or more
    runs) the discriminative power."""
    rows = []
    groups: list[tuple[str | None, npt.NDArray[np.bool_]]] = [(None, np.ones(len(t.queries), dtype=bool))]
    column = np.array(t.strata)
    groups += [(s, column == s) for s in sorted(set(t.strata))]
    pair_p = None
    if len(t.runs) >= 3:
        pair_p = multiple.pairwise_p(t.values, resamples, np.random.default_rng([seed, 4]))
    for i, m in enumerate(t.metrics):
        for stratum, keep in groups:
            rows.append(_sensitivity(t, i, m, stratum, keep, alpha, power_, delta, pair_p if stratum is None else None))
    return SensitivityReport(runs=t.runs, alpha=alpha, power=power_, delta=delta, rows=rows)


def _sensitivity(
    t: Table,
    i: int,
    metric: str,
    stratum: str | None,
    keep: npt.NDArray[np.bool_],
    alpha: float,
    power_: float,
    delta: float | None,
    pair_p: FloatArray | None,
) -> Sensitivity:
    x = t.values[i][keep]  # [queries, runs]
    n = int(keep.sum())
    sd = float(x[:, 0].std(ddof=1)) if n >= 2 else None
    sd_diff = None
    if n >= 2 and x.shape[1] >= 2:
        sd_diff = float(np.median([(x[:, j] - x[:, 0]).std(ddof=1) for j in range(1, x.shape[1])]))
    mde = power.min_detectable_effect(sd_diff, n, alpha, power_) if sd_diff is not None else None
    needed = power.queries_needed(delta, sd_diff, alpha, power_) if delta is not None and sd_diff is not None else None
    dp = multiple.discriminative_power(pair_p[i], alpha) if pair_p is not None else None
    return Sensitivity(
        metric=metric,
        stratum=stratum,
        n=n,
        sd=sd,
        se=power.standard_error(sd, n) if sd is not None else None,
        sd_diff=sd_diff,
        mde=mde,
        queries_needed=needed,
        discriminative_power=dp,
    )


def leaderboard(
    reports: Sequence[ScoreReport],
    names: Sequence[str],
    *,
    metrics: Sequence[str] | None = None,
    headline: str = HEADLINE,
    recall: str = RECALL,
    correction: Correction = "holm",
    alpha: float = ALPHA,
    resamples: int = 10_000,
    seed: int = 0,
    delta: float | None = None,
    mismatches: Sequence[str] = (),
) -> Leaderboard:
    """Baseline `reports[0]` against every other report (see the module)."""
    if len(reports) < 2:
        raise ScoringError("a leaderboard needs a baseline and at least one candidate")
    reports = [paired.canonical_report(r, f"report {n}") for r, n in zip(reports, names, strict=False)]
    headline, recall = parse_measure(headline).name, parse_measure(recall).name
    wanted = list(dict.fromkeys([*(metrics or [m for m in reports[0].metrics]), headline, recall]))
    t = align(reports, names, wanted)
    cells, tukey = _candidates(t, correction, resamples, seed, alpha)
    rows = _rows(t, reports, cells)
    h = t.metrics.index(headline)
    best_j = 1 + int(np.argmax(t.values[h, :, 1:].mean(axis=0)))
    best = paired.compare(
        reports[0], reports[best_j], metrics=t.metrics, headline=headline, recall=recall, resamples=resamples, seed=seed
    )
    return Leaderboard(
        baseline=t.runs[0],
        runs=t.runs,
        metrics=t.metrics,
        queries=len(t.queries),
        correction=correction,
        alpha=alpha,
        resamples=resamples,
        seed=seed,
        headline=headline,
        recall=recall,
        rows=rows,
        tukey=tukey,
        sensitivity=sensitivity(t, alpha=alpha, delta=delta, resamples=resamples, seed=seed),
        best=t.runs[best_j],
        best_comparison=best,
        mismatches=list(mismatches),
    )
