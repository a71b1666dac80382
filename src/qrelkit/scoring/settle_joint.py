"""The `settle` order and its replay over several measures at once (`--metric M1 --metric M2`).

Every (comparison, measure) counts. A pair's priority is

    sum over the measures m of  w_m * P_m(pair),    w_m = mean_m' W_m' / W_m,

where P_m is the one-measure priority of `settle_order.priorities` (the expected narrowing of the
mean delta interval of every comparison still open under m that the pair touches, each divided by
the comparison's queries) and W_m the summed width (hi - lo) of the mean delta intervals of the
comparisons still open under m (not settled in both verdicts). The weight puts every measure's open
width on one scale, the mean of them: a measure whose intervals are wide in its own units (AP's
outer intervals, an nDCG over many open documents) does not crowd out one whose intervals are
narrow but as open (P@10, RR), and a measure settled for every comparison (W_m = 0) weighs nothing.
Within a measure the comparisons weigh as in the one-measure order (by the width each can lose).
With one measure w_m = W / W = 1 exactly, so the priorities are `settle_order.priorities`' to the
bit, and so is the queue.

The replay (`replay_all`) judges the pairs in order once per measure (`settle_order.replay`: each
measure's ranges move independently of the others' under the same judgments): every (comparison,
measure) is settled at the largest of the measures' steps, and never if one of them is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .arrays import RunLists
from .measures import Measure
from .settle import Scale, query_range
from .settle_order import FloatArray, Matchup, Pair, Replay, input_matchups, priorities, replay, settled_now


def open_width(m: Measure, matchups: Sequence[Matchup], scale: Scale) -> float:
    """W_m: the summed mean-delta interval widths of the comparisons not settled under `m`."""
    total = 0.0
    for mu in matchups:
        ranges = [query_range(m, c, scale) for c in mu.cases]
        if not ranges or settled_now(ranges):
            continue
        total += float(np.mean([r.high for r in ranges])) - float(np.mean([r.low for r in ranges]))
    return total


def weights(measures: Sequence[Measure], matchups: Sequence[Matchup], scale: Scale) -> list[float]:
    """w_m per measure (0 for a measure settled everywhere); see the module docstring."""
    widths = [open_width(m, matchups, scale) for m in measures]
    live = [w for w in widths if w > 0]
    if not live:
        return [0.0 for _ in measures]
    mean = sum(live) / len(live)
    return [mean / w if w > 0 else 0.0 for w in widths]


def joint_priorities(
    measures: Sequence[Measure], matchups: Sequence[Matchup], scale: Scale, prior: FloatArray
) -> dict[Pair, float]:
    """(query, doc) -> sum over the measures of w_m times the one-measure priority."""
    if len(measures) == 1:
        return priorities(measures[0], matchups, scale, prior)
    out: dict[Pair, float] = {}
    for m, w in zip(measures, weights(measures, matchups, scale), strict=True):
        if w <= 0:
            continue
        for pair, v in priorities(m, matchups, scale, prior).items():
            out[pair] = out.get(pair, 0.0) + w * v
    return out


def replay_all(
    measures: Sequence[Measure],
    matchups: Sequence[Matchup],
    scale: Scale,
    pairs: Sequence[Pair],
    grade: int | Mapping[Pair, int],
) -> list[Replay]:
    """`settle_order.replay` of the same pairs under each measure, in the measures' order."""
    return [replay(m, matchups, scale, pairs, grade) for m in measures]


def every(replays: Sequence[Replay]) -> int | None:
    """After how many pairs every (comparison, measure) is settled (None: not within them)."""
    steps = [r.every for r in replays]
    if any(s is None for s in steps):
        return None
    return max((s for s in steps if s is not None), default=0)


def input_matchups_all(
    runs: Sequence[RunLists],
    labels: Mapping[str, Mapping[str, int]],
    comparisons: Sequence[tuple[str, str]],
    metrics: Sequence[str],
    threshold: int,
    max_grade: int | None,
    pooled: Iterable[str] = (),
) -> tuple[list[Measure], list[Matchup], Scale, FloatArray]:
    """`settle_order.input_matchups` for several measures (default: the headline; `pooled`: the
    queue's queries, as there): each refused as it refuses one, the same measure named twice
    refused (`names.parse_measures`)."""
    from .names import parse_measures
    from .settle import refuse_unsupported

    first, matchups, scale, prior = input_matchups(
        runs, labels, comparisons, metrics[0] if metrics else None, threshold, max_grade, pooled
    )
    if len(metrics) <= 1:
        return [first], matchups, scale, prior
    measures = parse_measures(list(metrics))
    for m in measures:
        refuse_unsupported(m, scale)
    return measures, matchups, scale, prior
