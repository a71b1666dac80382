"""The root `qrelkit` group: the --db option, errors as one line and exit status 2, and the
commands of every module of this package (plus `judge`, which the terminal UI registers under the
`qrelkit.commands` entry point, loaded only when asked for)."""

from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import click

from .. import __version__
from ..errors import InternalError, QrelkitError
from .entry import COMMANDS, DB_DEFAULT, DB_ENVVAR, DB_HELP, PLUGINS, PROG, ROOT_HELP, SUMMARIES

__all__ = ["COMMANDS", "PLUGINS", "SUMMARIES", "cli", "main"]


class QrelkitGroup(click.Group):
    """A click group that turns `QrelkitError` and click's usage errors into a one-line message and
    exit status 2, and finds plug-in commands (the terminal UI's `judge`)."""

    def _plugins(self) -> dict[str, Any]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group="qrelkit.commands")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS, *PLUGINS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or ctx.parent is not None:
            return found
        if cmd_name in COMMANDS:
            return command(cmd_name)
        plugin = self._plugins().get(cmd_name)
        if plugin is None:
            return None
        loaded: click.Command = plugin.load()
        loaded.short_help = SUMMARIES.get(cmd_name, loaded.short_help)
        return loaded

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from `SUMMARIES`, no module imported."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, SUMMARIES.get(name, "")) for name in self.list_commands(ctx)])

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as exc:  # the root's own options: --db, --version
            raise refused(exc, info_name or "qrelkit") from None

    def invoke(self, ctx: click.Context) -> Any:
        from ._common import err, print_error, progress_bar  # rich loads once a command runs

        try:
            with progress_bar():
                return super().invoke(ctx)
        except click.ClickException as exc:  # no such command, a bad option or value of a command
            raise refused(exc) from None
        except InternalError as exc:  # a check caught a wrong result: nothing is reported
            print_error(exc)
            ctx.exit(3)
        except QrelkitError as exc:
            print_error(exc)
            ctx.exit(2)
        except _store_error() as exc:  # met while iterating rows (the store names the others)
            print_error(
                QrelkitError(
                    f"the store failed while reading ({exc})",
                    "check it with PRAGMA integrity_check, or load the last frozen version into a new --db",
                )
            )
            ctx.exit(2)
        except BrokenPipeError:  # `qrelkit export qrels | head`: the reader has all it wanted
            quiet_stdout()
            ctx.exit(0)
        except OSError as exc:  # a file system refusal the layers below did not name themselves
            where = f"{exc.filename}: " if exc.filename else ""
            print_error(QrelkitError(f"{where}{exc.strerror or exc}", "check the path and its permissions"))
            ctx.exit(2)
        except MemoryError:
            print_error(QrelkitError("out of memory", "the input is larger than this machine can hold; split it"))
            ctx.exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            ctx.exit(130)


class _NoStore(Exception):
    """Raised by nothing: what `except` names while sqlite3 is not loaded."""


def _store_error() -> type[Exception]:
    """sqlite3's DatabaseError once a command has loaded sqlite3 (else nothing can raise it)."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3.DatabaseError if sqlite3 is not None else _NoStore


def refused(exc: click.ClickException, command_path: str = "qrelkit") -> click.ClickException | click.exceptions.Exit:
    """Click's own error (a usage error, a bad value) printed as one line, `error: ... (hint:
    ...)`, through `print_error`: the message quotes the user's arguments, which must not drive
    the terminal either. What to raise next: the exit (status 2 for a usage error), or `exc`
    itself when it is the help a group prints when run without a command."""
    if isinstance(exc, click.exceptions.NoArgsIsHelpError):
        return exc
    from ._common import print_error

    hint = None
    if isinstance(exc, click.UsageError):
        hint = f"see `{exc.ctx.command_path if exc.ctx is not None else command_path} --help`"
    print_error(QrelkitError(exc.format_message(), hint))
    return click.exceptions.Exit(exc.exit_code)


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit cannot fail again."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def command(name: str) -> click.Command:
    """The command `name`, from its module (imported now)."""
    from importlib import import_module

    module = import_module(f".{COMMANDS[name]}", __package__)
    found: dict[str, click.Command] = {c.name or "": c for c in module.COMMANDS}
    found[name].short_help = SUMMARIES[name]
    return found[name]


@click.group(cls=QrelkitGroup, help=ROOT_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DB_DEFAULT,
    envvar=DB_ENVVAR,
    show_default=True,
    show_envvar=True,
    help=DB_HELP,
)
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
def cli(ctx: click.Context, db: Path) -> None:
    """The root group (its help is `entry.ROOT_HELP`, which `qrelkit --help` prints without click)."""
    ctx.obj = {"db": db}


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """The `qrelkit` program. SIGTERM is handled as Ctrl-C: a KeyboardInterrupt, so what a command
    was writing is cleaned up (temporary files and version folders) and it exits 130."""
    signal.signal(signal.SIGTERM, _terminated)
    # qrelkit's models use no pydantic plugin, and looking for one reads every installed package's
    # entry points (~30 ms, at the first model a command builds). A value set beforehand is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # numpy's OpenBLAS starts a thread per core at import (~70 ms of CPU on 2 cores, before any
    # work); qrelkit does no linear algebra (no BLAS call large enough to use them). Kept if set.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        cli(prog_name=PROG)
    finally:
        # The interpreter's last garbage collections at exit walk every object the imports made
        # (pydantic's schemas, numpy, click): ~35 ms of a 10-line `score`'s ~210. Frozen objects
        # are left out of them; what the command wrote is already closed, and exit still flushes
        # standard output and runs atexit handlers.
        gc.freeze()
