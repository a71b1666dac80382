"""qrelkit: golden-set management, judging and coverage-aware scoring for retrieval evaluation.

From Python: `qrelkit.evaluate`, `qrelkit.load` (a golden set's data frames) and the models
re-exported here, each loaded on first use. The packages and modules, one layer each, lowest first
(README.md, "Architecture"):

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

from .errors import QrelkitError

TYPE_CHECKING = False  # not `from typing import`: `qrelkit --version` loads no typing (~3 ms)

if TYPE_CHECKING:  # for type checkers only: at run time these load on first use, below
    from .models import Document, GradeScale, Judgment, JudgmentState, Label, Query, Stratum
    from .scoring import evaluate
    from .workflows.frames import load

__version__ = "0.1.0"

_MODELS = frozenset({"Document", "GradeScale", "Judgment", "JudgmentState", "Label", "Query", "Stratum"})


def __getattr__(name: str) -> object:
    # `qrelkit.evaluate` and the models without importing numpy or pydantic for every `import
    # qrelkit`: `qrelkit --version` and `--help` import neither (tests/test_startup.py).
    if name == "evaluate":
        from .scoring import evaluate

        return evaluate
    if name == "load":
        from .workflows.frames import load

        return load
    if name in _MODELS:
        from . import models

        return getattr(models, name)
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
    "load",
]
