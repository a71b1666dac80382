"""The cases of the adversarial review (issue 15) that no other test file names: each one line,
exit 2 (or 130 when interrupted), and nothing written or changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, Cli
from qrelkit.models import Query
from qrelkit.storage import Store

DEMO = ROOT / "goldensets" / "pydocs"


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in text, text
    return lines[0]


@pytest.mark.parametrize(("name", "version"), [("..", "1.0"), ("g", ".."), ("g", "."), ("a/b", "1"), ("g", "../1")])
def test_freeze_never_writes_outside_out(run_cli: Cli, name: str, version: str) -> None:
    run_cli("init")
    out = run_cli.tmp / "sets" / "inner"
    out.mkdir(parents=True)
    before = sorted(p.relative_to(run_cli.tmp) for p in run_cli.tmp.rglob("*") if "store.db" not in p.name)
    refused = run_cli("freeze", name, version, "--out", str(out), ok=False)
    assert refused.exit_code == 2 and "invalid name or version" in _one_line(refused.output)
    assert sorted(p.relative_to(run_cli.tmp) for p in run_cli.tmp.rglob("*") if "store.db" not in p.name) == before


def test_a_golden_set_name_with_a_space_is_refused_by_init(run_cli: Cli) -> None:
    run_cli("init", "--name", "pydocs")
    refused = run_cli("init", "--name", "my golden set", ok=False)
    assert refused.exit_code == 2 and "invalid golden-set name" in _one_line(refused.output)
    assert "golden set pydocs" in run_cli("init").output  # unchanged, and every command still works
    run_cli("status")


@pytest.mark.parametrize(
    "args",
    [
        ["score"],  # a missing argument
        ["score", "x.run", "--metrics"],  # an option without its value
        ["status", "--no-such-option"],
        ["nosuch"],
        ["init", "--max-grade", "many"],
    ],
)
def test_click_usage_errors_are_one_line_with_a_hint(run_cli: Cli, args: list[str]) -> None:
    refused = run_cli(*args, ok=False)
    assert refused.exit_code == 2
    assert "(hint: " in _one_line(refused.output)


def test_diffs_hint_offers_no_option_diff_lacks(run_cli: Cli, tmp_path: Path) -> None:
    import shutil

    altered = tmp_path / "1.0"
    shutil.copytree(DEMO / "1.0", altered)
    qrels = altered / "qrels.txt"
    qrels.write_text(qrels.read_text().replace(" 3\n", " 2\n", 1))
    refused = run_cli("diff", str(DEMO / "1.0"), str(altered), ok=False)
    line = _one_line(refused.output)
    assert refused.exit_code == 2 and "qrels.txt" in line
    options = run_cli("diff", "--help").output
    assert "--no-verify" not in line or "--no-verify" in options


def test_ctrl_c_during_export_judgments_says_interrupted_and_exits_130(tmp_path: Path) -> None:
    """A real process, interrupted while it writes: "interrupted", 130, and no temporary file left."""
    db = tmp_path / "s.db"
    store = Store.open(db)
    store.import_queries([(1, Query(id="q1", text="x", stratum="s"))], source="t", create_strata=True)
    store.close()
    script = (
        "import sys\n"
        "from qrelkit.formats import jsonl\n"
        "def slow(*a, **k):\n"
        "    raise KeyboardInterrupt\n"
        "jsonl.write_models = slow\n"
        "from qrelkit.cli import main\n"
        "sys.argv = ['qrelkit', '--db', sys.argv[1], 'export', 'judgments', '--out', sys.argv[2]]\n"
        "main()\n"
    )
    out = tmp_path / "events.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", script, str(db), str(out)], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 130, done
    assert done.stderr.strip() == "interrupted" and "Traceback" not in done.stderr
    assert {p.name for p in tmp_path.iterdir()} <= {"s.db", "s.db-shm", "s.db-wal"}  # no output, no temp file


WRITER = r"""
import sys
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
store = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.record(Judgment(query_id=f"q{i % 5}", doc_id=f"d{i % 97}", state=JudgmentState.GRADED, grade=i % 4,
                          assessor=f"a{i % 3}"))
"""


def test_versions_frozen_while_someone_judges_import_cleanly(run_cli: Cli) -> None:
    """The snapshot is read in one transaction: versions frozen while another process writes
    judgments verify and import into a fresh store (3 of 15 did not when it was read piecewise)."""
    store = Store.open(run_cli.db)
    store.import_queries(
        [(i, Query(id=f"q{i}", text="x", stratum="s")) for i in range(5)], source="t", create_strata=True
    )
    store.close()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(run_cli.db), "3000"], env={**os.environ, "PYTHONPATH": str(ROOT / "src")}
    )
    sets = run_cli.tmp / "sets"
    try:
        frozen = [f"v{i}" for i in range(8)]
        for v in frozen:
            run_cli("freeze", "g", v, "--out", str(sets))
    finally:
        writer.wait(timeout=120)
    for i, v in enumerate(frozen):
        fresh = Cli(run_cli.tmp / f"fresh{i}")
        (run_cli.tmp / f"fresh{i}").mkdir()
        fresh("verify", str(sets / "g" / v))
        fresh("import", "version", str(sets / "g" / v))
