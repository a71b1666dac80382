"""Comparing two runs (or saved reports): scored against the same source when they are runs,
checked for comparability, paired, and held to the CI gates (`--fail-if-worse`, `--gate-pair`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import versioning
from ..errors import UsageError
from ..formats import as_text
from ..formats.paths import is_stdin
from ..models import HEADLINE, RECALL, Comparison, Correction, Leaderboard, ScoreReport, SensitivityReport, to_model
from ..scoring.names import parse_measure, split_outside
from ..scoring.paired import canonical_report
from ..storage import Store
from .scoring import display_names, numbered, score_run
from .sources import ScoringPlan, ScoringSource, choose_source, merge, plan, refuse_empty_metrics

if TYPE_CHECKING:
    from ..formats.trec import RunFormat
    from .settling import SettledRow


@dataclass(frozen=True)
class Gate:
    """`--fail-if-worse METRIC[:TOL]`: fail when the delta's interval lies below -TOL."""

    metric: str
    tolerance: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Gate:
        """`METRIC[:TOL]`, split at the last colon outside the measure's parentheses and braces
        (`nDCG(gains={0:0,1:1})@10:0.01`)."""
        *head, last = split_outside(text, ":")
        name, tol = (":".join(head), last) if head else (last, "")
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
    names = [parse_measure(x).name for x in split_outside(text, ",") if x.strip()]
    if len(names) != 2:
        raise UsageError(f"--gate-pair {text!r} needs two metrics", "write --gate-pair nDCG@10,R@50")
    return names[0], names[1]


@dataclass(frozen=True)
class CompareOptions:
    """Everything `qrelkit compare` is told besides its two inputs."""

    metrics: str | None = None
    profile: str | None = None
    headline: str = HEADLINE
    recall: str = RECALL
    resamples: int = 10_000
    seed: int = 0
    gates: Sequence[Gate] = ()
    gate_pair: tuple[str, str] | None = None
    allow_mismatch: bool = False
    allow_mixed_labels: bool = False
    """Compare a report scored with human labels and one scored with machine labels (or two
    machines'): refused otherwise, as the labels decide the numbers."""
    golden: Path | None = None
    qrels: Path | None = None
    verify: bool = True
    max_grade: int | None = None
    """--max-grade: the scale's top grade for the runs scored here (default: the source's)."""
    relevance_level: int | None = None
    """--relevance-level (trec_eval's -l) for the runs scored here (default: the source's)."""
    correction: Correction = "holm"
    """How several candidates' p-values are corrected (a leaderboard)."""
    leaderboard: bool = False
    """A leaderboard even for two inputs (three or more always make one)."""
    delta: float | None = None
    """The change that matters: the sensitivity says how many queries would detect it."""
    run_format: RunFormat = "auto"
    """How TREC text runs are laid out (`formats.trec.RUN_FORMATS`)."""
    keep_unlabeled: bool = False
    """Score the golden-set queries with no label as 0 (runs only; default: left out, counted)."""
    settled: bool = False
    """Two run files: the stopping rule's verdict per measure it covers (`settling.settled_rows`),
    against the source and queries the runs were scored with; not under --allow-mismatch."""


@dataclass(frozen=True)
class CompareOutcome:
    """The comparison, what made it not strictly comparable (when allowed), and the failed gates."""

    comparison: Comparison
    mismatches: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """How runs were read when not as scores (`read_notes`)."""
    settled: list[SettledRow] = field(default_factory=list)
    """With `CompareOptions.settled`: a row per measure the stopping rule covers."""


@dataclass(frozen=True)
class Inputs:
    """The inputs as reports, the run file each was scored from (None: a saved report), and the
    source and plan the runs were scored with (None: reports only)."""

    reports: list[ScoreReport]
    paths: list[Path | None]
    source: ScoringSource | None = None
    chosen: ScoringPlan | None = None


def _inputs(paths: Sequence[Path], opts: CompareOptions, open_store: Callable[[], Store]) -> Inputs:
    """Each input as one or more per-query reports: a saved report file holds one or several, a run
    is scored here (every run against the same source, with the same measures)."""
    from ..formats.reports import read_reports
    from ..formats.runs import is_report

    refuse_empty_metrics(opts.metrics)
    saved = {p: [canonical_report(r, str(p)) for r in read_reports(p)] for p in paths if is_report(p)}
    runs = [p for p in paths if not is_report(p)]
    if opts.profile and not runs:
        raise UsageError(
            "--profile chooses what to score: it needs a run file", "use --metrics to pick from the reports"
        )
    scored: dict[int, list[ScoreReport]] = {}  # by position: the same file may be given twice
    source: ScoringSource | None = None
    chosen: ScoringPlan | None = None
    if runs:
        source = choose_source(
            open_store,
            golden=opts.golden,
            qrels=opts.qrels,
            verify=opts.verify,
            max_grade=opts.max_grade,
            relevance_level=opts.relevance_level,
        )
        first = next(iter(saved.values()), None)
        metrics = opts.metrics or (",".join(first[0].fingerprint.metrics) if first else None)
        chosen = plan(
            source, metrics=metrics, profile=None if opts.metrics or first else opts.profile, extra=_extra(opts),
            keep_unlabeled=opts.keep_unlabeled,
        )  # fmt: skip
        at = [i for i, p in enumerate(paths) if p not in saved]
        for i, run, name in zip(at, runs, display_names(runs), strict=True):
            report = score_run(source, run, chosen, per_query=True, name=name, run_format=opts.run_format)
            scored[i] = [to_model(report)]  # compared as a read report is: the models
    reports: list[ScoreReport] = []
    origins: list[Path | None] = []
    for i, p in enumerate(paths):
        held = saved.get(p) or scored[i]
        reports += held
        origins += [None if p in saved else p] * len(held)
    return Inputs(reports, origins, source, chosen)


def _extra(opts: CompareOptions) -> list[str]:
    """The measures every comparison needs: the two tiles and the gated ones."""
    return [opts.headline, opts.recall, *(g.metric for g in opts.gates), *(opts.gate_pair or ())]


@dataclass(frozen=True)
class LeaderboardOutcome:
    """The leaderboard, what made it not strictly comparable (when allowed), and the failed gates."""

    leaderboard: Leaderboard
    mismatches: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def compare_any(
    paths: Sequence[Path], opts: CompareOptions, open_store: Callable[[], Store]
) -> CompareOutcome | LeaderboardOutcome:
    """Two reports: their paired comparison (unless `opts.leaderboard`); more: the leaderboard of
    the first (the baseline) against the others."""
    read = _inputs(paths, opts, open_store)
    reports = read.reports
    if len(reports) < 2:
        raise UsageError(
            f"compare needs at least two reports, the inputs hold {len(reports)}",
            "give a baseline and one or more candidates: run files, saved reports, or a report file of several runs",
        )
    notes = read_notes(reports)
    if len(reports) == 2 and not opts.leaderboard:
        pairwise = _pairwise(reports[0], reports[1], opts)
        return dataclasses.replace(pairwise, notes=notes, settled=_settled(read, opts, pairwise.comparison))
    outcome = _leaderboard(reports, opts)
    board = outcome.leaderboard
    rows = [
        row.model_copy(update={"path": recorded(p)}) if p else row
        for row, p in zip(board.rows, read.paths, strict=True)
    ]
    return dataclasses.replace(outcome, leaderboard=board.model_copy(update={"rows": rows}), notes=notes)


def recorded(path: Path) -> str | None:
    """A run file's path as a leaderboard records it: absolute (None for standard input, which
    cannot be read again later, and when not UTF-8: JSON cannot hold it as it is)."""
    import os

    if is_stdin(path):
        return None
    text = os.fspath(path.absolute())
    return text if as_text(text) == text else None


def _settled(read: Inputs, opts: CompareOptions, c: Comparison) -> list[SettledRow]:
    """`CompareOptions.settled` for two run files: reading the source and plan again would take
    the labels (and a version's check) twice; the runs are read again, whole, as the scoring
    streamed them in blocks and kept no ranking."""
    from . import settling

    a, b = read.paths
    if not opts.settled or opts.allow_mismatch or a is None or b is None or read.source is None or not read.chosen:
        return []
    return settling.settled_rows(read.source, read.chosen, (a, b), list(c.metrics), opts.run_format)


def read_notes(reports: Sequence[ScoreReport]) -> list[str]:
    """`RUN: read as MS MARCO ranks (qid pid rank)` for each report whose run held no scores."""
    return [f"{r.fingerprint.run.name}: {r.run_read_as}" for r in reports if r.run_read_as]


RESAMPLE_BYTES = 2 << 30
"""The memory the resampled statistics may take (about 16 bytes per metric, pair of runs and
resample: the resampled means and the permutation counts held at once)."""


def refuse_resamples_past_memory(resamples: int, metrics: int, runs: int) -> None:
    """`--resamples` whose statistics would pass `RESAMPLE_BYTES` (100,000,000 resamples of one
    comparison took 11.8 GB): refused before anything is drawn, naming the most that fits."""
    rows = max(metrics, 1) * max(runs * (runs - 1) // 2, 1)
    most = RESAMPLE_BYTES // (16 * rows)
    if resamples > most:
        raise UsageError(
            f"--resamples {resamples:,} over {metrics} metrics and {runs} runs would take about "
            f"{resamples * rows * 16 / (1 << 30):.1f} GiB of memory",
            f"at most --resamples {most:,} here (fewer metrics or runs allow more)",
        )


def _pairwise(base: ScoreReport, cand: ScoreReport, opts: CompareOptions) -> CompareOutcome:
    from ..scoring import paired

    mismatches = refuse_mismatches(base, cand, opts)
    headline, recall = parse_measure(opts.headline).name, parse_measure(opts.recall).name
    wanted = merge(opts.metrics, _extra(opts)) if opts.metrics else None  # None: every measure both share
    _check_gated(opts, base, cand)
    refuse_resamples_past_memory(opts.resamples, len(wanted) if wanted else len(base.metrics), 2)
    comparison = paired.compare(
        base, cand, metrics=wanted, headline=headline, recall=recall,
        resamples=opts.resamples, seed=opts.seed, mismatches=mismatches,
    )  # fmt: skip
    failures = [f for g in opts.gates if (f := worse_than(comparison, g.metric, g.tolerance))]
    if opts.gate_pair and (f := gate_pair(comparison, *opts.gate_pair)):
        failures.append(f)
    return CompareOutcome(comparison=comparison, mismatches=mismatches, failures=failures)


def refuse_mismatches(a: ScoreReport, b: ScoreReport, opts: CompareOptions, which: str = "") -> list[str]:
    """What makes two reports not strictly comparable, refused unless allowed: labels of another
    kind (human against machine) unless --allow-mixed-labels, then the rest unless --allow-mismatch.
    Labels that differ make the golden content differ too: allowed mixed labels, that difference
    is theirs, reported and not refused again."""
    found = versioning.comparability(a, b)
    mixed = versioning.mixed_labels(a, b)
    if mixed is None:
        if found and not opts.allow_mismatch:
            raise UsageError(f"not comparable: {which}" + "; ".join(found), "pass --allow-mismatch to compare anyway")
        return found
    if not opts.allow_mixed_labels:
        raise UsageError(
            f"not comparable: {which}{mixed}: a score under machine labels is not a score under human labels",
            "pass --allow-mixed-labels to compare them anyway",
        )
    rest = [m for m in found if not m.startswith("golden content differs")]
    if rest and not opts.allow_mismatch:
        raise UsageError(f"not comparable: {which}" + "; ".join(rest), "pass --allow-mismatch to compare anyway")
    return [mixed, *found]


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
    return worse_interval(metric, m.delta, m.ci95, tolerance, "95% interval")


def worse_interval(
    metric: str, delta: float | None, ci: tuple[float, float] | None, tolerance: float, which: str
) -> str | None:
    """The one `--fail-if-worse` rule: fails when the interval lies below -TOL, and fails closed on
    a delta or interval that is not a number (or missing)."""
    if delta is None or ci is None or not all(math.isfinite(x) for x in (delta, *ci)):
        return f"{metric}: the delta or its interval is not a number ({delta}, {ci}): the gate fails closed"
    if ci[1] < -tolerance:
        below = f"-{tolerance:g}" if tolerance else "0"
        return f"{metric} is worse: delta {delta:+.4f}, {which} [{ci[0]:+.4f}, {ci[1]:+.4f}] lies below {below}"
    return None


def gate_pair(c: Comparison, first: str, second: str) -> str | None:
    """Why the candidate fails `--gate-pair FIRST,SECOND` (it gains on one less than it loses on the
    other, or loses on both), or None."""
    return pair_verdict(first, c.metrics[first].delta, second, c.metrics[second].delta)


def pair_verdict(first: str, d1: float | None, second: str, d2: float | None) -> str | None:
    """The one `--gate-pair` rule over two deltas (a delta that is not a number fails it)."""
    if d1 is None or d2 is None or not (math.isfinite(d1) and math.isfinite(d2)):
        return f"{first} {d1} and {second} {d2}: a delta is not a number: the gate fails closed"
    from ..scoring.paired import TIE  # deltas this close to 0 are no change, as for wins and losses

    if d1 + d2 < -TIE and min(d1, d2) < -TIE:
        return f"{first} {d1:+.4f} and {second} {d2:+.4f}: the gain does not make up for the loss"
    return None


def run_names(reports: Sequence[ScoreReport]) -> list[str]:
    """Each report's run name, made unique (`a.run`, `a.run#2`) when two share one."""
    return numbered([r.fingerprint.run.name for r in reports])


def _leaderboard(reports: Sequence[ScoreReport], opts: CompareOptions) -> LeaderboardOutcome:
    from ..scoring import leaderboard

    names = run_names(reports)
    mismatches = [
        f"{names[0]} vs {names[j]}: {m}"
        for j in range(1, len(reports))
        for m in refuse_mismatches(reports[0], reports[j], opts, f"{names[0]} vs {names[j]}: ")
    ]
    for j in range(1, len(reports)):
        _check_gated(opts, reports[0], reports[j])
    wanted = merge(opts.metrics, _extra(opts)) if opts.metrics else None
    refuse_resamples_past_memory(opts.resamples, len(wanted) if wanted else len(reports[0].metrics), len(reports))
    board = leaderboard.leaderboard(
        reports, names, metrics=wanted, headline=opts.headline, recall=opts.recall, correction=opts.correction,
        resamples=opts.resamples, seed=opts.seed, delta=opts.delta, mismatches=mismatches,
    )  # fmt: skip
    return LeaderboardOutcome(leaderboard=board, mismatches=mismatches, failures=leaderboard_failures(board, opts))


def leaderboard_failures(board: Leaderboard, opts: CompareOptions) -> list[str]:
    """`--fail-if-worse` and `--gate-pair` for every candidate against the baseline, on the
    corrected (simultaneous) intervals; each failure names its run."""
    failures = []
    m = len(board.rows) - 1
    which = f"simultaneous interval (Bonferroni over {m} candidates)" if board.correction != "none" else "95% interval"
    for row in board.rows[1:]:
        for g in opts.gates:
            cell = row.cells[g.metric]
            if f := worse_interval(g.metric, cell.delta, cell.delta_ci_gate, g.tolerance, which):
                failures.append(f"{row.run}: {f}")
        if opts.gate_pair:
            first, second = opts.gate_pair
            if f := pair_verdict(first, row.cells[first].delta, second, row.cells[second].delta):
                failures.append(f"{row.run}: {f}")
    return failures


def sensitivity(paths: Sequence[Path], opts: CompareOptions, open_store: Callable[[], Store]) -> SensitivityReport:
    """How sensitive each metric is on these queries, from one or more runs (the first is the
    baseline of the paired differences; three or more give the discriminative power)."""
    from ..scoring import leaderboard

    reports = _inputs(paths, opts, open_store).reports
    names = run_names(reports)
    for j in range(1, len(reports)):
        refuse_mismatches(reports[0], reports[j], opts, f"{names[0]} vs {names[j]}: ")
    wanted = merge(opts.metrics, []) if opts.metrics else None
    table = leaderboard.align(reports, names, wanted)
    refuse_resamples_past_memory(opts.resamples, len(table.metrics), len(reports))
    return leaderboard.sensitivity(table, delta=opts.delta, resamples=opts.resamples, seed=opts.seed)
