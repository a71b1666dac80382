"""The judging queue: which unlabeled pooled pair to judge next, the same for `qrelkit queue` and
the judging screen (an assessor's own pending assignments first, then the queue's order)."""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import TILES, QueueItem, QueueOrder
from ..storage import LabelRow, Store
from .comparisons import Comparisons as Comparisons  # where `--for` and `--leaderboard` are read

if TYPE_CHECKING:
    from ..scoring.arrays import RunLists


def run_lists(store: Store) -> list[RunLists]:
    """The runs pooled into the store, as the scoring engine takes them."""
    from ..scoring.arrays import RunLists

    return [RunLists(name, ranked) for name, ranked in store.pool.runs().items()]


def labels_by_query(
    rows: Sequence[LabelRow], leave_out: Set[tuple[str, str]] = frozenset()
) -> dict[str, dict[str, int]]:
    """(query, doc, grade) rows as query -> doc -> grade, without the pairs in `leave_out`."""
    labels: dict[str, dict[str, int]] = {}
    for q, d, g in rows:
        if (q, d) not in leave_out:
            labels.setdefault(q, {})[d] = g
    return labels


def impacts(
    store: Store,
    pairs: Sequence[tuple[str, str]],
    labels: dict[str, dict[str, int]],
    metrics: str | Sequence[str] | None = None,
) -> list[float]:
    """Each pair's impact on the pooled runs' open bounds (`scoring.impact`), over this store's
    strata, weights and scale; `metrics` default: the two tiles (`models.TILES`)."""
    from ..scoring.impact import impact_scores
    from ..scoring.measures import refuse_above_scale
    from ..scoring.names import parse_measures

    scale = store.settings.scale
    refuse_above_scale(parse_measures(metrics or TILES), scale.max_grade, store.settings.name)
    return impact_scores(
        pairs,
        run_lists(store),
        labels,
        max_grade=scale.max_grade,
        strata=store.settings.query_strata(),
        weights=store.settings.weights(),
        metrics=metrics or TILES,
        relevance_threshold=scale.relevance_threshold,
    )


def ordered_queue(
    store: Store,
    order: QueueOrder = "impact",
    *,
    seed: int = 0,
    stratum: str | None = None,
    metrics: str | Sequence[str] | None = None,
    assessor: str | None = None,
    comparisons: Comparisons | None = None,
) -> list[QueueItem]:
    """The unlabeled pooled pairs (of one stratum, if given) in judging order (`scoring.orders`:
    each order says what it needs, the impacts, the pooled runs, the current labels, and gets
    it here); without pooled runs every impact is 0, so the impact order falls back to the depth
    order, and so do the orders that follow the runs. `disagreement`: where the machine assessors
    are unsure first (`disagreement_order`). With `assessor`, the pairs assigned to them that they
    have not judged come first (in queue order where the queue has them), marked `assigned`.
    `settle` needs `comparisons` (`--for`, `--leaderboard`): the runs it reads are theirs, not
    the pooled ones, and it settles them over every measure they name."""
    from ..scoring.orders import ORDERS, OrderInput, order_entries
    from .sources import refuse_empty_metrics

    refuse_empty_metrics(metrics if isinstance(metrics, str) else None)
    work = store.reads.open_work()
    entries = work.unlabeled
    strata = store.settings.query_strata()
    if stratum is not None:
        entries = [e for e in entries if strata.get(e.query_id) == stratum]
    needs = ORDERS[order].needs if order in ORDERS else frozenset()
    if "comparisons" in needs and (comparisons is None or not comparisons.pairs):
        raise UsageError(
            f"the {order} order needs the comparisons it settles", "give --for A.run,B.run or --leaderboard FILE"
        )
    labels = labels_by_query(work.labels) if needs & {"labels", "impacts"} else {}
    scores = None
    if "impacts" in needs:
        scores = impacts(store, [(e.query_id, e.doc_id) for e in entries], labels, metrics)
    if order == "disagreement":
        from .disagreement_order import disagreement_queue

        items = disagreement_queue(store, entries, scores or [])
    else:
        runs, pairs = comparisons.read() if comparisons is not None and "comparisons" in needs else ([], [])
        given = OrderInput(
            entries,
            runs or (run_lists(store) if "runs" in needs else ()),
            labels,
            seed=seed,
            relevance_threshold=store.settings.scale.relevance_threshold,
            impacts=scores,
            comparisons=pairs,
            metrics=comparisons.metrics if comparisons is not None else (),
            max_grade=store.settings.scale.max_grade,
        )
        items = order_entries(given, order)
    return _assigned_first(store, items, assessor, stratum, strata)


def _assigned_first(
    store: Store, items: list[QueueItem], assessor: str | None, stratum: str | None, strata: dict[str, str]
) -> list[QueueItem]:
    """The assessor's pending assignments (of the stratum) first, in queue order, then the rest."""
    mine = store.log.pending_assignments(assessor) if assessor is not None else []
    mine = [p for p in mine if stratum is None or strata.get(p[0]) == stratum]
    if not mine:
        return items
    rank = {(i.query_id, i.doc_id): n for n, i in enumerate(items)}
    own = set(mine)
    first = sorted(mine, key=lambda p: (rank.get(p, len(rank)), p))
    assigned = [QueueItem(query_id=q, doc_id=d, priority=0.0, source="assigned") for q, d in first]
    return assigned + [i for i in items if (i.query_id, i.doc_id) not in own]


def until_settled(store: Store, items: Sequence[QueueItem], comparisons: Comparisons) -> int | None:
    """How many of `items` (in order) it takes until every comparison would be settled under every
    measure, each pair judged at the grade nearest the prior's mean (`settle_order.replay`: an
    estimate); 0: already settled; None: not within them."""
    from ..scoring.settle_joint import every, input_matchups_all, replay_all
    from ..scoring.settle_order import expected_grade

    runs, pairs = comparisons.read()
    labels = labels_by_query(store.reads.open_work().labels)
    scale = store.settings.scale
    measures, matchups, settle_scale, prior = input_matchups_all(
        runs, labels, pairs, comparisons.metrics, scale.relevance_threshold, scale.max_grade,
        {i.query_id for i in items},  # as the order counts them: each evaluated from its first label on
    )  # fmt: skip
    pending = [(i.query_id, i.doc_id) for i in items]
    return every(replay_all(measures, matchups, settle_scale, pending, expected_grade(prior)))
