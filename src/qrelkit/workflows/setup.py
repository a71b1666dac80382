"""Setting a golden set up: the store, its grade scale and label policy, strata, scoring profiles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..models import (
    DEFINITION_MAX,
    LEVEL_NAME_MAX,
    GoldenSetInfo,
    GradeLevel,
    GradeScale,
    LabelPolicy,
    ScoringProfile,
    StoreStatus,
    Stratum,
    weight_shares,
)
from ..scoring.measures import refuse_above_scale
from ..scoring.names import parse_measures
from ..storage import Store
from .sources import canonical


@dataclass(frozen=True)
class Initialized:
    """What `init` did: whether the store was new, what changed, and the settings now."""

    new: bool
    changed: list[str]
    name: str
    scale: GradeScale
    label_policy: LabelPolicy


def init(
    store: Store,
    *,
    name: str | None = None,
    max_grade: int | None = None,
    threshold: int | None = None,
    label_policy: LabelPolicy | None = None,
    levels: Sequence[str] = (),
) -> Initialized:
    """Name the golden set, set its grade scale 0..max_grade (relevant at >= threshold), its
    levels' names and definitions (`levels`: "G=NAME" or "G=NAME: DEFINITION", see `parse_level`)
    and its label policy. Only what is given changes; a new store (made just now, or still blank)
    gets every setting written, the defaults (golden, 0..3, relevant at >= 1, median) for those not
    given. A new --max-grade names the levels afresh (`GradeScale.from_max`) but for those
    `levels` names. `changed` lists what changed, as "setting: old -> new"."""
    new = store.created or store.is_blank()
    if new:
        name, max_grade, threshold = name or "golden", max_grade or 3, threshold or 1
        label_policy = label_policy or "median"
    named = [parse_level(text) for text in levels]
    with store.transaction():  # a level that cannot be named leaves the scale as it was
        changed = _configure(store, name=name, max_grade=max_grade, threshold=threshold, label_policy=label_policy)
        changed += _name_levels(store, named)
    now = store.settings
    return Initialized(new, changed, now.name, now.scale, now.label_policy)


def _configure(
    store: Store,
    *,
    name: str | None = None,
    max_grade: int | None = None,
    threshold: int | None = None,
    label_policy: LabelPolicy | None = None,
) -> list[str]:
    """Change the settings given (see `init`); what changed, as "setting: old -> new"."""
    settings = store.settings
    old_scale = settings.scale
    top = max_grade if max_grade is not None else old_scale.max_grade
    at = threshold if threshold is not None else old_scale.relevance_threshold
    if at > top:
        raise UsageError(
            f"--threshold {at} is above --max-grade {top}", "the threshold is a grade of the scale (give both)"
        )
    if name is not None:
        check_set_name(name)
    changed: list[str] = []
    if name is not None and name != settings.name:
        changed.append(f"name: {settings.name} -> {name}")
    if top != old_scale.max_grade:
        changed.append(f"grades: 0..{old_scale.max_grade} -> 0..{top}")
    if at != old_scale.relevance_threshold:
        changed.append(f"relevant at: >= {old_scale.relevance_threshold} -> >= {at}")
    if label_policy is not None and label_policy != settings.label_policy:
        changed.append(f"label policy: {settings.label_policy} -> {label_policy}")
    scale = None
    if top != old_scale.max_grade:
        scale = GradeScale.from_max(top, at)
    elif at != old_scale.relevance_threshold:
        scale = GradeScale(levels=old_scale.levels, top=old_scale.top, relevance_threshold=at)
    settings.configure(name=name, scale=scale, label_policy=label_policy)
    return changed


def parse_level(text: str) -> GradeLevel:
    """An --level value: `G=NAME` names grade G; `G=NAME: DEFINITION` gives its definition too
    (the rubric assessors read on `G`)."""
    grade, sep, rest = text.partition("=")
    name, colon, definition = rest.partition(":")
    hint = "give --level G=NAME or --level 'G=NAME: what earns the grade', e.g. --level '2=relevant: answers it'"
    if not sep or not grade.strip().isdigit():
        raise UsageError(f"--level {text!r} does not start with a grade and '='", hint)
    try:
        return GradeLevel(grade=int(grade), name=name.strip(), definition=definition.strip() if colon else None)
    except ValueError:
        raise UsageError(
            f"--level {text!r}: a name has 1 to {LEVEL_NAME_MAX} characters, a definition up to "
            f"{DEFINITION_MAX}, neither a control character",
            hint,
        ) from None


def set_scale(store: Store, max_grade: int, named: Sequence[GradeLevel]) -> list[str]:
    """The scale 0..max_grade with the levels `named` given their names and definitions, as
    `init --max-grade M --level ...` sets them (one transaction); the relevance threshold stays
    unless it lies above `max_grade` (then it becomes 1). What changed, as `init` says it."""
    at = min(store.settings.scale.relevance_threshold, max_grade)
    with store.transaction():
        changed = _configure(store, max_grade=max_grade, threshold=at)
        changed += _name_levels(store, named)
    return changed


def _name_levels(store: Store, named: Sequence[GradeLevel]) -> list[str]:
    """Give the levels `named` their names and definitions; what changed."""
    if not named:
        return []
    scale = store.settings.scale
    levels = {level.grade: level for level in scale.every_level()}
    changed = []
    for level in named:
        if level.grade not in levels:
            raise UsageError(
                f"--level {level.grade}: the scale's grades are 0..{scale.max_grade}",
                "name a grade of the scale, or widen it with --max-grade",
            )
        old = levels[level.grade]
        if old.name != level.name:
            changed.append(f"level {level.grade}: {old.name} -> {level.name}")
        if old.definition != level.definition:
            changed.append(f"level {level.grade} definition: {old.definition or '-'} -> {level.definition or '-'}")
        levels[level.grade] = level
    store.settings.configure(
        scale=GradeScale(levels=list(levels.values()), relevance_threshold=scale.relevance_threshold)
    )
    return changed


def check_set_name(name: str) -> None:
    """A golden-set name is an id (it names version folders): no white space or control characters."""
    try:
        GoldenSetInfo(name=name)
    except ValueError:
        raise UsageError(
            f"invalid golden-set name {name!r}", "names have no spaces or control characters, e.g. pydocs"
        ) from None


def set_stratum(store: Store, name: str, weight: float) -> Stratum:
    """Set a stratum's traffic weight (weights are renormalised when aggregating)."""
    try:
        stratum = Stratum(name=name, weight=weight)
    except ValueError:
        raise UsageError(
            f"invalid stratum {name!r} with weight {weight}", "names have no spaces; weights are finite and >= 0"
        ) from None
    store.settings.set_stratum(stratum)
    return stratum


def traffic_shares(status: StoreStatus) -> dict[str, float | None]:
    """Stratum -> its share of the traffic (its weight over the weights of the strata that hold
    queries); None for a stratum with no queries or no weight."""
    shares = weight_shares({s.name: s.weight or 0.0 for s in status.strata if s.queries})
    return {s.name: shares.get(s.name) for s in status.strata}


def set_profile(store: Store, name: str, metrics: str, strata: Sequence[str] | None = None) -> ScoringProfile:
    """Create or replace a scoring profile: its measures (canonical names) over some strata (None: all)."""
    measures = canonical(metrics)
    refuse_above_scale(parse_measures(measures), store.settings.scale.max_grade, store.settings.name)
    chosen = [s.strip() for s in strata if s.strip()] if strata else None
    known = {s.name for s in store.settings.strata()}
    unknown = sorted(set(chosen or []) - known)
    if unknown:
        raise UsageError(f"unknown strata: {', '.join(unknown)}", f"known strata: {', '.join(sorted(known))}")
    try:
        profile = ScoringProfile(name=name, metrics=measures, strata=chosen)
    except ValueError:
        raise UsageError(f"invalid profile name {name!r}", "names have no spaces") from None
    store.settings.set_profile(profile)
    return profile


def open_store(path: Path, *, create: bool = False, lock_wait_ms: int | None = None) -> Store:
    """The store at `path`; it must exist unless `create` (then an empty one is made at a missing
    path or an empty file). A file that is not a qrelkit store is refused, unchanged. With
    `lock_wait_ms`, a write waits that long for another process's lock (default 30 s)."""
    store = Store.open(path, create=create)
    if lock_wait_ms is not None:
        store.wait_for_lock(lock_wait_ms)
    return store


def close_store(store: Store) -> None:
    """Close the store; one that was created by this command and is still blank (the command
    failed, e.g. on a mistyped --db) is removed, so no empty store is left behind."""
    discard = store.created and store.is_blank()
    path = store.path if discard else None
    store.close()
    if path:
        for suffix in ("", "-wal", "-shm"):
            Path(path + suffix).unlink(missing_ok=True)


def policy(store: Store, set_to: LabelPolicy | None = None, levels: Sequence[str] = ()) -> LabelPolicy:
    """The label policy (set first, when `set_to` is given), and the levels' names and
    definitions (`levels`, as `init` takes them: the rubric), in one transaction."""
    named = [parse_level(text) for text in levels]
    with store.transaction():
        if set_to is not None:
            store.settings.configure(label_policy=set_to)
        _name_levels(store, named)
    return store.settings.label_policy


@dataclass(frozen=True)
class Overview:
    """The store's counts per stratum, its grade scale and each stratum's share of the traffic."""

    status: StoreStatus
    scale: GradeScale
    shares: dict[str, float | None]


def overview(store: Store) -> Overview:
    st = store.reads.status()
    return Overview(status=st, scale=store.settings.scale, shares=traffic_shares(st))


def profiles(store: Store) -> list[ScoringProfile]:
    return store.settings.profiles()


def check_stratum(store: Store, name: str | None) -> None:
    """Refuse a stratum that neither has a weight nor holds a query (None passes)."""
    store.settings.check_stratum(name)
