"""Reading files: line-numbered streaming, whole files and blocks of whole lines, for a path, a
`.gz`, a pipe or standard input, hashed when the path is a `HashedPath`, with progress."""

from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import IO, cast

from .. import progress
from ..errors import InputError
from .hashing import HashedPath, HashingReader, PlainFile, open_plain
from .paths import PathLike, display
from .spool import MAX_LINE_BYTES, Spool, spooled


def open_binary(path: PathLike) -> IO[bytes]:
    """The file's bytes (decompressed for `.gz`); a `HashedPath` hashes what is read."""
    if isinstance(path, PlainFile):  # a version's file: never a pipe, a device or a symlink, never copied
        reader = HashingReader(open_plain(Path(path), path), path.limit, display(path))
        path.last_read = reader
        return cast(IO[bytes], reader)
    copy = spooled(path)
    fh = _open_copy(copy) if copy is not None else _open_file(Path(path))
    if isinstance(path, HashedPath):
        reader = HashingReader(fh)
        path.last_read = reader
        return cast(IO[bytes], reader)
    return fh  # closed by the caller's with-block


def is_stream(path: PathLike) -> bool:
    """Standard input or a pipe: read as it comes, with no size known before its end (if any)."""
    return not isinstance(path, PlainFile) and spooled(path) is not None


def _open_file(p: Path) -> IO[bytes]:
    if p.is_dir():
        raise InputError("is a folder, not a file", "name a file", path=display(p))
    try:
        if p.suffix != ".gz":
            return open(p, "rb")
        import gzip  # (only for a .gz: a plain file starts without it)

        return cast(IO[bytes], gzip.open(p, "rb"))
    except FileNotFoundError:
        raise InputError("no such file", "check the path", path=display(p)) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path=display(p)) from None


def _open_copy(copy: Spool) -> IO[bytes]:
    """A reader of standard input or a pipe, decompressed when it starts with gzip's magic bytes
    (`zcat` left out of the pipe)."""
    fh = copy.open()
    if not _gzipped(copy):
        return fh
    import gzip

    return cast(IO[bytes], gzip.GzipFile(fileobj=fh, mode="rb"))


def _gzipped(copy: Spool) -> bool:
    with copy.open() as fh:
        return fh.read(2) == b"\x1f\x8b"


class _Meter:
    """Reports how far into a file a reader is (compressed bytes for `.gz`), at most every MiB."""

    STEP = 1 << 20

    def __init__(self, path: PathLike, fh: IO[bytes]) -> None:
        self.on = progress.active()
        self.task = f"reading {Path(path).name}"
        self.raw = cast(IO[bytes], getattr(fh, "fileobj", None) or fh)
        self.next = self.STEP
        try:
            self.total = os.path.getsize(path) if self.on else 0
        except OSError:
            self.on = False

    def tick(self, final: bool = False) -> None:
        if not self.on:
            return
        try:
            done = self.total if final else self.raw.tell()
        except (OSError, ValueError):
            return
        if final or done >= self.next:
            self.next = done + self.STEP
            progress.report(self.task, done, self.total)


def read_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """Yield (line number, text without the line ending), streaming, for a path or a `.gz`.

    Accepts UTF-8 with or without a byte-order mark and LF or CRLF endings. A line that is not
    UTF-8, or longer than `MAX_LINE_BYTES`, is an `InputError` naming that line (memory stays
    bounded by the longest accepted line).
    """
    name = display(path)
    with open_binary(path) as fh:
        lineno = 0
        meter = _Meter(path, fh)
        try:
            for raw in iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""):
                lineno += 1
                if not lineno & 4095:
                    meter.tick()
                if len(raw) > MAX_LINE_BYTES:
                    raise InputError(
                        f"the line is longer than {MAX_LINE_BYTES // 2**20} MiB",
                        "is this the right file? lines hold one record each",
                        path=name,
                        line=lineno,
                    )
                if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError(
                        "not valid UTF-8 text",
                        "save the file as UTF-8",
                        path=name,
                        line=lineno,
                    ) from None
                yield lineno, text.rstrip("\r\n")
        except (OSError, EOFError, zlib.error) as exc:  # a corrupt `.gz`: bad CRC, truncated, garbage
            raise InputError(f"cannot read: {exc}", path=name, line=lineno + 1) from None
        meter.tick(final=True)


def peek(path: PathLike, size: int = 1 << 16) -> bytes:
    """The first `size` bytes of the file (decompressed for `.gz`), to tell its format."""
    name = display(path)
    with open_binary(Path(path) if isinstance(path, HashedPath) else path) as fh:
        try:
            return fh.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read: {exc}", path=name) from None


def read_bytes(path: PathLike) -> bytes:
    """The whole file (decompressed for `.gz`), read to its end (so a `HashedPath` hashes it)."""
    name = display(path)
    chunks = []
    with open_binary(path) as fh:
        try:
            while chunk := fh.read(1 << 20):
                chunks.append(chunk)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read: {exc}", path=name) from None
    return b"".join(chunks)


def read_blocks(path: PathLike, size: int = 1 << 22) -> Generator[bytes, None, None]:
    """The file's bytes (decompressed for `.gz`) in blocks of about `size` that end at a line
    boundary, so each block holds whole lines. Close the generator to stop reading early."""
    name = display(path)
    with open_binary(path) as fh:
        carry = b""
        meter = _Meter(path, fh)
        lines = 0  # newlines yielded so far (to name a line that is too long)
        try:
            while True:
                chunk = fh.read(size)
                meter.tick()
                if not chunk:
                    break
                cut = chunk.rfind(b"\n")
                if cut < 0:
                    carry += chunk
                    _refuse_long(carry, lines, name)
                    continue
                block = b"".join((carry, memoryview(chunk)[: cut + 1])) if carry else chunk[: cut + 1]
                _refuse_long(block, lines, name)
                lines += _newlines(block)
                carry = chunk[cut + 1 :]
                del chunk  # not held while the block is out (a block's worth of memory)
                yield block
        except (OSError, EOFError, zlib.error) as exc:  # a corrupt `.gz`: bad CRC, truncated, garbage
            raise InputError(f"cannot read: {exc}", path=name) from None
        meter.tick(final=True)
        if carry:
            _refuse_long(carry, lines, name)
            yield carry


def _newlines(block: bytes) -> int:
    """`block.count(b"\\n")`; by numpy once something has loaded it (every scored file: numpy
    counts 5x faster and lets go of the GIL, which the parser's threads want; `bytes.count`
    holds it for 0.5 ms a MiB). Not imported here: reading a small file needs no numpy."""
    np = sys.modules.get("numpy")
    if np is None or len(block) < NUMPY_COUNT_FROM:
        return block.count(b"\n")
    return int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == 10))


NUMPY_COUNT_FROM = 1 << 16
"""Blocks at least this long (bytes) have their newlines counted by numpy, when it is loaded."""


def _refuse_long(block: bytes, lines: int, name: str) -> None:
    """A line of `block` longer than `MAX_LINE_BYTES` (the limit `read_lines` keeps) is an
    `InputError` naming it, before any parser holds it: such a line holds at least one aligned
    window of half the limit without a newline, and `bytes.find` looks for one at C speed."""
    if len(block) <= MAX_LINE_BYTES:
        return
    half = MAX_LINE_BYTES // 2
    for start in range(0, len(block) - half + 1, half):
        if block.find(b"\n", start, start + half) < 0:
            end = block.find(b"\n", start)
            begin = block.rfind(b"\n", 0, start) + 1
            length = end + 1 - begin if end >= 0 else len(block) - begin  # as `read_lines` counts: its newline too
            if length > MAX_LINE_BYTES:
                raise InputError(
                    f"the line is longer than {MAX_LINE_BYTES // 2**20} MiB",
                    "is this the right file? lines hold one record each",
                    path=name,
                    line=lines + block.count(b"\n", 0, begin) + 1,
                )


def read_text(path: PathLike) -> str:
    """The whole file as text (for small files such as a manifest)."""
    return "\n".join(text for _, text in read_lines(path))


def last_line(path: PathLike, keep: Callable[[str], bool] = bool, block: int = 1 << 16) -> str | None:
    """The last line of the file for which `keep` holds (None: no such line), reading backwards
    from its end in blocks: a large file is not read through for its last line. A `.gz` has no
    end to start from, so it is read through (as are lines that are not UTF-8, read forwards to
    name the line)."""
    if Path(path).suffix == ".gz":
        return _last_line_forwards(path, keep)
    copy = spooled(path)
    if copy is not None and _gzipped(copy):
        return _last_line_forwards(path, keep)
    p = copy.complete() if copy is not None else Path(path)
    try:
        with open(p, "rb") as fh:
            prev, carry = fh.seek(0, os.SEEK_END), b""
            while prev > 0:
                pos = max(0, prev - block)
                fh.seek(pos)
                lines = (fh.read(prev - pos) + carry).split(b"\n")
                prev = pos
                carry, whole = (lines[0], lines[1:]) if pos > 0 else (b"", lines)  # a piece: read on
                for i in range(len(whole) - 1, -1, -1):
                    raw = whole[i][3:] if pos == 0 and i == 0 and whole[i].startswith(b"\xef\xbb\xbf") else whole[i]
                    text = raw.decode("utf-8").rstrip("\r")
                    if keep(text):
                        return text
    except UnicodeDecodeError:
        return _last_line_forwards(path, keep)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=display(path)) from None
    return None


def _last_line_forwards(path: PathLike, keep: Callable[[str], bool]) -> str | None:
    last = None
    for _, text in read_lines(path):
        if keep(text):
            last = text
    return last
