"""score: runs against the store, a frozen version or a qrels file, with coverage and bounds."""

from __future__ import annotations

from pathlib import Path

import click

from ..formats.trec import RunFormat
from ..models.plain import PlainScoreReport
from ..render.score import ScoreFormat, render_reports
from ..scoring.measures import DEFAULT_METRICS
from ..scoring.names import REFERENCES
from ..workflows import scoring, sources
from ._common import (
    Data,
    check_out,
    emit,
    err,
    labels_options,
    open_store,
    options,
    out_option,
    run_format_option,
    say,
    source_options,
    store_opener,
)

HELP = """Score RUNS (TREC run files, or JSON Lines: .jsonl / .ndjson) with coverage and bounds,
against the store by default.

\b
Measures (ir_measures names, trec_eval semantics; reports use the canonical name):
  P@k  R@k  Success@k (Hit@k)  RR (MRR)  RR@k  nDCG  nDCG@k  AP (MAP)  AP@k  Rprec  Judged@k
  P(rel=2)@5       relevance threshold 2 for this measure only
  nDCG(gain=exp)@10  gains 2^grade - 1 (default: gain = grade, as trec_eval);
                   ir_measures' nDCG(dcg='exp-log2')@10 is the same measure
  trec_eval names: P_5  recall_10  ndcg_cut_10  map  map_cut_10  recip_rank  success_1 ...
                   and trec_eval's lists: ndcg_cut.5,10  P.5,10,20
  rbp              trec_eval's RBP: p = 0.9, gain = grade / the query's top grade;
                   RBP is ir_measures' (p = 0.8, binary), RBP(p=0.9) sets p
  ERR@k            ir_measures'/gdeval's: top grade 4; ERR(max_grade=3)@k for 0..3
  Every family, its names and semantics: docs/measures.md.

\b
Scale: --relevance-level N is trec_eval's -l N, --max-grade N the scale's top grade.
With --qrels they default to 1 and the file's top grade; with --golden or the store,
to the golden set's own threshold and scale.

Ties are broken by score, then document id descending (byte order); the rank column is
ignored (it must be an integer); a 3-field run whose third column runs 1..n within each query
is MS MARCO's qid pid rank, ranked by rank (the report says so; see --run-format). The golden
set's queries are evaluated: a query missing from the run scores 0 (trec_eval -c), run-only
queries are ignored, and the counts are reported (per-query output marks the queries the run
lacks). A golden-set query with no label at all is left out of the means, as trec_eval leaves
out queries its qrels lack, and counted (--keep-unlabeled-queries scores it 0); a query whose
labels are all grade 0 stays in. A run that shares no query id with the golden set is an
error. Unlabeled and skipped documents count as not relevant for the value; coverage and
bounds show what they leave open.

\b
Output: --format json writes one object {"reports": [...]} (one report per run), which
`qrelkit compare` reads; --format trec writes trec_eval's MEASURE QUERY VALUE lines, with a
leading RUN column when several runs are scored. Runs whose file names collide are named
by their folders (a/bm25.run, b/bm25.run).

--format trec_eval prints what trec_eval prints (with --per-query, what trec_eval -q prints):
its names, its layout and order, runid, num_q and the counts num_ret, num_rel, num_rel_ret;
measures trec_eval lacks follow under qrelkit's names; it equals trec_eval 10.0's output
byte for byte (--reference pytrec_eval: pytrec_eval's values, float32 scores and trec_eval 9's
IPrec rule). --names trec_eval uses trec_eval's names (ndcg_cut_10, P_5, map) in tables,
trec and csv output too. See docs/measures.md.
"""


METRICS_OPTION = click.option(
    "--metrics",
    help=f"Comma- or space-separated measures, ir_measures or trec_eval names [default: {','.join(DEFAULT_METRICS)}].",
)
KEEP_UNLABELED_OPTION = click.option(
    "--keep-unlabeled-queries",
    "keep_unlabeled",
    is_flag=True,
    help="Score golden-set queries with no label as 0 (default: leave them out of the means, as trec_eval"
    " leaves out queries its qrels lack; either way they are counted).",
)
FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "trec", "csv", "trec_eval"]),
    default="table",
    show_default=True,
)
NAMES_OPTION = click.option(
    "--names",
    "naming",
    type=click.Choice(["qrelkit", "trec_eval"]),
    default="qrelkit",
    show_default=True,
    help="Metric names in tables, trec and csv output (JSON keeps qrelkit's).",
)
COVERAGE_OPTION = click.option(
    "--min-coverage",
    type=click.FloatRange(0, 1),
    help="Exit 1 if any metric's (or stratum's) mean coverage is below: the labeled share of the documents"
    " that can still change its value (RR: the ranks down to the first relevant one; P@k, nDCG@k: the top k).",
)
PRECISION_OPTION = click.option(
    "--score-precision",
    type=click.Choice(["float64", "float32"]),
    help="Rank by float64 scores (trec_eval 10) or by scores rounded to float32 (trec_eval 9, pytrec_eval)"
    " [default: float64; float32 with --reference pytrec_eval].",
)
REFERENCE_OPTION = click.option(
    "--reference",
    type=click.Choice(REFERENCES),
    default="trec_eval",
    show_default=True,
    help="Whose numbers to reproduce where trec_eval versions differ: trec_eval 10, or pytrec_eval"
    " (float32 scores, trec_eval 9's rank of a recall level in IPrec and 11pt_avg).",
)


OPTIONS = options(
    click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path)),
    source_options,
    labels_options,
    METRICS_OPTION,
    click.option("--profile", help="Use a scoring profile's metrics and strata."),
    click.option("--per-query", is_flag=True, help="Include every query's value, coverage and bounds."),
    KEEP_UNLABELED_OPTION,
    FORMAT_OPTION,
    NAMES_OPTION,
    COVERAGE_OPTION,
    PRECISION_OPTION,
    REFERENCE_OPTION,
    out_option,
    click.option("--bounds/--no-bounds", default=True, show_default=True, help="Compute bounds (slower)."),
    click.option("--save", is_flag=True, help="Keep the reports in the store (the TUI dashboard shows the latest)."),
    run_format_option,
)


@click.command(help=HELP)
@OPTIONS
@click.pass_context
def score(
    ctx: click.Context,
    runs: tuple[Path, ...],
    golden: Path | None,
    qrels: Path | None,
    verify: bool,
    max_grade: int | None,
    relevance_level: int | None,
    labels: str | None,
    machine_assessor: str | None,
    metrics: str | None,
    profile: str | None,
    per_query: bool,
    keep_unlabeled: bool,
    fmt: ScoreFormat,
    naming: str,
    min_coverage: float | None,
    score_precision: str | None,
    reference: str,
    out_path: Path | None,
    bounds: bool,
    save: bool,
    run_format: RunFormat,
) -> None:
    check_out(ctx, out_path, *runs, golden, qrels)
    scoring.map_large_allocations()  # before the qrels are read: freed arrays go back at once
    scale = {"max_grade": max_grade, "relevance_level": relevance_level}
    source = sources.choose_source(
        store_opener(ctx), golden=golden, qrels=qrels, verify=verify, labels=labels, machine_assessor=machine_assessor,
        **scale,
    )  # fmt: skip
    extra = scoring.trec_eval_counts() if fmt == "trec_eval" else []
    precision = score_precision or ("float32" if reference == "pytrec_eval" else "float64")
    chosen = sources.plan(
        source, metrics=metrics, profile=profile, extra=extra, score_precision=precision, reference=reference,
        keep_unlabeled=keep_unlabeled,
    )  # fmt: skip
    # trec_eval's `all` rows are sums over the per-query values in its order: they are always scored
    reports = scoring.score_runs(
        source, runs, chosen, per_query=per_query or fmt == "trec_eval", bounds=bounds, run_format=run_format
    )
    _emit(reports, runs, fmt, naming, reference, per_query=per_query, min_coverage=min_coverage, out_path=out_path)
    if save:
        from .reports import save_and_say

        save_and_say(open_store(ctx), reports)
    _check_coverage(ctx, reports, min_coverage)


def _check_coverage(ctx: click.Context, reports: list[PlainScoreReport], min_coverage: float | None) -> None:
    """`--min-coverage`: exit 1, naming each metric under it."""
    low = scoring.coverage_violations(reports, min_coverage) if min_coverage is not None else []
    if low:
        say((f"coverage below {min_coverage:g}:", "bold red"), " ", Data("; ".join(low)), console=err)
        ctx.exit(1)


def _emit(
    reports: list[PlainScoreReport],
    runs: tuple[Path, ...],
    fmt: ScoreFormat,
    naming: str,
    reference: str,
    *,
    per_query: bool,
    min_coverage: float | None,
    out_path: Path | None,
) -> None:
    """Render the reports: under trec_eval's names for `--names trec_eval` and `--format trec_eval`,
    which also takes each run's `runid` from its file."""
    use_trec = fmt == "trec_eval" or naming == "trec_eval"
    names = scoring.trec_eval_names(reports, reference) if use_trec else None
    runids = None
    if fmt == "trec_eval":
        runids = [scoring.run_id(p, r.fingerprint.run.name) for p, r in zip(runs, reports, strict=True)]
    emit(
        lambda width, color: render_reports(
            reports,
            fmt,
            per_query=per_query,
            min_coverage=min_coverage,
            width=width,
            color=color,
            names=names,
            runids=runids,
        ),
        out_path,
        styled=fmt == "table",
    )
    if fmt in ("trec", "csv", "trec_eval"):  # a table's notes and the JSON say it; these formats have no room
        for r in reports:
            if r.run_read_as:
                say(("note:", "bold"), " ", Data(f"{r.fingerprint.run.name}: {r.run_read_as}"), console=err)


COMMANDS = [score]
