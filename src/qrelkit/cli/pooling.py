"""pool, queue, assign: what goes into the judging pool, in which order, to whom."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import UsageError
from ..formats.trec import RunFormat
from ..models import HEADLINE, QUEUE_ORDERS, TILES, QueueItem, QueueOrder
from ..render.styles import data
from ..render.tables import queue_table
from ..scoring.orders import orders_help
from ..workflows import assessors, disagreement_order, judging, pooling, setup
from ..workflows import queue as judging_queue

if TYPE_CHECKING:
    from ..storage import Store

from ._common import (
    err,
    format_option,
    open_store,
    options,
    run_format_option,
    say,
    seed_option,
    show,
    stratum_option,
)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--depth", "-k", type=click.IntRange(1, 1_000_000_000), required=True, help="Pool each run's top K documents."
)
@stratum_option("Only pool the queries of this stratum.")
@run_format_option
@click.pass_context
def pool(ctx: click.Context, runs: tuple[Path, ...], depth: int, stratum: str | None, run_format: RunFormat) -> None:
    """Add the unlabeled documents in each run's top K to the judging pool, for every query.

    Records which runs surfaced each pair and at which rank (the queue's impact order uses the
    runs' rankings). Labeled and skipped pairs are left out; pooling again is idempotent. Document
    ids the store has no text for are reported, and pooled by id all the same.
    """
    result = pooling.pool(open_store(ctx), runs, depth=depth, stratum=stratum, run_format=run_format)
    say(
        "pooled ",
        data(", ".join(result.runs)),
        f" at depth {depth}: {result.added} pairs added, "
        f"{result.updated} already pooled (ranks updated), {result.labeled} already labeled or skipped",
    )  # fmt: skip  (on standard output: it is what the command did; warnings go to standard error)
    missing = result.missing_documents
    if missing:
        sample = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        say(
            (f"{len(missing)} documents are not in the store", "yellow"), " (", data(sample),
            "); pooled by id: import their text with `qrelkit import docs` to judge them", console=err,
        )  # fmt: skip
    if result.queries_not_in_runs:
        err.print(f"{len(result.queries_not_in_runs)} golden-set queries are in none of the runs")
    if result.run_only_queries:
        err.print(f"{len(result.run_only_queries)} run queries are not in the golden set (ignored)")


QUEUE_HELP = f"""List the unlabeled pooled pairs in judging order: the pairs assigned to the assessor first
(`qrelkit assign`), then the queue's order, one of these (README: "The judging queue"):

{orders_help()}

The adaptive orders (impact, mtf, bandit, settle) are computed from the labels as they stand and
re-order as labels arrive; --seed breaks ties between runs (and seeds random).

settle reads the runs named by --for A.run,B.run (repeatable: each a comparison, A the baseline),
read whole as `score` reads them, and --metric (repeatable; default {HEADLINE}): with several,
each metric's priorities are weighed so that its open interval widths count as much as another's,
and every (comparison, metric) counts. Or --leaderboard FILE (saved by `qrelkit compare A B C
--format json --out FILE`): its runs in ranking order (headline mean, best first), each adjacent
pair a comparison (the one ranked below as A), and its metrics the stopping rule covers unless
--metric. Adjacent pairs settle the ranking's order of means: if B>A and C>B hold under every
labeling, C>A does too (exact for P, Success, RR; for nDCG, AP, R, Rprec a pair's range leaves a
document only other runs retrieve unlabeled). Its run files must be where it recorded them and
unchanged (sha256). --until settled (with --for or --leaderboard, under any order) lists only the
pairs it takes, in that order, until every named comparison would be settled in sign and t-test
verdict on every metric (`qrelkit settled`) with each pair judged at the grade nearest the mean of
the current labels' grade prior: an estimate, said on standard error.

TSV lines are QUERY_ID<TAB>DOC_ID<TAB>PRIORITY; a higher priority comes first.
"""


SETTLE_OPTIONS = options(
    click.option(
        "for_runs", "--for", multiple=True, metavar="A.run,B.run", help="A comparison to settle (repeatable)."
    ),
    click.option(
        "--leaderboard",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Settle a saved leaderboard's ranking (`compare --format json --out`): each adjacent pair.",
    ),
    click.option(
        "--metric", multiple=True, help=f"A measure the settle order settles (repeatable) [default: {HEADLINE}]."
    ),
    click.option("--until", type=click.Choice(["settled"]), help="Stop once every named comparison would be settled."),
)
"""--for (repeatable) or --leaderboard, --metric (repeatable), --until settled: what `settle` settles."""


@click.command(help=QUEUE_HELP)
@click.option("--order", type=click.Choice(QUEUE_ORDERS), default="impact", show_default=True, help="Queue order.")
@click.option("--limit", type=click.IntRange(1, 10**18), help="Show the first N pairs only.")
@stratum_option("Only pairs of this stratum's queries.")
@seed_option("Seed of the random order, and of the ties between runs (mtf, bandit).")
@click.option("--metrics", help=f"Measures whose bounds the impact order narrows [default: {','.join(TILES)}].")
@click.option(
    "--assessor",
    help="Whose queue: their own assignments come first, as `qrelkit judge` shows them "
    "[default: $QRELKIT_ASSESSOR, else the login name].",
)
@SETTLE_OPTIONS
@run_format_option
@format_option("table", "tsv", "json")
@click.pass_context
def queue(
    ctx: click.Context,
    order: QueueOrder,
    limit: int | None,
    stratum: str | None,
    seed: int,
    metrics: str | None,
    assessor: str | None,
    for_runs: tuple[str, ...],
    leaderboard: Path | None,
    metric: tuple[str, ...],
    until: str | None,
    run_format: RunFormat,
    fmt: str,
) -> None:
    store = open_store(ctx)
    setup.check_stratum(store, stratum)
    who = judging.assessor_or_current(assessor)
    comparisons = _comparisons(for_runs, metric, run_format, leaderboard, until)
    items = judging_queue.ordered_queue(
        store, order, seed=seed, stratum=stratum, metrics=metrics, assessor=who, comparisons=comparisons
    )
    if order == "disagreement" and (note := disagreement_order.fallback_note(store, items)):
        err.print(note)
    if until and comparisons is not None:
        items = _until_settled(store, items, comparisons)
    if limit is not None:
        items = items[:limit]
    if fmt == "tsv":
        click.echo("".join(f"{i.query_id}\t{i.doc_id}\t{i.priority:.6g}\n" for i in items), nl=False)
    elif fmt == "json":
        click.echo("[" + ",\n".join(i.model_dump_json() for i in items) + "]")
    else:
        show(queue_table(items, order))
        if not items:
            err.print("the queue is empty: every pooled pair is labeled (pool more with `qrelkit pool`)")


def _comparisons(
    for_runs: tuple[str, ...],
    metric: tuple[str, ...],
    run_format: RunFormat,
    leaderboard: Path | None,
    until: str | None,
) -> judging_queue.Comparisons | None:
    """--for or --leaderboard (with --metric), refused before anything starts; a leaderboard's
    measures the stopping rule does not cover named on standard error."""
    comparisons = judging_queue.Comparisons.parse(for_runs, metric, run_format, leaderboard=leaderboard)
    if until and comparisons is None:
        raise UsageError("--until settled needs the comparisons to settle", "give --for A.run,B.run or --leaderboard")
    if comparisons is not None and comparisons.left_out:
        say("not settled (the stopping rule does not cover them): ", data(", ".join(comparisons.left_out)), console=err)
    return comparisons


def _until_settled(store: Store, items: list[QueueItem], comparisons: judging_queue.Comparisons) -> list[QueueItem]:
    """`--until settled`: the first pairs that settle every comparison (an estimate, said on stderr)."""
    needed = judging_queue.until_settled(store, items, comparisons)
    if needed == 0:
        err.print("already settled")
    elif needed is None:
        err.print(f"not settled within the {len(items)} pairs of the queue (estimate): pool the runs deeper")
    else:
        err.print(f"{needed} pairs until settled (estimate)")
    return items[: needed if needed is not None else len(items)]


@click.command()
@click.option("--overlap", type=click.IntRange(2), help="Assessors per sampled pair (required unless --recheck).")
@click.option(
    "--recheck",
    is_flag=True,
    help="Instead: human-labeled pairs where a machine assessor's grade differs from the humans', each to one "
    "more assessor who has not voted on it (blind; the machine's grade is never shown).",
)
@click.option(
    "--assessors",
    "names",
    help="Comma-separated names [default: everyone with a vote (a grade or a skip) in the log, judged here or "
    "imported].",
)
@click.option(
    "--pairs", "n_pairs", type=click.IntRange(1, 10**9), default=50, show_default=True, help="Pairs to sample."
)
@stratum_option("Sample only this stratum's pairs.")
@seed_option("Seed of the sample.")
@click.pass_context
def assign(
    ctx: click.Context, overlap: int | None, recheck: bool, names: str | None, n_pairs: int, stratum: str | None,
    seed: int,
) -> None:  # fmt: skip
    """Have OVERLAP assessors judge the same pairs, for a seeded random sample of the unlabeled pool.

    Each sampled pair goes to OVERLAP of the assessors, in rotation so that the work is even.
    `qrelkit judge` (and `qrelkit queue`) show every assessor their own assignments first, and the
    judging screen hides the other assessors' grades on those pairs until they have judged them
    (blind). `qrelkit agreement` then measures how far they agree.

    With --recheck: the pairs people labeled where a machine assessor (`qrelkit assess`) gives
    another grade, each to one more person who has no vote on it, judged blind."""
    chosen = names.split(",") if names is not None else None
    store = open_store(ctx)
    if recheck:
        if overlap is not None:
            raise UsageError("--recheck gives each pair to one more assessor", "leave out --overlap")
        a = assessors.assign_recheck(store, assessors=chosen, pairs=n_pairs, stratum=stratum, seed=seed)
        say(f"assigned {a.pairs} pairs a machine disagrees on, one more assessor each ({a.added} new assignments): ",
            data(", ".join(f"{n} {k}" for n, k in a.per_assessor.items())))  # fmt: skip
        return
    if overlap is None:
        raise UsageError("--overlap is required", "give --overlap N (2 or more), or --recheck")
    a = assessors.assign_overlap(store, overlap, assessors=chosen, pairs=n_pairs, stratum=stratum, seed=seed)
    say(
        f"assigned {a.pairs} pairs to {overlap} assessors each ({a.added} new assignments): ",
        data(", ".join(f"{n} {k}" for n, k in a.per_assessor.items())),
    )


COMMANDS = [pool, queue, assign]
