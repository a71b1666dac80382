"""What to compute: measure declarations, parsed from ir_measures-style names.

    P@10            precision at 10                     (trec_eval P_10)
    R@50            recall at 50                        (trec_eval recall_50)
    Success@3       1 if a relevant document is in the top 3 (alias Hit@3; trec_eval success_3)
    RR, RR@10       reciprocal rank of the first relevant document (trec_eval recip_rank; @k
                    looks at the top k only, which trec_eval cannot express)
    nDCG, nDCG@10   graded nDCG, gain = grade, discount log2(rank + 1) (trec_eval ndcg, ndcg_cut_10);
                    nDCG(gain=exp)@10 uses 2^grade - 1
    AP, AP@100      average precision, divided by all relevant documents R (trec_eval map, map_cut)
    Rprec           precision at rank R (trec_eval Rprec)
    Judged@10       fraction of the top 10 retrieved that carry a label (ir_measures Judged@10)

`P(rel=2)@5` overrides the golden set's relevance threshold for one measure. nDCG uses the grades
themselves as gains, as trec_eval does, and takes no `rel` (trec_eval ignores -l for nDCG).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ScoringError

FAMILIES = {
    "P": "P",
    "R": "R",
    "Recall": "R",
    "Success": "Success",
    "Hit": "Success",
    "RR": "RR",
    "MRR": "RR",
    "nDCG": "nDCG",
    "NDCG": "nDCG",
    "ndcg": "nDCG",
    "AP": "AP",
    "MAP": "AP",
    "Rprec": "Rprec",
    "Judged": "Judged",
}
"""Accepted names (and aliases) -> family."""

NEEDS_CUTOFF = {"P", "R", "Success", "Judged"}
NO_CUTOFF = {"Rprec"}
TAKES_REL = {"P", "R", "Success", "RR", "AP", "Rprec"}

DEFAULT_METRICS = ("nDCG@10", "R@50", "RR", "P@10", "AP", "Success@3", "Judged@10")

_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<k>\d+))?$")
HINT = "write measures as NAME[(param=value)][@k], e.g. nDCG@10, P(rel=2)@5, RR, AP, R@50"


@dataclass(frozen=True)
class Measure:
    """One measure to compute: a family with its cutoff, threshold and gain."""

    family: str
    cutoff: int | None = None
    rel: int | None = None
    """Relevance threshold for binary families; None uses the golden set's."""
    gain: str = "linear"
    spelled: str = ""
    """The name as the user wrote it (used in output)."""

    @property
    def name(self) -> str:
        return self.spelled or self.canonical

    @property
    def canonical(self) -> str:
        params = []
        if self.rel is not None:
            params.append(f"rel={self.rel}")
        if self.gain != "linear":
            params.append(f"gain={self.gain}")
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def threshold(self, default: int) -> int:
        return self.rel if self.rel is not None else default


def parse_measure(text: str) -> Measure:
    """Parse one measure name; unknown names and bad parameters raise `ScoringError`."""
    spelled = text.strip()
    m = _PATTERN.match(spelled)
    if not m or m.group("name") not in FAMILIES:
        raise ScoringError(f"unknown measure {spelled!r}", HINT)
    family = FAMILIES[m.group("name")]
    cutoff = int(m.group("k")) if m.group("k") else None
    if cutoff is not None and cutoff < 1:
        raise ScoringError(f"{spelled}: the cutoff must be at least 1", HINT)
    if family in NEEDS_CUTOFF and cutoff is None:
        raise ScoringError(f"{spelled} needs a cutoff, e.g. {family}@10", HINT)
    if family in NO_CUTOFF and cutoff is not None:
        raise ScoringError(f"{family} takes no cutoff (its cutoff is R)", HINT)
    rel: int | None = None
    gain = "linear"
    for part in filter(None, (p.strip() for p in (m.group("params") or "").split(","))):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key == "rel" and family in TAKES_REL and value.isdigit() and int(value) >= 1:
            rel = int(value)
        elif key == "gain" and family == "nDCG" and value in ("linear", "exp"):
            gain = value
        else:
            raise ScoringError(
                f"{spelled}: parameter {part!r} is not accepted",
                "rel=N (N >= 1) works for P, R, Success, RR, AP, Rprec; gain=exp|linear for nDCG",
            )
    return Measure(family=family, cutoff=cutoff, rel=rel, gain=gain, spelled=spelled)


def parse_measures(texts: str | list[str] | tuple[str, ...]) -> list[Measure]:
    """Parse a comma-separated list (or a sequence) of measure names; duplicates are refused."""
    items = texts.split(",") if isinstance(texts, str) else list(texts)
    measures = [parse_measure(t) for t in items if t.strip()]
    if not measures:
        raise ScoringError("no measures given", HINT)
    seen: dict[str, str] = {}
    for m in measures:
        if m.canonical in seen:
            raise ScoringError(f"{m.spelled} and {seen[m.canonical]} are the same measure", HINT)
        seen[m.canonical] = m.spelled
    return measures
