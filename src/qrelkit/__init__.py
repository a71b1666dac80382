"""qrelkit: golden-set management, judging and coverage-aware scoring for retrieval evaluation."""

from .errors import QrelkitError
from .models import Document, GradeScale, Judgment, JudgmentState, Label, Query, Stratum

__version__ = "0.1.0"

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
]
