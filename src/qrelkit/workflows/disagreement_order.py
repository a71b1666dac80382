"""The `disagreement` queue order: humans where the machine is unsure (`qrelkit queue --order
disagreement`, the judging screen's queue), and what the machine assessors said of a pair, for the
adjudication screen (shown as a machine's, never a vote).

The queue holds the pooled pairs no human labeled, in tiers (a higher `priority` comes first; its
integer part is the tier):

    4  the machine's rows of the pair disagree across the relevance threshold (one assessor's
       samples, `assess --refresh`, or several assessors: some grade it relevant, some not)
    3  they disagree on the same side of the threshold
    2  they agree, on a grade one step from the other side (threshold - 1 or threshold)
    1  the machine labeled it otherwise: how much its filled-in grade can move the comparison
    0  no machine grade: depth order (priority 0.5 / best rank)

Tiers 4 to 1 are ordered by the pair's impact under the human labels (`queue.impacts`: the part of
the pooled runs' open metric bounds its grade holds, so how far a wrong machine grade there moves
the scores), ties in depth order; within them priority = tier + impact / (1 + the largest impact).
A machine grade is an assessor's latest row of the pair when it parsed (`ok`), with its latest
`SAMPLES` parsed rows. With no machine grade on any queued pair the order is the impact order
(`fallback_note` says so). The order has no randomness: `--seed` changes nothing.

Pairs humans already labeled are not queued, even where a machine's grade differs from the
resolved human label: the judging screen shows a labeled pair's grade, so a second human would
judge it anchored. `qrelkit assign --recheck` gives them to one more person instead, as blind
assignments; `qrelkit calibrate` measures the differences; `contradicted` counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import PoolEntry, QueueItem
from ..storage import LabelRow, Store

SAMPLES = 5
"""An assessor's latest parsed rows of a pair that count towards whether it disagrees with itself."""

Pair = tuple[str, str]


@dataclass(frozen=True)
class MachineSay:
    """A machine assessor's latest row of a pair: its parse status, and its grade when `ok`."""

    assessor: str
    status: str
    grade: int | None


def machine_says(store: Store) -> dict[Pair, list[MachineSay]]:
    """(query, doc) -> each machine assessor's latest row of the pair, by assessor name."""
    found: dict[Pair, list[MachineSay]] = {}
    for a in store.machine.assessors():
        for q, d, status, grade in store.machine.latest(a):
            found.setdefault((q, d), []).append(MachineSay(a, status, grade))
    return found


def machine_grades(store: Store) -> dict[Pair, list[int]]:
    """(query, doc) -> the machine's grades of the pair: of every assessor whose latest row of it
    parsed, its latest `SAMPLES` parsed grades (the latest first)."""
    found: dict[Pair, list[int]] = {}
    for a in store.machine.assessors():
        current = {(q, d) for q, d, _ in store.machine.grades(a)}
        for pair, grades in store.machine.samples(a, SAMPLES).items():
            if pair in current:
                found.setdefault(pair, []).extend(grades)
    return found


def unsure_tier(grades: Sequence[int], threshold: int) -> int:
    """The tier of a pair with these machine grades (4: they disagree across the threshold, 3:
    disagree on one side, 2: agree one step from the other side, 1: agree otherwise)."""
    low, high = min(grades), max(grades)
    if low < threshold <= high:
        return 4
    if low < high:
        return 3
    return 2 if low in (threshold - 1, threshold) else 1


def _depth_key(e: PoolEntry) -> tuple[bool, int, str, str]:
    return (e.best_rank is None, e.best_rank or 0, e.query_id, e.doc_id)


def disagreement_queue(store: Store, entries: Sequence[PoolEntry], scores: Sequence[float]) -> list[QueueItem]:
    """`entries` (the unlabeled pooled pairs) in the disagreement order, `scores` their impacts
    under the human labels (`queue.impacts`)."""
    from ..scoring.impact import order_queue

    grades = machine_grades(store)
    if not any((e.query_id, e.doc_id) in grades for e in entries):
        return order_queue(entries, "impact", impacts=scores)
    threshold = store.settings.scale.relevance_threshold
    scale = 1.0 + max(scores, default=0.0)
    ranked: list[tuple[tuple[object, ...], QueueItem]] = []
    for e, impact in zip(entries, scores, strict=True):
        mine = grades.get((e.query_id, e.doc_id))
        if mine:
            tier = unsure_tier(mine, threshold)
            key: tuple[object, ...] = (-tier, -impact, *_depth_key(e))
            priority = tier + impact / scale
        else:
            key = (0, 0.0, *_depth_key(e))
            priority = 0.5 / e.best_rank if e.best_rank else 0.0
        item = QueueItem(
            query_id=e.query_id, doc_id=e.doc_id, priority=priority, best_rank=e.best_rank, source=e.source
        )
        ranked.append((key, item))
    ranked.sort(key=lambda x: x[0])
    return [item for _, item in ranked]


def contradicted(store: Store, labels: Sequence[LabelRow]) -> int:
    """Human-labeled pairs on which some machine assessor's latest parsed grade differs from the
    resolved human label (not queued: see the module's docstring)."""
    human = {(q, d): g for q, d, g in labels}
    return sum(
        1
        for pair, says in machine_says(store).items()
        if pair in human and any(s.grade is not None and s.grade != human[pair] for s in says)
    )


def fallback_note(store: Store, items: Sequence[QueueItem]) -> str | None:
    """What `qrelkit queue --order disagreement` says on stderr: that it is the impact order when
    no queued pair has a machine grade, and how many labeled pairs a machine contradicts."""
    said = []
    grades = machine_grades(store)
    if items and not any((i.query_id, i.doc_id) in grades for i in items):
        said.append(
            "no machine grade on any queued pair: the disagreement order is the impact order "
            "(label pairs with `qrelkit assess`)"
        )
    n = contradicted(store, store.reads.label_rows())
    if n:
        said.append(
            f"{n} human-labeled pairs where a machine's grade differs are not queued "
            "(`qrelkit assign --recheck` gives them to one more person, blind)"
        )
    return "\n".join(said) or None
