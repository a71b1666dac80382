"""Setting a golden set up: the store, its grade scale and label policy, strata, scoring profiles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..models import GoldenSetInfo, GradeScale, LabelPolicy, ScoringProfile, StoreStatus, Stratum
from ..storage import Store
from .sources import canonical


def init(store: Store, *, name: str, max_grade: int, threshold: int, label_policy: LabelPolicy) -> None:
    """Name the golden set and set its grade scale 0..max_grade (relevant at >= threshold) and policy."""
    if threshold > max_grade:
        raise UsageError(
            f"--threshold {threshold} is above --max-grade {max_grade}", "the threshold is a grade of the scale"
        )
    check_set_name(name)
    store.configure(name=name, scale=GradeScale.from_max(max_grade, threshold), label_policy=label_policy)


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
    store.set_stratum(stratum)
    return stratum


def traffic_shares(status: StoreStatus) -> dict[str, float | None]:
    """Stratum -> its share of the traffic (its weight over the weights of the strata that hold
    queries); None for a stratum with no queries or no weight."""
    total = sum(s.weight or 0 for s in status.strata if s.queries)
    return {s.name: (s.weight or 0) / total if total and s.queries else None for s in status.strata}


def set_profile(store: Store, name: str, metrics: str, strata: Sequence[str] | None = None) -> ScoringProfile:
    """Create or replace a scoring profile: its measures (canonical names) over some strata (None: all)."""
    measures = canonical(metrics)
    chosen = [s.strip() for s in strata if s.strip()] if strata else None
    known = {s.name for s in store.strata()}
    unknown = sorted(set(chosen or []) - known)
    if unknown:
        raise UsageError(f"unknown strata: {', '.join(unknown)}", f"known strata: {', '.join(sorted(known))}")
    try:
        profile = ScoringProfile(name=name, metrics=measures, strata=chosen)
    except ValueError:
        raise UsageError(f"invalid profile name {name!r}", "names have no spaces") from None
    store.set_profile(profile)
    return profile


def open_store(path: Path, *, create: bool = False) -> Store:
    """The store at `path`; it must exist unless `create` (then an empty one is made)."""
    if not create and not path.exists():
        raise UsageError(f"no store at {path}", "create one with `qrelkit init`, or pass --db PATH")
    return Store.open(path)


def policy(store: Store, set_to: LabelPolicy | None = None) -> LabelPolicy:
    """The label policy (set first, when `set_to` is given)."""
    if set_to is not None:
        store.configure(label_policy=set_to)
    return store.label_policy


@dataclass(frozen=True)
class Overview:
    """The store's counts per stratum, its grade scale and each stratum's share of the traffic."""

    status: StoreStatus
    scale: GradeScale
    shares: dict[str, float | None]


def overview(store: Store) -> Overview:
    st = store.status()
    return Overview(status=st, scale=store.scale, shares=traffic_shares(st))


def profiles(store: Store) -> list[ScoringProfile]:
    return store.profiles()


def check_stratum(store: Store, name: str | None) -> None:
    """Refuse a stratum that neither has a weight nor holds a query (None passes)."""
    store.check_stratum(name)
