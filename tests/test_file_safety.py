"""Nothing a user types loses data, breaks a version or leaves a traceback: version folders read
only their own plain files, JSON refuses duplicate keys and huge integers, `verify` covers the
manifest, outputs get the umask's mode, corrupt gzip is one line, SIGTERM cleans up."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, Cli
from qrelkit import resolution, versioning
from qrelkit.errors import InputError
from qrelkit.formats import jsonl, reading, reports, runs, writing
from qrelkit.models import Judgment, JudgmentState, Label, LabelState, Query
from qrelkit.storage import Store
from qrelkit.versioning import check as version_check
from qrelkit.versioning import folders

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"


@pytest.fixture
def version(tmp_path: Path) -> Path:
    folder = tmp_path / "sets" / "pydocs" / "1.0"
    shutil.copytree(PYDOCS, folder)
    return folder


def edit_manifest(folder: Path, **fields: object) -> None:
    path = folder / "manifest.json"
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data, indent=2))


def one_line_error(result_output: str, *needles: str) -> None:
    lines = [line for line in result_output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result_output
    assert "Traceback" not in result_output
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def refused_everywhere(run_cli: Cli, folder: Path, *needles: str) -> None:
    for args in (
        ["verify", str(folder)],
        ["import", "version", str(folder)],
        ["import", "version", str(folder), "--no-verify"],
    ):
        result = run_cli(*args, ok=False)
        assert result.exit_code == 2, (args, result.output)
        one_line_error(result.output, *needles)


# -- 1. only plain files directly inside the folder ---------------------------------------------


@pytest.mark.parametrize("name", ["/etc/shadow", "../x", "sub/queries.jsonl", "..", "extra.jsonl"])
def test_manifest_naming_a_file_outside_the_folder_is_refused(run_cli: Cli, version: Path, name: str) -> None:
    files = json.loads((version / "manifest.json").read_text())["files"]
    edit_manifest(version, files={**files, name: "sha256:" + "0" * 64})
    refused_everywhere(run_cli, version, "manifest.json")


def test_manifest_missing_a_data_file_name_is_refused(run_cli: Cli, version: Path) -> None:
    files = json.loads((version / "manifest.json").read_text())["files"]
    del files["unlabeled.jsonl"]
    edit_manifest(version, files=files)
    refused_everywhere(run_cli, version, "manifest.json", "exactly")


def test_symlinked_data_file_is_refused(run_cli: Cli, version: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    shutil.copy(version / "queries.jsonl", outside)
    (version / "queries.jsonl").unlink()
    (version / "queries.jsonl").symlink_to(outside)
    refused_everywhere(run_cli, version, "queries.jsonl", "symlink")


def test_symlink_to_dev_zero_and_a_fifo_are_refused_without_hanging(run_cli: Cli, version: Path) -> None:
    (version / "documents.jsonl").unlink()
    (version / "documents.jsonl").symlink_to("/dev/zero")
    refused_everywhere(run_cli, version, "documents.jsonl", "symlink")
    (version / "documents.jsonl").unlink()
    os.mkfifo(version / "documents.jsonl")
    refused_everywhere(run_cli, version, "documents.jsonl", "not a regular file")


def test_symlinked_manifest_is_refused(run_cli: Cli, version: Path, tmp_path: Path) -> None:
    shutil.move(version / "manifest.json", tmp_path / "m.json")
    (version / "manifest.json").symlink_to(tmp_path / "m.json")
    refused_everywhere(run_cli, version, "manifest.json", "symlink")


def test_file_over_the_size_limit_is_refused(run_cli: Cli, version: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders, "MAX_FILE_BYTES", 1000)
    refused_everywhere(run_cli, version, "larger than")


# -- 2. duplicate keys and huge integers --------------------------------------------------------


def test_manifest_with_a_duplicate_key_is_refused(run_cli: Cli, version: Path) -> None:
    path = version / "manifest.json"
    path.write_text(path.read_text().replace("{", '{\n  "note": "first",', 1).replace('"note": null', '"note": "x"'))
    assert path.read_text().count('"note"') == 2
    refused_everywhere(run_cli, version, "manifest.json", "'note' appears twice")


def test_manifest_with_a_huge_integer_names_the_line(run_cli: Cli, version: Path) -> None:
    path = version / "manifest.json"
    text = path.read_text()
    assert '"format_version": 1' in text
    line = text[: text.index('"format_version"')].count("\n") + 1
    path.write_text(text.replace('"format_version": 1', '"format_version": ' + "9" * 5000))
    refused_everywhere(run_cli, version, f"manifest.json:{line}:", "4,300 digits")


def test_report_with_duplicate_key_or_huge_integer(tmp_path: Path) -> None:
    dup = tmp_path / "dup.json"
    dup.write_text('{"reports": [], "reports": []}')
    with pytest.raises(InputError, match=r"dup\.json: the key 'reports' appears twice"):
        reports.read_reports(dup)
    big = tmp_path / "big.json"
    big.write_text('{\n"reports":\n[' + "1" * 4301 + "]}")
    with pytest.raises(InputError, match=r"big\.json:3: a number is too long"):
        reports.read_reports(big)


def test_jsonl_duplicate_key_and_huge_integer_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b", "id": "c", "text": "y"}\n')
    with pytest.raises(InputError, match=r"q\.jsonl:2: the key 'id' appears twice"):
        list(jsonl.read_objects(path))
    path.write_text('{"id": "a"}\n\n{"n": ' + "7" * 4301 + "}\n")
    with pytest.raises(InputError, match=r"q\.jsonl:3: a number is too long"):
        list(jsonl.read_objects(path))
    path.write_text('{"n": ' + "7" * 4300 + "}\n")  # at the limit: read
    assert len(list(jsonl.read_objects(path))) == 1


# -- 3. verify covers the whole manifest --------------------------------------------------------


def test_bundled_version_still_verifies() -> None:
    assert versioning.verify(PYDOCS) == []


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("counts", {"all": {"queries": 1, "labels": {}, "skipped": 0, "unlabeled": 0}}, "counts"),
        ("documents_sha256", "sha256:" + "0" * 64, "documents_sha256"),
        ("scale", {"levels": [{"grade": 0, "name": "no"}, {"grade": 1, "name": "yes"}]}, "content_hash"),
        ("strata", [], "content_hash"),
        ("profiles", [], "content_hash"),
    ],
)
def test_verify_finds_an_edited_manifest_field(
    run_cli: Cli, version: Path, field: str, value: object, problem: str
) -> None:
    edit_manifest(version, **{field: value})
    result = run_cli("verify", str(version), ok=False)
    if result.exit_code == 2:  # the edit does not even validate: refused as one line
        one_line_error(result.output, "manifest.json")
        return
    assert result.exit_code == 1 and problem in result.output, result.output
    refused = run_cli("import", "version", str(version), ok=False)
    assert refused.exit_code == 2 and problem in refused.output


def _disputed_version(out: Path) -> Path:
    """A version whose judgment log holds one pair graded 0 then 2 by two assessors (median 0,
    latest 2)."""
    snap = versioning.read(PYDOCS)
    pair = (snap.unlabeled[0].query_id, snap.unlabeled[0].doc_id)
    logged = list(snap.events)
    t = logged[-1].timestamp
    events = [
        *logged,
        Judgment(query_id=pair[0], doc_id=pair[1], state=JudgmentState.GRADED, grade=0, assessor="a", timestamp=t),
        Judgment(query_id=pair[0], doc_id=pair[1], state=JudgmentState.GRADED, grade=2, assessor="b", timestamp=t),
    ]
    resolved = resolution.resolve_events(events, snap.info.label_policy)
    labels = [
        Label(query_id=q, doc_id=d, grade=g)
        for (q, d), (s, g) in resolved.items()
        if s is LabelState.GRADED and g is not None
    ]
    snap = dataclasses.replace(snap, events=events, labels=labels, unlabeled=snap.unlabeled[1:])
    versioning.freeze(snap, out, "disputed", "1")
    return out / "disputed" / "1"


def test_verify_finds_an_edited_label_policy(tmp_path: Path) -> None:
    folder = _disputed_version(tmp_path)
    assert versioning.verify(folder) == []
    edit_manifest(folder, label_policy="latest")
    assert any("label_policy" in p for p in versioning.verify(folder))


# -- 4. modes follow the umask ------------------------------------------------------------------


@pytest.fixture(params=[0o022, 0o077])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield int(request.param)
    finally:
        os.umask(old)


def test_outputs_and_version_folders_get_the_umask_mode(tmp_path: Path, umask: int) -> None:
    for name in ("out.txt", "out.txt.gz"):
        with writing.atomic_write(tmp_path / name) as fh:
            fh.write("x\n")
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask
    versioning.freeze(versioning.read(PYDOCS), tmp_path / "sets", "p", "1")
    folder = tmp_path / "sets" / "p" / "1"
    assert folder.stat().st_mode & 0o777 == 0o777 & ~umask
    for child in folder.iterdir():
        assert child.stat().st_mode & 0o777 == 0o666 & ~umask, child
    assert writing.normal_mode() == 0o666 & ~umask and writing.normal_mode(folder=True) == 0o777 & ~umask


# -- 5. corrupt gzip ------------------------------------------------------------------------------


def _corrupt(tmp_path: Path, suffix: str, payload: bytes) -> list[Path]:
    good = gzip.compress(payload)
    out = []
    for kind, data in (
        ("crc", good[:-8] + b"\0\0\0\0" + good[-4:]),
        ("truncated", good[: len(good) // 2]),
        ("garbage", good[:10] + bytes(range(256)) * 4),
        ("not-gzip", b"plain text, not gzip\n"),
    ):
        path = tmp_path / f"{kind}{suffix}.gz"
        path.write_bytes(data)
        out.append(path)
    return out


def test_corrupt_gzip_is_one_input_error_naming_the_file(tmp_path: Path, run_cli: Cli) -> None:
    qrels = b"".join(b"q%d 0 d%d 1\n" % (i, i) for i in range(3000))
    for path in _corrupt(tmp_path, ".qrels", qrels):
        for read in (
            lambda p: list(reading.read_lines(p)),
            lambda p: list(reading.read_blocks(p)),
            runs.read_qrels_file,
        ):
            with pytest.raises(InputError, match=path.name):
                read(path)
    run = b"".join(b"q%d Q0 d%d 1 %d.5 r\n" % (i, i, i) for i in range(3000))
    for path in _corrupt(tmp_path, ".run", run):
        with pytest.raises(InputError, match=path.name):
            runs.read_run_file(path)
        result = run_cli("score", str(path), "--golden", str(PYDOCS), ok=False)
        assert result.exit_code == 2
        one_line_error(result.output, path.name)
    lines = b"".join(b'{"id": "q%d", "text": "t"}\n' % i for i in range(3000))
    for path in _corrupt(tmp_path, ".jsonl", lines):
        with pytest.raises(InputError, match=path.name):
            list(jsonl.read_objects(path))


# -- 6. SIGTERM cleans up -------------------------------------------------------------------------

_SLOW_FREEZE = """
import sys, time
from qrelkit.formats import jsonl
write = jsonl.write_models
def slow(models, out):
    n = write(models, out)
    print("writing", flush=True)
    time.sleep(60)
    return n
jsonl.write_models = slow
sys.argv = ["qrelkit", *sys.argv[1:]]
from qrelkit.cli import main
main()
"""


def _terminate(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `script`, SIGTERM it once it says "writing"; its output and errors (one pipe, read
    through one file object to its end: no line buffered by `readline` is lost)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.strip() == "writing", first + proc.stdout.read()
    proc.send_signal(signal.SIGTERM)
    output = first + proc.stdout.read()
    proc.stdout.close()
    return subprocess.CompletedProcess(proc.args, proc.wait(timeout=30), output)


def test_sigterm_during_freeze_leaves_no_temporary_folder(run_cli: Cli, tmp_path: Path) -> None:
    run_cli("import", "version", str(PYDOCS))
    sets = tmp_path / "sets"
    done = _terminate(_SLOW_FREEZE, "--db", str(run_cli.db), "freeze", "p", "v1", "--out", str(sets))
    assert done.returncode == 130, done
    assert "interrupted" in done.stdout and "Traceback" not in done.stdout
    assert list((sets / "p").iterdir()) == []


_SLOW_ATOMIC = """
import signal, sys, time
from qrelkit.cli import app
from qrelkit.formats import atomic_write
signal.signal(signal.SIGTERM, app._terminated)
try:
    with atomic_write(sys.argv[1]) as fh:
        fh.write("partial\\n")
        fh.flush()
        print("writing", flush=True)
        time.sleep(60)
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_sigterm_during_atomic_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.json"
    target.parent.mkdir()
    done = _terminate(_SLOW_ATOMIC, str(target))
    assert done.returncode == 130, done
    assert list(target.parent.iterdir()) == []


def test_ctrl_c_during_export_judgments_says_interrupted_and_exits_130(tmp_path: Path) -> None:
    """A real process, interrupted while it writes: "interrupted", 130, and no temporary file left."""
    db = tmp_path / "s.db"
    store = Store.open(db)
    store.imports.queries([(1, Query(id="q1", text="x", stratum="s"))], source="t", create_strata=True)
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


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, swap: dict[str, object]) -> None:
    """Replace a file of the folder right after `_plain_file` looked at it (a race with the reader)."""
    checked = folders._plain_file

    def then_swap(folder: Path, name: str) -> Path | None:
        found = checked(folder, name)
        if name in swap:
            target, path = swap.pop(name), folder / name
            path.unlink()
            if isinstance(target, Path):
                path.symlink_to(target)
            else:
                path.write_text(str(target), encoding="utf-8")
        return found

    monkeypatch.setattr(folders, "_plain_file", then_swap)
    monkeypatch.setattr(version_check, "_plain_file", then_swap)  # the checked read looks there


def test_a_file_swapped_for_a_symlink_after_the_check_is_not_read(
    version: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is opened without following a symlink and checked by fstat: a swap to
    /dev/zero (or any file outside) between the look and the read is refused, not read forever."""
    _swap_after_check(monkeypatch, {"documents.jsonl": Path("/dev/zero")})
    with pytest.raises(InputError, match="symlink"):
        versioning.read(version, check=False)


def test_a_file_rewritten_after_the_check_is_what_is_hashed(version: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What is parsed is what is hashed (one read of one open file): content swapped in after the
    look is found as changed, never loaded as if it had been verified."""
    forged = '{"id": "forged", "text": "x", "stratum": "navigational"}\n'
    _swap_after_check(monkeypatch, {"queries.jsonl": forged})
    with pytest.raises(Exception, match="queries.jsonl: changed"):
        versioning.read(version)
