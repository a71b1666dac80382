"""freeze, verify, diff, and the JSON Schemas of qrelkit's files."""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from .. import versioning
from ..formats import atomic_write
from ..render.styles import data
from ..render.tables import diff_lines
from ..workflows import label_sets, versions
from ._common import err, format_option, labels_options, open_store, say, show


@click.command()
@click.argument("name")
@click.argument("version")
@click.option("--note", help="What changed, for the manifest.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default="goldensets",
    show_default=True,
    help="Folder of golden sets.",
)
@labels_options
@click.pass_context
def freeze(
    ctx: click.Context,
    name: str,
    version: str,
    note: str | None,
    out_dir: Path,
    labels: str | None,
    machine_assessor: str | None,
) -> None:
    """Freeze the store as OUT/NAME/VERSION/: manifest, queries, documents, qrels, event log, pool.
    With --labels machine or human+machine, qrels.txt holds those labels and the manifest and
    content hash say so; the event log stays the humans'."""
    store = open_store(ctx)
    chosen = label_sets.choose(store, labels or "human", machine_assessor)
    manifest = versions.freeze(store, out_dir, name, version, note=note, labels=chosen)
    totals = manifest.counts["all"]
    say(
        "froze ", data(out_dir / name / version),
        f": {totals.queries} queries, {sum(totals.labels.values())} labels, {totals.skipped} skipped, "
        f"{totals.unlabeled} pooled unlabeled; content {manifest.content_hash[:19]}",
        data(f"; labels {chosen.describe()}" if not chosen.human else ""),
        data(f" (parent {manifest.parent_version})" if manifest.parent_version else ""),
    )  # fmt: skip


@click.command("verify")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.pass_context
def verify(ctx: click.Context, folder: Path) -> None:
    """Check every file of a frozen version against its manifest; exit 1 naming what changed."""
    problems = versioning.verify(folder)
    if problems:
        for problem in problems:
            err.print(Text.assemble(("altered:", "bold red"), " ", data(folder / problem)))
        ctx.exit(1)
    manifest = versioning.read_manifest(folder)
    say(data(folder), f": {len(manifest.files)} files match the manifest ", data(f"({manifest.content_hash[:19]})"))


@click.command("diff")
@click.argument("folder_a", type=click.Path(file_okay=False, path_type=Path))
@click.argument("folder_b", type=click.Path(file_okay=False, path_type=Path))
@format_option("table", "json")
@click.option("--verify/--no-verify", default=True, show_default=True, help="Refuse an altered version.")
def diff(folder_a: Path, folder_b: Path, fmt: str, verify: bool) -> None:
    """What changed between two frozen versions: queries (and their texts and guidelines),
    documents, labels, regrades, weights, profiles, coverage."""
    a, b = versioning.read(folder_a, check=verify), versioning.read(folder_b, check=verify)
    ma, mb = versioning.read_manifest(folder_a), versioning.read_manifest(folder_b)
    d = versioning.diff(a, b, f"{ma.name}/{ma.version}", f"{mb.name}/{mb.version}")
    if fmt == "json":
        click.echo(d.model_dump_json(indent=2, by_alias=True))
        return
    show(diff_lines(d))


@click.group()
def schemas() -> None:
    """JSON Schemas of qrelkit's files, generated from its models."""


_SCHEMA_DIR = click.option(
    "--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default="schemas", show_default=True
)


@schemas.command("write")
@_SCHEMA_DIR
def schemas_write(folder: Path) -> None:
    """Regenerate every schema file."""
    from ..formats import schemas as generated
    from ..workflows.outputs import refuse_inside_version

    refuse_inside_version(folder, "--dir")
    for name, model in generated.SCHEMAS.items():
        with atomic_write(folder / name, parents=True) as stream:
            stream.write(generated.render(model))
    say(f"wrote {len(generated.SCHEMAS)} schemas to ", data(folder))


@schemas.command("check")
@_SCHEMA_DIR
@click.pass_context
def schemas_check(ctx: click.Context, folder: Path) -> None:
    """Exit 1 if a committed schema differs from the models."""
    from ..formats import schemas as generated

    stale = generated.drift(folder)
    if stale:
        err.print(Text.assemble(("out of date:", "bold red"), " ", data(", ".join(stale)), f" (run `{generated.FIX}`)"))
        ctx.exit(1)
    say(f"{len(generated.SCHEMAS)} schemas up to date")


COMMANDS = [freeze, verify, diff, schemas]
