"""import ir-datasets: a dataset of the ir_datasets package, from what it holds on this machine."""

from __future__ import annotations

import click

from ..render.styles import data
from ..workflows import irds
from ._common import open_store, say


@click.command("ir-datasets")
@click.argument("dataset_id")
@click.option(
    "--all-docs", is_flag=True, help="Import the whole corpus (docs_iter), not only the documents the qrels name."
)
@click.option("--stratum", help="The stratum of every query [default: default].")
@click.option("--stratum-field", help="The query field whose value is each query's stratum.")
@click.option(
    "--negative",
    type=click.Choice(["refuse", "zero", "unjudged"]),
    default="refuse",
    show_default=True,
    help="A negative relevance (TREC's junk -2): refuse it, grade it 0 (judged, not relevant), or pool it as unjudged.",
)
@click.option("--assessor", default="ir_datasets", show_default=True, help="Who the qrels' judgments are by.")
@click.pass_context
def import_ir_datasets(
    ctx: click.Context,
    dataset_id: str,
    all_docs: bool,
    stratum: str | None,
    stratum_field: str | None,
    negative: irds.Negative,
    assessor: str,
) -> None:
    """Import an ir_datasets dataset: queries, judged documents, qrels, grade definitions.

    In one transaction (`pip install 'qrelkit[irds]'` for the ir-datasets package): all of
    DATASET_ID's queries, the documents its qrels name (looked up in its docs_store), its qrels,
    and its qrels_defs() as the grade scale 0..max, each level with its definition (named by the
    words before the definition's ':', or `grade G`). The relevance threshold stays (set it with
    `qrelkit init --threshold`). Any field of the qrels but query, doc and relevance (TREC's
    iteration) is ignored, and said so.

    It reads only what ir_datasets already holds on this machine ($IR_DATASETS_HOME, default
    ~/.ir_datasets): nothing is downloaded; a file ir_datasets would fetch is named in the error
    (exit 2) and nothing is imported. ir_datasets may build its own document index from the
    files it has."""
    r = irds.import_ir_dataset(
        open_store(ctx, create=True),
        dataset_id,
        all_docs=all_docs,
        stratum=stratum,
        stratum_field=stratum_field,
        negative=negative,
        assessor=assessor,
    )
    say(
        f"imported {r.documents} documents, {r.queries} queries, {r.labels} labels ({r.pooled} pooled) from ",
        data(f"ir_datasets {r.dataset}"),
    )
    say(f"changed: {'; '.join(r.changed)}" if r.changed else f"grade scale 0..{r.max_grade}, as it was")
    if r.missing_documents:
        say(f"{r.missing_documents} documents the qrels name are not in the corpus (their labels are imported)")
    if r.negative:
        how = "graded 0" if negative == "zero" else "pooled as unjudged"
        say(f"{r.negative} qrels with a negative relevance {how}")
    if r.ignored:
        say("left out: ", data(", ".join(r.ignored)))


IMPORT_COMMANDS = [import_ir_datasets]
"""Subcommands of `qrelkit import` (see `imports.LAZY`), loaded when one runs or help lists them."""
