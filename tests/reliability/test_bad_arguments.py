"""Malformed arguments and folders, through the command line (issue 30's third review): a value an
option cannot take, an output path inside a frozen version, a store path that is no file, a
version folder with a data rule broken. As for malformed files (`test_bad_input.py`): never a
traceback, exit 2 with one line naming the value, option or file (and line), and the store, and
any folder written to, left exactly as they were."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from forged import FOUND, forged

from .common import DEMO, ROOT, RUN, fingerprint, invoke, log, one_line_error
from .common import demo_store as make_demo_store

RUN2 = DEMO / "runs" / "bm25-title.run"
RUNS = [str(RUN), str(RUN2)]
QRELS = str(DEMO / "1.0" / "qrels.txt")
VERSION = "{version}"
"""In an argument: a copy of the demo version (a frozen version folder, nothing qrelkit may write into)."""

ARGUMENTS = [
    ("reports show: an id past SQLite's integers", ["reports", "show", "9223372036854775808"], "no saved report"),
    ("queue: --seed -1", ["queue", "--order", "random", "--seed", "-1"], "'--seed': -1"),
    ("compare: --seed 2^32", ["compare", *RUNS, "--seed", "4294967296"], "'--seed': 4294967296"),
    ("judge: --seed -1", ["judge", "--seed", "-1"], "'--seed': -1"),
    ("compare: --resamples 100000000", ["compare", *RUNS, "--resamples", "100000000"], "--resamples 100,000,000"),
    ("sensitivity: --resamples 100000000", ["sensitivity", *RUNS, "--resamples", "100000000"], "would take about"),
    ("score: P(rel=4)@5 on a 0..3 scale", ["score", str(RUN), "--metrics", "P(rel=4)@5"], "P(rel=4)@5: rel=4"),
    ("queue: P(rel=4)@5 on a 0..3 scale", ["queue", "--metrics", "P(rel=4)@5"], "grades 0..3"),
    ("score: gains= with nan", ["score", str(RUN), "--metrics", "nDCG(gains={0:0,1:nan})@10"], "the gain nan"),
    ("score: gains= with inf", ["score", str(RUN), "--metrics", "DCG(gains={0:0,1:inf})@10"], "the gain inf"),
    (
        "compare: a gate with a negative gain",
        ["compare", *RUNS, "--fail-if-worse", "nDCG(gains={0:0,1:-1})@10"],
        "the gain -1",
    ),
    (
        "profiles set: gains= with 1e999",
        ["profiles", "set", "p", "--metrics", "nDCG(gains={0:0,1:1e999})@10"],
        "nDCG(gains={0:0,1:1e999})@10",
    ),
    ("score: --metrics ''", ["score", str(RUN), "--metrics", ""], "--metrics names no measure"),
    ("compare: --metrics ' , '", ["compare", *RUNS, "--metrics", " , "], "--metrics names no measure"),
    ("status: -k without run files", ["status", "-k", "5"], "given without run files"),
    ("strata set: weight inf", ["strata", "set", "conceptual", "inf"], "weight inf"),
    ("strata set: weight nan", ["strata", "set", "conceptual", "nan"], "weight nan"),
    ("strata set: weight -1", ["strata", "set", "conceptual", "--", "-1"], "weight -1"),
    ("import qrels: --assessor 'a b'", ["import", "qrels", "--assessor", "a b", QRELS], "'a b'"),
    ("assign: an assessor with a NUL", ["assign", "--overlap", "2", "--assessors", "a\x00,b"], "--assessors"),
    ("serve token add: 'b ad'", ["serve", "token", "add", "b ad"], "'b ad' is not an assessor name"),
    ("serve: --max-sessions 0", ["serve", "--max-sessions", "0"], "--max-sessions"),
    ("export qrels: --out into a frozen version", ["export", "qrels", "--out", f"{VERSION}/qrels.txt"], "frozen"),
    ("export judgments: --out into a frozen version", ["export", "judgments", "--out", f"{VERSION}/j.jsonl"], "frozen"),
    ("score: --out into a frozen version", ["score", str(RUN), "--out", f"{VERSION}/sub/../x.json"], "frozen"),
    ("freeze: --out a frozen version", ["freeze", "h", "1", "--out", VERSION], "inside the frozen version"),
    ("schemas write: --dir in a frozen version", ["schemas", "write", "--dir", f"{VERSION}/schemas"], "frozen"),
]
"""(name, arguments, what the one line says): the values of the third review that an option, or an
argument that is no file, cannot take."""


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_store(tmp_path_factory.mktemp("store") / "demo.db")


@pytest.fixture(scope="module")
def version(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sets") / "1.0"
    shutil.copytree(DEMO / "1.0", folder)
    return folder


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (temporary ones too) and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("name", "args", "says"), ARGUMENTS, ids=[c[0] for c in ARGUMENTS])
def test_a_bad_argument_is_one_line_exit_2_and_changes_nothing(
    demo_store: Path, version: Path, name: str, args: list[str], says: str
) -> None:
    args = [a.replace(VERSION, str(version)) for a in args]
    before, files = fingerprint(demo_store), _tree(version)
    code, output = invoke(demo_store, args)
    assert code == 2, output
    assert says in one_line_error(output), output
    assert fingerprint(demo_store) == before
    assert _tree(version) == files  # nothing written there, not even half a file


def _qrelkit(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A whole `qrelkit` process (a store that blocks must not hang the test run: 60 s at most)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "qrelkit", "--db", str(db), *args],
        input="", capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip


STORE_PATHS = [
    ("a FIFO: status", ["status"]),
    ("a FIFO: init", ["init"]),
    ("a FIFO: import qrels", ["import", "qrels", QRELS]),
    ("a FIFO: export qrels", ["export", "qrels"]),
]


@pytest.mark.parametrize(("name", "args"), STORE_PATHS, ids=[c[0] for c in STORE_PATHS])
def test_a_fifo_as_the_store_is_one_line_at_once(tmp_path: Path, name: str, args: list[str]) -> None:
    """`--db` naming a named pipe hung every command (the header read waited for a writer)."""
    fifo = tmp_path / "store.db"
    os.mkfifo(fifo)
    done = _qrelkit(fifo, *args)
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    assert f"{fifo} is not a regular file" in one_line_error(done.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"]  # no journal, no WAL beside it


@pytest.mark.parametrize("args", [["status"], ["init"], ["import", "qrels", QRELS]])
def test_a_device_as_the_store_is_one_line_and_nothing_is_created_beside_it(args: list[str]) -> None:
    """`--db /dev/null` made SQLite write `/dev/null-journal`."""
    beside = [Path(f"/dev/null{suffix}") for suffix in ("-journal", "-wal", "-shm")]
    existed = [p.exists() for p in beside]
    code, output = invoke(Path("/dev/null"), args)
    assert code == 2 and "/dev/null is not a regular file" in one_line_error(output)
    assert [p.exists() for p in beside] == existed


def _manifest_weight(folder: Path, weight: str) -> None:
    """The manifest's first stratum weight written as `weight` (JSON text: `Infinity`, `-1`)."""
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())
    data["strata"][0]["weight"] = "WEIGHT"
    manifest.write_text(json.dumps(data, indent=2).replace('"WEIGHT"', weight))


FOLDERS = [
    *((f"forged version: {change}", change, FOUND[change]) for change in sorted(FOUND)),
    ("manifest: a stratum weight Infinity", "Infinity", "weight must be a finite number"),
    ("manifest: a stratum weight -1", "-1", "greater than or equal to 0"),
    ("manifest: a stratum weight 1e400", "1e400", "weight must be a finite number"),
]
"""Version folders of the third review: every hash and count recomputed around a broken data rule
(`forged`); a manifest's stratum weight that is not finite and >= 0."""


@pytest.mark.parametrize(("name", "change", "says"), FOLDERS, ids=[c[0] for c in FOLDERS])
@pytest.mark.parametrize("command", ["import version", "score --golden"])
def test_a_bad_version_folder_is_one_line_exit_2_and_changes_nothing(
    demo_store: Path, tmp_path: Path, command: str, name: str, change: str, says: str
) -> None:
    if name.startswith("forged"):
        folder = forged(tmp_path / "sets", change)
    else:
        folder = tmp_path / "1.0"
        shutil.copytree(DEMO / "1.0", folder)
        _manifest_weight(folder, change)
    before, files = fingerprint(demo_store), _tree(folder)
    args = ["import", "version", str(folder)]
    if command == "score --golden":
        args = ["score", str(RUN), "--golden", str(folder)]
    code, output = invoke(demo_store, args)
    assert code == 2, output
    message = one_line_error(output)
    assert str(folder) in message and says in message, message
    assert fingerprint(demo_store) == before and _tree(folder) == files


def test_a_version_sharing_a_data_file_by_a_hard_link_is_refused(demo_store: Path, tmp_path: Path) -> None:
    """Two versions sharing a file by a hard link: every hash matches, but editing one edits the other."""
    first, second = tmp_path / "a" / "1.0", tmp_path / "b" / "1.0"
    shutil.copytree(DEMO / "1.0", first)
    shutil.copytree(DEMO / "1.0", second)
    (second / "qrels.txt").unlink()
    os.link(first / "qrels.txt", second / "qrels.txt")
    before = fingerprint(demo_store)
    code, output = invoke(demo_store, ["import", "version", str(second)])
    assert code == 2 and "qrels.txt" in one_line_error(output), output
    assert fingerprint(demo_store) == before


@pytest.fixture(scope="module", autouse=True)
def _record_the_figures() -> Iterator[None]:
    yield
    log(
        f"bad arguments: {len(ARGUMENTS)} arguments, {len(STORE_PATHS) + 3} store paths, "
        f"{2 * len(FOLDERS) + 1} version folders"
    )
