"""export hub / import hub: a golden set as a Hugging Face dataset folder, and back. The `export`
and `import` groups add these commands (this module has no command of its own to list)."""

from __future__ import annotations

from pathlib import Path

import click

from ..models import DEFAULT_STRATUM
from ..render.styles import data
from ._common import open_store, say


@click.command("hub")
@click.argument("version", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The dataset folder to write (new or empty; its parent must exist).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "parquet"]),
    default="jsonl",
    show_default=True,
    help="The data files: JSON Lines, or Parquet (needs pyarrow: the [fast] extra).",
)
@click.option("--split-by-stratum", is_flag=True, help="Also one qrels split per stratum (test keeps every label).")
@click.option("--license", "license_id", default="other", show_default=True, help="The card's licence identifier.")
@click.option("--force", is_flag=True, help="Replace a folder an earlier `export hub` wrote.")
@click.pass_context
def export_hub(
    ctx: click.Context,
    version: Path,
    out_path: Path,
    fmt: str,
    split_by_stratum: bool,
    license_id: str,
    force: bool,
) -> None:
    """A frozen version (checked first) as a Hugging Face dataset folder.

    \b
    `datasets.load_dataset(DIR, CONFIG)` and MTEB v2's retrieval loader read it as it is:
      corpus    _id, title, text (metadata, when a document has any: JSON text)
      queries   _id, text, stratum (description: the guidelines, when a query has any)
      default   the qrels, split test: query-id, corpus-id, score (grade 0 included)
      labels    every labeled, skipped and pooled-unjudged pair: state, grade or null,
                stratum, weight, assessor kind, assessors
    README.md is the dataset card (the YAML header declares the configs), generated from
    the manifest; qrelkit.json keeps the scale, weights and profiles for `import hub`. The
    judgment log's events are not exported (`qrelkit export judgments` keeps them)."""
    from ..workflows import hub

    done = hub.export_hub(
        version,
        out_path,
        fmt="parquet" if fmt == "parquet" else "jsonl",
        split_by_stratum=split_by_stratum,
        force=force,
        license=license_id,
        store=ctx.find_root().obj["db"],
    )
    say(
        "wrote ",
        data(out_path),
        f": {done.documents} documents, {done.queries} queries, {done.labels} labels (split "
        f"{', '.join(done.splits)}), {done.rows} pairs in labels; content ",
        data(done.manifest.content_hash[:19]),
    )


@click.command("hub")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--split", default="test", show_default=True, help="Which qrels split to import.")
@click.option("--stratum", default=DEFAULT_STRATUM, show_default=True, help="Stratum of a query the folder gives none.")
@click.option(
    "--assessor",
    default="hub",
    show_default=True,
    help="Whom the imported labels and skips are recorded as.",
)
@click.pass_context
def import_hub(ctx: click.Context, folder: Path, split: str, stratum: str, assessor: str) -> None:
    """Import a Hugging Face / MTEB / BEIR retrieval folder, in one transaction.

    \b
    The configs come from README.md's YAML header (corpus, queries, default), else from
    corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv (or .jsonl, or the same in .parquet).
    A folder `export hub` wrote brings back more: each pair's state (labeled, skipped,
    pooled) from its labels config, and the scale, weights and profiles from qrelkit.json
    (into a store holding no golden set yet); the judgment log's events do not come back,
    each label and skip is one event by --assessor."""
    from ..workflows import hub_import

    r = hub_import.import_hub(open_store(ctx, create=True), folder, split=split, stratum=stratum, assessor=assessor)
    states = f", {r.skipped} skipped" if r.with_labels else ""
    say(
        f"imported {r.documents} documents, {r.queries} queries, {r.labels} labels{states}, {r.pooled} pooled from ",
        data(folder),
    )
    if r.content_hash is not None and r.exported_hash is not None:
        if r.content_hash == r.exported_hash:
            say("content ", data(r.content_hash[:19]), ": the exported version's")
        else:
            say("content ", data(r.content_hash[:19]), ", not the exported version's ", data(r.exported_hash[:19]),
                " (the folder was changed since)")  # fmt: skip
