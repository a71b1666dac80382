"""Presentation shared by both edges: models in, text out (tables, HTML, styles). No click, no
global console: callers say how wide and whether in colour.

    styles            colours, number cells, untrusted text as plain text
    score             score reports (table, JSON, TREC, CSV)
    trec_eval         score reports as trec_eval prints them
    queries           the sentences about which queries count (missing, unlabeled)
    compare           a comparison as a table
    leaderboard       a leaderboard and a sensitivity report: tables, CSV, LaTeX
    tables            status, strata, profiles, queue, run coverage, agreement, version diff
    html              a comparison as one self-contained HTML page
    html_leaderboard  a leaderboard as one self-contained HTML page
    calibration       a calibration report (`qrelkit calibrate`) as tables
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import RenderableType


def text(renderable: RenderableType, *, width: int = 120, color: bool = False) -> str:
    """What `renderable` prints as on a console `width` wide (with ANSI colours when `color`)."""
    from rich.console import Console  # rich loads when something is drawn: JSON, TREC and CSV need none

    console = Console(width=width, force_terminal=color, no_color=not color, highlight=False, soft_wrap=False)
    with console.capture() as cap:
        console.print(renderable)
    return cap.get()
