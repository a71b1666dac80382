"""Score reports as `trec_eval` prints them (`score --format trec_eval`; with --per-query, as
`trec_eval -q`), so scripts that parse trec_eval's output keep working.

Every line is trec_eval's `%-22s\\t%s\\t%6.4f` (`%ld` for the counts `num_*`): per query (with
--per-query), queries in byte order, then the `all` rows, which start with `runid` and `num_q`.
Measures come in trec_eval's own order (the order of its measure table, cutoffs ascending),
whatever order they were asked in; counts sum over queries in the `all` rows, as trec_eval's do,
and the geometric means (`gm_map`, `gm_bpref`) appear in the `all` rows only.
Measures trec_eval does not compute follow, under qrelkit's name, in the order asked.

The caller maps each canonical measure name to trec_eval's (`names`): rendering knows trec_eval's
layout, not the measure registry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ..models.plain import PlainScoreReport

TREC_EVAL_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring recall "
    "infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg ndcg_rel Rndcg ndcg_cut map_cut "
    "relative_P success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret yaap rbp rbp_resid unj"
).split()
"""trec_eval's measure table (`measures.c`, `te_trec_measures`): the order it prints in."""

COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
"""Measures trec_eval prints as integers (`%ld`) and sums, not averages, over queries."""

SUMMARY_ONLY = frozenset({"gm_map", "gm_bpref"})
"""Measures trec_eval prints in the `all` rows only, never per query (its geometric means)."""

_PARAMETER = re.compile(r"^(?P<base>.+?)_(?P<value>\d+(?:\.\d+)?)$")


def _sort_key(trec_name: str) -> tuple[int, float]:
    if trec_name in TREC_EVAL_ORDER:
        return TREC_EVAL_ORDER.index(trec_name), 0.0
    m = _PARAMETER.match(trec_name)
    if m and m.group("base") in TREC_EVAL_ORDER:
        return TREC_EVAL_ORDER.index(m.group("base")), float(m.group("value"))
    return len(TREC_EVAL_ORDER), 0.0


def ordered(names: Mapping[str, str], metrics: Sequence[str]) -> list[tuple[str, str]]:
    """(canonical, printed) for every metric: trec_eval's in its order, then the others as given."""
    known = sorted((m for m in metrics if m in names), key=lambda m: _sort_key(names[m]))
    return [(m, names[m]) for m in known] + [(m, m) for m in metrics if m not in names]


def line(name: str, qid: str, value: float | str) -> str:
    """One trec_eval output line."""
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t{value}\n"
    if name in COUNTS:
        return f"{name:<22}\t{qid}\t{round(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"


MIN_GEO_MEAN = 0.00001
"""trec_eval's floor under a value before its logarithm (`gm_map`, `gm_bpref`)."""


def _all_value(rep: PlainScoreReport, metric: str, count: bool, geometric: bool = False) -> float | None:
    """A measure's `all` value as trec_eval computes it: the per-query values added one by one in
    query order (byte order, as trec_eval sorts them), then divided by the number of queries
    (counts: the sum itself; the geometric means: the logs of the values, at least MIN_GEO_MEAN,
    then exp); from the report's mean when it holds no per-query values."""
    if rep.per_query:
        total, n = 0.0, 0
        for qid in sorted(rep.per_query, key=lambda q: q.encode()):
            if metric in rep.per_query[qid]:
                value = rep.per_query[qid][metric].value
                total += math.log(max(value, MIN_GEO_MEAN)) if geometric else value  # one by one, as trec_eval
                n += 1
        if count:
            return total
        if geometric:
            return math.exp(total / n) if n else None
        return total / n if n else None
    mean = rep.metrics[metric].mean
    if math.isnan(mean):
        return None
    return mean * rep.metrics[metric].n if count else mean


def trec_eval_text(rep: PlainScoreReport, names: Mapping[str, str], runid: str, *, per_query: bool = False) -> str:
    """One report as trec_eval prints it; `names` maps canonical names to trec_eval's. The `all`
    rows come from the per-query values when the report holds them (it should: see `_all_value`),
    whether or not they are printed (`per_query`)."""
    columns = [(m, printed) for m, printed in ordered(names, list(rep.metrics)) if printed not in ("runid", "num_q")]
    out = []
    if per_query and rep.per_query:
        for qid in sorted(rep.per_query, key=lambda q: q.encode()):
            values = rep.per_query[qid]
            out += [
                line(printed, qid, values[m].value)
                for m, printed in columns
                if m in values and printed not in SUMMARY_ONLY
            ]
    out.append(line("runid", "all", runid))
    out.append(line("num_q", "all", rep.queries.evaluated))
    for metric, printed in columns:
        value = _all_value(rep, metric, printed in COUNTS, printed in SUMMARY_ONLY)
        out.append(line(printed, "all", "n/a" if value is None or math.isnan(value) else value))
    return "".join(out)


def trec_eval_reports(
    reports: Sequence[PlainScoreReport], names: Mapping[str, str], runids: Sequence[str], *, per_query: bool = False
) -> str:
    """Every report, one after another (each with its own `runid` line), as trec_eval prints one."""
    return "".join(
        trec_eval_text(rep, names, runid, per_query=per_query) for rep, runid in zip(reports, runids, strict=True)
    )
