"""Presentation rules both edges share: colours of directions and diagnoses, number cells, and
the one way untrusted text (ids, names, query and document text, notes) becomes something to show:
a `rich.text.Text`, never markup, with control characters made visible."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..models import Diagnosis, Direction

if TYPE_CHECKING:  # rich loads when a cell is made: a command printing JSON never imports it
    from rich.table import Column
    from rich.text import Text

DIAGNOSIS_STYLE: dict[Diagnosis, str] = {
    Diagnosis.STABLE: "green",
    Diagnosis.IMPROVED: "green",
    Diagnosis.ORDERING: "yellow",
    Diagnosis.EARLY_WARNING: "yellow",
    Diagnosis.UPSTREAM: "red",
}
"""The colour of each diagnosis (terminal and dashboard; the HTML page has its own palette)."""

VERDICT: dict[Direction, str] = {"down": "falls", "up": "rises", "flat": "holds"}
"""How a tile names the direction of its delta."""

DIRECTION_STYLE: dict[Direction, str] = {"down": "red", "up": "green", "flat": ""}
"""The colour of a delta by its direction."""

LOW_COVERAGE = 0.9
"""Coverage under this (or under --min-coverage) is flagged."""

_BEYOND_C0 = r"\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069"
_CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")
"""C0 (but tab and newline), DEL, C1, and the invisible direction and line controls (a right-to-left
override can make `evil.txt` read as `txt.live`)."""


def visible(text: str) -> str:
    """`text` with every control character (escape sequences, bells, carriage returns...) written
    as a visible escape (`\\x1b`), so that data cannot drive the terminal."""
    return _CONTROL.sub(_escape, text)


_CONTROL_OR_BREAK = re.compile(rf"[\x00-\x1f{_BEYOND_C0}]")
"""`_CONTROL`, tab and newline included."""


def one_line(text: str) -> str:
    """`text` as `visible` writes it, its tabs and newlines written visibly too (`\\x0a`): data
    that must stay on one line of a file whose lines mean something (a LaTeX tabular row)."""
    return _CONTROL_OR_BREAK.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection)."""


def csv_cell(text: object) -> str:
    """A text cell of a CSV file (a run, query, metric or stratum name) as a spreadsheet shows it:
    one starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, OWASP's
    rule, so that it is never run as a formula. Numbers qrelkit computes are written as they are
    (a negative delta stays a number)."""
    cell = str(text)
    return "'" + cell if cell.startswith(_FORMULA_START) else cell


def data(text: object, style: str = "") -> Text:
    """Untrusted text as plain text: no markup is parsed, control characters are made visible."""
    from rich.text import Text

    return Text(visible(str(text)), style=style)


def column(header: object) -> Column:
    """A table column whose header comes from data (a stratum, a metric, an assessor pair)."""
    from rich.table import Column

    return Column(header=data(header))


def number(x: float | None, digits: int = 3, *, sign: bool = False) -> str:
    """A number with `digits` decimals (a sign with `sign`), or `-` when there is none."""
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def percent(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}%}"


def interval(ci: tuple[float, float] | None, digits: int = 3, *, sign: bool = False) -> str:
    """`[lo, hi]` (signed with `sign`), or `-`."""
    if ci is None:
        return "-"
    return f"[{number(ci[0], digits, sign=sign)}, {number(ci[1], digits, sign=sign)}]"


def coverage_cell(cov: float | None, threshold: float = LOW_COVERAGE) -> Text:
    """A coverage percentage, flagged with `!` under the threshold; `n/a` when undefined."""
    from rich.text import Text

    if cov is None:
        return Text("n/a", style="dim")
    if cov < threshold:
        return Text(f"{cov:.0%} !", style="bold yellow")
    return Text(f"{cov:.0%}")


def delta(value: float, direction: Direction, digits: int = 4) -> Text:
    """A signed delta, coloured by its direction."""
    from rich.text import Text

    return Text(f"{value:+.{digits}f}", style=DIRECTION_STYLE[direction])
