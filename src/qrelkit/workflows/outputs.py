"""Where a command may write: never over the store it works on, nor over (or into) any of its
inputs, however the path is spelled (relative, through a link, with `..`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from ..formats.paths import MANIFEST

STORE_SIDECARS = ("", "-wal", "-shm", "-journal")
"""The files SQLite keeps for a store `PATH`: `PATH`, `PATH-wal`, `PATH-shm`, `PATH-journal`."""


def _same(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def check_output(out: Path, *, store: Path | None, inputs: Iterable[Path | None] = ()) -> None:
    """Refuse `out` when it is the store (or one of its SQLite files), an input, or a file inside
    an input folder (a frozen version); a usage error naming both, exit 2, nothing written."""
    if store is not None:
        for suffix in STORE_SIDECARS:
            if _same(out, store.with_name(store.name + suffix)):
                raise UsageError(
                    f"--out {out} is the store ({store}): writing there would replace it",
                    "write to another file",
                )
    for source in inputs:
        if source is None:
            continue
        if _same(out, source):
            raise UsageError(f"--out {out} is an input of this command ({source})", "write to another file")
        if source.is_dir() and out.resolve().is_relative_to(source.resolve()):
            raise UsageError(
                f"--out {out} is inside the input folder {source} (a frozen version stays as frozen)",
                "write outside it",
            )
    refuse_inside_version(out, "--out")


def frozen_version_holding(path: Path) -> Path | None:
    """The frozen version folder `path` is (or lies inside), if any: a folder holding a version
    manifest (`manifest.json` with a `content_hash`), however `path` is spelled."""
    for folder in [path.resolve(), *path.resolve().parents]:
        manifest = folder / MANIFEST
        if manifest.is_file():
            try:
                with manifest.open("rb") as fh:
                    if b'"content_hash"' in fh.read(1 << 20):
                        return folder
            except OSError:
                continue
    return None


def refuse_inside_version(out: Path, option: str) -> None:
    """Refuse to write at `out` when that is inside a frozen version (any version, not only an
    input of the command): a file written there would break its manifest for good."""
    version = frozen_version_holding(out)
    if version is not None:
        raise UsageError(
            f"{option} {out} is inside the frozen version {version}: writing there would break it",
            "a version stays as frozen: write outside it (freeze a new version for new content)",
        )
