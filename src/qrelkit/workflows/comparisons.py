"""The comparisons a `settle` queue, the judging screen and `qrelkit settled` settle: run pairs
named by `--for A.run,B.run` (repeatable) or by a leaderboard saved with `qrelkit compare A B C
--format json --out board.json` (`--leaderboard board.json`), and the measures (`--metric`,
repeatable; a leaderboard's own by default).

A leaderboard names its runs in ranking order (its headline mean, best first; ties in the saved
order) and the comparisons are the adjacent pairs of that ranking, each the run ranked below as A
and the one above it as B ("settled B>A" is the ranking's order holding). Adjacent pairs are enough
for the ranking's order of means: if B>A and C>B hold under every labeling, C>A does too. A pair's
labelings are those of the documents its two runs retrieve, a document only other runs retrieve
staying unlabeled (as in `score`'s bounds): for P, Success and RR, whose values read only the run's
own documents, the chain is exact; for nDCG, AP, R and Rprec such a document would also move the
shared normaliser (the ideal DCG, R), which the pair's range holds at its unlabeled value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, UsageError
from ..formats.paths import display

if TYPE_CHECKING:
    from ..formats.trec import RunFormat
    from ..models import Leaderboard, LeaderboardRow
    from ..scoring.arrays import RunLists

LEADERBOARD_FIX = "save it again: qrelkit compare A.run B.run C.run --format json --out FILE"
"""The fix a refused saved leaderboard names."""


@dataclass(frozen=True)
class Comparisons:
    """The run pairs a `settle` queue settles (A the baseline, B the candidate), and its measures
    (none: the headline). `names`: the runs' names, a pair each (a leaderboard's); none: as
    `compare` names the files. `left_out`: a leaderboard's measures the stopping rule does not
    cover (not settled)."""

    pairs: Sequence[tuple[Path, Path]] = ()
    metrics: Sequence[str] = ()
    """The measures (a `str` is taken as one)."""
    run_format: RunFormat = "auto"
    names: Sequence[tuple[str, str]] = ()
    left_out: Sequence[str] = ()

    def __post_init__(self) -> None:
        if isinstance(self.metrics, str):
            object.__setattr__(self, "metrics", (self.metrics,))

    @classmethod
    def parse(
        cls,
        given: Sequence[str],
        metrics: Sequence[str] | str | None = (),
        run_format: RunFormat = "auto",
        leaderboard: Path | None = None,
    ) -> Comparisons | None:
        """Each `--for A.run,B.run` as a pair of paths, or the adjacent pairs of a saved
        leaderboard (`from_leaderboard`); None when neither is given. Refused here, before
        anything starts, when a run is no file or a metric no measure: the queue reads the runs
        later, in `judge` in a worker whose error no one would see."""
        from ..scoring.names import parse_measures

        wanted = (metrics,) if isinstance(metrics, str) else tuple(metrics or ())
        if leaderboard is not None:
            if given:
                raise UsageError("--for and --leaderboard both name the comparisons", "give one of them")
            return from_leaderboard(leaderboard, wanted, run_format)
        pairs = [_pair(text) for text in given]
        if pairs and wanted:
            parse_measures(list(wanted))
        return cls(pairs, wanted, run_format) if pairs else None

    def read(self) -> tuple[list[RunLists], list[tuple[str, str]]]:
        """The runs, each read whole as `score` reads it, and the pairs by the runs' names."""
        from ..scoring.arrays import RunLists
        from .scoring import display_names

        paths = list(dict.fromkeys(p for pair in self.pairs for p in pair))
        by_path = dict(zip(paths, display_names(paths), strict=True))
        pairs = list(self.names) or [(by_path[a], by_path[b]) for a, b in self.pairs]
        named = {n: p for pair, names in zip(self.pairs, pairs, strict=True) for n, p in _named(pair, names)}
        ranked = {p: read_ranked(p, self.run_format) for p in dict.fromkeys(named.values())}
        return [RunLists(n, ranked[p]) for n, p in named.items()], pairs


def _named(pair: tuple[Path, Path], names: tuple[str, str]) -> list[tuple[str, Path]]:
    return [(names[0], pair[0]), (names[1], pair[1])]


def _pair(text: str) -> tuple[Path, Path]:
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise UsageError(f"--for {text!r} names {len(parts)} runs", "give two runs: --for A.run,B.run")
    pair = (Path(parts[0].strip()), Path(parts[1].strip()))
    for path in pair:
        if not path.is_file():
            raise InputError("no such file", "check the path; --for takes run files", path=display(path))
    return pair


def read_ranked(path: Path, run_format: RunFormat = "auto") -> dict[str, list[str]]:
    """A run's documents per query, whole, in trec_eval order (as `score` ranks them)."""
    from ..formats.runs import read_run_file
    from ..scoring.arrays import top_columns

    run = read_run_file(path, run_format)
    return top_columns(run.columns, len(run.columns.query))


def file_sha256(path: Path) -> str:
    """`sha256:<hex>` of a run file's bytes as the run readers hash them (decompressed for `.gz`)."""
    from ..formats.hashing import HashedPath
    from ..formats.reading import read_blocks

    hashed = HashedPath(path)
    for _ in read_blocks(hashed):
        pass
    return hashed.sha256()


def ranking(board: Leaderboard) -> list[LeaderboardRow]:
    """The leaderboard's rows by its headline mean, best first (ties, and a run without a mean
    last, in the saved order)."""

    def key(row: LeaderboardRow) -> tuple[bool, float]:
        cell = row.cells.get(board.headline)
        mean = cell.mean if cell is not None else None
        return (mean is None or mean != mean, -(mean or 0.0))

    return sorted(board.rows, key=key)


def from_leaderboard(path: Path, metrics: Sequence[str], run_format: RunFormat = "auto") -> Comparisons:
    """The adjacent pairs of a saved leaderboard's ranking (see the module docstring), and its
    measures the stopping rule covers unless `metrics` are given. Refused in one line naming the
    file when it holds no run file paths, or a run file is gone or changed since (its sha256)."""
    from ..formats.reports import read_json_model
    from ..models import Leaderboard
    from ..scoring.names import parse_measures

    where = display(path)
    board = read_json_model(path, Leaderboard, f"give a leaderboard: {LEADERBOARD_FIX}")
    rows = ranking(board)
    if len(rows) < 2:
        raise InputError(f"the leaderboard holds {len(rows)} run: a ranking needs two", LEADERBOARD_FIX, path=where)
    runs = [_run_path(row, where) for row in rows]
    if metrics:
        parse_measures(list(metrics))
        chosen, left_out = list(metrics), list[str]()
    else:
        chosen, left_out = covered(board.metrics)
        if not chosen:
            raise UsageError(
                f"{where}: the stopping rule covers none of the leaderboard's measures ({', '.join(board.metrics)})",
                "name one with --metric",
            )
    pairs = [(runs[i + 1], runs[i]) for i in range(len(rows) - 1)]
    names = [(rows[i + 1].run, rows[i].run) for i in range(len(rows) - 1)]
    return Comparisons(pairs, tuple(chosen), run_format, names, tuple(left_out))


def _run_path(row: LeaderboardRow, where: str) -> Path:
    """The row's run file, checked: recorded, still there, and unchanged."""
    if row.path is None:
        raise InputError(
            f"run {row.run!r} has no run file path (a saved report, standard input, or an older qrelkit)",
            LEADERBOARD_FIX,
            path=where,
        )
    run = Path(row.path)
    if not run.is_file():
        raise InputError(f"run {row.run!r}: {display(run)} no longer exists", LEADERBOARD_FIX, path=where)
    if file_sha256(run) != row.fingerprint.run.sha256:
        raise InputError(
            f"run {row.run!r}: {display(run)} changed since the leaderboard was saved (its sha256 differs)",
            LEADERBOARD_FIX,
            path=where,
        )
    return run


def covered(metrics: Sequence[str]) -> tuple[list[str], list[str]]:
    """The measures whose family the stopping rule covers, and the others (`settle.SUPPORTED`)."""
    from ..scoring.names import parse_measure
    from ..scoring.settle import SUPPORTED

    kept: list[str] = []
    left: list[str] = []
    for name in metrics:
        m = parse_measure(name)
        (kept if m.family in SUPPORTED and not m.judged_only else left).append(name)
    return kept, left
