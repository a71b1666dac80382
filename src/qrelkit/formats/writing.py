"""Writing files: to a temporary name, fsynced, then renamed into place, with the permissions a
new file gets under the umask."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

from ..errors import InputError
from .paths import PathLike, display


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
    import tempfile  # (here, not at the top: reading commands import this module and write nothing)

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
        stream: IO[bytes] = raw
        if gz:
            import gzip

            stream = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="wb", mtime=0))
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


@contextlib.contextmanager
def atomic_folder(target: Path, *, replace: bool = False) -> Iterator[Path]:
    """Write a folder: the block fills a temporary folder beside `target`, which is then renamed
    into place (onto an empty folder, or, with `replace`, swapped with the folder there, which is
    then removed). If the block raises, the temporary folder is removed and `target` is left as
    it was. Which folders may be replaced is the caller's rule; its parent must exist."""
    import shutil
    import tempfile

    if not target.parent.is_dir():
        raise InputError(
            f"no folder {display(target.parent)}", "create it first, or check the path", path=display(target)
        )
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
        os.chmod(tmp, normal_mode(folder=True))  # mkdtemp's 0o700 -> what a new folder gets under the umask
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", WRITE_HINT, path=display(target)) from None
    old: Path | None = None
    try:
        yield tmp
        if replace and target.is_dir() and any(target.iterdir()):
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.rename(target, old / "folder")
        os.rename(tmp, target)  # onto a missing or empty folder: atomic on one file system
    except BaseException as exc:
        if old is not None and not target.exists():
            os.rename(old / "folder", target)  # put the replaced folder back
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror}", WRITE_HINT, path=display(target)) from None
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
