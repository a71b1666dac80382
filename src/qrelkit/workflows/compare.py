"""Comparing two runs (or saved reports): scored against the same source when they are runs,
checked for comparability, paired, and held to the CI gates (`--fail-if-worse`, `--gate-pair`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import versioning
from ..errors import UsageError
from ..models import Comparison, ScoreReport
from ..scoring.measures import parse_measure
from ..storage import Store
from .scoring import display_names, score_run
from .sources import choose_source, merge, plan


@dataclass(frozen=True)
class Gate:
    """`--fail-if-worse METRIC[:TOL]`: fail when the delta's interval lies below -TOL."""

    metric: str
    tolerance: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Gate:
        name, _, tol = text.partition(":")
        try:
            value = float(tol) if tol else 0.0
        except ValueError:
            raise UsageError(
                f"--fail-if-worse {text!r}: tolerance {tol!r} is not a number", "write METRIC[:TOL]"
            ) from None
        if not value >= 0:
            raise UsageError(
                f"--fail-if-worse {text!r}: the tolerance must be >= 0", "write METRIC[:TOL], e.g. nDCG@10:0.01"
            )
        return cls(parse_measure(name).name, value)


def parse_gate_pair(text: str) -> tuple[str, str]:
    """`--gate-pair M1,M2` as two canonical names."""
    names = [parse_measure(x).name for x in text.split(",") if x.strip()]
    if len(names) != 2:
        raise UsageError(f"--gate-pair {text!r} needs two metrics", "write --gate-pair nDCG@10,R@50")
    return names[0], names[1]


@dataclass(frozen=True)
class CompareOptions:
    """Everything `qrelkit compare` is told besides its two inputs."""

    metrics: str | None = None
    profile: str | None = None
    headline: str = "nDCG@10"
    recall: str = "R@50"
    resamples: int = 10_000
    seed: int = 0
    gates: Sequence[Gate] = ()
    gate_pair: tuple[str, str] | None = None
    allow_mismatch: bool = False
    golden: Path | None = None
    qrels: Path | None = None
    verify: bool = True


@dataclass(frozen=True)
class CompareOutcome:
    """The comparison, what made it not strictly comparable (when allowed), and the failed gates."""

    comparison: Comparison
    mismatches: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def canonical_report(report: ScoreReport) -> ScoreReport:
    """A report whose metric names are canonical (reports saved before names were canonical may
    say `MAP` for `AP`)."""
    rename = {name: parse_measure(name).name for name in report.metrics}
    if all(k == v for k, v in rename.items()):
        return report
    per_query = report.per_query
    if per_query is not None:
        per_query = {q: {rename.get(m, m): s for m, s in ms.items()} for q, ms in per_query.items()}
    metrics = {rename[m]: v for m, v in report.metrics.items()}
    return report.model_copy(update={"metrics": metrics, "per_query": per_query})


def _inputs(paths: Sequence[Path], opts: CompareOptions, open_store: Callable[[], Store]) -> list[ScoreReport]:
    """Each input as one or more per-query reports: a saved report file holds one or several, a run
    is scored here (every run against the same source, with the same measures)."""
    from ..formats.reports import read_reports
    from ..formats.runs import is_report

    saved = {p: [canonical_report(r) for r in read_reports(p)] for p in paths if is_report(p)}
    runs = [p for p in paths if not is_report(p)]
    if opts.profile and not runs:
        raise UsageError(
            "--profile chooses what to score: it needs a run file", "use --metrics to pick from the reports"
        )
    scored: dict[Path, list[ScoreReport]] = {}
    if runs:
        source = choose_source(open_store, golden=opts.golden, qrels=opts.qrels, verify=opts.verify)
        first = next(iter(saved.values()), None)
        metrics = opts.metrics or (",".join(first[0].fingerprint.metrics) if first else None)
        chosen = plan(
            source, metrics=metrics, profile=None if opts.metrics or first else opts.profile, extra=_extra(opts)
        )
        names = dict(zip(runs, display_names(runs), strict=True))
        for run in runs:
            scored[run] = [score_run(source, run, chosen, per_query=True, name=names[run])]
    return [r for p in paths for r in (saved.get(p) or scored[p])]


def _extra(opts: CompareOptions) -> list[str]:
    """The measures every comparison needs: the two tiles and the gated ones."""
    return [opts.headline, opts.recall, *(g.metric for g in opts.gates), *(opts.gate_pair or ())]


def compare(paths: Sequence[Path], opts: CompareOptions, open_store: Callable[[], Store]) -> CompareOutcome:
    """Compare baseline with candidate: the first and second report the inputs hold (two run or
    report files, or one report file of two runs)."""
    from ..scoring import paired

    reports = _inputs(paths, opts, open_store)
    if len(reports) != 2:
        raise UsageError(
            f"compare needs two reports, the inputs hold {len(reports)}",
            "give two run files, two saved reports, or one report file of two runs",
        )
    base, cand = reports
    mismatches = versioning.comparability(base, cand)
    if mismatches and not opts.allow_mismatch:
        raise UsageError("not comparable: " + "; ".join(mismatches), "pass --allow-mismatch to compare anyway")
    headline, recall = parse_measure(opts.headline).name, parse_measure(opts.recall).name
    wanted = merge(opts.metrics, _extra(opts)) if opts.metrics else None  # None: every measure both share
    _check_gated(opts, base, cand)
    comparison = paired.compare(
        base, cand, metrics=wanted, headline=headline, recall=recall,
        resamples=opts.resamples, seed=opts.seed, mismatches=mismatches,
    )  # fmt: skip
    failures = [f for g in opts.gates if (f := worse_than(comparison, g.metric, g.tolerance))]
    if opts.gate_pair and (f := gate_pair(comparison, *opts.gate_pair)):
        failures.append(f)
    return CompareOutcome(comparison=comparison, mismatches=mismatches, failures=failures)


def _check_gated(opts: CompareOptions, base: ScoreReport, cand: ScoreReport) -> None:
    """A gate on a measure that is not in both reports is a usage error (exit 2), never a
    failed gate (exit 1) nor a crash."""
    gated = [g.metric for g in opts.gates] + list(opts.gate_pair or ())
    missing = [m for m in gated if m not in base.metrics or m not in cand.metrics]
    if missing:
        shared = [m for m in base.metrics if m in cand.metrics]
        raise UsageError(
            f"the gate names {', '.join(missing)}, which is not in both reports "
            f"(they share {', '.join(shared) or 'no measure'})",
            "score both with it (--metrics), or gate on a measure they share",
        )


def worse_than(c: Comparison, metric: str, tolerance: float) -> str | None:
    """Why the candidate fails `--fail-if-worse METRIC:TOL` (its interval lies below -TOL), or None."""
    m = c.metrics[metric]
    if not all(math.isfinite(x) for x in (m.delta, *m.ci95)):  # a gate fails closed on what it cannot compare
        return f"{metric}: the delta or its interval is not a number ({m.delta}, {m.ci95}): the gate fails closed"
    if m.ci95[1] < -tolerance:
        return (
            f"{metric} is worse: delta {m.delta:+.4f}, 95% interval [{m.ci95[0]:+.4f}, {m.ci95[1]:+.4f}] "
            f"lies below -{tolerance:g}"
        )
    return None


def gate_pair(c: Comparison, first: str, second: str) -> str | None:
    """Why the candidate fails `--gate-pair FIRST,SECOND` (it gains on one less than it loses on the
    other, or loses on both), or None."""
    d1, d2 = c.metrics[first].delta, c.metrics[second].delta
    if not (math.isfinite(d1) and math.isfinite(d2)):
        return f"{first} {d1} and {second} {d2}: a delta is not a number: the gate fails closed"
    from ..scoring.paired import TIE  # deltas this close to 0 are no change, as for wins and losses

    if d1 + d2 < -TIE and min(d1, d2) < -TIE:
        return f"{first} {d1:+.4f} and {second} {d2:+.4f}: the gain does not make up for the loss"
    return None
