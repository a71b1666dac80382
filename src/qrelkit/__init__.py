"""qrelkit: golden-set management, judging and coverage-aware scoring for retrieval evaluation."""

from typing import TYPE_CHECKING

from .errors import QrelkitError
from .models import Document, GradeScale, Judgment, JudgmentState, Label, Query, Stratum

if TYPE_CHECKING:  # for type checkers only: at run time `evaluate` is loaded on first use, below
    from .scoring import evaluate

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # `qrelkit.evaluate` without importing numpy for every `import qrelkit` (the CLI and TUI
    # start faster when they do not score).
    if name == "evaluate":
        from .scoring import evaluate

        return evaluate
    raise AttributeError(name)


__all__ = [
    "Document",
    "GradeScale",
    "Judgment",
    "JudgmentState",
    "Label",
    "Query",
    "QrelkitError",
    "Stratum",
    "__version__",
    "evaluate",
]
