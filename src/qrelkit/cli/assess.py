"""assess: machine assessors label pairs, apart from the human judgment log."""

from __future__ import annotations

import click

from ..workflows import assess as workflow
from ._common import err, format_option, open_store, say, stratum_option

HELP = """Label pairs with a machine assessor, kept apart from the human labels.

Each answer is a row of the store's machine labels, with its provenance (judge, parameters,
prompt hashes, raw reply, parse status, latency): never a human vote, so resolution, agreement,
adjudication, the judging screens and `export judgments` never see it. Scores, `export qrels`
and `freeze` use machine labels only when asked (--labels machine or human+machine).

\b
--judge lexical  a term-overlap baseline, local and deterministic: the share of the query's
                 words found in the document's title and text, cut into the scale's grades
                 (floor(overlap x top grade)). A WEAK baseline: it knows words, not meaning.

A pair asked before with the same judge, parameters, query and document text is a cache hit
and is not asked again (the hit rate is printed): a stopped run goes on where it stopped.
--refresh asks again (the newest answer counts). Nothing is sent anywhere.
"""


@click.command(help=HELP)
@click.option("--judge", metavar="NAME", required=True, help=f"The machine assessor: {', '.join(workflow.JUDGES)}.")
@click.option(
    "--pairs",
    type=click.Choice(workflow.PAIR_SETS),
    default="pooled-unjudged",
    show_default=True,
    help="pooled-unjudged: pooled pairs no human labeled or skipped; human: pairs humans labeled (calibration);"
    " all: both, and the skipped ones.",
)
@stratum_option("Only this stratum's pairs.")
@click.option("--max-calls", type=click.IntRange(0), help="Ask at most this many questions (cache hits are free).")
@click.option("--refresh", is_flag=True, help="Ask again pairs asked before (a new row; the newest counts).")
@format_option("table", "json")
@click.pass_context
def assess(
    ctx: click.Context, judge: str, pairs: str, stratum: str | None, max_calls: int | None, refresh: bool, fmt: str
) -> None:
    result = workflow.assess(
        open_store(ctx), workflow.judge_named(judge), pairs=pairs, stratum=stratum, max_calls=max_calls,
        refresh=refresh,
    )  # fmt: skip
    if fmt == "json":
        click.echo(workflow.result_json(result))
        return
    rate = result.hit_rate
    say(
        f"{result.assessor}: {result.pairs} pairs, {result.asked} asked, {result.cached} cached "
        f"(hit rate {'-' if rate is None else f'{rate:.1%}'})"
    )
    if result.statuses:
        say("answers: " + ", ".join(f"{n} {status}" for status, n in sorted(result.statuses.items())))
    if result.no_text:
        say(f"{result.no_text} pairs not asked: the store has no text for their document", console=err)
    if result.capped:
        say(f"{result.capped} pairs left by --max-calls {max_calls}: run again to go on", console=err)


COMMANDS = [assess]
