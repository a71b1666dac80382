"""Scoring: trec_eval-exact measures with judged coverage and bounds.

`measures` declares what to compute, `kernels` computes it over the integer-coded arrays that
`arrays` builds (from `formats.columns`), `aggregate` summarises, `evaluate` ties them together. Takes
arrays and models, never files; loads neither textual nor sqlite. numpy is imported on first use
of a name that needs it, so `qrelkit.scoring.measures` stays cheap to import.
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
