"""Scoring: trec_eval-exact measures with judged coverage and bounds.

`measures` declares what to compute, `kernels` computes it over the integer-coded arrays that
`arrays` builds, `aggregate` summarises, `evaluate` ties them together. Takes arrays and models,
never files; loads neither textual nor sqlite.
"""

from .evaluate import Evaluation, evaluate
from .measures import DEFAULT_METRICS, Measure, parse_measure, parse_measures

__all__ = ["DEFAULT_METRICS", "Evaluation", "Measure", "evaluate", "parse_measure", "parse_measures"]
