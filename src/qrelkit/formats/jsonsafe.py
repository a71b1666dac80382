"""JSON read safely: no key given twice in one object, no number too long to convert."""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import InputError


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


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A `\\uD800`-`\\uDFFF` escape: a pair of them is one character, one alone is no text at all."""


def refuse_lone_surrogates(text: str, obj: Any, *, path: str, line: int | None = None, nested_hint: str) -> None:
    """Refuse what `text` parsed to (`obj`) when it holds a lone surrogate (`"\\ud800"`): it decodes
    to a string no UTF-8 file or SQLite text can hold. Only text with such an escape is checked."""
    if not _SURROGATE.search(text):
        return
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            "a string holds a lone surrogate escape (\\uD800-\\uDFFF without its pair)",
            "write the character itself, or both halves of its surrogate pair",
            path=path,
            line=line,
        ) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", nested_hint, path=path, line=line) from None
