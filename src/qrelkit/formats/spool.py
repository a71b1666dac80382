"""Standard input and pipes, read once into a temporary file (removed at exit), so that every
reader may open them again and see the same bytes: bounded by the longest line and the disk."""

from __future__ import annotations

import atexit
import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

from ..errors import InputError
from .paths import STDIN_NAME, display

MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line any reader accepts (a document's whole text fits; a runaway file does not)."""
_stdin: tuple[object, Path] | None = None


def stdin_copy() -> Path:
    """Standard input, read once into a temporary file (removed at exit): the readers may open it
    again (a format sniff, the exact reader after the fast one) and see the same bytes."""
    global _stdin
    source = sys.stdin
    if _stdin is not None and _stdin[0] is source:
        return _stdin[1]
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if source.isatty():
            raise InputError(
                "standard input is a terminal", "pipe a file in (`cat run.txt | ...`), or name it", path=STDIN_NAME
            )
    try:
        copy = spool(source.buffer, STDIN_NAME)
    except (OSError, AttributeError, ValueError) as exc:
        raise InputError(f"cannot read: {exc}", "pipe a file in, or name it", path=STDIN_NAME) from None
    _stdin = (source, copy)
    return copy


_pipes: dict[str, Path] = {}


def readable(path: Path) -> tuple[Path, bool]:
    """The file to open for `path`, and whether it is a copy: a named pipe or a device
    (`<(zcat run.gz)`, `/dev/stdin`) can be read only once, so it is read once into a temporary
    file that every later open reads."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path, False  # opening it names the problem
    if stat.S_ISCHR(mode) and not os.path.samefile(path, os.devnull):
        raise InputError(
            "is a device, not a file", "name a file, or pipe one in (`... | qrelkit score -`)", path=display(path)
        )  # /dev/zero or /dev/urandom would be copied until the disk is full
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return path, False
    key = os.fspath(path)
    if key not in _pipes:
        try:
            with open(path, "rb") as fh:
                _pipes[key] = spool(fh, display(path))
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=display(path)) from None
    return _pipes[key], True


SPOOL_RESERVE = 2 << 30
"""Free space a copy of standard input or a pipe leaves on the temporary folder's disk: a copy that
would eat into it stops with an error (an endless `yes |` must not fill the disk)."""


def spool(source: IO[bytes], name: str = STDIN_NAME) -> Path:
    """Copy a stream into a temporary file removed at exit. It stops, removing the copy, at a line
    longer than `MAX_LINE_BYTES` (no reader would take it: `/dev/zero`-like input ends here) or when
    the disk would keep less than `SPOOL_RESERVE` free."""
    fd, tmp = tempfile.mkstemp(prefix="qrelkit-input-")
    atexit.register(_remove, tmp)
    try:
        with os.fdopen(fd, "wb") as copy:
            _copy_bounded(source, copy, name, Path(tmp).parent)
    except BaseException:
        _remove(tmp)
        raise
    return Path(tmp)


def _copy_bounded(source: IO[bytes], copy: IO[bytes], name: str, folder: Path) -> None:
    run, written, check_at = 0, 0, 0  # bytes since the last newline; bytes copied; next space check
    for chunk in iter(lambda: source.read(1 << 20), b""):
        newline = chunk.rfind(b"\n")
        run = run + len(chunk) if newline < 0 else len(chunk) - newline - 1
        if run > MAX_LINE_BYTES:
            raise InputError(
                f"a line is longer than {MAX_LINE_BYTES // 2**20} MiB",
                "is this the right input? lines hold one record each",
                path=name,
            )
        copy.write(chunk)
        written += len(chunk)
        if written >= check_at:  # at the start, then every 256 MiB
            check_at = written + (256 << 20)
            st = os.statvfs(folder)
            if st.f_bavail * st.f_frsize < SPOOL_RESERVE:
                raise InputError(
                    f"the input is larger than the space left for its copy ({written >> 20:,} MiB read)",
                    f"give a file path instead of a pipe, or free space in {folder}",
                    path=name,
                )


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)
