"""What every command shares: the consoles, opening the store, drawing progress, printing errors,
writing output, and the options several commands take."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Union

import click

from ..errors import QrelkitError
from ..formats.trec import RUN_FORMATS
from ..models.vocabulary import SEEDS
from ..render.styles import data, visible

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

    from ..storage import Store


class LazyConsole:
    """Standard output's or error's rich `Console` (no highlighting, soft wrap), made when first
    used: a command whose output is plain text (`score --format json`) never imports rich."""

    def __init__(self, *, stderr: bool = False, console: Console | None = None) -> None:
        self.stderr = stderr
        self._console = console

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self.stderr, highlight=False, soft_wrap=True)
        return self._console

    def print(self, *objects: RenderableType) -> None:
        self.console.print(*objects)

    @property
    def width(self) -> int:
        return self.console.width

    @property
    def is_terminal(self) -> bool:
        """rich's answer. Without TTY_COMPATIBLE or FORCE_COLOR, rich asks the stream's isatty:
        so a stream that is not a terminal needs no console to say so."""
        if self._console is None and not {"TTY_COMPATIBLE", "FORCE_COLOR"} & os.environ.keys():
            with contextlib.suppress(AttributeError, ValueError):
                if not (sys.stderr if self.stderr else sys.stdout).isatty():
                    return False
        return self.console.is_terminal


out = LazyConsole()
err = LazyConsole(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def open_store(ctx: click.Context, *, create: bool = False) -> Store:
    """The store named by --db (closed when the command ends); it must exist unless `create`."""
    from ..workflows import setup  # sqlite loads only for commands that use the store

    root = ctx.find_root()
    cached: Store | None = root.obj.get("store")
    if cached is None:
        # QRELKIT_LOCK_WAIT_MS: how long a write waits for another process's lock (default 30 s)
        wait = os.environ.get("QRELKIT_LOCK_WAIT_MS", "")
        store = cached = setup.open_store(
            root.obj["db"], create=create, lock_wait_ms=int(wait) if wait.isdigit() else None
        )
        root.obj["store"] = cached
        root.call_on_close(lambda: setup.close_store(store))
    return cached


def store_opener(ctx: click.Context) -> Callable[[], Store]:
    """Opens the store only if a workflow asks for it (scoring against --qrels needs none)."""
    return lambda: open_store(ctx)


@dataclass(frozen=True)
class Data:
    """Untrusted text for `say`, drawn as `render.styles.data` draws it (never markup, control
    characters made visible) without importing rich when the console is not a terminal (`plain_line`):
    `score --out`'s `wrote PATH` and its notes."""

    text: object
    style: str = ""


Part = Union[str, "Text", tuple[str, str], Data]


def say(*parts: Part, console: LazyConsole = out) -> None:
    """Print a line made of our own words (str, or (str, style)) and data (Text, from
    `render.styles.data`, or `Data`). Our words are never markup, and their control characters are
    made visible too, in case a value from a file was formatted into them (a manifest's hash).
    To a stream that is not a terminal, a line `plain_line` can write is written without rich."""
    line = None if console.is_terminal else plain_line(parts)
    if line is not None:
        stream = sys.stderr if console.stderr else sys.stdout
        stream.write(line + "\n")
        stream.flush()
        return
    from rich.text import Text

    console.print(Text.assemble(*(_own(p) for p in parts)))


def plain_line(parts: tuple[Part, ...]) -> str | None:
    """The line rich prints for `parts` to a stream that is not a terminal (no colour, no wrap:
    the text as it is), or None when rich must draw it: a part that is already rich's `Text`, or a
    tab or newline (rich expands tabs by cell width)."""
    texts = []
    for p in parts:
        if isinstance(p, str):
            texts.append(visible(p))
        elif isinstance(p, tuple):
            texts.append(visible(p[0]))
        elif isinstance(p, Data):
            texts.append(visible(str(p.text)))
        else:
            return None
    line = "".join(texts)
    return None if "\t" in line or "\n" in line else line


def _own(part: Part) -> str | Text | tuple[str, str]:
    if isinstance(part, str):
        return visible(part)
    if isinstance(part, tuple):
        return visible(part[0]), part[1]
    if isinstance(part, Data):
        return data(part.text, part.style)
    return part


def show(renderable: RenderableType) -> None:
    out.print(renderable)


def print_error(exc: QrelkitError) -> None:
    from rich.text import Text

    line = Text.assemble(("error:", "bold red"), " ", data(exc.message))
    if exc.hint:
        line.append_text(Text.assemble(" ", data(f"(hint: {exc.hint})", "dim")))
    err.print(line)


def check_out(ctx: click.Context, out_path: Path | None, *inputs: Path | None) -> None:
    """Refuse an output path that is the store (--db) or one of the command's inputs."""
    if out_path is not None:
        from ..workflows.outputs import check_output

        check_output(out_path, store=ctx.find_root().obj["db"], inputs=inputs)


def emit(render: Callable[[int, bool], str], out_path: Path | None, *, styled: bool = True) -> None:
    """Print what `render(width, color)` returns, or write it (without colour) atomically to
    `out_path` (checked first with `check_out`). `styled=False`: the output is plain text (JSON,
    TREC lines, CSV) that takes neither width nor colour, so no console is asked for them."""
    from ..formats import atomic_write

    if out_path is None:
        # color=True: print the text as rendered (coloured only on a terminal). Else click strips
        # what looks like a colour code when stdout is not a terminal, from data too: a run named
        # `a\x1b[2J.run` would lose its `\x1b[2J` in `score --format trec` (tables show it visibly).
        click.echo(render(out.width, out.is_terminal) if styled else render(0, False), nl=False, color=True)
        return
    with atomic_write(out_path) as stream:
        stream.write(render(out.width if styled else 0, False))
    say("wrote ", Data(out_path), console=err)


@contextlib.contextmanager
def progress_bar(delay: float = 1.0) -> Iterator[None]:
    """Draw a bar on stderr (a terminal only) for whatever the layers below report, once the
    command has run for `delay` seconds: reading a large file, computing measures."""
    if not err.is_terminal:
        yield
        return
    from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

    from .. import progress

    start = time.monotonic()
    bar: Progress | None = None
    tasks: dict[str, TaskID] = {}

    def update(task: str, done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            if time.monotonic() - start < delay:
                return
            bar = Progress(
                TextColumn("{task.description}", markup=False),  # a task names a file: data
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeRemainingColumn(),
                console=err.console,
                transient=True,
            )
            bar.start()
        if task not in tasks:
            tasks[task] = bar.add_task(visible(task), total=total)
        bar.update(tasks[task], completed=done, total=total)

    try:
        with progress.reporting(update):
            yield
    finally:
        if bar is not None:
            bar.stop()


# -- options several commands take ------------------------------------------------------------


def out_option(f: F) -> F:
    return click.option(
        "--out",
        "out_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write here instead of standard output.",
    )(f)


def stratum_option(help: str) -> Callable[[F], F]:
    return click.option("--stratum", help=help)


def seed_option(help: str = "Seed of the random order.") -> Callable[[F], F]:
    return click.option("--seed", type=click.IntRange(*SEEDS), default=0, show_default=True, help=help)


def format_option(*choices: str) -> Callable[[F], F]:
    return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True)


def run_format_option(f: F) -> F:
    """--run-format: how TREC text runs are laid out (`formats.trec.RUN_FORMATS`)."""
    return click.option(
        "--run-format",
        type=click.Choice(RUN_FORMATS),
        default="auto",
        show_default=True,
        help="TREC text runs' layout: trec (qid Q0 docid rank score tag), scores (qid docid score), msmarco"
        " (qid pid rank: ranked by rank); auto tells from each file (3 fields whose third column runs 1..n"
        " within each query are MS MARCO ranks).",
    )(f)


def source_options(f: F) -> F:
    """--golden FOLDER | --qrels FILE (else the store), --verify, and the scale: --max-grade,
    --relevance-level (trec_eval's -l)."""
    f = click.option(
        "--relevance-level",
        type=click.IntRange(1),
        help="Lowest relevant grade of binary measures (trec_eval's -l) [default: 1 for --qrels; the golden"
        " set's threshold for --golden and the store].",
    )(f)
    f = click.option(
        "--max-grade",
        type=click.IntRange(1),
        help="Top grade of the scale (the grade unlabeled documents may take in the bounds) [default: the"
        " top grade in --qrels; the golden set's scale for --golden and the store].",
    )(f)
    f = click.option(
        "--verify/--no-verify", default=True, show_default=True, help="Refuse an altered --golden version."
    )(f)
    f = click.option(
        "--qrels", type=click.Path(dir_okay=False, path_type=Path), help="Score against a TREC qrels file."
    )(f)
    return click.option(
        "--golden", type=click.Path(file_okay=False, path_type=Path), help="Score against a golden-set folder."
    )(f)


def labels_options(f: F) -> F:
    """--labels human|machine|human+machine and --machine-assessor NAME: which labels of the store
    (`workflows.label_sets`)."""
    f = click.option(
        "--machine-assessor",
        metavar="NAME",
        help="Whose machine labels (lexical, llm:MODEL), when the store holds several machine assessors'.",
    )(f)
    return click.option(
        "--labels",
        type=click.Choice(["human", "machine", "human+machine"]),
        help="Which labels: the humans' [default], one machine assessor's, or the humans' with the machine's"
        " filling the pairs no human labeled (a human skip stays a skip).",
    )(f)


def options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Several click decorators as one, applied top to bottom as if stacked over the function."""

    def apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply
