"""demo: the bundled golden set, scored and compared in a scratch store."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..render import text
from ..render.compare import TABLE_WIDTH, comparison_table
from ..render.score import render_reports
from ..render.styles import data
from ..workflows import demo as workflow
from ._common import out, say


@click.command()
@click.option(
    "--keep",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Leave the demo store here (then: qrelkit --db PATH judge).",
)
def demo(keep: Path | None) -> None:
    """Load the bundled `pydocs` golden set into a scratch store and report on it."""
    with tempfile.TemporaryDirectory() as tmp:
        result = workflow.run_demo(keep or Path(tmp) / "demo.db", keep=keep is not None)
    st = result.status
    say(
        data(st.name, "bold"), " (", data(result.folder), f"): {st.queries} queries in {len(st.strata)} strata, "
        f"{st.documents} passages, {sum(st.labels.values())} labels, {st.skipped} skipped, "
        f"{st.unlabeled_pool} pooled but unlabeled\n",
    )  # fmt: skip
    for report in result.reports:
        click.echo(render_reports([report], "table", width=out.width, color=out.is_terminal))
    if result.comparison is not None:
        click.echo(
            text(comparison_table(result.comparison), width=max(out.width, TABLE_WIDTH), color=out.is_terminal),
            nl=False,
        )
    if keep:
        say("\nthe demo store is at ", data(keep), ": try ", data(f"qrelkit --db {keep} status"))


COMMANDS = [demo]
