"""qrelkit: golden-set management, judging and coverage-aware scoring for retrieval evaluation.

From Python: `qrelkit.evaluate` (loaded on first use) and the models re-exported here. The
packages and modules, one layer each, lowest first (README.md, "Architecture"):

    errors.py      QrelkitError(message, hint) and its kinds
    models/        the vocabulary: pydantic models, no IO
    progress.py    progress callbacks
    resolution.py  how a pair's votes resolve to its label
    formats/       files <-> records and columns
    scoring/       trec_eval-exact measures with coverage and bounds
    versioning/    frozen versions: content identity, freeze, verify, diff
    storage/       the SQLite store
    render/        tables, HTML and styles for both edges
    workflows/     what a user does, callable from Python
    cli/           the `qrelkit` command line
    tui/           the terminal UI of `qrelkit judge`
"""

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
