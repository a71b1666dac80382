"""Saved score reports and manifests read back: one report or an array of them, errors naming the file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import ROOT, Cli, one_report
from qrelkit import versioning
from qrelkit.errors import InputError
from qrelkit.formats.reports import read_json_model, read_reports
from qrelkit.models import Manifest

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUNS = PYDOCS.parent / "runs"


def _scored(run_cli: Cli, *runs: str) -> Path:
    target = run_cli.tmp / "scores.json"
    run_cli("score", *(str(RUNS / r) for r in runs), "--golden", str(PYDOCS), "--format", "json", "--out", str(target))
    return target


def test_one_report_or_an_array_of_them(run_cli: Cli) -> None:
    one = _scored(run_cli, "bm25.run")
    assert [r.fingerprint.run.name for r in read_reports(one)] == ["bm25.run"]
    several = _scored(run_cli, "bm25.run", "bm25-title.run")  # one {"reports": [...]} object for several runs
    assert [r.fingerprint.run.name for r in read_reports(several)] == ["bm25.run", "bm25-title.run"]
    gz = run_cli.tmp / "scores.json.gz"
    gz.write_bytes(gzip.compress(several.read_bytes()))
    assert read_reports(gz) == read_reports(several)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('{\n  "fingerprint": \n}', "not valid JSON (Expecting value)", 3),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply", None),
        ('{"fingerprint": 1}', "field 'fingerprint'", None),
        ("[]", "no reports in the file", None),
        ("3", "Input should be a valid dictionary", None),
    ],
)
def test_a_bad_report_is_an_input_error_naming_the_file(
    tmp_path: Path, text: str, message: str, line: int | None
) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        read_reports(path)
    assert message in exc.value.message and exc.value.line == line
    assert exc.value.message.startswith(f"{path}:") and exc.value.hint == "give a report from `score --format json`"


def test_a_bad_report_in_an_array_is_named_by_its_place(run_cli: Cli) -> None:
    good = one_report(_scored(run_cli, "bm25.run").read_text())
    path = run_cli.write("r.json", json.dumps([good, {**good, "queries": 1}]))
    with pytest.raises(InputError, match=r"r.json: report 2: field 'queries'"):
        read_reports(path)


def test_manifests_read_through_the_same_mapping(tmp_path: Path) -> None:
    assert read_json_model(PYDOCS / "manifest.json", Manifest) == versioning.read_manifest(PYDOCS)
    folder = tmp_path / "v"
    folder.mkdir()
    (folder / "manifest.json").write_text("[" * 100_000)  # was a RecursionError, not a message
    with pytest.raises(InputError, match="manifest.json: JSON nested too deeply"):
        versioning.read_manifest(folder)
    (folder / "manifest.json").write_text('{"name": "x"}')
    with pytest.raises(InputError, match=r"manifest.json: field '\w+': Field required"):
        versioning.read_manifest(folder)
