"""How a file is named: a path, standard input (`-`), and a path as text for messages."""

from __future__ import annotations

import os

MANIFEST = "manifest.json"
"""The file that makes a folder a frozen version (`versioning.folders` writes it; `--out` is refused
inside such a folder without importing the version code)."""

PathLike = str | os.PathLike[str]

STDIN = "-"
"""The path that names standard input: a run or qrels file piped in (`qrelkit score -`)."""
STDIN_NAME = "<stdin>"


def is_stdin(path: PathLike) -> bool:
    return os.fspath(path) == STDIN


def display(path: PathLike) -> str:
    """How a path is named in messages (`<stdin>` for `-`), as text (`as_text`)."""
    return STDIN_NAME if is_stdin(path) else as_text(os.fspath(path))


def as_text(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (which Python keeps as lone surrogates, and
    which no JSON, CSV or terminal can encode) written as `\\xNN`."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
