"""`qrelkit judge`, registered through the `qrelkit.commands` entry point (the CLI never imports
the TUI, and the TUI never imports the CLI)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import StoreBusy, UsageError
from ..models import QUEUE_ORDERS, ROLES, SEEDS, QueueOrder, Role

if TYPE_CHECKING:
    from .app import JudgeApp

BREAK_AFTER = click.option(
    "--break-after",
    default="50m",
    show_default=True,
    metavar="DURATION",
    help="Suggest a break after this much active work (idle time not counted), e.g. 50m, 1h30m; 0: never.",
)


def SETTLE_OPTIONS(f: Any) -> Any:  # noqa: N802 - a decorator, named like the options above
    """--for A.run,B.run (repeatable) or --leaderboard FILE, and --metric (repeatable): what the
    settle order settles (see `qrelkit queue`)."""
    f = click.option(
        "--metric", "metrics", multiple=True, help="A measure the settle order settles (repeatable) [default: nDCG@10]."
    )(f)
    f = click.option(
        "--leaderboard",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Settle a saved leaderboard's ranking (`compare --format json --out`): each adjacent pair.",
    )(f)
    help = "A comparison to settle (repeatable)."
    return click.option("for_runs", "--for", multiple=True, metavar="A.run,B.run", help=help)(f)


@click.command()
@click.option("--assessor", help="Who judges [default: $QRELKIT_ASSESSOR, else the login name].")
@click.option("--stratum", help="Only queries of this stratum.")
@click.option("--query", "query_id", help="Open this query's judging screen directly.")
@click.option(
    "--order",
    type=click.Choice(QUEUE_ORDERS),
    default="impact",
    show_default=True,
    help="Judging order of documents and next queries (see `qrelkit queue`).",
)
@click.option(
    "--seed",
    type=click.IntRange(*SEEDS),
    default=0,
    show_default=True,
    help="Seed of the random order, and of the ties between runs (mtf, bandit).",
)
@SETTLE_OPTIONS
@click.option("--adjudicate", is_flag=True, help="Settle the pairs whose assessors disagree (most urgent first).")
@BREAK_AFTER
@click.option("--served", is_flag=True, hidden=True, help="Started by `qrelkit serve`: end with the server.")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    hidden=True,
    help="What the session may do (`serve` passes its token's) [default: assessor when --served, else adjudicator].",
)
@click.pass_context
def judge(ctx: click.Context, /, **options: Any) -> None:
    """Judge documents in a terminal UI: 0-9 grade, s skip, u retract, z undo, n/p move, e note, ? keys."""
    app = make_app(ctx.obj["db"], **options)  # the options, typed, are make_app's parameters
    session = app.session
    kept: Path | None = None
    try:
        app.run()
    finally:
        if app.hung_up and session.waiting:  # ending now: no second wait for the busy store
            kept = session.set_aside_waiting()
        try:
            session.close()  # commits what a busy store still held back
        except StoreBusy:
            kept = session.save_waiting()
            raise click.ClickException(
                f"the store stayed busy: the judgments not yet saved are in {kept}; "
                f"add them with `qrelkit import judgments {kept}`"
            ) from None
    if kept is not None:
        raise click.ClickException(
            f"the store stayed busy: the judgments not yet saved are in {kept}; "
            f"add them with `qrelkit import judgments {kept}`"
        )
    if app.return_code:
        log = crash_log(app.crash)
        raise click.ClickException(f"qrelkit judge stopped on an unexpected error; the traceback is in {log}")


def make_app(
    db: Path,
    *,
    assessor: str | None,
    stratum: str | None,
    query_id: str | None,
    order: QueueOrder,
    seed: int,
    adjudicate: bool,
    served: bool,
    role: Role | None,
    break_after: str = "50m",
    for_runs: tuple[str, ...] = (),
    metrics: tuple[str, ...] = (),
    leaderboard: Path | None = None,
) -> JudgeApp:
    """The app `judge` runs, on a session opened in `role` (a served session without one is an
    assessor's: only a token's adjudicator role opens adjudication in a browser)."""
    from ..workflows.judging import open_session  # the store and textual load only for this command
    from ..workflows.pacing import parse_duration
    from ..workflows.queue import Comparisons
    from .app import JudgeApp

    pause = parse_duration(break_after)
    given: Role = role or ("assessor" if served else "adjudicator")
    if adjudicate and given != "adjudicator":
        raise UsageError("--adjudicate needs the adjudicator role", "an assessor's session judges only")
    comparisons = Comparisons.parse(for_runs, metrics, leaderboard=leaderboard)
    if order == "settle" and comparisons is None:
        raise UsageError("the settle order needs the comparisons it settles", "give --for A.run,B.run or --leaderboard")
    session = open_session(db, assessor, stratum=stratum, query=query_id, order=order, seed=seed, role=given)
    session.comparisons = comparisons  # the settle order's runs (read when the queue is computed)
    return JudgeApp(session, query=query_id, adjudicate=adjudicate, served=served, signals=True, break_after=pause)


def crash_log(error: BaseException | None) -> Path:
    """Write the traceback of what stopped the app to a log file of its own; its path. Every
    judgment the screen showed as saved was committed before it (one transaction each)."""
    import tempfile
    import traceback
    from datetime import datetime

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    fd, name = tempfile.mkstemp(prefix=f"qrelkit-judge-{stamp}-", suffix=".log")
    with os.fdopen(fd, "w", encoding="utf-8") as log:
        log.write("".join(traceback.format_exception(error)) if error is not None else "no exception recorded\n")
    return Path(name)
