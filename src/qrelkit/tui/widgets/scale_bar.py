"""The key bar at the bottom of a screen: `key what` pairs, the key in bold; on the judging and
adjudication screens the scale's grades first."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from ...models import GradeScale
from ...render.styles import data

Keys = Sequence[tuple[str, str]]
"""(key, what it does) pairs, in the order shown."""


def key_text(keys: Keys) -> Text:
    """`key what` pairs two spaces apart (`what` as data: a grade's name comes from the store)."""
    bar = Text()
    for n, (key, what) in enumerate(keys):
        bar.append("  " if n else "")
        bar.append(key, style="bold")
        bar.append(" ")
        bar.append_text(data(what))
    return bar


def grade_keys(scale: GradeScale) -> list[tuple[str, str]]:
    """One key per grade of the scale, named as the scale names it."""
    return [(str(level.grade), level.name) for level in scale.every_level()]


class ScaleBar(Static):
    """The scale's grades, then the screen's other keys."""

    def __init__(self, scale: GradeScale, keys: Keys, *, id: str = "keys") -> None:
        super().__init__(key_text([*grade_keys(scale), *keys]), id=id)
