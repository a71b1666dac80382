"""assess: machine assessors label pairs, apart from the human judgment log."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..errors import UsageError
from ..models import QUEUE_ORDERS, QueueOrder
from ..workflows import assess as workflow
from ..workflows import http_judge
from ._common import err, format_option, open_store, say, stratum_option

HELP = """Label pairs with a machine assessor, kept apart from the human labels.

Each answer is a row of the store's machine labels, with its provenance (judge, model, endpoint
host, parameters, prompt hashes, raw reply, parse status, latency, tokens, cost): never a human
vote, so resolution, agreement, adjudication, the judging screens and `export judgments` never
see it. Scores, `export qrels` and `freeze` use machine labels only when asked (--labels machine
or human+machine).

\b
--judge lexical  (the default) a term-overlap baseline, local and deterministic: the share of
                 the query's words found in the document's title and text, cut into the
                 scale's grades (floor(overlap x top grade)). A WEAK baseline: it knows words,
                 not meaning. Nothing is sent anywhere.
--endpoint URL --model NAME
                 an LLM behind an OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, OpenAI,
                 OpenRouter): POST URL/chat/completions, assessor llm:NAME. The key, if any,
                 from the environment variable --api-key-env names (never stored or shown).

A reply with exactly one line `Grade: N` (N on the scale) is a grade; a refusal is `refused`;
anything else `unparsed`, never a grade. 429, 5xx, timeouts and dropped connections are tried
again with backoff (at least Retry-After); still failing, the answer is an `error` (asked again
on the next run). A failing first request stops the run.

A pair asked before with the same judge, parameters and prompt is a cache hit and is not asked
again (the hit rate is printed): a stopped or killed run goes on where it stopped, and each
answer is written as it arrives. --refresh asks again (the newest answer counts).
"""

_HTTP_ONLY = ("api_key_env", "prompt", "prices", "max_cost", "temperature", "max_tokens", "timeout", "retries",
              "retry_base")  # fmt: skip


def _http_options(f: Callable[..., None]) -> Callable[..., None]:
    for option in reversed([
        click.option("--endpoint", metavar="URL", help="An OpenAI-compatible API, e.g. http://localhost:11434/v1."),
        click.option("--model", metavar="NAME", help="The model the endpoint serves (the assessor is llm:NAME)."),
        click.option("--api-key-env", metavar="VAR", help="The environment variable holding the API key."),
        click.option("--prompt", type=click.Path(dir_okay=False, path_type=Path),
                     help="A prompt template ($query $guidelines $title $text $grades $max_grade; $$ is $)."),
        click.option("--concurrency", type=click.IntRange(1, 256), default=1, show_default=True,
                     help="Requests in flight at once."),
        click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0, show_default=True,
                     help="Seconds a request may take."),
        click.option("--retries", type=click.IntRange(0, 20), default=5, show_default=True,
                     help="Tries again after a 429, a 5xx, a timeout or a dropped connection."),
        click.option("--retry-base", type=click.FloatRange(0), default=1.0, show_default=True,
                     help="Seconds of the first backoff (doubled each try, with jitter)."),
        click.option("--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True),
        click.option("--max-tokens", type=click.IntRange(1), default=256, show_default=True,
                     help="The longest reply asked for."),
        click.option("--prices", type=click.Path(dir_okay=False, path_type=Path),
                     help='JSON or TOML: {"MODEL": {"in": X, "out": Y}} per million tokens.'),
        click.option("--max-cost", type=click.FloatRange(0), help="Ask nothing that could take the cost past this."),
    ]):  # fmt: skip
        f = option(f)
    return f


@click.command(help=HELP)
@click.option("--judge", metavar="NAME", help=f"A local machine assessor: {', '.join(workflow.JUDGES)} (the default).")
@_http_options
@click.option(
    "--pairs",
    type=click.Choice(workflow.PAIR_SETS),
    default="pooled-unjudged",
    show_default=True,
    help="pooled-unjudged: pooled pairs no human labeled or skipped; human: pairs humans labeled (calibration);"
    " all: both, and the skipped ones.",
)
@stratum_option("Only this stratum's pairs.")
@click.option(
    "--order",
    type=click.Choice(QUEUE_ORDERS),
    help="Ask in this judging-queue order (`qrelkit queue --order`): with --max-calls, the queue's first N "
    "[default: by query and document].",
)
@click.option("--max-calls", type=click.IntRange(0), help="Ask at most this many questions (cache hits are free).")
@click.option("--refresh", is_flag=True, help="Ask again pairs asked before (a new row; the newest counts).")
@format_option("table", "json")
@click.pass_context
def assess(
    ctx: click.Context, judge: str | None, endpoint: str | None, model: str | None, api_key_env: str | None,
    prompt: Path | None, concurrency: int, timeout: float, retries: int, retry_base: float, temperature: float,
    max_tokens: int, prices: Path | None, max_cost: float | None, pairs: str, stratum: str | None,
    order: QueueOrder | None, max_calls: int | None, refresh: bool, fmt: str,
) -> None:  # fmt: skip
    if endpoint is None:
        given = [name for name in (*_HTTP_ONLY, "model") if _given(ctx, name)]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} needs --endpoint", "give --endpoint URL --model NAME")
        chosen = workflow.judge_named(judge or "lexical")
    elif judge is not None:
        raise UsageError(f"--judge {judge!r:.40} and --endpoint name two judges", "give one of them")
    else:
        chosen = http_judge.http_judge(http_judge.HttpOptions(
            endpoint=endpoint, model=model, api_key_env=api_key_env, prompt=prompt, prices=prices, max_cost=max_cost,
            temperature=temperature, max_tokens=max_tokens, timeout=timeout, retries=retries, retry_base=retry_base,
        ))  # fmt: skip
    with _progress() as progress:
        result = workflow.assess(
            open_store(ctx), chosen, pairs=pairs, stratum=stratum, max_calls=max_calls, refresh=refresh,
            concurrency=concurrency, max_cost=max_cost, progress=progress, order=order,
        )  # fmt: skip
    if fmt == "json":
        click.echo(workflow.result_json(result))
        return
    _summary(result, max_calls, max_cost)


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


@contextmanager
def _progress() -> Iterator[Callable[[workflow.AssessResult, int], None]]:
    """A progress line on stderr: a rich bar on a terminal, else a plain line every 2 s; the
    rate, the time left and the cost so far."""
    start = time.monotonic()
    shown = [start]
    bar = None
    if err.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        columns = (TextColumn("asking"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        bar = Progress(*columns, TextColumn("{task.fields[note]}", markup=False), console=err.console, transient=True)
        task = bar.add_task("asking", total=None, note="")
        bar.start()

    def update(result: workflow.AssessResult, total: int) -> None:
        now = time.monotonic()
        rate = result.asked / max(now - start, 1e-9)
        note = f"{rate:.1f}/s, cost {result.cost:.4f}"
        if bar is not None:
            bar.update(task, completed=result.asked, total=total, note=note)
        elif now - shown[0] >= 2.0:
            shown[0] = now
            eta = (total - result.asked) / rate if rate else 0.0
            click.echo(f"asked {result.asked}/{total}, {note}, about {eta:.0f} s left", err=True)

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()


def _summary(result: workflow.AssessResult, max_calls: int | None, max_cost: float | None) -> None:
    rate = result.hit_rate
    say(
        f"{result.assessor}: {result.pairs} pairs, {result.asked} asked, {result.cached} cached "
        f"(hit rate {'-' if rate is None else f'{rate:.1%}'})" + (f", cost {result.cost:.4f}" if result.cost else "")
    )
    if result.statuses:
        say("answers: " + ", ".join(f"{n} {status}" for status, n in sorted(result.statuses.items())))
    if result.first_error is not None:
        say(f"{result.statuses['error']} answers are errors ({result.first_error}): run again to ask them again",
            console=err)  # fmt: skip
    if result.no_text:
        say(f"{result.no_text} pairs not asked: the store has no text for their document", console=err)
    if result.capped:
        say(f"{result.capped} pairs left by --max-calls {max_calls}: run again to go on", console=err)
    if result.capped_by_cost:
        say(f"{result.capped_by_cost} pairs left by --max-cost {max_cost}: run again to go on", console=err)


COMMANDS = [assess]
