"""Pooling runs into the store, and how much of each run's top k is labeled (`status --runs`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import PoolResult, RunCoverage, RunRank
from ..storage import Store
from .judging import JudgingSession
from .queue import labels_by_query

if TYPE_CHECKING:
    from ..formats.trec import RunFormat
    from ..scoring.arrays import RunLists


def read_run_lists(paths: Sequence[Path], depth: int, run_format: RunFormat = "auto") -> list[RunLists]:
    """Each run's top `depth` documents per query (trec_eval order; an MS MARCO run's by rank) with
    their scores (none for a run of ranks); run names must differ (they name the runs in the store).
    A run grouped by query is read in blocks, keeping only each query's top `depth` (`TopLists`)."""
    from ..formats.runs import run_name

    names = [run_name(p) for p in paths]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"two runs are named {name!r}", "give every run file a distinct name")
    return [
        _streamed_lists(path, name, depth, run_format) or _whole_lists(path, name, depth, run_format)
        for path, name in zip(paths, names, strict=True)
    ]


def _streamed_lists(path: Path, name: str, depth: int, run_format: RunFormat) -> RunLists | None:
    """The run's lists from its query blocks; None when it is not read that way (`NotStreamed`)."""
    from ..formats.runs import NotStreamed, stream_run_file
    from ..scoring.arrays import RunLists
    from ..scoring.streamed import TopLists

    stream = stream_run_file(path, run_format)
    if stream is None:
        return None
    top = TopLists(depth)
    try:
        for columns, _ in stream.blocks():
            top.add(columns)
    except NotStreamed:
        return None
    return RunLists(name, top.ranked, top.scores)  # a streamed run holds scores, never ranks


def _whole_lists(path: Path, name: str, depth: int, run_format: RunFormat) -> RunLists:
    from ..formats.runs import read_run_file
    from ..scoring.arrays import RunLists, top_columns_scored

    # read as `score` reads it (an empty file is refused there); one sort picks each query's top
    read = read_run_file(path, run_format)
    ranked, scores = top_columns_scored(read.columns, depth)
    return RunLists(name, ranked, None if read.ranks else scores)  # MS MARCO ranks are no scores


def pool(
    store: Store, paths: Sequence[Path], *, depth: int, stratum: str | None = None, run_format: RunFormat = "auto"
) -> PoolResult:
    """Pool each run's unlabeled top `depth` pairs (of one stratum's queries, if given)."""
    store.settings.check_stratum(stratum)
    lists = read_run_lists(paths, depth, run_format)
    return store.pool.add_runs(lists, depth=depth, paths=[str(p) for p in paths], stratum=stratum)


def run_coverage(store: Store, paths: Sequence[Path], k: int, run_format: RunFormat = "auto") -> list[RunCoverage]:
    """The judged coverage of each run's top k, per golden-set query and stratum."""
    from ..scoring.coverage import run_coverage as coverage

    strata = store.settings.query_strata()
    labels = labels_by_query(store.reads.label_rows())
    return [coverage(run, strata, labels, k) for run in read_run_lists(paths, k, run_format)]


def document_ranks(session: JudgingSession, query_id: str) -> dict[str, list[RunRank]]:
    """Where each pooled run ranked each of the query's documents, with its score, best rank
    first (the judging screen's context line, `c`)."""
    return session.store.pool.ranks(query_id)
