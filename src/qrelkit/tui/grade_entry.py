"""Grade keys: one digit is a grade on a scale of at most ten grades; on a longer scale (top grade
above 9) digits add up to a number (`1`, `2` -> 12), committed by enter or as soon as no further
digit could make a grade on the scale (`3` on a 0-12 scale). A pending digit waits, shown, for
the next key however long it takes: a pause no longer commits it (a 1.1 s pause between the digits
of 12 recorded two grades, 1 and 2).

A digit that would make a number above the top grade cancels what was typed: nothing is
recorded that the assessor did not type as a whole (`1`, `5` on a 0-12 scale is not taken as
grade 1 followed by grade 5).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import Enum

from textual import events
from textual.widget import Widget


class Typed(Enum):
    """What a digit did."""

    COMMIT = "commit"
    """A whole grade: record it now."""
    WAIT = "wait"
    """Part of a grade: wait for another digit or enter."""
    REFUSED = "refused"
    """No such grade: nothing is recorded, what was typed is dropped."""


@dataclass
class GradeEntry:
    """The digits typed towards a grade on a scale 0..`max_grade`."""

    max_grade: int
    typed: str = ""

    @property
    def multi_digit(self) -> bool:
        return self.max_grade > 9

    def extendable(self, digits: str) -> bool:
        """Whether one more digit could still make a grade on the scale (no leading zeros)."""
        return digits != "0" and int(digits) * 10 <= self.max_grade

    def press(self, digit: str) -> tuple[Typed, int | None]:
        """One digit key: the grade to record now (COMMIT), or WAIT, or REFUSED."""
        digits = self.typed + digit
        if int(digits) > self.max_grade:
            self.typed = ""
            return Typed.REFUSED, None
        if self.multi_digit and self.extendable(digits):
            self.typed = digits
            return Typed.WAIT, None
        self.typed = ""
        return Typed.COMMIT, int(digits)

    def commit(self) -> int | None:
        """Enter: the grade typed so far (None: nothing typed)."""
        digits, self.typed = self.typed, ""
        return int(digits) if digits else None

    def back(self) -> None:
        """Backspace: drop the last digit typed."""
        self.typed = self.typed[:-1]

    def cancel(self) -> None:
        self.typed = ""


class GradeKeys:
    """A screen's grade keys (`GradeEntry`): `commit(grade)` records a grade, `show(typed)` shows
    the digits typed so far, `target()` names what is being graded (what was typed is saved only if
    the screen still shows that when it is committed)."""

    def __init__(
        self,
        screen: Widget,
        max_grade: int,
        commit: Callable[[int], None],
        show: Callable[[str], None],
        target: Callable[[], Hashable],
    ) -> None:
        self.screen = screen
        self.entry = GradeEntry(max_grade)
        self.commit_grade, self.show, self.target = commit, show, target
        self._typed_on: Hashable = None

    def key(self, event: events.Key) -> None:
        """A digit is a grade key; while digits are typed, enter saves them, backspace drops
        one, esc cancels, and any other key cancels them before doing what it does."""
        char = event.character
        if char is not None and len(char) == 1 and char.isdigit():
            event.stop()
            self.digit(char)
        elif self.entry.typed:
            if event.key in ("enter", "backspace", "escape"):
                event.stop()
            if event.key == "enter":
                self.commit()
            elif event.key == "backspace":
                self.entry.back()
                self.show(self.entry.typed)
            else:
                self.cancel()

    def digit(self, char: str) -> None:
        attempt = self.entry.typed + char
        typed, grade = self.entry.press(char)
        if typed is Typed.COMMIT and grade is not None:
            if attempt != char:
                self.show("")
            self.commit_grade(grade)
            return
        if typed is Typed.WAIT:
            if len(self.entry.typed) == 1:
                self._typed_on = self.target()
        else:
            top = self.entry.max_grade
            self.screen.notify(f"no grade {attempt} on this scale (0-{top}): nothing saved", severity="warning")
        self.show(self.entry.typed)

    def commit(self) -> None:
        """enter: save the grade typed, if the screen still shows what it was typed on."""
        grade = self.entry.commit()
        self.show("")
        if grade is None:
            return
        if self.target() != self._typed_on:
            self.screen.notify(f"the screen moved on while {grade} was typed: nothing saved", severity="warning")
            return
        self.commit_grade(grade)

    def cancel(self) -> None:
        self.entry.cancel()
        self.show("")
