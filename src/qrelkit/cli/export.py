"""export qrels / judgments: written to a temporary file, then renamed (and hub, from `hub`: a folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..formats import atomic_write
from ..render.styles import data
from ..workflows import exporting, label_sets
from ._common import check_out, err, format_option, labels_options, open_store, out_option, say
from .hub import export_hub
from .label_studio import export_label_studio


@click.group()
def export() -> None:
    """Export labels, the judgment log (written to a temporary file, then renamed), a frozen version
    as a Hugging Face dataset folder, or Label Studio tasks."""


@export.command("qrels")
@format_option("trec", "jsonl")
@out_option
@labels_options
@click.pass_context
def export_qrels(
    ctx: click.Context,
    fmt: exporting.QrelsFormat,
    out_path: Path | None,
    labels: str | None,
    machine_assessor: str | None,
) -> None:
    """Current labels only: unlabeled and skipped pairs never appear (grade 0 does). The humans'
    labels unless --labels asks for machine labels."""
    check_out(ctx, out_path)
    store = open_store(ctx)
    chosen = label_sets.choose(store, labels or "human", machine_assessor)
    if out_path is None:
        exporting.export_qrels(store, sys.stdout, fmt, chosen)
        return
    with atomic_write(out_path) as stream:
        n = exporting.export_qrels(store, stream, fmt, chosen)
    say(f"wrote {n} labels to ", data(out_path), console=err)


@export.command("judgments")
@out_option
@click.pass_context
def export_judgments(ctx: click.Context, out_path: Path | None) -> None:
    """The event log of the golden set's queries as JSONL, in order (a removed query's events
    stay in the store's append-only log but are not the golden set's: see `qrelkit removals`)."""
    check_out(ctx, out_path)
    store = open_store(ctx)
    if out_path is None:
        exporting.export_judgments(store, sys.stdout)
        return
    with atomic_write(out_path) as stream:
        n = exporting.export_judgments(store, stream)
    say(f"wrote {n} events to ", data(out_path), console=err)


export.add_command(export_hub)
export.add_command(export_label_studio)

COMMANDS = [export]
