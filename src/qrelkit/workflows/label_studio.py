"""Label Studio: a project's JSON export imported as judgment events, and tasks (with the labeling
config of their project) exported for teams that keep annotating there.

Import: each annotation is one event of its annotator (`completed_by`: the email, else
`ls-user-ID`), at its time (`updated_at`, else `created_at`) with its lead time as seconds; a
skipped annotation (`was_cancelled`) is a skip, never a grade; a task without annotations pools
its pair. The queries (and documents) must be in the store unless a `--query-text-field`
(`--doc-text-field`) creates those it lacks; one already there is kept as it is. Everything is one
transaction, and an event the log already holds is skipped (`Imports.judgments`), so importing an
export again adds nothing. Import exports oldest first: an assessor's vote is their latest event
in the log.

Export: a task per pooled-unjudged pair (with `every_pair`, per pair with a vote or an
adjudication too), its data the query (id, text, guidelines, stratum) and the document (id,
title, text); with `annotations`, each assessor's current vote (a grade or a skip, with its time
and seconds) and the pair's adjudication (as a ground-truth annotation). What a task cannot carry:
the history behind each current vote (earlier grades, retractions, clears, notes), pool sources and
ranks, and stratum weights.

Machine labels travel as Label Studio predictions, never as annotations: `export` with
`predictions` writes one machine assessor's grade of each task's pair as its prediction
(model_version: the assessor); `import` ignores predictions unless `predictions_as` names a
machine assessor, and then each task's prediction becomes a machine label of it (in the machine
table: never a vote), its provenance what Label Studio gives (model_version, time, the prediction
as read); importing the same export again adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import InputError, UsageError
from ..formats import label_studio as ls
from ..formats.paths import display
from ..models import DEFAULT_STRATUM, Document, Judgment, JudgmentState, PoolEntry, Query
from ..models.machine import MachineLabel, is_machine_assessor
from ..resolution import PairVotes, votes_of
from ..storage import JudgmentsImported, Store
from .importing import refuse_empty

Pair = tuple[str, str]


@dataclass(frozen=True)
class ImportOptions:
    fields: ls.Fields = field(default_factory=ls.Fields)
    offset: int = 0
    """Added to a rating (Label Studio's stars start at 1: -1 makes 1..4 stars grades 0..3)."""
    choices: Sequence[str] = ()
    """`TEXT=GRADE` for each choice; none: a choice is a level name of the scale, or a number."""
    ground_truth: bool = False
    """A ground-truth annotation is an adjudication (else one vote among the others)."""
    stratum: str = DEFAULT_STRATUM
    """The stratum of the queries created (with `fields.query_text`)."""
    predictions_as: str | None = None
    """The machine assessor (`lexical`, `llm:MODEL`) whose labels the tasks' predictions become;
    None: predictions are ignored."""


@dataclass(frozen=True)
class Imported:
    """What an import did."""

    tasks: int
    grades: int
    skips: int
    adjudications: int
    events: JudgmentsImported
    pooled: int
    queries: int
    """Queries created."""
    documents: int
    """Documents created."""
    predictions: int = 0
    """Machine labels written from predictions (`predictions_as`)."""


def parse_choices(given: Sequence[str], max_grade: int) -> dict[str, int]:
    """`--choice TEXT=GRADE` options as text -> grade (the last `=` splits: a choice may hold one)."""
    found: dict[str, int] = {}
    for item in given:
        text, sep, grade = item.rpartition("=")
        if not sep or not text or not grade.isdigit():
            raise UsageError(f"--choice {item!r:.60} is not TEXT=GRADE", "e.g. --choice 'Highly relevant=3'")
        if text in found:
            raise UsageError(f"--choice {text!r:.60} is given twice", "map each choice once")
        if int(grade) > max_grade:
            raise UsageError(f"--choice {item!r:.60}: grade {grade} is above the scale's {max_grade}", "fix the grade")
        found[text] = int(grade)
    return found


def _grading(store: Store, options: ImportOptions) -> ls.Grading:
    scale = store.settings.scale
    levels = {name: grade for grade, name in ls.choice_names(scale).items()}
    choices = parse_choices(options.choices, scale.max_grade)
    predictions = options.predictions_as is not None
    return ls.Grading(scale.max_grade, options.offset, choices, levels, options.ground_truth, predictions)


def _check_options(store: Store, options: ImportOptions) -> None:
    f = options.fields
    if options.predictions_as is not None and not is_machine_assessor(options.predictions_as):
        raise UsageError(
            f"--predictions-as {options.predictions_as!r:.60} is not a machine assessor's name",
            "predictions are a model's labels, never a person's: name a machine assessor, lexical or llm:MODEL",
        )
    if f.doc_title is not None and f.doc_text is None:
        raise UsageError("--doc-title-field names the title of documents to create", "give --doc-text-field too")
    if f.query_text is not None and options.stratum != DEFAULT_STRATUM:
        if options.stratum not in {s.name for s in store.settings.strata()}:
            raise UsageError(
                f"unknown stratum {options.stratum!r:.60}",
                f"define it first: qrelkit strata set {options.stratum:.60} WEIGHT",
            )


def import_label_studio(store: Store, path: Path, options: ImportOptions | None = None) -> Imported:
    """Import a Label Studio JSON export (see the module), in one transaction."""
    options = options or ImportOptions()
    _check_options(store, options)
    name = display(path)
    tasks = ls.read_export(path, options.fields, _grading(store, options))
    refuse_empty(len(tasks), path, "tasks")
    with store.transaction():
        queries = _new_queries(store, tasks, options, name)
        documents = _new_documents(store, tasks, options, name)
        if queries:
            store.imports.queries(enumerate(queries, 1), source=name)
        if documents:
            store.imports.documents(documents, source=name)
        done = store.imports.judgments(_events(tasks), source=name)
        unannotated = (PoolEntry(query_id=t.query_id, doc_id=t.doc_id, source=name) for t in tasks if not t.events)
        pooled = store.imports.pool_entries(unannotated)
        predicted = _record_predictions(store, tasks, options.predictions_as)
    states = [e.state for t in tasks for e in t.events]
    return Imported(
        tasks=len(tasks),
        grades=states.count(JudgmentState.GRADED),
        skips=states.count(JudgmentState.SKIPPED),
        adjudications=states.count(JudgmentState.ADJUDICATED),
        events=done,
        pooled=pooled,
        queries=len(queries),
        documents=len(documents),
        predictions=predicted,
    )


def _record_predictions(store: Store, tasks: list[ls.Task], assessor: str | None) -> int:
    """Each task's prediction as a machine label of `assessor` (those recorded before: skipped)."""
    import hashlib

    if assessor is None:
        return 0
    labels = []
    for t in tasks:
        p = t.prediction
        if p is None:
            continue
        key = hashlib.sha256("\0".join(("label-studio", assessor, t.query_id, t.doc_id, p.raw)).encode()).hexdigest()
        labels.append(
            MachineLabel.model_validate(
                {
                    "assessor": assessor,
                    "query_id": t.query_id,
                    "doc_id": t.doc_id,
                    "status": "ok",
                    "grade": p.grade,
                    "model": p.model_version,
                    "parameters": {"from": "label-studio prediction"},
                    "reply": p.raw,
                    "template_sha256": "",
                    "prompt_sha256": "",
                    "cache_key": "sha256:" + key,
                    **({"timestamp": p.timestamp} if p.timestamp else {}),
                }
            )  # fmt: skip
        )
    known = store.machine.cached(x.cache_key for x in labels)
    return store.machine.record(x for x in labels if x.cache_key not in known)


def _events(tasks: list[ls.Task]) -> Iterator[tuple[int, Judgment]]:
    """Each task's events in the order of their times (an assessor's latest is their vote)."""
    for k, task in enumerate(tasks, 1):
        for event in sorted(task.events, key=lambda e: e.timestamp):
            yield k, event


def _new_queries(store: Store, tasks: list[ls.Task], options: ImportOptions, name: str) -> list[Query]:
    """The queries to create: those of the tasks the store lacks (an error without a text field)."""
    known = store.settings.query_strata()
    found: dict[str, tuple[str, str]] = {}
    for t in tasks:
        if t.query_id in known:
            continue
        if t.query_text is None:
            raise InputError(
                f"{t.where}: query {t.query_id!r:.60} is not in the golden set",
                "import its queries first (qrelkit import queries FILE), or create them from the tasks' data "
                "with --query-text-field KEY",
                path=name,
            )
        first = found.setdefault(t.query_id, (t.query_text, t.where))
        if first[0] != t.query_text:
            raise InputError(
                f"{t.where}: query {t.query_id!r:.60} has another text than in {first[1]}",
                "give a query one text",
                path=name,
            )
    return [Query(id=q, text=text, stratum=options.stratum) for q, (text, _) in found.items()]


def _new_documents(store: Store, tasks: list[ls.Task], options: ImportOptions, name: str) -> list[Document]:
    """The documents to create: those of the tasks the store lacks (an error without a text field)."""
    absent = store.reads.absent_documents(t.doc_id for t in tasks)
    found: dict[str, tuple[str, str, str]] = {}
    for t in tasks:
        if t.doc_id not in absent:
            continue
        if t.doc_text is None:
            raise InputError(
                f"{t.where}: document {t.doc_id!r:.60} is not in the store",
                "import the documents first (qrelkit import docs FILE), or create them from the tasks' data "
                "with --doc-text-field KEY",
                path=name,
            )
        first = found.setdefault(t.doc_id, (t.doc_title or "", t.doc_text, t.where))
        if first[:2] != (t.doc_title or "", t.doc_text):
            raise InputError(
                f"{t.where}: document {t.doc_id!r:.60} has another title or text than in {first[2]}",
                "give a document one text",
                path=name,
            )
    return [Document(id=d, title=title, text=text) for d, (title, text, _) in found.items()]


# -- export ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportOptions:
    every_pair: bool = False
    """A task for every pair with a vote or an adjudication too, not only the pooled-unjudged."""
    annotations: bool = False
    """Each task carries the pair's current votes and adjudication (implies `every_pair`)."""
    control: ls.Control = "choices"
    predictions: str | None = None
    """The machine assessor whose labels the tasks carry as predictions (None: no predictions)."""


@dataclass(frozen=True)
class Exported:
    tasks: int
    annotations: int
    predictions: int = 0


def prediction_assessor(store: Store, name: str | None) -> str:
    """`--predictions [ASSESSOR]`: the machine assessor named, or the store's one; none, several
    or one without labels here is refused."""
    known = store.machine.assessors()
    if name is None and len(known) == 1:
        return known[0]
    if name is not None and name in known:
        return name
    if not known:
        raise UsageError("--predictions: the store holds no machine labels", "label pairs first: qrelkit assess")
    what = "several machine assessors hold labels" if name is None else f"no labels of {name!r:.60} here"
    raise UsageError(f"--predictions: {what}", f"name one: --predictions ASSESSOR ({', '.join(known)})")


def export_label_studio(store: Store, stream: IO[str], options: ExportOptions | None = None) -> Exported:
    """Write the tasks (see the module) as one JSON list, from one read transaction."""
    options = options or ExportOptions()
    names = ls.choice_names(store.settings.scale)
    counter = [0, 0]
    with store.read_transaction():
        queries = {q.id: q for q in store.reads.queries()}
        pairs = [(p.query_id, p.doc_id) for p in store.pool.unlabeled() if p.query_id in queries]
        events: dict[Pair, list[tuple[Judgment, bool]]] = {}
        if options.every_pair or options.annotations:
            votes = votes_of(enumerate(store.log.iter_events(), 1))
            held = {pair for pair, v in votes.items() if v.votes or v.adjudicated is not None}
            pooled = set(pairs)
            pairs += sorted(held - pooled)
            if options.annotations:
                events = _voting_events(store, votes)
        machine = {(q, d): g for q, d, g in store.machine.grades(options.predictions)} if options.predictions else {}

        def tasks() -> Iterator[dict[str, Any]]:
            for k, (q, d) in enumerate(pairs, 1):
                task: dict[str, Any] = {"id": k, "data": _data(queries[q], d, store.reads.document(d))}
                if options.annotations:
                    task["annotations"] = [
                        ls.annotation(counter[0] + j, e, options.control, names, ground_truth=gt)
                        for j, (e, gt) in enumerate(events.get((q, d), []), 1)
                    ]
                    counter[0] += len(task["annotations"])
                if (q, d) in machine and options.predictions is not None:
                    task["predictions"] = [
                        ls.prediction(k, options.predictions, machine[(q, d)], options.control, names)
                    ]
                    counter[1] += 1
                yield task

        n = ls.write_tasks(tasks(), stream)
    return Exported(tasks=n, annotations=counter[0], predictions=counter[1])


def _data(query: Query, doc_id: str, doc: Document | None) -> dict[str, str]:
    return {
        "query_id": query.id,
        "query_text": query.text,
        "query_description": query.description or "",
        "stratum": query.stratum,
        "doc_id": doc_id,
        "doc_title": doc.title if doc is not None else "",
        "doc_text": doc.text if doc is not None else "",
    }


def _voting_events(store: Store, votes: Mapping[Pair, PairVotes]) -> dict[Pair, list[tuple[Judgment, bool]]]:
    """Pair -> the events of its current votes (in log order) and of its adjudication, if any
    (flagged True): a second pass over the log, numbered as the pass that gave `votes`."""
    wanted = {v.seq for pv in votes.values() for v in pv.votes}
    adjudicated = {pair for pair, pv in votes.items() if pv.adjudicated is not None}
    found: dict[Pair, list[tuple[Judgment, bool]]] = {}
    settled: dict[Pair, Judgment] = {}
    for seq, event in enumerate(store.log.iter_events(), 1):
        pair = (event.query_id, event.doc_id)
        if seq in wanted:
            found.setdefault(pair, []).append((event, False))
        elif event.state is JudgmentState.ADJUDICATED and pair in adjudicated:
            settled[pair] = event  # the last one: `votes` says no clear came after it
    for pair, event in settled.items():
        found.setdefault(pair, []).append((event, True))
    return found


def write_config(store: Store, stream: IO[str], control: ls.Control) -> None:
    """The labeling config (XML) of a project for the exported tasks (`formats.label_studio`)."""
    stream.write(ls.labeling_config(store.settings.scale, control))
