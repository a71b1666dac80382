"""Which labels a score, an export or a freeze uses (`--labels human|machine|human+machine`,
`--machine-assessor`): the humans' (the default: every command as before), one machine
assessor's, or the humans' with the machine's filling the holes (`resolution.fill_holes`). Every
edge chooses through `choose` and reads through `label_rows`: one rule."""

from __future__ import annotations

from dataclasses import dataclass

from .. import resolution
from ..errors import UsageError
from ..models.machine import LabelSet, MachineLabel, check_label_set
from ..storage import Store


@dataclass(frozen=True)
class LabelChoice:
    """A label set, and the machine assessor whose labels it takes (None for `human`)."""

    labels: LabelSet = "human"
    machine_assessor: str | None = None

    @property
    def human(self) -> bool:
        return self.labels == "human"

    def describe(self) -> str:
        """`human`, `machine (lexical)`, `human+machine (lexical)`."""
        return self.labels if self.human else f"{self.labels} ({self.machine_assessor})"


HUMAN = LabelChoice()


def choose(store: Store, labels: str = "human", machine_assessor: str | None = None) -> LabelChoice:
    """`--labels` and `--machine-assessor` as a `LabelChoice`: with machine labels and no assessor
    named, the store's one machine assessor; none, several, or one the store lacks is refused."""
    kind = check_label_set(labels, machine_assessor)
    if kind == "human":
        return HUMAN
    known = store.machine.assessors()
    if machine_assessor is None:
        if not known:
            raise UsageError(
                f"--labels {kind}: the store holds no machine labels",
                "label pairs first: qrelkit assess --judge lexical",
            )
        if len(known) > 1:
            raise UsageError(
                f"--labels {kind}: several machine assessors hold labels ({', '.join(known)})",
                "choose one with --machine-assessor NAME",
            )
        machine_assessor = known[0]
    elif machine_assessor not in known:
        raise UsageError(
            f"--machine-assessor {machine_assessor!r:.60}: no labels of it in the store",
            f"machine assessors here: {', '.join(known) or 'none'}",
        )
    return LabelChoice(kind, machine_assessor)


def label_rows(store: Store, choice: LabelChoice) -> list[tuple[str, str, int]]:
    """The chosen labels as (query, doc, grade), sorted by (query, doc); call it inside a read
    transaction when other reads must see the same store."""
    if choice.human or choice.machine_assessor is None:
        return store.reads.label_rows()
    machine = store.machine.grades(choice.machine_assessor)
    if choice.labels == "machine":
        return machine
    return resolution.fill_holes(store.reads.label_rows(), store.reads.skipped(), machine)


def machine_pairs(store: Store, choice: LabelChoice) -> set[tuple[str, str]]:
    """The pairs whose chosen label is a machine's (empty for human labels)."""
    if choice.human or choice.machine_assessor is None:
        return set()
    machine = {(q, d) for q, d, _ in store.machine.grades(choice.machine_assessor)}
    if choice.labels == "machine":
        return machine
    held = {(q, d) for q, d, _ in store.reads.label_rows()} | set(store.reads.skipped())
    return machine - held


def machine_rows(store: Store, choice: LabelChoice) -> list[MachineLabel]:
    """The machine labels the chosen labels use, with their provenance: the machine assessor's
    latest row of each pair it fills (`machine_pairs`), by (query, doc); none for human labels."""
    filled = machine_pairs(store, choice)
    if not filled or choice.machine_assessor is None:
        return []
    return [x for x in store.machine.latest_rows(choice.machine_assessor) if (x.query_id, x.doc_id) in filled]
