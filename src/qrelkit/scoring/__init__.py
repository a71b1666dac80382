"""Scoring: trec_eval-exact measures with judged coverage and bounds.

`measures` declares what to compute, `kernels` computes it over the integer-coded arrays that
`arrays` builds, `aggregate` summarises, `evaluate` ties them together. Takes arrays and models,
never files; loads neither textual nor sqlite.
"""

from .columns import Columns, trec_columns
from .evaluate import Evaluation, evaluate, evaluate_columns
from .measures import DEFAULT_METRICS, Measure, parse_measure, parse_measures

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
