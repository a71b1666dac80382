"""Standard input and pipes are copied to a temporary file as the readers read them; that copy is
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


def _copies(folder: Path) -> set[str]:
    """The copies in `folder`: each test gives the copies a temporary folder of its own, so that
    another test (or process) spooling at the same time never shows up in its count."""
    return {p.name for p in folder.glob(f"{spool.PREFIX}*")}


def test_a_device_is_refused_not_copied() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", "/dev/zero", "--qrels", QRELS],
        capture_output=True, text=True, timeout=60, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2 and "/dev/zero: is a device, not a file" in done.stderr


def test_a_line_longer_than_any_reader_takes_stops_the_copy(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", "-", "--qrels", QRELS],
        input=b"\0" * (spool.MAX_LINE_BYTES + (2 << 20)), capture_output=True, timeout=60,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 2 and b"<stdin>: a line is longer than 32 MiB" in done.stderr
    assert _copies(tmp_path) == set()


def test_a_copy_that_would_fill_the_disk_stops_and_is_removed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(spool, "SPOOL_RESERVE", 1 << 62)  # no disk has that much free
    lines = io.BytesIO(b"q1 Q0 d 1 1.0 r\n" * 1000)
    with pytest.raises(InputError, match="larger than the space left"):
        spool.spool(lines).complete()
    assert _copies(tmp_path) == set()


class _Endless(io.RawIOBase):
    """`yes 'q1 Q0 d1 1 1.0 r'`: never ends; counts what was taken from it."""

    LINE = b"q1 Q0 d1 1 1.0 r\n"

    def __init__(self) -> None:
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = len(buffer) - len(buffer) % len(self.LINE) or len(buffer)
        buffer[:n] = _yes(n)
        self.taken += n
        return n


def _yes(n: int) -> bytes:
    """The first `n` bytes of the endless input."""
    return (_Endless.LINE * (n // len(_Endless.LINE) + 1))[:n]


def test_the_copy_grows_only_as_far_as_its_readers_read() -> None:
    """Each reader reads the copy at its own place; the stream is read no further than the
    furthest reader, one chunk at a time: an endless input is never copied whole."""
    source = _Endless()
    copy = spool.spool(io.BufferedReader(source, 4096))
    with copy.open() as first, copy.open() as second:
        assert first.readline() == _Endless.LINE
        assert 0 < copy.size <= spool.CHUNK and source.taken <= spool.CHUNK + 4096
        assert second.read(3 * spool.CHUNK) == _yes(3 * spool.CHUNK)
        assert copy.size <= 4 * spool.CHUNK
        assert first.readline() == _Endless.LINE  # the first reader's place is its own
    assert copy.path.read_bytes() == _yes(copy.size)
    copy.release()
    assert not copy.path.exists() and copy.path.name not in _copies(copy.path.parent)


def test_a_reader_that_needs_the_whole_input_completes_the_copy() -> None:
    data = b"q1 Q0 d1 1 1.0 r\n" * 100_000
    copy = spool.spool(io.BufferedReader(io.BytesIO(data)))
    with copy.open() as reader:
        assert reader.readline() == data[:17] and copy.size < len(data)
        assert reader.seek(0, io.SEEK_END) == len(data)  # seeking from the end copies it all first
    assert copy.complete().read_bytes() == data
    copy.release()
