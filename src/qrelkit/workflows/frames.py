"""A golden set in a notebook: `qrelkit.load(store or version folder)` and its data frames.

The frames use the column names of the tools a notebook hands them to: `names="ir_measures"`
(`query_id`, `doc_id`, `relevance` / `score`, as ir_measures' dataframe inputs) or
`names="pyterrier"` (`qid`, `docno`, `label`; topics `qid`, `query`). `qrelkit.evaluate` takes
either back. Unlabeled is never irrelevant here either: `qrels_frame()` holds the graded labels
only (grade 0: confirmed irrelevant); `qrels_frame(states=True)` adds the pooled-but-unjudged and
the skipped pairs with a missing relevance and their `state`, and `evaluate` reads those rows as
pooled, not judged (a negative grade: unknown to the bounds, counted out of coverage).

pandas is imported only when a frame is asked for (`pip install pandas`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import UsageError
from ..models import GoldenSetInfo, Judgment, weight_shares

if TYPE_CHECKING:
    import pandas as pd

    from ..scoring.evaluation import Evaluation, MetricsLike, RunLike
    from ..versioning import Snapshot

Names = Literal["ir_measures", "pyterrier"]
COLUMNS: dict[str, dict[str, str]] = {
    "ir_measures": {"query": "query_id", "doc": "doc_id", "grade": "relevance", "text": "text"},
    "pyterrier": {"query": "qid", "doc": "docno", "grade": "label", "text": "query"},
}
"""Each naming's column for the query id, the document id, the grade and the query text."""


def pandas() -> Any:
    """pandas, or a `UsageError` saying how to install it."""
    try:
        import pandas as pd
    except ImportError:
        raise UsageError("data frames need pandas, which is not installed", "pip install pandas") from None
    return pd


def _names(names: str) -> dict[str, str]:
    if names not in COLUMNS:
        raise UsageError(f"unknown column names {names!r}", f"give names= one of {', '.join(COLUMNS)}")
    return COLUMNS[names]


@dataclass
class GoldenSet:
    """A golden set read whole (a store's current state, or a frozen version verified)."""

    snapshot: Snapshot
    source: str
    """The store file or the version folder it came from."""
    content_hash: str

    @property
    def info(self) -> GoldenSetInfo:
        return self.snapshot.info

    @property
    def strata(self) -> dict[str, str]:
        """Query id -> stratum."""
        return {q.id: q.stratum for q in self.snapshot.queries}

    @property
    def weights(self) -> dict[str, float]:
        """Stratum -> traffic weight."""
        return {s.name: s.weight for s in self.info.strata}

    def qrels_frame(self, names: Names = "ir_measures", *, states: bool = False) -> pd.DataFrame:
        """One row per graded pair (query, doc, grade); with `states`, also each pooled-unjudged
        and skipped pair, its grade missing (`<NA>`), and a `state` column (graded / unlabeled /
        skipped)."""
        pd, c = pandas(), _names(names)
        rows: list[tuple[str, str, int | None, str]] = [
            (lab.query_id, lab.doc_id, lab.grade, "graded") for lab in self.snapshot.labels
        ]
        if states:
            graded = {(q, d) for q, d, _, _ in rows}
            skipped = [(q, d) for q, d in self.snapshot.skipped if (q, d) not in graded]
            held = graded | set(skipped)
            unlabeled = sorted({(p.query_id, p.doc_id) for p in self.snapshot.unlabeled} - held)
            rows += [(q, d, None, "skipped") for q, d in skipped]
            rows += [(q, d, None, "unlabeled") for q, d in unlabeled]
            rows.sort(key=lambda r: (r[0], r[1]))
        frame = pd.DataFrame(
            {
                c["query"]: pd.Series([r[0] for r in rows], dtype="string"),
                c["doc"]: pd.Series([r[1] for r in rows], dtype="string"),
                # int64 when every row is graded (what ir_measures and pytrec_eval take); Int64,
                # with <NA> for the pairs that have no grade, with `states`
                c["grade"]: pd.array([r[2] for r in rows], dtype="Int64" if states else "int64"),
            }
        )
        if states:
            frame["state"] = pd.Series([r[3] for r in rows], dtype="string")
        return frame

    def queries_frame(self, names: Names = "ir_measures") -> pd.DataFrame:
        """One row per query: id, text, stratum, the stratum's traffic weight and its share."""
        pd, c = pandas(), _names(names)
        shares = weight_shares({s: w for s, w in self.weights.items() if s in set(self.strata.values())})
        queries = self.snapshot.queries
        return pd.DataFrame(
            {
                c["query"]: pd.Series([q.id for q in queries], dtype="string"),
                c["text"]: pd.Series([q.text for q in queries], dtype="string"),
                "stratum": pd.Series([q.stratum for q in queries], dtype="string"),
                "weight": pd.array([self.weights.get(q.stratum) for q in queries], dtype="Float64"),
                "share": pd.array([shares.get(q.stratum) for q in queries], dtype="Float64"),
            }
        )

    def judgments_frame(self, names: Names = "ir_measures") -> pd.DataFrame:
        """The judgment log, one row per event in log order: query, doc, assessor, state, grade
        (missing but for graded and adjudicated events), timestamp (UTC), seconds, note."""
        pd, c = pandas(), _names(names)
        events: Sequence[Judgment] = list(self.snapshot.events)
        return pd.DataFrame(
            {
                c["query"]: pd.Series([e.query_id for e in events], dtype="string"),
                c["doc"]: pd.Series([e.doc_id for e in events], dtype="string"),
                "assessor": pd.Series([e.assessor for e in events], dtype="string"),
                "state": pd.Series([e.state.value for e in events], dtype="string"),
                c["grade"]: pd.array([e.grade for e in events], dtype="Int64"),
                "timestamp": pd.to_datetime([e.timestamp for e in events], utc=True),
                "seconds": pd.array([e.seconds for e in events], dtype="Float64"),
                "note": pd.Series([e.note for e in events], dtype="string"),
            }
        )

    def evaluate(self, run: RunLike, metrics: MetricsLike | None = None, **options: Any) -> Evaluation:
        """`qrelkit.evaluate` against this golden set: its labels (pooled-unjudged and skipped
        pairs as unlabeled), its queries, strata, weights and scale."""
        from ..scoring.evaluation import evaluate
        from ..scoring.measures import DEFAULT_METRICS

        qrels: dict[str, dict[str, int]] = {q.id: {} for q in self.snapshot.queries}
        for p in self.snapshot.unlabeled:
            qrels.setdefault(p.query_id, {})[p.doc_id] = -1
        for q, d in self.snapshot.skipped:
            qrels.setdefault(q, {})[d] = -1
        for lab in self.snapshot.labels:
            qrels.setdefault(lab.query_id, {})[lab.doc_id] = lab.grade
        scale = self.info.scale
        settings: dict[str, Any] = {
            "queries": [q.id for q in self.snapshot.queries],
            "strata": self.strata,
            "weights": self.weights,
            "relevance_threshold": scale.relevance_threshold,
            "max_grade": scale.max_grade,
        }
        return evaluate(qrels, run, metrics if metrics is not None else DEFAULT_METRICS, **{**settings, **options})


def load(source: str | Path) -> GoldenSet:
    """The golden set in a store file (`qrelkit.db`) or a frozen version folder (verified: an
    altered version is refused)."""
    from .. import versioning

    path = Path(source)
    if path.is_dir():
        snap = versioning.read(path, check=True)
        snap.labels = list(snap.labels)
        return GoldenSet(snap, str(path), snap.content_hash())
    if not path.exists():
        raise UsageError(
            f"{path}: no such store or version folder", "give a store file (qrelkit.db) or a version folder"
        )
    from .setup import open_store
    from .versions import snapshot

    store = open_store(path)
    try:
        snap = snapshot(store)
    finally:
        store.close()
    snap.labels, snap.events = list(snap.labels), list(snap.events)
    return GoldenSet(snap, str(path), snap.content_hash())
