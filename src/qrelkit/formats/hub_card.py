"""The dataset card (README.md) of a folder `export hub` writes: the YAML header (`hub_yaml`) and a
body generated from the version, in Markdown.

Every string from the data (names, strata, level names and definitions, the note) is written as
text: each ASCII punctuation character is backslash-escaped (CommonMark reads `\\*` as `*`, `\\<` as
`<`, `\\|` as `|` inside a table), and control characters are written as `\\xNN`, so that no name
becomes a heading, a link, a table cell boundary or HTML on the Hub's page.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..models import HubInfo, weight_shares
from .hub_yaml import DataFiles, header

_PUNCTUATION = re.compile("[" + re.escape(string.punctuation) + "]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

LICENSE_TODO = (
    "not set by qrelkit. The header says `license: other`, which the Hub accepts; the owner of this golden "
    "set replaces it with an identifier from https://huggingface.co/docs/hub/repositories-licenses "
    "(`cc-by-4.0`, `mit`, ...), or keeps `other` and adds `license_name` and `license_link`."
)


def md(text: object) -> str:
    """`text` as Markdown that shows exactly that text (see the module)."""
    shown = _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", str(text)
    )
    return _PUNCTUATION.sub(lambda m: "\\" + m.group(), shown)


@dataclass(frozen=True)
class ConfigFacts:
    """One config of the folder: its splits, and the rows of each."""

    name: str
    splits: list[DataFiles]
    rows: dict[str, int]
    columns: list[str]
    what: str


@dataclass(frozen=True)
class AssessorFacts:
    """Who judged: distinct assessors by kind, events in the log, pairs with several votes."""

    by_kind: dict[str, int]
    events: int
    pairs_with_several: int
    adjudicated: int


@dataclass(frozen=True)
class Card:
    info: HubInfo
    configs: list[ConfigFacts]
    assessors: AssessorFacts
    license: str = "other"
    machine_labels: int = 0
    """How many of the labels are a machine assessor's (`info.machine_assessor`)."""
    tags: list[str] = field(default_factory=lambda: ["qrelkit", "golden-set", "relevance-judgments"])


def render(card: Card) -> str:
    """The whole README.md: YAML header, then the body."""
    info = card.info
    fields: list[tuple[str, str | list[str]]] = [
        ("pretty_name", f"{info.name} {info.version}"),
        ("license", card.license),
        ("task_categories", ["text-retrieval"]),
        ("task_ids", ["document-retrieval"]),
        ("tags", card.tags),
    ]
    head = header(fields, {c.name: c.splits for c in card.configs})
    parts = [
        _intro(card),
        _configs(card),
        _strata(info),
        _scale(info),
        _policy(info),
        _assessors(card),
        _coverage(info),
        _loses(info),
        _loading(card),
    ]
    return head + "\n" + "\n\n".join(parts) + "\n"


def _intro(card: Card) -> str:
    info = card.info
    lines = [
        f"# {md(info.name)} {md(info.version)}",
        "",
        f"A golden set for retrieval evaluation, written by qrelkit (`qrelkit export hub`) from the frozen "
        f"version {md(info.version)} of {md(info.name)}.",
        "",
        f"- **Name**: {md(info.name)}",
        f"- **Version**: {md(info.version)}" + (f" (parent: {md(info.parent_version)})" if info.parent_version else ""),
        f"- **Content hash**: {md(info.content_hash)} (qrelkit's identity of the documents, queries, labels, strata "
        "and weights, grade scale and profiles; `qrelkit import hub` of this folder into a new store, then "
        "`qrelkit freeze`, gives the same hash)",
        f"- **Frozen**: {md(info.created.isoformat())}",
    ]
    if info.note:
        lines.append(f"- **Note**: {md(info.note)}")
    license_text = LICENSE_TODO if card.license == "other" else f"`{md(card.license)}` (the header's `license`)."
    lines.append(f"- **License**: {license_text}")
    lines.append(_kind_line(card))
    return "\n".join(lines)


def _kind_line(card: Card) -> str:
    """Which labels the set uses, and how many are a machine's."""
    info = card.info
    if info.labels == "human":
        return (
            "- **Labels**: human. Every label in this set was made by a person (`human` in the `labels` config); "
            "no machine label is in it."
        )
    total = info.counts["all"].labels if "all" in info.counts else {}
    n = sum(total.values())
    who = md(info.machine_assessor or "")
    what = (
        "every label is the machine's"
        if info.labels == "machine"
        else "a person's label wins, and the machine's fills a pair no person labeled or skipped"
    )
    return (
        f"- **Labels**: {md(info.labels)} ({what}). {card.machine_labels:,} of the {n:,} labels are machine "
        f"labels of {who}, not a person's: `machine` in the `labels` config's `assessor_kind`, with "
        f"`machine_assessor` {who}; `machine_labels.jsonl` holds each one with its provenance (model, endpoint "
        "host, parameters, prompt hashes, raw reply, latency, tokens, cost, time). A machine label is no "
        "human judgment: do not report scores on them as if it were."
    )


def _table(head: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _configs(card: Card) -> str:
    rows = []
    for c in card.configs:
        for s in c.splits:
            files = ", ".join(f"`{p}`" for p in s.paths)
            rows.append([f"`{c.name}`", f"`{s.split}`", files, f"{c.rows[s.split]:,}", ", ".join(c.columns), c.what])
    splits = {k: v for k, v in card.info.splits.items() if v is not None}
    mapped = [f"`{k}` holds stratum {md(v)}" for k, v in splits.items() if k != v]
    tail = (
        "\n\nThe `default` config's `test` split holds every label; each other split holds one stratum's "
        "labels (strata without a label have no split)."
        + (f" Renamed to fit Hugging Face's split names: {'; '.join(mapped)}." if mapped else "")
        if splits
        else ""
    )
    return "## Configs\n\n" + _table(["config", "split", "files", "rows", "columns", "holds"], rows) + tail


def _strata(info: HubInfo) -> str:
    counts = info.counts
    weights = {s.name: s.weight for s in info.strata}
    shares = weight_shares({s: w for s, w in weights.items() if counts.get(s) and counts[s].queries})
    rows = []
    for name in sorted(set(weights) | {s for s in counts if s != "all"}):
        c = counts.get(name)
        weight = f"{weights[name]:g}" if name in weights else "none"
        share = f"{shares[name]:.1%}" if name in shares else "0%"
        labels = sum(c.labels.values()) if c else 0
        rows.append(
            [
                md(name),
                weight,
                share,
                f"{c.queries if c else 0:,}",
                f"{labels:,}",
                f"{c.skipped if c else 0:,}",
                f"{c.unlabeled if c else 0:,}",
            ]
        )
    return (
        "## Strata and traffic weights\n\nEach query belongs to a stratum; its weight says how much of real "
        "traffic the stratum stands for (share: renormalised over the strata with queries, as qrelkit's "
        "weighted means are).\n\n"
        + _table(["stratum", "weight", "share", "queries", "labels", "skipped", "pooled, not judged"], rows)
    )


def _scale(info: HubInfo) -> str:
    scale = info.scale
    rows = [
        [str(level.grade), md(level.name), md(level.definition) if level.definition else ""] for level in scale.levels
    ]
    if scale.top is not None:
        rows.append([f"{len(scale.levels)}–{scale.top}", "unnamed (grade G)", ""])
    return (
        f"## Grade scale\n\nGrades 0 to {scale.max_grade}; binary measures count a document relevant at grade "
        f"{scale.relevance_threshold} and above. Grade 0 means judged irrelevant, never unjudged.\n\n"
        + _table(["grade", "name", "definition"], rows)
    )


_POLICIES = {
    "median": "assessors who disagree resolve to the lower median of their grades (a tie goes to the less relevant "
    "grade)",
    "latest": "assessors who disagree resolve to the most recent grade",
}


def _policy(info: HubInfo) -> str:
    return (
        f"## Label policy\n\n`{info.label_policy}`: {_POLICIES[info.label_policy]}, unless someone adjudicated the "
        "pair (the adjudicated grade wins). The labels here are the resolved ones."
    )


def _assessors(card: Card) -> str:
    a = card.assessors
    kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(a.by_kind.items())) or "none"
    return (
        f"## Assessors\n\nAssessors: {kinds}. Judgment events in the log: {a.events:,}. Pairs with votes of "
        f"two or more assessors: {a.pairs_with_several:,}; adjudicated pairs: {a.adjudicated:,}. The `labels` "
        "config gives each pair's assessor kind and how many assessors' votes count for it; the names, times, "
        "notes and individual votes stay in the store (`qrelkit export judgments`)."
    )


def _coverage(info: HubInfo) -> str:
    total = info.counts["all"]
    labeled = sum(total.labels.values())
    pooled = labeled + total.unlabeled
    share = f" ({labeled / pooled:.1%} of the pooled pairs labeled)" if pooled else ""
    return (
        f"## Coverage\n\n{total.queries:,} queries; {labeled:,} labeled pairs, {total.skipped:,} skipped (unsure), "
        f"{total.unlabeled:,} pooled but not judged{share}. A document a run retrieves that is none of these was "
        "never judged: unlabeled, not irrelevant."
    )


def _loses(info: HubInfo) -> str:
    threshold = info.scale.relevance_threshold
    items = [
        "unlabeled and irrelevant: a pair without a qrels row may be judged-irrelevant-but-missing, pooled and "
        "not judged, or never seen; here grade 0 is written for judged-irrelevant pairs only, and the pooled "
        "but unjudged pairs are only in `labels`",
        "skipped (unsure) pairs: not in the qrels at all",
        "queries without a label: MTEB v2 drops every query that has no qrels row, and casts the scores to int32",
        "strata and traffic weights: a mean over the qrels is unweighted (the `queries` config keeps each "
        "query's stratum, `labels` the weight)",
        "the grade names and definitions, and the relevance threshold"
        + (f" ({threshold}: tools that read the qrels alone count grade 1 relevant)" if threshold != 1 else ""),
        "who judged: the assessors, their individual votes, adjudications, notes and times (the `labels` "
        "config keeps each pair's assessor kind and count)",
    ]
    return (
        "## What the qrels config loses\n\nThe `default` config is plain qrels (query-id, corpus-id, score) "
        "for MTEB and BEIR tools. It loses:\n\n" + "\n".join(f"- {item}" for item in items)
    )


def _loading(card: Card) -> str:
    return (
        "## Loading\n\n```python\nfrom datasets import load_dataset\n\n"
        'corpus = load_dataset("PATH", "corpus", split="corpus")\n'
        'queries = load_dataset("PATH", "queries", split="queries")\n'
        'qrels = load_dataset("PATH", "default", split="test")\n'
        'labels = load_dataset("PATH", "labels", split="labels")\n```\n\n'
        "MTEB v2's retrieval loader reads the `corpus`, `queries` and `default` configs (split `test`). "
        "qrelkit's tests load this layout with `datasets`, not with MTEB itself (which installs torch). "
        "`qrelkit import hub PATH` loads the folder back into a qrelkit store, the `labels` config and "
        "`qrelkit.json` included."
    )
