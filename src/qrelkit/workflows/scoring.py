"""Scoring runs: each run file read once, evaluated against a source, wrapped in a fingerprinted
report; and the coverage floor (`score --min-coverage`)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .. import __version__
from ..errors import InputError
from ..formats import as_text
from ..formats.paths import STDIN_NAME, display, is_stdin
from ..models.plain import PlainFileFingerprint, PlainFingerprint, PlainScoreReport
from .sources import ScoringPlan, ScoringSource

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..formats.trec import RunFormat
    from ..scoring import Evaluation


def display_names(paths: Sequence[Path]) -> list[str]:
    """A name per run file for reports and output: the file name, with as many parent folders as
    it takes to tell apart files that share a name (`a/bm25.run`, `b/bm25.run`); the same file
    given twice gets `#2`."""
    parts = [p.resolve().parts for p in paths]
    names = []
    for i, path in enumerate(paths):
        depth = 1
        while depth < len(parts[i]) and any(
            j != i and parts[j][-depth:] == parts[i][-depth:] and parts[j] != parts[i] for j in range(len(paths))
        ):
            depth += 1
        names.append(as_text("/".join(parts[i][-depth:]) if depth > 1 else path.name))
    return numbered(names)


def numbered(names: Sequence[str]) -> list[str]:
    """The names made unique, the one rule for every list of runs: a name's first use stays, each
    repeat gets the smallest `#N` (N >= 2) that no other name in the list has (`a`, `a#2`, ...)."""
    given, out = set(names), []
    used: set[str] = set()
    for name in names:
        label, n = name, 1
        while label in used or (label != name and label in given):
            n += 1
            label = f"{name}#{n}"
        used.add(label)
        out.append(label)
    return out


def score_run(
    source: ScoringSource,
    path: Path,
    plan: ScoringPlan,
    *,
    per_query: bool = False,
    bounds: bool = True,
    name: str | None = None,
    run_format: RunFormat = "auto",
) -> PlainScoreReport:
    """Score one run file (read once: fast path, exact fallback and sha256 together) against
        `source`; the report's run is called `name` (default: the file name). `run_format` says how a
        TREC text run is laid out (`formats.trec.RUN_FORMATS`); the report says when it held ranks.
        A run grouped by query is read in blocks of whole queries (`formats.runs.stream_run_file`),
        so memory holds one block of it at a time; any other is read whole, with the same result. The
    report is plain data (`models.to_model` makes it the model, for a comparison or the store)."""
    from ..formats.runs import is_report

    if is_report(path):
        raise InputError(
            "a .json file is a saved report, not a run", "runs are TREC text or JSON Lines (.jsonl)", path=display(path)
        )
    shown = STDIN_NAME if is_stdin(path) else name or as_text(path.name)
    options = {
        "queries": plan.queries,
        "strata": source.strata,
        "weights": plan.weights,
        "relevance_threshold": source.scale.relevance_threshold,
        "max_grade": source.scale.max_grade,
        "qrels_hash": source.labels_hash,
        "bounds": bounds,
        "score_precision": plan.score_precision,
        "keep_unlabeled": plan.keep_unlabeled,
    }
    scored = _streamed(source, path, plan, run_format, shown, options)
    if scored is None:
        scored = _read_whole(source, path, plan, run_format, shown, options)
    ev, sha256, read_as, run_queries = scored
    scale = source.scale
    policy = {"query_policy": KEPT_POLICY} if ev.unlabeled_kept else {}
    fingerprint = PlainFingerprint(
        golden=source.golden,
        qrels=source.qrels,
        run=PlainFileFingerprint(name=name or as_text(path.name), sha256=sha256),
        metrics=[m.name for m in ev.measures],
        relevance_threshold=scale.relevance_threshold,
        max_grade=ev.ranked.top_grade,
        qrelkit_version=__version__,
        **policy,
    )
    report = ev.plain_report(fingerprint, per_query=per_query)
    if read_as is not None:
        report = replace(report, run_read_as=read_as)
    if plan.outside:  # queries of the golden set a profile leaves out are not "run-only"
        in_run = run_queries() & plan.outside
        counts = replace(report.queries, run_only=report.queries.run_only - len(in_run), outside_profile=len(in_run))
        report = replace(report, queries=counts)
    return report


Scored = tuple["Evaluation", str, "str | None", "Callable[[], set[str]]"]
"""An evaluation, the run's sha256, how it was read (`RunFile.read_as`) and its query ids (on demand)."""


def _streamed(
    source: ScoringSource, path: Path, plan: ScoringPlan, run_format: RunFormat, shown: str, options: dict[str, Any]
) -> Scored | None:
    """The run scored in query blocks; None when it is not read that way (`NotStreamed`)."""
    from ..formats.runs import NotStreamed, stream_run_file
    from ..scoring.streamed import evaluate_stream

    stream = stream_run_file(path, run_format)
    if stream is None:
        return None
    map_large_allocations(keep_heap=_large_run(path))
    try:
        ev = evaluate_stream(
            source.labels, stream.blocks(), plan.metrics, run_queries=lambda: stream.queries, **options
        )
    except NotStreamed:
        return None
    if ev is None:
        return None
    check_shared_queries(source, stream.queries, stream.first_query, shown)
    return ev, stream.sha256(), None, lambda: stream.queries


def _read_whole(
    source: ScoringSource, path: Path, plan: ScoringPlan, run_format: RunFormat, shown: str, options: dict[str, Any]
) -> Scored:
    from ..formats.runs import read_run_file
    from ..scoring import evaluate_columns  # numpy loads only when scoring
    from ..scoring.evaluation import query_ids

    run = read_run_file(path, run_format)
    first = _ids(run.columns.query[:1])
    check_shared_queries(source, query_ids(run.columns), first[0] if first else None, shown)
    ev = evaluate_columns(
        source.labels,
        run.columns,
        plan.metrics,
        run_hash=run.doc_hash,
        run_unique=True,  # both readers refuse duplicate (query, doc) pairs
        **options,
    )
    return ev, run.sha256, run.read_as, lambda: {q.decode() for q in set(run.columns.query.tolist())}


MMAP_FROM = 4 << 20
"""Allocations this large get pages of their own (glibc's `M_MMAP_THRESHOLD`), given back when freed.
4 MiB, measured on an idle machine against 1 MiB: shared medium 1.8-2.3 s and 113-118 MiB against
2.5-2.7 s and 109-112 MiB; shared msmarco 7.1-8.1 s and 227 MiB against 7.6-9.1 s and 219 MiB (the
lower threshold spent the difference mapping and unmapping pages: system time 0.9 s against 0.45 s
on medium)."""

TRIM_AT = 2 * MMAP_FROM
"""Free memory at the top of the heap kept for the next block (glibc's `M_TRIM_THRESHOLD`, twice
the mmap threshold, as glibc's own sliding rule sets it), when the run is large (`KEEP_HEAP_FROM`).
glibc's default once the mmap threshold is fixed, 128 KiB, gave the heap's pages back after every
block's arrays were freed, and the next block faulted them in again: shared msmarco with bounds,
600,000-660,000 minor faults and 1.1-1.4 s of system time; 40,000 faults and 0.3-0.4 s with 8 MiB
(2 and 4 MiB: 370,000-420,000 faults), for 18-21 MiB more at peak (248-251 MiB, trec_eval's 512)."""

ARENAS = 1
"""glibc's malloc arenas (`M_ARENA_MAX`): one. The reader's and the join's threads otherwise each
get an arena of their own, whose freed blocks no other thread reuses; with one, the next block's
arrays take the pages the last one freed. Measured (medians of 5, 2 cores, load 1.6-2; `MALLOC_ARENA_MAX`
for the A/B): shared medium with bounds 0.94-0.99 s CPU and 108 MiB against 1.03-1.04 s and 111-112
MiB; without bounds 0.70 s against 0.80 s; shared msmarco 3.07 s and 180 MiB against 3.36 s and 196
MiB, wall time the same within noise. numpy asks for its large arrays with mmap (`MMAP_FROM`), so the
one arena's lock is seldom contended."""

KEEP_HEAP_FROM = 64 << 20
"""A run file at least this large (bytes) keeps `TRIM_AT` of free heap: on shared medium (35 MB) the
faults saved are worth about 0.05 s of CPU and the heap kept 14 MiB of peak RSS (118 -> 132 MiB)."""


def map_large_allocations(*, keep_heap: bool = False) -> None:
    """Have glibc map every allocation of `MMAP_FROM` bytes or more on its own pages, so a freed
    array goes back to the system at once (`score` calls it before reading anything). Left alone,
    glibc raises that threshold to the size of the largest array freed so far (up to 32 MiB), and
    the arrays of the next blocks come from its heap instead, which keeps their pages (shared
    medium run: 131 MiB at peak, 113-118 MiB with this; a lower threshold saves a little more
    memory and costs system time mapping pages). `keep_heap` (a large run) also keeps `TRIM_AT`
    bytes of free heap instead of giving them back. Threads share one arena (`ARENAS`). Does nothing
    where there is no glibc."""
    mallopt = _mallopt()
    if mallopt is not None:
        mallopt(-3, MMAP_FROM)  # M_MMAP_THRESHOLD
        mallopt(-8, ARENAS)  # M_ARENA_MAX
        if keep_heap:
            mallopt(-1, TRIM_AT)  # M_TRIM_THRESHOLD


@functools.cache
def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's `mallopt`, from the process's own symbols (Python links the C library), or None
    under another C library. Not `ctypes.util.find_library("c")`: that starts `ldconfig` and
    took 30 ms of CPU and 75-100 ms of wall time in every `score`."""
    import ctypes

    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return None
        return cast("Callable[[int, int], int]", ctypes.CDLL(None).mallopt)
    except (AttributeError, OSError, ValueError):
        return None


def _large_run(path: Path) -> bool:
    try:
        return path.stat().st_size >= KEEP_HEAP_FROM
    except OSError:
        return False


KEPT_POLICY = "golden-set queries, those with no label scored 0; missing from run = 0; run-only ignored"
"""The fingerprint's query policy under `--keep-unlabeled-queries` when some query has no label
(the default policy leaves those out)."""


def check_shared_queries(source: ScoringSource, run_queries: set[str], first: str | None, name: str) -> None:
    """A run that shares no query id with the golden set (or the qrels) is an input error, not
    a score of 0: its ids are most likely for other topics (or written another way). `first` is
    the run's first query id."""
    from ..scoring.evaluation import query_ids

    golden = set(source.queries) if source.queries is not None else query_ids(source.labels)
    if not golden.isdisjoint(run_queries):
        return
    what = "the golden set" if source.queries is not None else "the qrels"
    theirs_first = source.queries if source.queries is not None else _ids(source.labels.query[:1])
    theirs = f"{theirs_first[0]!r:.60}" if theirs_first else "no query"
    ours = f"{first!r:.60}" if first is not None else "no query"
    raise InputError(
        f"{name} shares no query with {what} (run: {ours}, {what.removeprefix('the ')}: {theirs})",
        "are they for the same topics?" if golden else "the golden set has no query yet: import queries first",
    )


def _ids(column: npt.NDArray[np.bytes_]) -> list[str]:
    return [x.decode("utf-8", "backslashreplace") for x in column.tolist()]


def score_runs(
    source: ScoringSource,
    paths: Sequence[Path],
    plan: ScoringPlan,
    *,
    per_query: bool = False,
    bounds: bool = True,
    run_format: RunFormat = "auto",
) -> list[PlainScoreReport]:
    """Score every run file, each under a name that tells it from the others (`display_names`)."""
    return [
        score_run(source, path, plan, per_query=per_query, bounds=bounds, name=name, run_format=run_format)
        for path, name in zip(paths, display_names(paths), strict=True)
    ]


def coverage_violations(reports: Sequence[PlainScoreReport], threshold: float) -> list[str]:
    """'run: metric (stratum) 0.71' for every mean coverage under the threshold."""
    found = []
    for rep in reports:
        for name, m in rep.metrics.items():
            if m.coverage is not None and m.coverage < threshold:
                found.append(f"{rep.fingerprint.run.name}: {name} (all) {m.coverage:.3f}")
            for s, sub in m.by_stratum.items():
                if sub.coverage is not None and sub.coverage < threshold:
                    found.append(f"{rep.fingerprint.run.name}: {name} ({s}) {sub.coverage:.3f}")
    return found


TREC_EVAL_COUNTS = ("num_ret", "num_rel", "num_rel_ret")
"""What trec_eval always prints beside `runid` and `num_q` (`score --format trec_eval` adds them)."""


def trec_eval_counts() -> list[str]:
    """The canonical names of `TREC_EVAL_COUNTS` among the families the registry declares."""
    from ..errors import ScoringError
    from ..scoring.names import parse_measure

    found = []
    for name in TREC_EVAL_COUNTS:
        try:
            found.append(parse_measure(name).name)
        except ScoringError:
            continue
    return found


def trec_eval_names(reports: Sequence[PlainScoreReport], reference: str = "trec_eval") -> dict[str, str]:
    """Canonical metric name -> trec_eval's (`nDCG@10` -> `ndcg_cut_10`), for every metric of
    the reports that trec_eval computes (under `reference`, see `ScoringPlan.reference`)."""
    from ..scoring.names import trec_eval_names as names

    return names(dict.fromkeys(m for rep in reports for m in rep.metrics), reference)


def run_id(path: Path, fallback: str) -> str:
    """trec_eval's `runid`: the tag (6th field) of a TREC run's last line, as trec_eval keeps it;
    `fallback` for JSON Lines runs, standard input, or a last line without one."""
    from ..formats.reading import last_line
    from ..formats.runs import is_jsonl

    if is_stdin(path) or is_jsonl(path):
        return fallback
    fields = (last_line(path, lambda t: bool(t.strip()) and not t.lstrip().startswith("#")) or "").split()
    return fields[5] if len(fields) >= 6 else fallback
