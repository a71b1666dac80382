"""Colours of the TUI's own text, as the screens have always shown them.

The screens used to write their lines as Textual markup, where `yellow` is the CSS colour
(#FFFF00). The same word in a `rich.text.Text` span is the terminal's ANSI yellow, which Textual
maps through its ANSI theme (#FD971F). Now that lines are `Text` (data never goes through markup),
`css` spells a style's colours as the CSS colours they were, so that the screens stay the same."""

from __future__ import annotations

from functools import cache

from textual.color import Color, ColorParseError


@cache
def css(style: str) -> str:
    """A Rich style with its colour names written as the CSS colours: `bold yellow` -> `bold #FFFF00`."""
    words = []
    for word in style.split():
        try:
            words.append(Color.parse(word).hex)
        except ColorParseError:  # bold, dim, italic, on ...
            words.append(word)
    return " ".join(words)
