"""init, policy, strata, profiles: setting a golden set up."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from ..models import STORE_MAX_GRADE, LabelPolicy
from ..render.styles import data
from ..render.tables import profiles_table, strata_table
from ..resolution import POLICIES
from ..workflows import removing
from ..workflows import setup as workflow
from ._common import open_store, say, show

FC = TypeVar("FC", bound=Callable[..., object])


def level_option(help_text: str) -> Callable[[FC], FC]:
    """--level G=NAME[: DEFINITION], repeatable (init and policy)."""
    return click.option("--level", "levels", multiple=True, metavar="G=NAME[: DEFINITION]", help=help_text)


@click.command()
@click.option("--name", help="Name of the golden set.  [new store: golden]")
@click.option(
    "--max-grade",
    type=click.IntRange(1, STORE_MAX_GRADE),
    help="Highest grade of the scale 0..N (grade 0 = confirmed irrelevant).  [new store: 3]",
)
@click.option(
    "--threshold",
    type=click.IntRange(1, STORE_MAX_GRADE),
    help="Lowest grade that binary metrics count as relevant.  [new store: 1]",
)
@click.option(
    "--label-policy",
    type=click.Choice(POLICIES),
    help="How disagreeing assessors resolve without adjudication.  [new store: median]",
)
@level_option(
    "Name grade G (repeatable), with the definition assessors read beside the grade keys and on G, e.g. "
    "--level '2=relevant: answers the question'.  [0..3: irrelevant, related, relevant, perfect; "
    "other scales: irrelevant, grade 1, ...]"
)
@click.pass_context
def init(
    ctx: click.Context,
    name: str | None,
    max_grade: int | None,
    threshold: int | None,
    label_policy: str | None,
    levels: tuple[str, ...],
) -> None:
    """Create the store, or change the settings given (the others stay as they are)."""
    done = workflow.init(
        open_store(ctx, create=True),
        name=name,
        max_grade=max_grade,
        threshold=threshold,
        label_policy=store_policy(label_policy) if label_policy is not None else None,
        levels=levels,
    )
    db = data(ctx.find_root().obj["db"])
    if done.new or not done.changed:
        say(
            "store ", db, " ready: golden set " if done.new else " unchanged: golden set ", data(done.name, "bold"),
            f", grades 0..{done.scale.max_grade}, relevant at >= {done.scale.relevance_threshold}, "
            f"disagreements resolve by {done.label_policy}",
        )  # fmt: skip
    else:
        say("store ", db, " updated: ", data("; ".join(done.changed)))


def store_policy(text: str) -> LabelPolicy:
    """A --label-policy choice as the policy it names (click has checked it is one)."""
    return next(p for p in POLICIES if p == text)


@click.command()
@click.argument("set_to", required=False, type=click.Choice(POLICIES), metavar="[median|latest]")
@level_option("Grade G's name and definition, the rubric assessors judge by (repeatable), as init takes them.")
@click.pass_context
def policy(ctx: click.Context, set_to: str | None, levels: tuple[str, ...]) -> None:
    """Show or set how disagreeing assessors' grades resolve when no one adjudicated, and the
    grades' definitions (the rubric).

    \b
    median  the lower median of the assessors' latest grades (default)
    latest  the most recent grade, by the events' timestamps (a tie: the later in the log)
    An adjudicated grade (`judge --adjudicate`) always wins; agreeing grades need no policy.
    The policy is part of the golden set: frozen versions record it in manifest.json.
    With --level, the grades' names and definitions are shown after it."""
    store = open_store(ctx)
    current = workflow.policy(store, store_policy(set_to) if set_to is not None else None, levels)
    say(f"label policy: {current}")
    if levels:
        for level in workflow.overview(store).scale.every_level():
            say(
                f"{level.grade} ",
                data(level.name, "bold"),
                *((": ", data(level.definition)) if level.definition else ()),
            )


@click.group()
def strata() -> None:
    """Query strata and their traffic weights."""


@strata.command("set")
@click.argument("name")
@click.argument("weight", type=float)
@click.pass_context
def strata_set(ctx: click.Context, name: str, weight: float) -> None:
    """Set the traffic WEIGHT of stratum NAME (weights are renormalised when aggregating)."""
    stratum = workflow.set_stratum(open_store(ctx, create=True), name, weight)
    say("stratum ", data(stratum.name), f": weight {stratum.weight:g}")


@strata.command("list")
@click.pass_context
def strata_list(ctx: click.Context) -> None:
    """List strata, their weights, traffic shares and query counts."""
    view = workflow.overview(open_store(ctx))
    show(strata_table(view.status, view.shares))


@strata.command("remove")
@click.argument("name")
@click.pass_context
def strata_remove(ctx: click.Context, name: str) -> None:
    """Remove stratum NAME and its weight, recorded; refused while a query is in it or a profile
    names it."""
    removal = removing.remove_stratum(open_store(ctx), name)
    say("removed stratum ", data(removal.name))


@click.group()
def profiles() -> None:
    """Scoring profiles: a consumer's metrics and strata (used by `score --profile`)."""


@profiles.command("set")
@click.argument("name")
@click.option(
    "--metrics",
    required=True,
    help="Measures, comma- or space-separated, ir_measures or trec_eval names, e.g. RR,Success@1.",
)
@click.option("--strata", "strata_names", help="Comma-separated strata (default: all).")
@click.pass_context
def profiles_set(ctx: click.Context, name: str, metrics: str, strata_names: str | None) -> None:
    """Create or replace profile NAME."""
    chosen = strata_names.split(",") if strata_names else None
    p = workflow.set_profile(open_store(ctx), name, metrics, chosen)
    say(
        "profile ",
        data(p.name),
        ": ",
        data(", ".join(p.metrics)),
        " over ",
        data(", ".join(p.strata) if p.strata else "all strata"),
    )


@profiles.command("list")
@click.pass_context
def profiles_list(ctx: click.Context) -> None:
    """List the scoring profiles."""
    show(profiles_table(workflow.profiles(open_store(ctx))))


@profiles.command("remove")
@click.argument("name")
@click.pass_context
def profiles_remove(ctx: click.Context, name: str) -> None:
    """Remove profile NAME, recorded (saved reports made with it are kept)."""
    removal = removing.remove_profile(open_store(ctx), name)
    say("removed profile ", data(removal.name))


COMMANDS = [init, policy, strata, profiles]
