"""What to compute: measure declarations, parsed from ir_measures-style names.

Measures are written NAME[(param=value,...)][@k]: `nDCG@10`, `P(rel=2)@5`, `RR`, `AP`, `R@50`.
Every family is declared once, in `SPECS` (its aliases, cutoff rule, parameters and definition);
`kernels.KERNELS` holds how to compute it. A measure has one canonical name (`Measure.name`),
whatever alias it was written with: `MAP` is `AP`, `Hit@3` is `Success@3`, `NDCG@10` is `nDCG@10`.

`P(rel=2)@5` overrides the golden set's relevance threshold for one measure. nDCG uses the grades
themselves as gains, as trec_eval does, and takes no `rel` (trec_eval ignores -l for nDCG);
`nDCG(gain=exp)@10` uses 2^grade - 1. `RR@k` looks at the top k only, which trec_eval cannot
express.

No numpy here: the CLI imports this module to check measure names cheaply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from ..errors import ScoringError


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


REL = Param("rel", "N (N >= 1)", lambda v: v.isdigit() and int(v) >= 1)
"""The relevance threshold of a binary family, overriding the golden set's."""
GAINS = ("linear", "exp")
GAIN = Param("gain", "exp|linear", lambda v: v in GAINS)
"""nDCG's gain: `linear` (gain = grade, the default, as trec_eval) or `exp` (2^grade - 1)."""


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

    @property
    def names(self) -> tuple[str, ...]:
        return (self.family, *self.aliases)


SPECS: Mapping[str, MeasureSpec] = {
    spec.family: spec
    for spec in (
        MeasureSpec("P", "precision at k", "P_k", cutoff=CutoffRule.REQUIRED, params=(REL,)),
        MeasureSpec("R", "recall at k", "recall_k", aliases=("Recall",), cutoff=CutoffRule.REQUIRED, params=(REL,)),
        MeasureSpec(
            "Success",
            "1 if a relevant document is in the top k",
            "success_k",
            aliases=("Hit",),
            cutoff=CutoffRule.REQUIRED,
            params=(REL,),
        ),
        MeasureSpec(
            "RR",
            "reciprocal rank of the first relevant document (RR@k: in the top k)",
            "recip_rank",
            aliases=("MRR",),
            params=(REL,),
        ),
        MeasureSpec(
            "nDCG",
            "graded nDCG, gain = grade (gain=exp: 2^grade - 1), discount log2(rank + 1)",
            "ndcg, ndcg_cut_k",
            aliases=("NDCG", "ndcg"),
            params=(GAIN,),
        ),
        MeasureSpec(
            "AP",
            "average precision, divided by all relevant documents R",
            "map, map_cut_k",
            aliases=("MAP",),
            params=(REL,),
        ),
        MeasureSpec(
            "Rprec", "precision at rank R", "Rprec", cutoff=CutoffRule.FORBIDDEN, implied_cutoff="R", params=(REL,)
        ),
        MeasureSpec(
            "Judged",
            "fraction of the top k retrieved that carry a label (ir_measures Judged@k)",
            cutoff=CutoffRule.REQUIRED,
        ),
    )
}
"""Family -> its declaration: the one registry of measures (`kernels.KERNELS` computes them)."""

_BY_NAME = {name: spec for spec in SPECS.values() for name in spec.names}
"""Every accepted family name and alias -> its declaration."""

DEFAULT_METRICS = ("nDCG@10", "R@50", "RR", "P@10", "AP", "Success@3", "Judged@10")

_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<k>\d+))?$")
HINT = "write measures as NAME[(param=value)][@k], e.g. nDCG@10, P(rel=2)@5, RR, AP, R@50"
PARAM_HINT = "; ".join(
    f"{p.name}={p.form} for {', '.join(s.family for s in SPECS.values() if p in s.params)}"
    for p in dict.fromkeys(p for spec in SPECS.values() for p in spec.params)
)
"""Which parameters which families take, from the registry."""


@dataclass(frozen=True)
class Measure:
    """One measure to compute: a family with its cutoff, threshold and gain. Two measures are
    equal when their canonical names are, however they were written."""

    family: str
    cutoff: int | None = None
    rel: int | None = None
    """Relevance threshold for binary families; None uses the golden set's."""
    gain: str = "linear"
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
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def spec(self) -> MeasureSpec:
        return SPECS[self.family]

    def threshold(self, default: int) -> int:
        return self.rel if self.rel is not None else default


MAX_CUTOFF = 1_000_000_000
"""The largest cutoff accepted (a run deeper than this cannot be read on one machine anyway)."""


def _check_cutoff(spec: MeasureSpec, cutoff: int | None, spelled: str) -> None:
    if cutoff is not None and cutoff < 1:
        raise ScoringError(f"{spelled}: the cutoff must be at least 1", HINT)
    if cutoff is not None and cutoff > MAX_CUTOFF:
        raise ScoringError(f"{spelled}: the cutoff is larger than {MAX_CUTOFF:,}", HINT)
    if spec.cutoff is CutoffRule.REQUIRED and cutoff is None:
        raise ScoringError(f"{spelled} needs a cutoff, e.g. {spec.family}@10", HINT)
    if spec.cutoff is CutoffRule.FORBIDDEN and cutoff is not None:
        because = f" (its cutoff is {spec.implied_cutoff})" if spec.implied_cutoff else ""
        raise ScoringError(f"{spec.family} takes no cutoff{because}", HINT)


def _parse_params(spec: MeasureSpec, text: str, spelled: str) -> dict[str, str]:
    """Parameter name -> value; a parameter the family does not take, or a bad value, is refused."""
    accepted = {p.name: p for p in spec.params}
    given: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        param = accepted.get(key)
        if param is None or not param.accepts(value):
            raise ScoringError(f"{spelled}: parameter {part!r} is not accepted", PARAM_HINT)
        given[key] = value
    return given


def parse_measure(text: str) -> Measure:
    """Parse one measure name; unknown names and bad parameters raise `ScoringError`."""
    spelled = text.strip()
    m = _PATTERN.match(spelled)
    spec = _BY_NAME.get(m.group("name")) if m else None
    if m is None or spec is None:
        raise ScoringError(f"unknown measure {spelled!r}", HINT)
    cutoff = int(m.group("k")) if m.group("k") else None
    _check_cutoff(spec, cutoff, spelled)
    given = _parse_params(spec, m.group("params") or "", spelled)
    rel = int(given["rel"]) if "rel" in given else None
    return Measure(spec.family, cutoff, rel, given.get("gain", "linear"), spelled)


def _items(texts: str | Iterable[str]) -> list[str]:
    return [t for t in (texts.split(",") if isinstance(texts, str) else texts) if t.strip()]


def parse_measures(texts: str | Iterable[str]) -> list[Measure]:
    """Parse a comma-separated list (or a sequence) of measure names; the same measure written
    twice (`MAP,AP`) is refused."""
    measures = [parse_measure(t) for t in _items(texts)]
    if not measures:
        raise ScoringError("no measures given", HINT)
    seen: dict[str, str] = {}
    for m in measures:
        if m.name in seen:
            raise ScoringError(f"{m.spelled} and {seen[m.name]} are the same measure", HINT)
        seen[m.name] = m.spelled
    return measures


def canonical_names(texts: str | Iterable[str]) -> list[str]:
    """The canonical names of the measures in a comma-separated list (or a sequence), in order,
    each once: for merging a user's list with extra measures, where a repeat is no error."""
    return list(dict.fromkeys(parse_measure(t).name for t in _items(texts)))
