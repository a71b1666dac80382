"""The first module `qrelkit` runs, light on purpose: the command table (`COMMANDS`, `SUMMARIES`,
`PLUGINS`) and the root group's texts, which `app.py` builds the click group from, and `answer`,
which prints `qrelkit --version` and `qrelkit --help` from them without importing click (~25 ms)
or anything of qrelkit's; every other command line goes to the click group. What `answer` prints
is byte for byte what click prints, at every terminal width (tests/test_startup.py)."""

from __future__ import annotations

import os
import sys

from .. import __version__

COMMANDS = {
    "init": "setup",
    "policy": "setup",
    "strata": "setup",
    "profiles": "setup",
    "queries": "content",
    "docs": "content",
    "removals": "content",
    "import": "imports",
    "status": "status",
    "agreement": "status",
    "assess": "assess",
    "calibrate": "calibrate",
    "flags": "status",
    "pool": "pooling",
    "queue": "pooling",
    "assign": "pooling",
    "export": "export",
    "score": "score",
    "compare": "compare",
    "sensitivity": "compare",
    "settled": "settled",
    "freeze": "versions",
    "verify": "versions",
    "diff": "versions",
    "schemas": "versions",
    "demo": "demo",
    "reports": "reports",
    "serve": "serve",
}
"""Command -> the module of this package that defines it (in its `COMMANDS`); a module is
imported only when one of its commands runs, so every command starts without the others'
imports (`tests/test_cli.py` holds this table equal to the modules)."""

SUMMARIES = {
    "agreement": "Agreement between assessors (kappa, alpha) on shared pairs.",
    "assess": "Label pairs with a machine assessor, apart from human labels.",
    "calibrate": "How far a machine assessor agrees with the humans.",
    "assign": "Have several assessors judge the same sampled pairs.",
    "compare": "Compare two runs, or a leaderboard, with paired tests.",
    "demo": "Load the bundled pydocs golden set and report on it.",
    "diff": "What changed between two frozen versions.",
    "docs": "The documents: list, show, remove.",
    "export": "Export the labels (qrels), the log, Hub or Label Studio files.",
    "flags": "Assessors' flags on queries that cannot be judged.",
    "freeze": "Freeze the store as a content-hashed version folder.",
    "import": "Import queries, documents, qrels, judgments, or a whole set.",
    "init": "Create the store, or change its name, scale and policy.",
    "judge": "Judge documents in the terminal UI.",
    "policy": "Show or set how disagreeing votes resolve.",
    "pool": "Pool the unlabeled documents in runs' top K.",
    "profiles": "Scoring profiles: a consumer's metrics and strata.",
    "queries": "The queries: list, show, remove.",
    "queue": "The pooled pairs in judging order.",
    "removals": "What `remove` commands took out: when, by whom, what.",
    "reports": "Reports kept by `score --save` and `compare --save`.",
    "schemas": "JSON Schemas of qrelkit's files.",
    "score": "Score runs, with coverage and bounds per number.",
    "sensitivity": "How sensitive each metric is on this golden set.",
    "settled": "Whether any labeling could still change B - A.",
    "serve": "Serve the judging UI to browsers, behind tokens.",
    "status": "Counts of queries, documents and labels per stratum.",
    "strata": "Query strata and their traffic weights.",
    "verify": "Check a frozen version against its manifest.",
}
"""Command -> the line `qrelkit --help` lists it with (also its `short_help`): the list is written
without importing a command's module (nor click, see `answer`)."""
PLUGINS = frozenset({"judge"})
"""The `qrelkit.commands` entry points of qrelkit itself (another package's plug-in runs when
named, and is not listed)."""

PROG = "qrelkit"
ROOT_HELP = "Golden sets for retrieval evaluation: judge, version and score with coverage."
"""The root group's help (its docstring in click's terms): one paragraph, one line."""
DB_HELP = "The golden-set store (a SQLite file)."
DB_ENVVAR = "QRELKIT_DB"
DB_DEFAULT = "qrelkit.db"
VERSION_LINE = f"{PROG}, version {__version__}"
"""What `qrelkit --version` prints: click's `version_option` message."""
_OPTIONS = (
    ("--db FILE", f"{DB_HELP}  [env var: {DB_ENVVAR}; default: {DB_DEFAULT}]"),
    ("--version", "Show the version and exit."),
    ("-h, --help", "Show this message and exit."),
)
"""The root's options as click's help lists them (`Option.get_help_record`): the tests compare."""


def answer(args: list[str]) -> str | None:
    """The text of `qrelkit ARGS` when ARGS is exactly `--version`, `--help` or `-h` (the root's,
    no command), else None: the command line is click's. Shell completion (click's
    `_QRELKIT_COMPLETE`) is always click's."""
    if len(args) != 1 or "_QRELKIT_COMPLETE" in os.environ:
        return None
    if args[0] == "--version":
        return VERSION_LINE
    if args[0] in ("--help", "-h"):
        return root_help(help_width())
    return None


def help_width() -> int:
    """The width click's HelpFormatter wraps help to: the terminal's columns, at most 80, less 2,
    and at least 50. The columns as `shutil.get_terminal_size()` finds them (not imported: it
    loads re, bz2 and lzma): COLUMNS when a positive integer, else the terminal of standard output,
    else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return max(min(columns, 80) - 2, 50)


def root_help(width: int) -> str:
    """`qrelkit --help` as click's HelpFormatter writes it at `width` (without the final newline):
    usage, the help paragraph, the options, the commands, each list in two columns."""
    commands = sorted({*COMMANDS, *PLUGINS})
    parts = [
        *_wrap("[OPTIONS] COMMAND [ARGS]...", width, f"Usage: {PROG} ", " " * len(f"Usage: {PROG} ")),
        "",
        *_wrap(ROOT_HELP, width, "  ", "  "),
        "",
        "Options:",
        *_definitions(_OPTIONS, width),
        "",
        "Commands:",
        *_definitions([(name, SUMMARIES.get(name, "")) for name in commands], width),
    ]
    return "\n".join(parts)


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    import textwrap

    return textwrap.TextWrapper(width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False).wrap(
        text
    )


def _definitions(rows: tuple[tuple[str, str], ...] | list[tuple[str, str]], width: int) -> list[str]:
    """A two-column list indented by 2: terms padded to the longest (at most 30) plus 2, the
    text wrapped beside them (click's `write_dl`)."""
    column = min(max(len(term) for term, _ in rows), 30) + 2
    lines = []
    for term, text in rows:
        wrapped = _wrap(text, max(width - column - 2, 10))
        if not wrapped:
            lines.append(f"  {term}")
            continue
        if len(term) <= column - 2:
            lines.append(f"  {term}{' ' * (column - len(term))}{wrapped[0]}")
        else:
            lines += [f"  {term}", f"{' ' * (column + 2)}{wrapped[0]}"]
        lines += [f"{' ' * (column + 2)}{line}" for line in wrapped[1:]]
    return lines
