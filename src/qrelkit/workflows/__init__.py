"""What a user does, callable from Python without click or textual; both edges (`qrelkit.cli`,
`qrelkit.tui`) call these and only render what comes back.

    sources     what a score is computed against (store, version, qrels file); measures and strata
    scoring     score run files (each read once) into fingerprinted reports
    compare     pair two runs or reports; comparability; CI gates
    settling    `qrelkit settled`: can a labeling still change B - A; judgments until it cannot
    comparisons  the run pairs and measures a settle queue settles (`--for`, a saved leaderboard)
    settle_watch  the judging screen's settle line: `settled` off the key path, blind pairs left out
    pooling     pool runs into the store; run coverage
    queue       the judging queue (the same for `qrelkit queue` and the judging screen)
    queue_process  a large store's queue computed in a process of its own (never in the screen's)
    disagreement_order  the `disagreement` queue order: humans where the machine is unsure
    judging     a judging session: documents, judging, adjudication
    disagreements  the pairs whose assessors disagree, most urgent first (adjudication)
    duplicates  the same text and near duplicates within a query; one grade given to them (`D`)
    evidence    the passage an assessor marks as the evidence for their vote (`m`)
    leasing     where an assessor goes next; the leases that keep two off one document
    pacing      seconds per document (idle left out), time left, judged today, breaks
    flags       assessors' flags on queries for their owner (`!`, `qrelkit flags`)
    pairs       a pair's state as a judging screen shows it: votes, blind assignments, notes, leases
    assessors   overlap assignments, agreement
    versions    snapshot, freeze, load a version
    importing   queries, documents, qrels, judgments, BEIR
    exporting   labels, the event log
    label_sets  which labels (--labels human|machine|human+machine): the one fill rule's edge
    assess      machine assessors label pairs (`qrelkit assess`): judges, the cache, resuming
    calibration  a machine assessor against the humans (`qrelkit calibrate`): agreement, rankings
    http_judge  an LLM behind an OpenAI-compatible chat-completions endpoint (`assess --endpoint`)
    hub         a frozen version as a Hugging Face dataset folder (`export hub`)
    hub_import  a Hugging Face / MTEB / BEIR dataset folder into the store (`import hub`)
    saved       reports kept in the store (`--save`): keep, list, read back
    outputs     where a command may write (never the store or an input)
    setup       the store, scale, policy, strata, profiles
    removing    removing strata, queries, documents, profiles: what is refused
    browsing    one query, the documents, one document: what the golden set holds
    serving     the access tokens of `qrelkit serve`: add, list, revoke, check
    demo        the bundled golden set
    frames      `qrelkit.load`: a golden set's data frames (pandas)
    irds        import an ir_datasets dataset (local files only)
    label_studio  import a Label Studio export, export tasks and its config

    >>> from pathlib import Path
    >>> from qrelkit.storage import Store
    >>> from qrelkit.workflows import sources, scoring
    >>> source = sources.ScoringSource.from_store(Store.open("qrelkit.db"))
    >>> report = scoring.score_run(source, Path("bm25.run"), sources.plan(source, metrics="nDCG@10"))

Modules load on first use (`from qrelkit.workflows import scoring`), so importing the package
loads neither numpy nor the store.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

MODULES = (
    "assess",
    "assessors",
    "browsing",
    "calibration",
    "comparisons",
    "compare",
    "demo",
    "disagreement_order",
    "disagreements",
    "duplicates",
    "evidence",
    "exporting",
    "flags",
    "frames",
    "http_judge",
    "hub",
    "hub_import",
    "importing",
    "irds",
    "label_studio",
    "judging",
    "label_sets",
    "leasing",
    "outputs",
    "pacing",
    "pairs",
    "pooling",
    "queue",
    "queue_process",
    "removing",
    "saved",
    "scoring",
    "serving",
    "settle_watch",
    "settling",
    "setup",
    "sources",
    "versions",
)


def __getattr__(name: str) -> Any:
    if name in MODULES:
        return import_module(f".{name}", __name__)
    raise AttributeError(name)


__all__ = list(MODULES)
