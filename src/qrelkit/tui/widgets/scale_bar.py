"""The key bar at the bottom of a screen: `key what` pairs, the key in bold; on the judging and
adjudication screens the scale's grades first. When the scale defines its grades (the rubric,
`init --level` / `policy --level`) and the terminal has room (`RUBRIC_MIN`: not at 80x24), the
grades are shown with their definitions, on at most `RUBRIC_LINES` lines above the other keys
("2 relevant: answers the question"); otherwise by name only."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.widgets import Static

from ...models import GradeLevel, GradeScale
from ...render.styles import data

Keys = Sequence[tuple[str, str]]
"""(key, what it does) pairs, in the order shown."""

RUBRIC_MIN = (100, 30)
"""The terminal size (columns, rows) from which the grades' definitions are shown beside their keys."""
RUBRIC_LINES = 2
"""At most this many lines of grades with their definitions (else they are cut, or left out)."""
BUDGETS = (None, 60, 45, 32, 24)
"""The longest definition shown, tried in turn until the grades fit (None: whole)."""
GAP = 3


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


def _cell(level: GradeLevel, budget: int | None) -> Text:
    """`2 relevant: answers the question`, the definition cut to `budget` cells."""
    cell = Text.assemble((str(level.grade), "bold"), " ", data(level.name))
    if level.definition:
        definition = data(level.definition, "italic")
        if budget is not None and definition.cell_len > budget:
            definition.truncate(budget, overflow="ellipsis")
        cell.append_text(Text.assemble(": ", definition))
    return cell


def rubric(scale: GradeScale, width: int) -> Text | None:
    """The grades with their definitions in aligned columns, at most `RUBRIC_LINES` lines of
    `width` cells; None when the scale defines no grade or they cannot fit (then names only)."""
    if scale.max_grade > 9:  # a key per digit: longer scales type digits, their names are on G
        return None
    levels = scale.every_level()
    if not any(level.definition for level in levels):
        return None
    for budget in BUDGETS:
        cells = [_cell(level, budget) for level in levels]
        for columns in range(len(cells), 0, -1):
            if -(-len(cells) // columns) > RUBRIC_LINES:
                break
            widths = [max(c.cell_len for c in cells[col::columns]) for col in range(columns)]
            if sum(widths) + GAP * (columns - 1) <= width:
                return _grid(cells, columns, widths)
    return None


def _grid(cells: list[Text], columns: int, widths: list[int]) -> Text:
    lines = []
    for start in range(0, len(cells), columns):
        line = Text()
        for col, cell in enumerate(cells[start : start + columns]):
            line.append_text(cell)
            if start + col + 1 < min(len(cells), start + columns):
                line.append(" " * (widths[col] - cell.cell_len + GAP))
        lines.append(line)
    return Text("\n").join(lines)


class ScaleBar(Static):
    """The scale's grades, then the screen's other keys; with room, the grades' definitions too."""

    def __init__(self, scale: GradeScale, keys: Keys, *, id: str = "keys") -> None:
        super().__init__(key_text([*grade_keys(scale), *keys]), id=id)
        self.scale = scale
        self.keys = list(keys)
        self.with_rubric = False
        """Whether the grades are shown with their definitions now."""

    def on_resize(self, event: events.Resize) -> None:
        self.fit()

    def fit(self) -> None:
        """Show the definitions when the terminal has room for them (`RUBRIC_MIN`), names otherwise."""
        columns, rows = self.app.size
        room = columns >= RUBRIC_MIN[0] and rows >= RUBRIC_MIN[1]
        grades = rubric(self.scale, self.content_size.width) if room else None
        self.with_rubric = grades is not None
        if grades is None:
            self.update(key_text([*grade_keys(self.scale), *self.keys]))
        else:
            self.update(Text.assemble(grades, "\n", key_text(self.keys)))
