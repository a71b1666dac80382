"""Standard input and pipes, copied to a temporary file as they are read, so that every reader
may open them again and see the same bytes: a reader reads the copy at its own place, and when it
reaches the end of what has been copied so far, it copies the next chunk of the stream and reads
on. So a stream is validated while it is read (an endless `yes |` stops at its first bad line),
and only a reader that needs the whole file first (`Spool.complete`) copies it all. The copy is
bounded by the longest line and the disk, and removed at exit, on SIGHUP and on SIGTERM."""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import IO, NoReturn, cast

from ..errors import InputError
from .paths import STDIN_NAME, PathLike, display, is_stdin

MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line any reader accepts (a document's whole text fits; a runaway file does not)."""
SPOOL_RESERVE = 2 << 30
"""Free space a copy of standard input or a pipe leaves on the temporary folder's disk: a copy that
would eat into it stops with an error (an endless input with no bad line must not fill the disk)."""
CHUNK = 1 << 20
"""The most a copy takes from its stream at a time (a pipe gives what it holds, 64 KiB or less)."""
PREFIX = "qrelkit-input-"
"""How the copies are named in the temporary folder (`tempfile.gettempdir()`, `$TMPDIR`)."""


class Spool:
    """A stream and its copy on disk (`path`), filled as far as its readers have got."""

    def __init__(self, source: IO[bytes], name: str, *, close: bool = False) -> None:
        import tempfile  # (a file named on the command line needs no copy: tempfile loads shutil, random)

        fd, tmp = tempfile.mkstemp(prefix=PREFIX)
        _track(tmp)
        self.fd, self.path, self.name = fd, Path(tmp), name
        self.source: IO[bytes] | None = source
        self._close = close
        self._read: Callable[[int], bytes] = getattr(source, "read1", source.read)
        self.size = 0
        """Bytes copied so far."""
        self.error: InputError | None = None
        self._run, self._check_at = 0, 0  # bytes since the last newline; copied bytes at the next space check
        self._lock = threading.RLock()

    def open(self) -> IO[bytes]:
        """A reader of the stream from its start (buffered: lines are read at C speed)."""
        return io.BufferedReader(_Reader(self), 1 << 16)

    def complete(self) -> Path:
        """The copy, with the whole stream in it (bounded as every copy is)."""
        while self._pull():
            pass
        return self.path

    def read_at(self, pos: int, size: int) -> bytes:
        """Up to `size` bytes from `pos` (copying the next chunk when `pos` is at the end of the
        copy); b"" at the end of the stream."""
        with self._lock:
            while pos >= self.size and self._pull():
                pass
            return os.pread(self.fd, min(size, self.size - pos), pos) if pos < self.size else b""

    def _pull(self) -> bool:
        """Copy the next chunk of the stream; False at its end."""
        with self._lock:
            if self.error is not None:
                raise self.error
            if self.source is None:
                return False
            try:
                chunk = self._read(CHUNK)
            except (OSError, ValueError, AttributeError) as exc:
                self._fail(InputError(f"cannot read: {exc}", "pipe a file in, or name it", path=self.name))
            if not chunk:
                self._end()
                return False
            self._bound(chunk)
            view = memoryview(chunk)
            try:
                while view:
                    written = os.pwrite(self.fd, view, self.size)
                    self.size, view = self.size + written, view[written:]
            except OSError as exc:  # the disk filled up between two checks (`_bound`)
                folder = self.path.parent
                self._fail(
                    InputError(
                        f"cannot copy: {exc.strerror}", f"name a file, or free space in {folder}", path=self.name
                    )
                )
            return True

    def _bound(self, chunk: bytes) -> None:
        """Stop at a line longer than `MAX_LINE_BYTES` (no reader would take it: `/dev/zero`-like
        input ends here) or when the disk would keep less than `SPOOL_RESERVE` free."""
        newline = chunk.rfind(b"\n")
        self._run = self._run + len(chunk) if newline < 0 else len(chunk) - newline - 1
        if self._run > MAX_LINE_BYTES:
            self._fail(
                InputError(
                    f"a line is longer than {MAX_LINE_BYTES // 2**20} MiB",
                    "is this the right input? lines hold one record each",
                    path=self.name,
                )
            )
        if self.size + len(chunk) >= self._check_at:  # at the start, then every 256 MiB
            self._check_at = self.size + len(chunk) + (256 << 20)
            st = os.statvfs(self.path.parent)
            if st.f_bavail * st.f_frsize < SPOOL_RESERVE:
                self._fail(
                    InputError(
                        f"the input is larger than the space left for its copy ({self.size >> 20:,} MiB read)",
                        f"give a file path instead of a pipe, or free space in {self.path.parent}",
                        path=self.name,
                    )
                )

    def release(self) -> None:
        """Close and remove the copy (a reader still open on it fails to read on)."""
        with self._lock:
            self._end()
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1
            _remove(os.fspath(self.path))

    def _end(self) -> None:
        source, self.source = self.source, None
        if self._close and source is not None:
            with contextlib.suppress(OSError):
                source.close()

    def _fail(self, error: InputError) -> NoReturn:
        """Every later read raises `error`; the copy is removed now (its descriptor stays open)."""
        self.error = error
        self._end()
        _remove(os.fspath(self.path))
        raise error


class _Reader(io.RawIOBase):
    """One reader's place in a `Spool`."""

    def __init__(self, spool: Spool) -> None:
        self.spool, self.pos = spool, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.spool.read_at(self.pos, len(buffer))
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence == os.SEEK_END:
            self.spool.complete()
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.pos, os.SEEK_END: self.spool.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def tell(self) -> int:
        return self.pos


_stdin: tuple[object, Spool] | None = None


def stdin_spool() -> Spool:
    """Standard input's copy (one for the process: each reader opens it again)."""
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
        copy = Spool(source.buffer, STDIN_NAME)
    except (OSError, AttributeError, ValueError) as exc:
        raise InputError(f"cannot read: {exc}", "pipe a file in, or name it", path=STDIN_NAME) from None
    if _stdin is not None:  # standard input was replaced (a test runner's): the old copy is done with
        _stdin[1].release()
    _stdin = (source, copy)
    return copy


_pipes: dict[str, Spool] = {}


def pipe_spool(path: Path) -> Spool | None:
    """The copy of `path` when it is a named pipe or a device (`<(zcat run.gz)`, `/dev/stdin`),
    which can be read only once; None for a file (or a path that opening it names the problem of)."""
    key = os.fspath(path)
    if key in _pipes:
        return _pipes[key]
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISCHR(mode) and not os.path.samefile(path, os.devnull):
        raise InputError(
            "is a device, not a file", "name a file, or pipe one in (`... | qrelkit score -`)", path=display(path)
        )  # /dev/zero or /dev/urandom would be copied until the disk is full
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return None
    try:
        _pipes[key] = Spool(open(path, "rb"), display(path), close=True)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=display(path)) from None
    return _pipes[key]


def spooled(path: PathLike) -> Spool | None:
    """The copy of standard input (`-`) or of a pipe; None for a file, read where it is."""
    return stdin_spool() if is_stdin(path) else pipe_spool(Path(path))


def spool(source: IO[bytes], name: str = STDIN_NAME) -> Spool:
    """A copy of `source`, filled as its readers read (see `Spool`)."""
    return Spool(source, name)


_copies: set[str] = set()


def _track(name: str) -> None:
    """Remove the copy `name` at exit, and on SIGHUP or SIGTERM (the signal's default action
    skips atexit): a handler goes where the signal has its default action, from the main thread
    only (a program's own handlers, the judging UI's, stay; they end through atexit)."""
    if not _copies:
        atexit.register(_remove_all)
    _copies.add(name)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _on_signal)


_SIGNALS = [cast(signal.Signals, getattr(signal, n)) for n in ("SIGHUP", "SIGTERM") if hasattr(signal, n)]


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Remove the copies, then end as the signal's default action ends the process."""
    _remove_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _remove_all() -> None:
    for name in list(_copies):
        _remove(name)


def _remove(name: str) -> None:
    _copies.discard(name)
    with contextlib.suppress(OSError):
        os.unlink(name)
