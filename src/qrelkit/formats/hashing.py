"""Paths whose reads are hashed (the read that parses a file hashes it too), and version files
that must be regular files read no further than a limit."""

from __future__ import annotations

import collections
import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ..errors import InputError
from .paths import PathLike, display

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor


class HashedPath(os.PathLike[str]):
    """A path whose reads are hashed: each time a reader of this package opens it, the bytes that
    read takes in (decompressed for `.gz`) feed a fresh sha256. So the read that parses a file
    hashes it too, whichever reader it is (`read_lines`, `read_blocks`, or a format reader built
    on them), and `sha256()` gives the hash of the latest read that reached the end of the file."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        self.last_read: HashingReader | None = None

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    def __repr__(self) -> str:
        return f"HashedPath({os.fspath(self.path)!r})"

    def sha256(self) -> str:
        """`sha256:<hex>` of the file's bytes, from the latest read that reached its end."""
        last = self.last_read
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


def open_plain(p: Path, plain: PlainFile) -> IO[bytes]:
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
            from concurrent.futures import ThreadPoolExecutor  # only for large inputs: it loads logging

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


class HashingReader:
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

    def __enter__(self) -> HashingReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
