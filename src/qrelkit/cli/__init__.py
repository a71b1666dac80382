"""The `qrelkit` command line: thin. Each command parses its options, calls one workflow
(`qrelkit.workflows`), renders what comes back (`qrelkit.render`) and sets the exit status. The
root group imports a command's module only when that command runs (`entry.COMMANDS`); `judge` is
the terminal UI's, found through the `qrelkit.commands` entry point. `qrelkit --version` and
`qrelkit --help` are answered by `entry.py` without importing click (`main` below).

    entry.py     the command table and the root's texts; --version and --help without click
    app.py       the root group: --db, plug-ins, errors as one line (exit 2 or 3)
    _common.py   consoles, the store, progress, errors, outputs, shared options
    setup.py     init, policy, strata, profiles
    content.py   queries list / remove, docs remove, removals
    imports.py   import queries / docs / qrels / judgments / beir / version (and hub)
    irds.py      import ir-datasets (loaded only when it runs)
    label_studio.py  import / export label-studio
    status.py    status, agreement
    pooling.py   pool, queue, assign
    assess.py    assess: machine assessors' labels (kept apart from the human log)
    calibrate.py  calibrate: a machine assessor's labels against the humans'
    export.py    export qrels / judgments (and hub)
    hub.py       export hub, import hub: Hugging Face dataset folders (added to those two groups)
    score.py     score
    compare.py   compare (two runs or a leaderboard), sensitivity
    settled.py   settled: can any labeling still change B - A
    reports.py   reports list / show (kept with --save)
    versions.py  freeze, verify, diff, schemas
    demo.py      demo
    serve.py     serve, serve token add / list / revoke
    _server.py   serve's web server: textual-serve behind the access tokens
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click


def main() -> None:
    """The `qrelkit` program (its console script): `qrelkit --version` and `qrelkit --help` are
    printed from `entry.py`, every other command line runs the click group (`app.main`)."""
    import sys

    from .entry import answer

    text = answer(sys.argv[1:])
    if text is None:
        from .app import main as run

        run()
        return
    if sys.stdout is None:  # standard output closed (`qrelkit --help >&-`): nothing to write to, as click
        return
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `qrelkit --help | head -0`: as click does, quietly, exit status 1
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def __getattr__(name: str) -> click.Group:
    # `from qrelkit.cli import cli`: the click group, imported at its first use (not by `main`)
    if name == "cli":
        from .app import cli

        return cli
    raise AttributeError(name)


__all__ = ["cli", "main"]
