"""The figures of `qrelkit calibrate`, pure: weighted kappa, the confusion matrix, over- and
under-rating, self-consistency, Kendall's tau between two rankings, the significant pairs that
stay significant, and each run's inflation.

Kappa is Cohen's weighted kappa over the scale's grades 0..max (distance |i - j| linear, (i - j)^2
quadratic): 1 - sum(w O) / sum(w E), O the observed joint shares, E the product of the two
marginals; undefined (None) when E puts no weight anywhere (both sides one and the same grade
throughout). Krippendorff's alpha is `agreement.alpha_ordinal` over the pairs as two-coder
units. Tau is Kendall's tau-b (ties on either side corrected for).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..models.calibration import AgreementFigures, Consistency, GradeRow, RunCalibration
from .agreement import alpha_ordinal

FloatArray = npt.NDArray[np.float64]
TIE = 1e-12
"""Scores closer than this are tied (as `paired.TIE`)."""
FAVOURED_SE = 2.0
"""A run is flagged when its relative inflation is more than this many standard errors above 0."""


def confusion(pairs: Sequence[tuple[int, int]], max_grade: int) -> list[list[int]]:
    """[human][machine] counts over grades 0..max_grade."""
    table = [[0] * (max_grade + 1) for _ in range(max_grade + 1)]
    for h, m in pairs:
        table[h][m] += 1
    return table


def weighted_kappa(pairs: Sequence[tuple[int, int]], max_grade: int, power: int) -> float | None:
    """Cohen's kappa with weights |i - j| ** power (1: linear, 2: quadratic) over 0..max_grade."""
    if not pairs:
        return None
    o = np.asarray(confusion(pairs, max_grade), dtype=np.float64)
    o /= o.sum()
    grades = np.arange(max_grade + 1)
    w = np.abs(grades[:, None] - grades[None, :]).astype(np.float64) ** power
    e = np.outer(o.sum(axis=1), o.sum(axis=0))
    expected = float((w * e).sum())
    if expected <= 1e-15:
        return None
    return float(1.0 - (w * o).sum() / expected)


def alpha(pairs: Sequence[tuple[int, int]]) -> float | None:
    """Krippendorff's alpha, ordinal, of the pairs as units of two coders (human, machine)."""
    return alpha_ordinal({(str(i), ""): {"human": h, "machine": m} for i, (h, m) in enumerate(pairs)})


def _share(n: int, total: int) -> float | None:
    return n / total if total else None


def by_grade(pairs: Sequence[tuple[int, int]], max_grade: int) -> list[GradeRow]:
    rows = []
    for g in range(max_grade + 1):
        given = [m for h, m in pairs if h == g]
        agree = sum(m == g for m in given)
        over = sum(m > g for m in given)
        under = sum(m < g for m in given)
        n = len(given)
        rows.append(
            GradeRow(
                grade=g,
                pairs=n,
                agree=agree,
                over=over,
                under=under,
                agree_rate=_share(agree, n),
                over_rate=_share(over, n),
                under_rate=_share(under, n),
            )  # fmt: skip
        )
    return rows


def agreement_figures(
    pairs: Sequence[tuple[int, int]],
    max_grade: int,
    *,
    human_skipped: int = 0,
    machine_not_ok: Mapping[str, int] | None = None,
    machine_missing: int = 0,
    machine_only: int = 0,
) -> AgreementFigures:
    """Every agreement figure over `pairs` (human grade, machine grade), and the pairs counted apart."""
    n = len(pairs)
    return AgreementFigures(
        pairs=n,
        kappa_linear=weighted_kappa(pairs, max_grade, 1),
        kappa_quadratic=weighted_kappa(pairs, max_grade, 2),
        alpha_ordinal=alpha(pairs),
        exact_agreement=_share(sum(h == m for h, m in pairs), n),
        over_rate=_share(sum(m > h for h, m in pairs), n),
        under_rate=_share(sum(m < h for h, m in pairs), n),
        confusion=confusion(pairs, max_grade),
        by_grade=by_grade(pairs, max_grade),
        human_skipped=human_skipped,
        machine_not_ok=dict(sorted((machine_not_ok or {}).items())),
        machine_missing=machine_missing,
        machine_only=machine_only,
    )


def consistency(samples: Mapping[tuple[str, str], Sequence[int]], n: int, deterministic: bool) -> Consistency:
    """`samples`: pair -> its latest parsed grades (at most `n`); a pair with 2+ of them flips
    when they are not all the same."""
    asked = [grades for grades in samples.values() if len(grades) >= 2]
    flipped = sum(len(set(grades)) > 1 for grades in asked)
    return Consistency(
        samples=n, pairs=len(asked), flipped=flipped, flip_rate=_share(flipped, len(asked)), deterministic=deterministic
    )


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b of two score lists over the same items; None with fewer than 2 items or a
    side whose values are all tied."""
    concordant = discordant = tied_x = tied_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = _sign(x[i] - x[j]), _sign(y[i] - y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tied_x += 1
            elif dy == 0:
                tied_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + tied_x) * (concordant + discordant + tied_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


def _sign(d: float) -> int:
    """-1, 0 or 1; differences within `TIE` (rounding in a mean) are ties."""
    return 0 if abs(d) <= TIE else (1 if d > 0 else -1)


def ranks(scores: Sequence[float]) -> list[int]:
    """1 for the highest score; ties share the better rank."""
    return [1 + sum(other > s + TIE for other in scores) for s in scores]


def significant_pairs(
    p_human: FloatArray, p_machine: FloatArray, d_human: FloatArray, d_machine: FloatArray, alpha: float
) -> tuple[int, int, int, int]:
    """Over every pair of runs (upper triangle of the [runs, runs] p-values and mean differences):
    (significant under human labels, of which still significant the same way round, of which
    significant the other way round, significant under machine labels only)."""
    i, j = np.triu_indices(p_human.shape[0], 1)
    human = p_human[i, j] < alpha
    machine = p_machine[i, j] < alpha
    same_way = np.sign(d_human[i, j]) == np.sign(d_machine[i, j])
    return (
        int(human.sum()),
        int((human & machine & same_way).sum()),
        int((human & machine & ~same_way).sum()),
        int((~human & machine).sum()),
    )


def run_rows(names: Sequence[str], human: FloatArray, machine: FloatArray) -> list[RunCalibration]:
    """`human`, `machine`: [queries, runs] per-query values. Each run's means, its inflation, and
    its inflation relative to every run's (per query: this run's minus the mean over runs), with
    that figure's standard error; sorted by the human score, best first."""
    n, r = human.shape
    inflation = machine - human
    relative = inflation - inflation.mean(axis=1, keepdims=True)
    h_means, m_means = human.mean(axis=0), machine.mean(axis=0)
    h_ranks, m_ranks = ranks(list(h_means)), ranks(list(m_means))
    rows = []
    for k in range(r):
        rel = float(relative[:, k].mean()) if r >= 2 else None
        se = float(relative[:, k].std(ddof=1) / math.sqrt(n)) if r >= 2 and n >= 2 else None
        favoured = rel is not None and se is not None and rel > FAVOURED_SE * se and rel > 1e-12
        rows.append(
            RunCalibration(
                run=names[k],
                human=float(h_means[k]),
                machine=float(m_means[k]),
                inflation=float(m_means[k] - h_means[k]),
                relative=rel,
                relative_se=se,
                favoured=favoured,
                human_rank=h_ranks[k],
                machine_rank=m_ranks[k],
            )  # fmt: skip
        )
    return sorted(rows, key=lambda x: (x.human_rank, x.run))
