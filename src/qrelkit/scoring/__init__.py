"""Scoring: trec_eval-exact measures with judged coverage and bounds.

`measures` declares what to compute, `kernels` computes it over the integer-coded arrays that
`arrays` builds (from `formats.columns`), `aggregate` summarises, `evaluate` ties them together. Takes
arrays and models, never files; loads neither textual nor sqlite. numpy is imported on first use
of a name that needs it, so `qrelkit.scoring.measures` stays cheap to import.

    measures        one `MeasureSpec` per family: names, aliases, cutoff rule, parameters
    names           ir_measures and trec_eval spellings -> `Measure`
    arrays          qrels and a run -> the integer-coded `Ranked` arrays the kernels read
    join_check      the prefilter that keeps the fast qrels join from missing a label
    ties            the order of tied rows: document id descending in byte order
    kernels         the `KERNELS` table: value, coverage and bounds per query
    kernel_base     what every kernel module shares
    kernels_sets    counts, set measures, bpref, infAP, interpolated precision
    kernels_graded  DCG@k, ERR@k, RBP with its residual
    kernels_trec    the rest of trec_eval's all_trec
    evaluation      `evaluate(qrels, run, metrics)` -> `Evaluation`
    streamed        `evaluate_stream`: a run given in blocks of whole queries, the same `Evaluation`
    aggregate       macro means, spread and intervals, per stratum and traffic-weighted
    paired          two reports paired: deltas, bootstrap, randomization, the diagnosis
    leaderboard     a baseline against many candidates
    multiple        Holm, Bonferroni, the randomized Tukey HSD, discriminative power
    power           paired t-test power, the minimum detectable effect, queries needed
    agreement       raw agreement, Cohen's kappa, Krippendorff's alpha
    calibration     a machine against the humans: weighted kappa, confusion, tau, inflation
    impact          the judging queue's impact of an unlabeled pair
    orders          the judging queue's orders, one declaration each (depth, impact, mtf, ...)
    settle          the stopping rule: the range of a delta over every labeling, its verdicts
    settle_ratio    that range for nDCG, Rprec and AP without trying every labeling
    settle_verdict  the sign and t-test verdicts over the box of per-query ranges
    settle_order    the `settle` order's priorities, and its replay until settled
    settle_joint    the `settle` order and its replay over several measures at once
    coverage        judged coverage of a run's top k (plain Python, for `status --runs`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .measures import DEFAULT_METRICS, Measure
from .names import parse_measure, parse_measures

if TYPE_CHECKING:
    from ..formats.columns import Columns, trec_columns
    from .evaluation import Evaluation, evaluate, evaluate_columns

_LAZY = {
    "Columns": "..formats.columns",
    "trec_columns": "..formats.columns",
    "Evaluation": "evaluation",
    "evaluate": "evaluation",
    "evaluate_columns": "evaluation",
}

__all__ = [
    "DEFAULT_METRICS",
    "Columns",
    "Evaluation",
    "Measure",
    "evaluate",
    "evaluate_columns",
    "parse_measure",
    "parse_measures",
    "trec_columns",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        module = _LAZY[name]
        return getattr(import_module(module if module.startswith("..") else f".{module}", __name__), name)
    raise AttributeError(name)
