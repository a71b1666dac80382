from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from qrelkit.cli import cli
from qrelkit.storage import Store

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"


def one_report(text: str) -> dict[str, Any]:
    """The one report of `score --format json` output (always `{"reports": [...]}`)."""
    data = json.loads(text)
    assert list(data) == ["reports"] and len(data["reports"]) == 1, list(data)
    report: dict[str, Any] = data["reports"][0]
    return report


@pytest.fixture
def store() -> Iterator[Store]:
    s = Store.memory()
    yield s
    s.close()


class Cli:
    """Runs `qrelkit` in-process against a store in a temporary folder."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.db = tmp / "store.db"
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True) -> Result:
        result = self.runner.invoke(cli, ["--db", str(self.db), *args], catch_exceptions=False)
        if ok and result.exit_code != 0:
            raise AssertionError(f"qrelkit {' '.join(args)} -> {result.exit_code}\n{result.output}")
        return result

    def write(self, name: str, text: str) -> Path:
        path = self.tmp / name
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture
def run_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)
