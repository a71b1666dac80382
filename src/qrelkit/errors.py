"""Every error qrelkit raises on purpose.

    QrelkitError(message, hint)
    ├── InputError      a file or value given by the user is malformed (names file and line)
    ├── StoreError      the golden-set store refuses an operation or is in a bad state
    │   ├── StoreBusy   another process holds the store's write lock past the wait
    │   └── NotInGoldenSet  an event for a query or document that is not (or no longer) in the set
    ├── ScoringError    a metric name, cutoff or run cannot be scored as asked
    ├── VersionError    a frozen version is missing, altered or not comparable
    ├── UsageError      a combination of options or arguments that cannot work
    └── InternalError   qrelkit caught itself computing something inconsistent (a bug, exit 3)

The core raises; only the edges (`cli/`, `tui/`) turn these into messages and exit codes.
"""

from __future__ import annotations


class QrelkitError(Exception):
    """Base class of every error qrelkit raises on purpose."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class InputError(QrelkitError):
    """A user-supplied file or value is malformed."""

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        *,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message, hint)
        self.path = path
        self.line = line


class StoreError(QrelkitError):
    """The golden-set store refuses an operation or is in a bad state."""


class StoreBusy(StoreError):
    """Another process held the store's write lock for longer than this one would wait."""


class NotInGoldenSet(StoreError):
    """An event for a query the golden set lacks, or a document removed from it: nothing recorded."""


class ScoringError(QrelkitError):
    """A metric, cutoff or run cannot be scored as asked."""


class VersionError(QrelkitError):
    """A frozen version is missing, altered, or not comparable with another."""


class UsageError(QrelkitError):
    """A combination of options or arguments that cannot work."""


class InternalError(QrelkitError):
    """A check inside qrelkit failed: what it computed is inconsistent, so it reports nothing rather
    than a number that may be wrong. A bug; the edges exit with status 3."""


class NothingToRetract(UsageError):
    """A retraction by an assessor who has no vote on the pair: nothing recorded."""


class NotAdjudicator(UsageError):
    """An adjudication action (settle, clear) by a session without the adjudicator role: nothing recorded."""
