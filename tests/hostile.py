"""Hostile strings for the tests that hold untrusted text (query text, guidelines, documents,
notes, ids, assessor, stratum, golden-set, run and file names) to plain, visible text.

`TEXT` is for free-text fields and takes everything: Rich markup, terminal escape sequences,
C0 and C1 control characters, a bidi override, a very long string. `IDS` holds only what an id
may carry (no white space, no C0 control character): markup. `shown(s)` is what a screen or a
table must show for `s` (`qrelkit.render.styles.visible`: every control character but tab and
newline written as `\\xNN`), and `ESCAPES` the raw sequences from the corpus whose bytes must
never reach a terminal.
"""

from __future__ import annotations

from qrelkit.render.styles import visible

MARKUP: dict[str, str] = {
    "close_all": "[/]",
    "open_bold": "[bold]x",
    "close_named": "[/x]",
    "click_action": "[@click=app.quit]q",
    "file_link": "[link=file:///etc/passwd]x[/link]",
    "nested": "[red][bold]a[/red]b[/bold]",
    "escaped_bracket": "\\[not markup]",
}
"""Rich markup: a bare close tag (a MarkupError if parsed), styles, an action, a link."""

ESCAPE_SEQUENCES: dict[str, str] = {
    "clear_screen": "\x1b[2J",
    "window_title": "\x1b]0;pwned\x07",
    "osc8_link": "\x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\",
    "cursor_up_erase": "\x1b[1A\x1b[2K",
    "c1_csi": "\x9b2J",
    "c1_osc": "\x9d0;pwned-c1\x9c",
}
"""Terminal escape sequences: clear the screen, set the window title, an OSC 8 hyperlink, move
the cursor up and erase the line, and the same through 8-bit C1 controls."""

CONTROL: dict[str, str] = {
    "carriage_return": "safe\rEVIL",
    "nul": "a\x00b",
    "backspace": "ab\x08\x08XY",
    "bell": "ding\x07",
    "delete": "a\x7fb",
    "bidi_override": "abc\u202edcba",
}
"""Single control characters: a carriage return that overwrites the line, NUL, backspace, bell,
DEL; and a right-to-left override (shown as `\\u202e`: it would reorder what a line reads)."""

LONG = "[bold]" + "long " * 2_000 + "\x1b[2J" + "[/]" * 50
"""A very long string (10 kB) with markup and an escape inside."""

TEXT: dict[str, str] = {**MARKUP, **ESCAPE_SEQUENCES, **CONTROL, "long": LONG}
"""Every hostile free text, by a short name."""

ALL_IN_ONE = " ".join(v for k, v in TEXT.items() if k != "long")
"""Every hostile free text but the long one, in one string (for a field there is one of)."""

IDS: dict[str, str] = {
    "q_close": "q[/]1",
    "q_bold": "q[bold]2",
    "q_link": "q[link=file:///etc/passwd]3[/link]",
    "d_click": "d[@click=app.quit]",
    "d_close_named": "d[/x]",
    "d_plain": "d-plain",
}
"""Ids the store accepts: no white space, no control character, but markup."""

BAD_IDS: dict[str, str] = {
    "c1_csi": "q\x9b2J",
    "c1_osc": "d\x9d0;pwned-c1\x9c",
    "next_line": "a\x85b",
    "bidi_override": "abc\u202edcba",
    "escape": "a\x1b[2Jb",
    "delete": "a\x7fb",
}
"""Ids every entry refuses (`models.Identifier`, `formats.ids.check_id`): C1 controls (a CSI or an
OSC), NEL, a right-to-left override, an escape sequence, DEL."""

STRATA: dict[str, str] = {"s_close": "s[/]", "s_bold": "s[bold]x", "s_click": "s[@click=app.quit]"}
"""Stratum names (ids too)."""

ESCAPES: tuple[str, ...] = (
    "\x1b[2J",
    "\x1b]0;pwned",
    "\x1b]8;;http://x",
    "\x1b[1A",
    "\x1b[2K",
    "\x9b",
    "\x9d",
    "\x07",
    "\x00",
    "\x08",
    "\x7f",
    "\r",
)
"""Raw sequences from the corpus that must never be written to a terminal (nor `\\r`, which
overwrites what a line showed)."""


def shown(text: str) -> str:
    """What a screen, a table or a message shows for `text`: control characters as `\\xNN`."""
    return visible(text)


def leaked(output: str) -> list[str]:
    """The raw sequences of `ESCAPES` found in `output` (text output of a command, which has no
    colour: any escape there came from data)."""
    return [e for e in ESCAPES if e in output]
