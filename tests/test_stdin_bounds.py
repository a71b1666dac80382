"""Standard input and pipes are copied once to a temporary file for the readers; that copy is
bounded: a device is refused (`/dev/zero` was copied until the disk was full: 74 GB), a line
longer than any reader takes stops it, so does a disk that would keep less than the reserve, and
the copy is removed when it stops."""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from qrelkit.errors import InputError
from qrelkit.formats import spool

QRELS = str(ROOT / "goldensets" / "pydocs" / "1.0" / "qrels.txt")


def _copies() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("qrelkit-input-*")}


def test_a_device_is_refused_not_copied() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", "/dev/zero", "--qrels", QRELS],
        capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2 and "/dev/zero: is a device, not a file" in done.stderr


def test_a_line_longer_than_any_reader_takes_stops_the_copy() -> None:
    before = _copies()
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", "-", "--qrels", QRELS],
        input=b"\0" * (spool.MAX_LINE_BYTES + (2 << 20)), capture_output=True, timeout=60,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2 and b"<stdin>: a line is longer than 32 MiB" in done.stderr
    assert _copies() == before


def test_a_copy_that_would_fill_the_disk_stops_and_is_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _copies()
    monkeypatch.setattr(spool, "SPOOL_RESERVE", 1 << 62)  # no disk has that much free
    lines = io.BytesIO(b"q1 Q0 d 1 1.0 r\n" * 1000)
    with pytest.raises(InputError, match="larger than the space left"):
        spool.spool(lines)
    assert _copies() == before
