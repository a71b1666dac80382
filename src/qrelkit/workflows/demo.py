"""The demo: the bundled `pydocs` golden set loaded into a store, its two runs scored and compared."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import versioning
from ..errors import UsageError
from ..models import Comparison, PlainScoreReport, StoreStatus, to_model
from ..storage import Store
from .pooling import read_run_lists
from .scoring import score_run
from .sources import ScoringSource, plan
from .versions import load_version


def bundled_golden(name: str = "pydocs") -> Path:
    """The newest frozen version of a golden set shipped with qrelkit (inside the wheel, or in
    the source checkout); its runs are in the `runs/` folder beside it."""
    here = Path(__file__).resolve().parents[1]
    for candidate in (here / "_bundled" / name, here.parents[1] / "goldensets" / name):
        latest = versioning.latest_version(candidate)
        if latest is not None:
            return candidate / latest.version
    raise UsageError(f"the bundled golden set {name!r} is missing from this installation", "reinstall qrelkit")


@dataclass(frozen=True)
class Demo:
    folder: Path
    status: StoreStatus
    reports: list[PlainScoreReport]
    comparison: Comparison | None


def run_demo(path: Path, *, keep: bool = False) -> Demo:
    """Load the bundled golden set into a new store at `path`, score its runs (bm25 first, the
    baseline) and compare the two. With `keep`, the comparison is saved and the runs pooled (for
    `judge`)."""
    if path.exists():
        raise UsageError(f"{path} already exists", "choose a new path for --keep")
    with Store.open(path) as store:
        return _demo(store, keep=keep)


def _demo(store: Store, *, keep: bool) -> Demo:
    from ..scoring import paired

    folder = bundled_golden()
    manifest = load_version(store, folder)
    source = ScoringSource.from_store(store, version=manifest.version)  # verified, and equal, by load_version
    chosen = plan(source)
    runs = sorted((folder.parent / "runs").glob("*.run"), key=lambda p: p.stem)
    reports = [score_run(source, run, chosen, per_query=True) for run in runs]
    comparison = paired.compare(to_model(reports[0]), to_model(reports[1])) if len(reports) == 2 else None
    if keep and comparison is not None:  # the dashboard shows the comparison, the impact queue needs the runs
        store.reports.save(comparison, f"{runs[0].name} vs {runs[1].name}")
        store.pool.add_runs(read_run_lists(runs, 10), depth=10, paths=[str(p) for p in runs])
    return Demo(folder=folder, status=store.reads.status(), reports=reports, comparison=comparison)
