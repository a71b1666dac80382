"""Calibrating a machine assessor against the humans (`qrelkit calibrate`).

Agreement is measured on the pairs both sides graded: the resolved human label, and the machine
assessor's latest row of the pair when it parsed (`ok`). A pair humans skipped, a machine reply
that did not parse, a human label the machine never answered and a machine grade no human
matched are counted apart, never as a grade. Self-consistency reads each pair's latest `samples`
parsed rows (`assess --refresh` adds rows).

With runs, every run is scored twice (the scoring workflow: the store's human labels, then the
machine's, `score --labels machine`) over the queries both label sets score; the rankings are
compared (Kendall's tau-b, overall and among the top k by human score), run pairs are tested as
`compare` tests them (the paired randomization test, uncorrected, at `ALPHA`), and each run's
inflation (machine - human) is set against the mean inflation of the runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import DEFAULT_STRATUM, TILES, PlainScoreReport
from ..models.calibration import AgreementFigures, CalibrationReport, RankingFigures
from ..models.machine import LEXICAL
from ..scoring import calibration as figures
from ..storage import Store
from .label_sets import LabelChoice, choose
from .scoring import display_names, score_run
from .sources import ScoringSource, plan

if TYPE_CHECKING:
    from ..formats.trec import RunFormat

ALPHA = 0.05
"""The level at which a run pair is significantly different (`compare`'s)."""
DETERMINISTIC = frozenset({LEXICAL})
"""Judges that give the same answer to the same question by construction."""


@dataclass(frozen=True)
class CalibrateOptions:
    """What `qrelkit calibrate` is told."""

    machine_assessor: str | None = None
    runs: Sequence[Path] = ()
    metric: str = TILES[0]
    top: int = 5
    samples: int = 5
    resamples: int = 10_000
    seed: int = 0
    run_format: RunFormat = "auto"


def calibrate(store: Store, opts: CalibrateOptions) -> CalibrationReport:
    """The calibration report of one machine assessor (the store's one when none is named)."""
    if opts.samples < 2:
        raise UsageError(f"--samples {opts.samples}: self-consistency needs 2 or more rows", "give --samples 2 or more")
    if opts.top < 2:
        raise UsageError(f"--top {opts.top}: a ranking among fewer than 2 runs has no tau", "give --top 2 or more")
    choice = choose(store, "machine", opts.machine_assessor)
    name = choice.machine_assessor or ""
    with store.read_transaction():
        scale = store.settings.info().scale
        strata = {q.id: q.stratum for q in store.reads.queries()}
        human = {(q, d): g for q, d, g in store.reads.label_rows()}
        skipped = set(store.reads.skipped())
        latest = {(q, d): (s, g) for q, d, s, g in store.machine.latest(name)}
        samples = store.machine.samples(name, opts.samples)
    slices: dict[str, set[tuple[str, str]]] = {}
    for pair in human.keys() | skipped | latest.keys():
        slices.setdefault(strata.get(pair[0], DEFAULT_STRATUM), set()).add(pair)
    every = set().union(*slices.values()) if slices else set()
    return CalibrationReport(
        machine_assessor=name,
        max_grade=scale.max_grade,
        overall=_agreement(every, human, skipped, latest, scale.max_grade),
        by_stratum={s: _agreement(p, human, skipped, latest, scale.max_grade) for s, p in sorted(slices.items())},
        consistency=figures.consistency(samples, opts.samples, name in DETERMINISTIC),
        ranking=_ranking(store, choice, opts) if opts.runs else None,
    )


def _agreement(
    pairs: set[tuple[str, str]],
    human: dict[tuple[str, str], int],
    skipped: set[tuple[str, str]],
    latest: dict[tuple[str, str], tuple[str, int | None]],
    max_grade: int,
) -> AgreementFigures:
    both: list[tuple[int, int]] = []
    not_ok: Counter[str] = Counter()
    missing = human_skipped = machine_only = 0
    for pair in sorted(pairs):
        status, grade = latest.get(pair, (None, None))
        if pair in human:
            if status is None:
                missing += 1
            elif status == "ok" and grade is not None:
                both.append((human[pair], grade))
            else:
                not_ok[status] += 1
        elif pair in skipped:
            human_skipped += status is not None
        elif status == "ok":
            machine_only += 1
    return figures.agreement_figures(
        both, max_grade, human_skipped=human_skipped, machine_not_ok=not_ok, machine_missing=missing,
        machine_only=machine_only,
    )  # fmt: skip


def _ranking(store: Store, choice: LabelChoice, opts: CalibrateOptions) -> RankingFigures:
    import numpy as np

    from ..scoring.multiple import pairwise_randomization_p
    from ..scoring.names import parse_measure, parse_measures

    if len(parse_measures(opts.metric)) != 1:
        raise UsageError(f"--metric {opts.metric!r:.60}: give one measure", "e.g. --metric nDCG@10")
    metric = parse_measure(opts.metric).name
    names = display_names(opts.runs)
    scored = {}
    for labels in (None, choice):
        source = ScoringSource.from_store(store, labels=labels)
        chosen = plan(source, metrics=metric)
        scored[labels is None] = [
            score_run(source, path, chosen, per_query=True, name=n, run_format=opts.run_format)
            for path, n in zip(opts.runs, names, strict=True)
        ]
    queries = _shared_queries([*scored[True], *scored[False]])
    human, machine = (np.array(_values(scored[side], queries, metric)) for side in (True, False))
    rows = figures.run_rows(names, human, machine)
    rng = np.random.default_rng([opts.seed, 1])
    p_h = pairwise_randomization_p(human[None], opts.resamples, rng)[0][0]
    p_m = pairwise_randomization_p(machine[None], opts.resamples, rng)[0][0]
    h_means, m_means = human.mean(axis=0), machine.mean(axis=0)
    significant, stayed, reversed_, machine_only = figures.significant_pairs(
        p_h, p_m, h_means[None, :] - h_means[:, None], m_means[None, :] - m_means[:, None], ALPHA
    )
    top = rows[: opts.top]
    return RankingFigures(
        metric=metric, queries=len(queries), runs=rows, tau=figures.kendall_tau(h_means.tolist(), m_means.tolist()),
        top_k=min(opts.top, len(rows)),
        tau_top=figures.kendall_tau([r.human for r in top], [r.machine for r in top]),
        alpha=ALPHA, resamples=opts.resamples, significant_pairs=significant, stayed=stayed, reversed=reversed_,
        stay_share=stayed / significant if significant else None, machine_only_significant=machine_only,
    )  # fmt: skip


def _shared_queries(reports: Sequence[PlainScoreReport]) -> list[str]:
    """The queries every report scores (human and machine labels alike)."""
    held = [set(r.per_query or {}) for r in reports]
    shared = sorted(set.intersection(*held)) if held else []
    if not shared:
        raise UsageError(
            "no query is scored under both human and machine labels",
            "label the pairs humans labeled first: qrelkit assess --judge NAME --pairs human",
        )
    return shared


def _values(reports: Sequence[PlainScoreReport], queries: Sequence[str], metric: str) -> list[list[float]]:
    """[queries][runs]: each report's per-query value of `metric`."""
    return [[(r.per_query or {})[q][metric].value for r in reports] for q in queries]
