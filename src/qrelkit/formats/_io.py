"""Shared file plumbing: line-numbered streaming reads, `.gz`, atomic writes."""

from __future__ import annotations

import atexit
import collections
import contextlib
import errno
import gzip
import hashlib
import io
import os
import re
import stat
import sys
import tempfile
import zlib
from collections.abc import Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, cast

from .. import progress
from ..errors import InputError

PathLike = str | os.PathLike[str]

MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line any reader accepts (a document's whole text fits; a runaway file does not)."""
MAX_ID_LENGTH = 1024
"""The longest query, document or stratum id."""
_BAD_ID = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")
"""C0, DEL, C1 and the invisible direction controls: an id must read as what it is."""


def check_id(value: str, what: str, path: str, line: int) -> str:
    """An id as read from a file: not too long, no control characters or white space (TREC files
    are white-space separated), not starting with `#` (a TREC comment). The one id rule of every
    reader, the same as `models.Identifier`."""
    if len(value) > MAX_ID_LENGTH:
        raise InputError(
            f"{what} id is {len(value):,} characters long", f"ids are at most {MAX_ID_LENGTH:,}", path=path, line=line
        )
    if _BAD_ID.search(value):
        raise InputError(f"{what} id {value[:40]!r} contains a control character", path=path, line=line)
    if any(c.isspace() for c in value):
        raise InputError(
            f"{what} id {value[:40]!r} contains white space", "ids are single words (TREC files split on spaces)",
            path=path, line=line,
        )  # fmt: skip
    if value.startswith("#"):
        raise InputError(
            f"{what} id {value[:40]!r} starts with '#'",
            "a TREC line starting with '#' is a comment",
            path=path,
            line=line,
        )
    return value


STDIN = "-"
"""The path that names standard input: a run or qrels file piped in (`qrelkit score -`)."""
STDIN_NAME = "<stdin>"
_stdin: tuple[object, Path] | None = None


def is_stdin(path: PathLike) -> bool:
    return os.fspath(path) == STDIN


def display(path: PathLike) -> str:
    """How a path is named in messages (`<stdin>` for `-`), as text (`as_text`)."""
    return STDIN_NAME if is_stdin(path) else as_text(os.fspath(path))


def as_text(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (which Python keeps as lone surrogates, and
    which no JSON, CSV or terminal can encode) written as `\\xNN`."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _stdin_copy() -> Path:
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
        copy = _spool(source.buffer, STDIN_NAME)
    except (OSError, AttributeError, ValueError) as exc:
        raise InputError(f"cannot read: {exc}", "pipe a file in, or name it", path=STDIN_NAME) from None
    _stdin = (source, copy)
    return copy


_pipes: dict[str, Path] = {}


def _readable(path: Path) -> tuple[Path, bool]:
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
                _pipes[key] = _spool(fh, display(path))
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=display(path)) from None
    return _pipes[key], True


SPOOL_RESERVE = 2 << 30
"""Free space a copy of standard input or a pipe leaves on the temporary folder's disk: a copy that
would eat into it stops with an error (an endless `yes |` must not fill the disk)."""


def _spool(source: IO[bytes], name: str = STDIN_NAME) -> Path:
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


class HashedPath(os.PathLike[str]):
    """A path whose reads are hashed: each time a reader of this package opens it, the bytes that
    read takes in (decompressed for `.gz`) feed a fresh sha256. So the read that parses a file
    hashes it too, whichever reader it is (`read_lines`, `read_blocks`, or a format reader built
    on them), and `sha256()` gives the hash of the latest read that reached the end of the file."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        self._last: _HashingReader | None = None

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    def __repr__(self) -> str:
        return f"HashedPath({os.fspath(self.path)!r})"

    def sha256(self) -> str:
        """`sha256:<hex>` of the file's bytes, from the latest read that reached its end."""
        last = self._last
        if last is None or not last.done:
            raise RuntimeError(f"{self.path} was not read to its end: its sha256 is unknown")
        return "sha256:" + last.digest.hexdigest()


class PlainFile(HashedPath):
    """A `HashedPath` that must be a regular file: opened without following a symlink and without
    blocking (a FIFO), refused unless `fstat` says regular, and read no further than `limit`
    bytes. The checks hold for the file actually read, so a file swapped for a symlink or a
    device after someone looked at it is refused, not read (version folders)."""

    def __init__(self, path: PathLike, limit: int) -> None:
        super().__init__(path)
        self.limit = limit


def _open_plain(p: Path, plain: PlainFile) -> IO[bytes]:
    name = display(p)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError("no such file", "check the path", path=name) from None
    except OSError as exc:
        refused = "is a symlink: refused" if exc.errno == errno.ELOOP else f"cannot open: {exc.strerror}"
        raise InputError(refused, path=name) from None
    fh = open(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        fh.close()
        raise InputError("is not a regular file: refused", path=name)
    return fh


class _Digest:
    """A sha256 fed in order, the large pieces on a thread of its own (hashlib lets go of the GIL
    for them), so hashing a large file overlaps with parsing it instead of adding to it. At most
    `AHEAD` pieces wait; `hexdigest()` waits for every piece."""

    LARGE = 1 << 20
    AHEAD = 4

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self._pool: ThreadPoolExecutor | None = None
        self._waiting: collections.deque[Future[None]] = collections.deque()

    def update(self, data: bytes) -> None:
        if self._pool is None and len(data) < self.LARGE:
            self._hash.update(data)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sha256")
        while len(self._waiting) >= self.AHEAD:
            self._waiting.popleft().result()
        self._waiting.append(self._pool.submit(self._hash.update, data))  # one thread: in order

    def hexdigest(self) -> str:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
            self._waiting.clear()
        return self._hash.hexdigest()


class _HashingReader:
    """A binary file that feeds what is read from it to a sha256 and notes reaching the end
    (and, with `limit`, refuses to read past that many bytes)."""

    def __init__(self, fh: IO[bytes], limit: int | None = None, name: str = "") -> None:
        self.fh = fh
        self.fileobj = getattr(fh, "fileobj", None) or fh
        """The file on disk (compressed for `.gz`): `_Meter` reports its position."""
        self.digest = _Digest()
        self.done = False
        self.limit, self.name, self.seen = limit, name, 0

    def _seen(self, data: bytes, size: int) -> bytes:
        if data:
            self.digest.update(data)
            self.seen += len(data)
            if self.limit is not None and self.seen > self.limit:
                raise InputError(f"is larger than {self.limit:,} bytes: refused", path=self.name)
        elif size != 0:
            self.done = True
        return data

    def read(self, size: int = -1) -> bytes:
        return self._seen(self.fh.read(size), size)

    def readline(self, size: int = -1) -> bytes:
        return self._seen(self.fh.readline(size), size)

    def tell(self) -> int:
        return self.fh.tell()

    def close(self) -> None:
        self.fh.close()

    def __enter__(self) -> _HashingReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_binary(path: PathLike) -> IO[bytes]:
    """The file's bytes (decompressed for `.gz`); a `HashedPath` hashes what is read."""
    if isinstance(path, PlainFile):  # a version's file: never a pipe, a device or a symlink, never copied
        reader = _HashingReader(_open_plain(Path(path), path), path.limit, display(path))
        path._last = reader
        return cast(IO[bytes], reader)
    p, copied = (_stdin_copy(), True) if is_stdin(path) else _readable(Path(path))
    if p.is_dir():
        raise InputError("is a folder, not a file", "name a file", path=display(path))
    try:
        fh = cast(IO[bytes], gzip.open(p, "rb")) if p.suffix == ".gz" or copied and _gzipped(p) else open(p, "rb")
    except FileNotFoundError:
        raise InputError("no such file", "check the path", path=display(path)) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path=display(path)) from None
    if isinstance(path, HashedPath):
        reader = _HashingReader(fh)
        path._last = reader
        return cast(IO[bytes], reader)
    return fh  # closed by the caller's with-block


def _gzipped(copy: Path) -> bool:
    """A copy of a pipe that starts with the gzip magic bytes (`zcat` left out of the pipe)."""
    with open(copy, "rb") as fh:
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
    with _open_binary(path) as fh:
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
    with _open_binary(Path(path) if isinstance(path, HashedPath) else path) as fh:
        try:
            return fh.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read: {exc}", path=name) from None


def read_bytes(path: PathLike) -> bytes:
    """The whole file (decompressed for `.gz`), read to its end (so a `HashedPath` hashes it)."""
    name = display(path)
    chunks = []
    with _open_binary(path) as fh:
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
    with _open_binary(path) as fh:
        carry = b""
        meter = _Meter(path, fh)
        try:
            while True:
                chunk = fh.read(size)
                meter.tick()
                if not chunk:
                    break
                cut = chunk.rfind(b"\n")
                if cut < 0:
                    carry += chunk
                    continue
                yield b"".join((carry, memoryview(chunk)[: cut + 1])) if carry else chunk[: cut + 1]
                carry = chunk[cut + 1 :]
        except (OSError, EOFError, zlib.error) as exc:  # a corrupt `.gz`: bad CRC, truncated, garbage
            raise InputError(f"cannot read: {exc}", path=name) from None
        meter.tick(final=True)
        if carry:
            yield carry


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (`unique_keys` raises it while parsing)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} appears twice in one object")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads(..., object_pairs_hook=unique_keys)`: an object, refusing a repeated key (which
    `json` would otherwise read last-wins)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


_LONG_NUMBER = re.compile(r"\d{4301,}")


def long_number_line(text: str) -> int | None:
    """The line (1-based) of the first number too long for `json` to convert (Python refuses
    integers over 4,300 digits with a ValueError "Exceeds the limit"), if the text holds one."""
    found = _LONG_NUMBER.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def normal_mode(folder: bool = False) -> int:
    """The permission bits a new file (0o666) or folder (0o777) gets under the current umask:
    what `open` and `mkdir` give, where `tempfile` gives 0o600 and 0o700 whatever the umask."""
    umask = None
    try:
        with open("/proc/self/status", encoding="ascii") as fh:  # read without changing it (Linux)
            for row in fh:
                if row.startswith("Umask:"):
                    umask = int(row.split()[1], 8)
    except (OSError, ValueError):
        umask = None
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return (0o777 if folder else 0o666) & ~umask


def refuse_repeat(
    seen: dict[tuple[str, str], int], key: tuple[str, str], lineno: int, message: str, hint: str, path: str
) -> None:
    """Remember the line of each (query, doc) pair; a second one is an error naming both lines."""
    first = seen.setdefault(key, lineno)
    if first != lineno:
        raise InputError(f"{message} (first on line {first})", hint, path=path, line=lineno)


def read_text(path: PathLike) -> str:
    """The whole file as text (for small files such as a manifest)."""
    return "\n".join(text for _, text in read_lines(path))


WRITE_HINT = "check that the folder exists and is writable, and that the disk has room"
"""The hint of every error about a file that cannot be written."""


@contextlib.contextmanager
def atomic_write(path: PathLike, *, parents: bool = False) -> Iterator[IO[str]]:
    """Write a text file to a temporary name beside `path`, fsync it, then rename it into place.

    If the block raises, the temporary file is removed and `path` is left as it was. A file that
    cannot be written is an `InputError` naming it. A target that exists and is not a regular
    file (`/dev/null`, `/dev/stdout`, a named pipe) is written to directly: renaming over it
    would replace the device or pipe with a file. A missing folder is an error (a mistyped
    `--out` must not create folders), unless `parents`.
    """
    target = Path(path)
    if not parents and not target.parent.is_dir():
        raise InputError(
            f"no folder {display(target.parent)}", "create it first, or check the path", path=display(path)
        )
    if target.exists() and not target.is_file() and not target.is_dir():
        try:
            with open(target, "w", encoding="utf-8", newline="\n") as direct:
                yield direct
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror}", WRITE_HINT, path=display(path)) from None
        return
    try:
        if parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", WRITE_HINT, path=display(path)) from None
    try:
        raw = os.fdopen(fd, "wb")
        os.fchmod(fd, normal_mode())  # mkstemp's 0o600 -> what a new file gets under the umask
        gz = target.suffix == ".gz"
        stream: IO[bytes] = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)) if gz else raw
        with io.TextIOWrapper(stream, encoding="utf-8", newline="\n") as out:
            yield out
            out.flush()
            if stream is not raw:
                stream.close()
            raw.flush()
            os.fsync(raw.fileno())
        raw.close()
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror}", WRITE_HINT, path=display(path)) from None
        raise
