"""JSON read safely: no key given twice in one object, no number too long to convert."""

from __future__ import annotations

import re
from typing import Any


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
