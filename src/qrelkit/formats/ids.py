"""The one id rule of every reader, and the one refusal of a repeated (query, document) pair."""

from __future__ import annotations

import re

from ..errors import InputError

MAX_ID_LENGTH = 1024
"""The longest query, document or stratum id."""
_BAD_ID = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")
"""C0, DEL, C1 and the invisible direction controls: an id must read as what it is."""


def check_id(value: str, what: str, path: str | None, line: int | None) -> str:
    """An id as read from a file: not too long, no control characters or white space (TREC files
    are white-space separated), not starting with `#` (a TREC comment). The one id rule of every
    reader, the same as `models.Identifier`. (`path` None: the error names no place; the caller
    says where.)"""
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


def refuse_repeat(
    seen: dict[tuple[str, str], int], key: tuple[str, str], lineno: int, message: str, hint: str, path: str
) -> None:
    """Remember the line of each (query, doc) pair; a second one is an error naming both lines."""
    first = seen.setdefault(key, lineno)
    if first != lineno:
        raise InputError(f"{message} (first on line {first})", hint, path=path, line=lineno)
