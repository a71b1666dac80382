"""What to compute: measure declarations, parsed from ir_measures-style names.

Measures are written NAME[(param=value,...)][@k]: `nDCG@10`, `P(rel=2)@5`, `RR`, `AP`, `R@50`.
Every family is declared once, in `SPECS` (its aliases, cutoff rule, parameters and definition);
`kernels.KERNELS` holds how to compute it. A measure has one canonical name (`Measure.name`),
whatever alias it was written with: `MAP` is `AP`, `Hit@3` is `Success@3`, `NDCG@10` is `nDCG@10`.

`P(rel=2)@5` overrides the golden set's relevance threshold for one measure. nDCG uses the grades
themselves as gains, as trec_eval does, and takes no `rel` (trec_eval ignores -l for nDCG);
`nDCG(gain=exp)@10` uses 2^grade - 1. `RR@k` looks at the top k only, which trec_eval cannot
express.

Names are parsed by `names` (`parse_measure`, `parse_measures`; ir_measures' and trec_eval's
spellings), which reads these declarations: this module imports nothing from it. No numpy here: the
CLI imports both to check measure names cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from ..errors import ScoringError
from ..formats.trec import GRADE_MAX
from ..models.vocabulary import TILES


class CutoffRule(Enum):
    """Whether a family's name takes `@k`."""

    REQUIRED = "required"
    OPTIONAL = "optional"
    FORBIDDEN = "forbidden"


@dataclass(frozen=True)
class Param:
    """A parameter a family accepts inside its parentheses."""

    name: str
    form: str
    """How its value is written, for the hint: `N (N >= 1)`."""
    accepts: Callable[[str], bool]
    """Whether a (stripped) value is valid."""


REL = Param("rel", f"N (1 <= N <= {GRADE_MAX})", lambda v: v.isdigit() and 1 <= int(v) <= GRADE_MAX)
"""The relevance threshold of a binary family, overriding the golden set's (no grade is above
`GRADE_MAX`; one above the golden set's scale is refused by `refuse_above_scale`)."""
GAINS = ("linear", "exp")
GAIN = Param("gain", "exp|linear", lambda v: v in GAINS)
"""nDCG's gain: `linear` (gain = grade, the default, as trec_eval) or `exp` (2^grade - 1)."""
JUDGED_ONLY = Param("judged_only", "True|False", lambda v: v.strip().lower() in ("true", "false", "1", "0"))
"""Score the condensed list (trec_eval -J): unlabeled documents removed before computing."""
PERSISTENCE = Param("p", "0 < p < 1", lambda v: v.replace(".", "", 1).isdigit() and 0 < float(v) < 1)
"""RBP's persistence (default 0.8, as ir_measures; trec_eval's `rbp` is p=0.9)."""
GRADED = Param("graded", "True|False", lambda v: v.strip().lower() in ("true", "false", "1", "0"))
"""RBP's gain: graded=True is trec_eval 10's `rbp`: gain = grade / the query's top grade in the
qrels (when above 1), whatever the relevance threshold; graded=False (default) is binary at it."""
TOP_GRADE = Param("max_grade", "N (N >= 1)", lambda v: v.isdigit() and int(v) >= 1)
"""ERR's top grade g_max in (2^g - 1) / 2^g_max (default 4, as gdeval and ir_measures)."""
TREC_EVAL_RULE = Param("trec_eval", "9|10", lambda v: v in ("9", "10"))
"""Interpolated precision's rank of recall level x: 10 (default) rounds x R as trec_eval 10
(lround); 9 truncates x R + 0.9 as trec_eval 9 and pytrec_eval."""
GAIN_MAP = Param("gains", "{grade:gain,...}", lambda v: v.strip().startswith("{") and v.strip().endswith("}"))
"""A gain per grade for nDCG/DCG; a grade left out keeps its grade as gain (as ir_measures)."""


@dataclass(frozen=True)
class MeasureSpec:
    """The declaration of one measure family: how its names are written and what it means."""

    family: str
    """The canonical family name (what `Measure.name` starts with)."""
    definition: str
    """One line: what the measure is."""
    trec_eval: str = ""
    """The trec_eval measure(s) it reproduces ("" when trec_eval has none)."""
    aliases: tuple[str, ...] = ()
    """Other accepted spellings of the family name."""
    cutoff: CutoffRule = CutoffRule.OPTIONAL
    implied_cutoff: str = ""
    """What stands in for a forbidden cutoff, named in the error (`R` for Rprec)."""
    params: tuple[Param, ...] = ()
    coverage: str = "the top k (the whole run without a cutoff)"
    """Its coverage window: the retrieved documents whose label can change the value (coverage is
    the labeled fraction of them)."""
    bounds: str = "exact: the minimum and maximum over every labeling of the unlabeled documents retrieved"
    """What its bounds are (exact, or an outer interval flagged `exact: false`), or why it has none.
    Bounds range over every grade of every unlabeled document retrieved, at any rank; documents
    not retrieved stay unlabeled."""
    aggregate: str = "mean"
    """How per-query values make the mean over queries: `mean` (arithmetic) or `geometric`
    (trec_eval's gm_*: exp(mean(log(max(v, 0.00001)))), see `aggregate.summarize`)."""
    max_level: float = 1.0
    """The largest `@x` of a family whose `@x` is a level, not a cutoff (IPrec: recall 0..1)."""
    unit_interval: bool = True
    """Its values (per query, and so their means) lie in [0, 1]; False for counts and sums. A saved
    report holding a value outside is refused (`paired.canonical_report`)."""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.family, *self.aliases)


_TO_FIRST = "the ranks up to and including the first relevant document (all of the top k when none is)"
_WHOLE = "the whole run"
_NONE = "none: no label changes it (coverage n/a)"
_BINARY = (REL, JUDGED_ONLY)

SPECS: Mapping[str, MeasureSpec] = {
    spec.family: spec
    for spec in (
        MeasureSpec("P", "precision at k", "P_k", cutoff=CutoffRule.REQUIRED, params=_BINARY),
        MeasureSpec(
            "R",
            "recall at k",
            "recall_k",
            aliases=("Recall",),
            cutoff=CutoffRule.REQUIRED,
            params=_BINARY,
            coverage="the top k (a relevant document below k also raises R: the bounds count those, coverage does not)",
            bounds="exact: the minimum makes every unlabeled document below k relevant (raising R), the maximum"
            " those in the top k",
        ),
        MeasureSpec(
            "Success",
            "1 if a relevant document is in the top k",
            "success_k",
            aliases=("Hit",),
            cutoff=CutoffRule.REQUIRED,
            params=_BINARY,
            coverage=_TO_FIRST,
        ),
        MeasureSpec(
            "RR",
            "reciprocal rank of the first relevant document (RR@k: in the top k)",
            "recip_rank",
            aliases=("MRR",),
            params=_BINARY,
            coverage=_TO_FIRST,
        ),
        MeasureSpec(
            "nDCG",
            "graded nDCG, gain = grade (gain=exp: 2^grade - 1; gains={g:v}: a map), discount log2(rank + 1)",
            "ndcg, ndcg_cut_k",
            aliases=("NDCG", "ndcg"),
            params=(GAIN, GAIN_MAP, JUDGED_ONLY),
            bounds="exact (unlabeled documents below k move the ideal DCG: the highest gain for the minimum, the"
            " lowest for the maximum) up to 4,096 grade multisets of the top k's unlabeled documents per query,"
            " else a sound outer interval (exact: false); a gain map giving grade 0 a gain makes the value"
            " (unlabeled = gain 0) no labeling, so it can lie outside them",
        ),
        MeasureSpec(
            "AP",
            "average precision, divided by all relevant documents R",
            "map, map_cut_k",
            aliases=("MAP",),
            params=_BINARY,
            bounds="exact: AP@k's minimum also makes every unlabeled document below k relevant (raising R)",
        ),
        MeasureSpec(
            "Rprec",
            "precision at rank R",
            "Rprec",
            cutoff=CutoffRule.FORBIDDEN,
            implied_cutoff="R",
            params=_BINARY,
            coverage=_WHOLE + " (R moves with every label)",
        ),
        MeasureSpec(
            "Judged",
            "fraction of the top k retrieved that carry a label (ir_measures Judged@k; Judged: of all retrieved)",
            bounds="its value: it counts labels, and no grade given to them changes it",
        ),
        MeasureSpec(
            "NumRet",
            "documents retrieved; NumRet(rel=N): relevant ones, as ir_measures (trec_eval's `all` row sums"
            " the counts; qrelkit's mean is per query)",
            "num_ret",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_NONE + "; with rel=N the whole run",
            unit_interval=False,
        ),
        MeasureSpec(
            "NumRel",
            "relevant documents R, retrieved or not",
            "num_rel",
            cutoff=CutoffRule.FORBIDDEN,
            params=(REL,),
            coverage=_WHOLE,
            bounds="exact: [R, R + unlabeled retrieved]",
            unit_interval=False,
        ),
        MeasureSpec(
            "NumRelRet",
            "relevant documents retrieved (ir_measures NumRet(rel=N))",
            "num_rel_ret",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            unit_interval=False,
        ),
        MeasureSpec(
            "NumQ",
            "1 per evaluated query (trec_eval's `all` row: the number of queries)",
            "num_q",
            cutoff=CutoffRule.FORBIDDEN,
            coverage=_NONE,
            unit_interval=False,
        ),
        MeasureSpec(
            "SetP",
            "precision of the whole retrieved set",
            "set_P",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
        ),
        MeasureSpec(
            "SetR",
            "recall of the whole retrieved set",
            "set_recall",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
        ),
        MeasureSpec(
            "SetF",
            "F1 of the whole retrieved set: 2PR / (P + R)",
            "set_F",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
        ),
        MeasureSpec(
            "Bpref",
            "binary preference: per relevant document, 1 - min(judged nonrelevant above, R) / min(N, R); / R",
            "bpref",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            bounds="none: a new label moves R or N, which rescales every term, so no uniform completion is extreme",
        ),
        MeasureSpec(
            "infAP",
            "trec_eval's inferred AP: a negative qrels grade is pooled but unjudged, a document outside the"
            " qrels is unpooled",
            "infAP",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            bounds="none: an estimator of AP under sampled judgments, its value is not a function of one labeling",
        ),
        MeasureSpec(
            "IPrec",
            "interpolated precision at recall level x (IPrec@0.1): the best precision once round(x R)"
            " relevant documents are reached, as trec_eval 10 (trec_eval=9: floor(x R + 0.9), as trec_eval 9"
            " and pytrec_eval)",
            "iprec_at_recall_x",
            cutoff=CutoffRule.REQUIRED,
            params=(*_BINARY, TREC_EVAL_RULE),
            coverage=_WHOLE,
            bounds="none: a new relevant label moves R and with it the rank where level x is reached",
        ),
        MeasureSpec(
            "IPrec11pt",
            "mean interpolated precision at the 11 recall levels 0, 0.1, ..., 1 (trec_eval=9 as IPrec's)",
            "11pt_avg",
            cutoff=CutoffRule.FORBIDDEN,
            params=(*_BINARY, TREC_EVAL_RULE),
            coverage=_WHOLE,
            bounds="none, as IPrec",
        ),
        MeasureSpec(
            "DCG",
            "raw DCG: sum of gain / log2(rank + 1), gain as nDCG's (ir_measures nDCG without the ideal)",
            params=(GAIN, GAIN_MAP, JUDGED_ONLY),
            bounds="exact: every unlabeled document in the top k at the lowest gain, or at the highest (a gain map"
            " giving grade 0 a gain can put the value outside, as nDCG's)",
            unit_interval=False,
        ),
        MeasureSpec(
            "ERR",
            "expected reciprocal rank: stop at rank r with (2^g - 1) / 2^g_max, g_max = 4 as gdeval and"
            " ir_measures' ERR (max_grade=N: g_max = N, e.g. the top of a 0..3 scale); a grade above g_max is"
            " refused",
            params=(TOP_GRADE, JUDGED_ONLY),
            bounds="exact: every unlabeled document in the top k at grade 0, or at the top grade",
        ),
        MeasureSpec(
            "RBP",
            "rank-biased precision (1 - p) sum p^(rank-1) over relevant documents, p = 0.8 unless given (as"
            " ir_measures' RBP); trec_eval's `rbp` is RBP(p=0.9,graded=True): each document's gain is its grade"
            " / the query's top grade in the qrels when that is above 1, the relevance threshold ignored",
            "rbp(p=0.9,graded=True)",
            params=(REL, PERSISTENCE, GRADED, JUDGED_ONLY),
            bounds="[RBP, RBP + residual]: the weight of the unlabeled documents retrieved plus that of the ranks"
            " past the end of the run (up to k), as rbp_eval reports: exact where the run fills the top k, else"
            " an outer interval (exact: false; no labeling reaches those ranks)",
        ),
        # -- the rest of trec_eval's all_trec (kernels_trec) --
        MeasureSpec(
            "GMAP",
            "AP per query; the mean over queries is geometric, exp(mean(log(max(AP, 0.00001)))), as trec_eval"
            " (sd, se and the interval on the log scale; trec_eval prints it in the `all` row only)",
            "gm_map",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            aggregate="geometric",
            bounds="exact per query, as AP; the mean's bounds are the geometric means of the query bounds",
        ),
        MeasureSpec(
            "GMBpref",
            "Bpref per query; the mean over queries is geometric, as GMAP",
            "gm_bpref",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            aggregate="geometric",
            bounds="none, as Bpref",
        ),
        MeasureSpec(
            "RprecMult",
            "precision at rank trunc(x R + 0.9), x a multiple of R (RprecMult@0.2 .. @2.0: trec_eval's"
            " default Rprec_mult levels)",
            "Rprec_mult_x",
            cutoff=CutoffRule.REQUIRED,
            params=_BINARY,
            coverage=_WHOLE + " (R moves with every label)",
            max_level=1000.0,
        ),
        MeasureSpec(
            "Utility",
            "trec_eval's set utility with its default coefficients 1, -1, 0, 0: relevant retrieved minus"
            " the other documents retrieved",
            "utility",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            unit_interval=False,
        ),
        MeasureSpec(
            "BinG",
            "trec_eval's binary G: over relevant retrieved documents, 1 / log2(2 + documents not relevant"
            " above it), divided by R",
            "binG",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
            bounds="none: a document made relevant raises R and lifts the term of every relevant one below it,"
            " so neither uniform completion is extreme",
        ),
        MeasureSpec(
            "G",
            "trec_eval's G: Σ gain / log2(2 + Σ max(ideal gain, 1) - Σ run gain, both to that rank), over"
            " the ideal list's total gain; gain = grade",
            "G",
            cutoff=CutoffRule.FORBIDDEN,
            params=(JUDGED_ONLY,),
            coverage=_WHOLE,
            bounds="none: every label changes the ideal gains that each later rank is discounted by",
        ),
        MeasureSpec(
            "nDCGRel",
            "trec_eval's ndcg_rel: nDCG at the rank of each retrieved document of positive gain, and the"
            " whole run's nDCG for each one not retrieved, averaged over those documents; gain = grade",
            "ndcg_rel",
            cutoff=CutoffRule.FORBIDDEN,
            params=(JUDGED_ONLY,),
            coverage=_WHOLE,
            bounds="none: a label adds or moves an averaging point and changes the ideal list at once",
        ),
        MeasureSpec(
            "RnDCG",
            "trec_eval's Rndcg: nDCG averaged at the ranks where the ideal list's gain drops (and at the run's"
            " end when it runs more than one past the last positive ideal rank); 0 when R is 0; gain = grade",
            "Rndcg",
            cutoff=CutoffRule.FORBIDDEN,
            params=(REL, JUDGED_ONLY),
            coverage=_WHOLE,
            bounds="none: a label moves the ranks nDCG is averaged at",
        ),
        MeasureSpec(
            "RelP",
            "relative precision at k: relevant in the top k / min(k, R) (precision up to R, recall past it)",
            "relative_P_k",
            cutoff=CutoffRule.REQUIRED,
            params=_BINARY,
            coverage=_WHOLE + " (a relevant document below k raises R)",
        ),
        MeasureSpec(
            "SetRelP",
            "relative set precision: relevant retrieved / min(retrieved, R) (ir_measures SetP(relative=True))",
            "set_relative_P",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
        ),
        MeasureSpec(
            "SetAP",
            "unranked AP: relevant retrieved^2 / (retrieved x R) = SetP x SetR",
            "set_map",
            cutoff=CutoffRule.FORBIDDEN,
            params=_BINARY,
            coverage=_WHOLE,
        ),
        MeasureSpec(
            "NumNonRelJudgedRet",
            "labeled documents retrieved below the threshold (trec_eval's `all` row sums the counts)",
            "num_nonrel_judged_ret",
            cutoff=CutoffRule.FORBIDDEN,
            params=(REL,),
            coverage=_WHOLE,
            unit_interval=False,
        ),
        MeasureSpec(
            "RBPResid",
            "trec_eval's RBP residual: p^n + (1 - p) Σ p^(rank-1) over the unlabeled documents retrieved, n"
            " the documents retrieved, 0 when none is unlabeled; p = 0.9 unless given",
            "rbp_resid",
            cutoff=CutoffRule.FORBIDDEN,
            params=(PERSISTENCE,),
            coverage=_WHOLE,
            bounds="none: it measures what the labels leave open; every completed labeling makes it 0",
        ),
        MeasureSpec(
            "Unjudged",
            "fraction of the top k that is unlabeled, over k (a run shorter than k is padded with judged"
            " documents, as trec_eval's unj)",
            "unj_k",
            cutoff=CutoffRule.REQUIRED,
            bounds="none: it measures the labeling itself; every completed labeling makes it 0",
        ),
    )
}
"""Family -> its declaration: the one registry of measures (`kernels.KERNELS` computes them)."""

_BY_NAME = {name: spec for spec in SPECS.values() for name in spec.names}
"""Every accepted family name and alias -> its declaration."""

DEFAULT_METRICS = (*TILES, "RR", "P@10", "AP", "Success@3", "Judged@10")
"""What `score` reports when told no measures: the two tiles first."""


@dataclass(frozen=True)
class Measure:
    """One measure to compute: a family with its cutoff, threshold and gain. Two measures are
    equal when their canonical names are, however they were written."""

    family: str
    cutoff: int | None = None
    rel: int | None = None
    """Relevance threshold for binary families; None uses the golden set's."""
    gain: str = "linear"
    judged_only: bool = False
    """Score the condensed list: unlabeled documents removed from the ranking first (trec_eval -J,
    ir_measures `judged_only=True`)."""
    p: float | None = None
    """RBP's persistence (the probability of going on to the next rank)."""
    gains: tuple[tuple[int, float], ...] | None = None
    """A custom gain per grade for nDCG/DCG (ir_measures `gains={0:0,1:1,2:3}`), sorted by grade;
    None: the `gain` rule."""
    level: float | None = None
    """A recall level in [0, 1] (IPrec@0.1: interpolated precision at recall 0.1)."""
    graded: bool = False
    """RBP with trec_eval 10's graded gain (grade / the query's top grade) instead of binary."""
    max_grade: int | None = None
    """ERR's top grade g_max; None: 4 (gdeval's)."""
    trec_eval_version: int | None = None
    """IPrec's rule for the rank of a recall level: 9 (truncate x R + 0.9); None: trec_eval 10's
    (round x R)."""
    spelled: str = field(default="", compare=False)
    """The name as the user wrote it (for error messages only)."""

    @property
    def name(self) -> str:
        """The canonical name, used for every output: `AP` for `MAP`, `Success@3` for `Hit@3`."""
        params = []
        if self.rel is not None:
            params.append(f"rel={self.rel}")
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        if self.gains is not None:
            params.append("gains={" + ",".join(f"{g}:{_number(v)}" for g, v in self.gains) + "}")
        if self.judged_only:
            params.append("judged_only=True")
        if self.p is not None:
            params.append(f"p={_number(self.p)}")
        if self.graded:
            params.append("graded=True")
        if self.max_grade is not None:
            params.append(f"max_grade={self.max_grade}")
        if self.trec_eval_version is not None:
            params.append(f"trec_eval={self.trec_eval_version}")
        text = self.family + (f"({','.join(params)})" if params else "")
        if self.level is not None:
            return f"{text}@{_number(self.level)}"
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def spec(self) -> MeasureSpec:
        return SPECS[self.family]

    def threshold(self, default: int) -> int:
        return self.rel if self.rel is not None else default


def _number(x: float) -> str:
    """A parameter in a name: short (`0.9`, `3`), yet never two values under one name."""
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


MAX_CUTOFF = 1_000_000_000
"""The largest cutoff accepted (a run deeper than this cannot be read on one machine anyway)."""


def refuse_above_scale(measures: Iterable[Measure], top: int, scale: str) -> None:
    """A relevance threshold (`rel=N`) above the scale's top grade counts nothing as relevant, and
    its bounds would range over grades no assessor can give: refused, naming the measure and
    the scale (`scale` says whose: a golden set, a version, or `--max-grade N`)."""
    for m in measures:
        if m.rel is not None and m.rel > top:
            raise ScoringError(
                f"{m.spelled or m.name}: rel={m.rel} is above the scale's top grade ({scale}: grades 0..{top})",
                f"give rel=1..{top}, or widen the scale: `qrelkit init --max-grade N`, or --max-grade N",
            )
