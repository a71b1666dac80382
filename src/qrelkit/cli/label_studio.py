"""import label-studio / export label-studio: the commands, added to the `import` and `export`
groups by their modules (`imports`, `export`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from ..errors import UsageError
from ..formats import atomic_write
from ..formats.label_studio import CONTROL_NAME, CONTROLS, Control, Fields
from ..models import DEFAULT_STRATUM
from ..render.styles import data
from ..workflows import label_studio
from ._common import check_out, err, open_store, out_option, say

F = TypeVar("F", bound=Callable[..., Any])


def _grade_options(f: F) -> F:
    """--query-field, --doc-field, --grade-from, --grade-offset: where a task's pair and grade are."""
    f = click.option(
        "--grade-offset",
        type=int,
        default=0,
        show_default=True,
        help="Added to a rating: Label Studio's stars start at 1, so -1 makes 1..4 stars the grades 0..3.",
    )(f)
    f = click.option(
        "--grade-from",
        "control",
        default=CONTROL_NAME,
        show_default=True,
        help="The control whose rating or choice is the grade (its name in the labeling config: a result's from_name).",
    )(f)
    f = click.option(
        "--doc-field", default="doc_id", show_default=True, help="The key of each task's data holding the document id."
    )(f)
    f = click.option(
        "--query-field", default="query_id", show_default=True, help="The key of each task's data holding the query id."
    )(f)
    return f


def _create_options(f: F) -> F:
    """--choice, the fields that create queries and documents, --stratum, --ground-truth-adjudicates."""
    f = click.option(
        "--predictions-as",
        metavar="ASSESSOR",
        help="Read the tasks' predictions as machine labels of this machine assessor (lexical, llm:MODEL); "
        "without it predictions are ignored. Never a vote.",
    )(f)
    f = click.option(
        "--ground-truth-adjudicates",
        is_flag=True,
        help="A ground-truth annotation settles its pair (an adjudication) instead of being one vote.",
    )(f)
    f = click.option(
        "--stratum", default=DEFAULT_STRATUM, show_default=True, help="The stratum of the queries created."
    )(f)
    f = click.option("--doc-title-field", metavar="KEY", help="The title of the documents --doc-text-field creates.")(f)
    f = click.option(
        "--doc-text-field", metavar="KEY", help="Create the documents the store lacks, their text from this key."
    )(f)
    f = click.option(
        "--query-text-field", metavar="KEY", help="Create the queries the store lacks, their text from this key."
    )(f)
    f = click.option(
        "--choice",
        "choices",
        multiple=True,
        metavar="TEXT=GRADE",
        help="The grade of a choice (repeat it for each); without it a choice is a level name or a number.",
    )(f)
    return f


@click.command("label-studio")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_grade_options
@_create_options
@click.pass_context
def import_label_studio(
    ctx: click.Context,
    file: Path,
    query_field: str,
    doc_field: str,
    control: str,
    grade_offset: int,
    choices: tuple[str, ...],
    query_text_field: str | None,
    doc_text_field: str | None,
    doc_title_field: str | None,
    stratum: str,
    ground_truth_adjudicates: bool,
    predictions_as: str | None,
) -> None:
    """Import a Label Studio JSON export (Export > JSON: a list of tasks with their annotations).

    \b
    Each annotation becomes one judgment event:
      pair       the task's data: --query-field and --doc-field name the keys of the ids
      grade      the result of the control --grade-from: a Rating's stars + --grade-offset, or
                 a Choices' one choice (through --choice, else a level name or a number)
      skip       an annotation skipped in Label Studio (was_cancelled): kept as a skip, not 0
      assessor   completed_by: the user's email, else ls-user-ID for its id
      time       updated_at, else created_at (ISO 8601 with its zone; anything less is refused)
      seconds    lead_time
    A task without annotations pools its pair. Queries and documents must be in the store,
    unless --query-text-field / --doc-text-field create those it lacks (those it has stay as
    they are). Drafts are not read; predictions (a model's) only with --predictions-as, as
    machine labels of that machine assessor, never as votes. A bad task is refused with its
    id, index and field; nothing is imported then. Events already in the log are skipped, so
    importing an export again adds nothing (import several exports oldest first: an assessor's
    latest event is their vote)."""
    fields = Fields(
        query=query_field,
        doc=doc_field,
        query_text=query_text_field,
        doc_text=doc_text_field,
        doc_title=doc_title_field,
        control=control,
    )
    options = label_studio.ImportOptions(
        fields, grade_offset, choices, ground_truth_adjudicates, stratum, predictions_as=predictions_as
    )
    _say_imported(file, label_studio.import_label_studio(open_store(ctx), file, options))


def _say_imported(file: Path, done: label_studio.Imported) -> None:
    kinds = [
        f"{n} {what}"
        for n, what in ((done.grades, "grades"), (done.skips, "skips"), (done.adjudications, "adjudications"))
        if n
    ]
    created = [f"{n} {what}" for n, what in ((done.queries, "queries"), (done.documents, "documents")) if n]
    e = done.events
    repeats = [
        f"{n} events {where}"
        for n, where in ((e.in_log, "already in the log"), (e.in_file, "repeated in the file"))
        if n
    ]
    say(
        f"imported {e.written} judgment events from {done.tasks} tasks of ",
        data(str(file)),
        f" ({', '.join(kinds) or 'no annotations'})",
        f"; {done.pooled} pairs without annotations pooled" if done.pooled else "",
        f"; created {', '.join(created)}" if created else "",
        f"; {', '.join(repeats)} (skipped)" if repeats else "",
        f"; {done.predictions} predictions as machine labels" if done.predictions else "",
    )


def _export_options(f: F) -> F:
    """--all, --with-annotations, --predictions, --control, --config."""
    f = click.option(
        "--predictions",
        metavar="[ASSESSOR]",
        is_flag=False,
        flag_value="",
        default=None,
        help="Each task carries a machine assessor's label of its pair as a prediction (model_version: the "
        "assessor), never an annotation; without ASSESSOR, the store's one machine assessor.",
    )(f)
    f = click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Also write the labeling config (XML) of a project for these tasks here.",
    )(f)
    f = click.option(
        "--control",
        type=click.Choice(CONTROLS),
        default="choices",
        show_default=True,
        help="The grade as a choice of the scale's levels, or as a rating (grade G: G + 1 stars).",
    )(f)
    f = click.option(
        "--with-annotations",
        is_flag=True,
        help="Each task carries its pair's current votes and adjudication as annotations (implies --all).",
    )(f)
    f = click.option(
        "--all", "every_pair", is_flag=True, help="A task for every judged pair too, not only the pooled-unjudged."
    )(f)
    return f


@click.command("label-studio")
@out_option
@_export_options
@click.pass_context
def export_label_studio(
    ctx: click.Context,
    out_path: Path | None,
    every_pair: bool,
    with_annotations: bool,
    control: str,
    config_path: Path | None,
    predictions: str | None,
) -> None:
    """Label Studio tasks (a JSON list to import into a project): one per pooled-unjudged pair.

    \b
    Each task's data holds query_id, query_text, query_description, stratum, doc_id, doc_title
    and doc_text. With --with-annotations, each assessor's current vote is an annotation
    (completed_by {"email": ASSESSOR}, which Label Studio matches to a member; a skip is a
    cancelled annotation) and an adjudication a ground-truth one. With --predictions, a machine
    assessor's label of the pair is the task's prediction (never an annotation). Not carried:
    earlier votes, retractions, clears and notes, pool sources and ranks, stratum weights, a
    machine label's provenance. `import label-studio` reads the tasks back (with --grade-offset -1
    for --control rating, --ground-truth-adjudicates for adjudications, --predictions-as for
    predictions)."""
    check_out(ctx, out_path)
    check_out(ctx, config_path)
    if config_path is not None and out_path is not None and config_path.resolve() == out_path.resolve():
        raise UsageError(f"--config {config_path} is the --out file", "write the config to another file")
    store = open_store(ctx)
    choice = cast(Control, control)
    machine = None
    if predictions is not None:
        machine = label_studio.prediction_assessor(store, predictions or None)
    options = label_studio.ExportOptions(every_pair, with_annotations, choice, machine)
    if config_path is not None:
        with atomic_write(config_path) as stream:
            label_studio.write_config(store, stream, choice)
    if out_path is None:
        done = label_studio.export_label_studio(store, sys.stdout, options)
    else:
        with atomic_write(out_path) as stream:
            done = label_studio.export_label_studio(store, stream, options)
    where = data(str(out_path)) if out_path is not None else "standard output"
    shown = f"{done.annotations} annotations" + (f", {done.predictions} predictions" if machine else "")
    say(f"wrote {done.tasks} tasks ({shown}) to ", where, console=err)
    if config_path is not None:
        say("wrote the labeling config to ", data(str(config_path)), console=err)
