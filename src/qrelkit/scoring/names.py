"""Measure names -> `Measure`: ir_measures syntax, trec_eval names and common spellings.

Every name is read against the registry (`measures.SPECS`), so a family declared there is
accepted in all three vocabularies without a line here:

- ir_measures syntax, NAME[(param=value,...)][@k]: `nDCG@10`, `P(rel=2)@5`,
  `nDCG(dcg='exp-log2')@10`, `nDCG(gains={0:0,1:1,2:3})@10`, `AP(judged_only=True)`. Values
  may be quoted as ir_measures writes them. The family is looked up as written first, then
  among ir_measures' own aliases (`Precision`, `RPrec`, `BPref`), then ignoring case
  (`map`, `mrr`, `p@5`, `judged@10`).
- trec_eval names, read from each family's `trec_eval` field (`P_k`, `ndcg_cut_k`, `map`,
  `recip_rank`; `_k` stands for a cutoff, `_x` for a recall level): `P_5`, `P.5`,
  `ndcg_cut_10`, `iprec_at_recall_0.10`.
- lists: comma- or space-separated (`nDCG@10 P@5 "P(rel=2)@5"`, ir_measures' CLI syntax);
  commas and spaces inside parentheses or braces belong to the measure.

No numpy here: the CLI imports this module to check measure names cheaply.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable, Iterator

from ..errors import ScoringError
from .measures import MAX_CUTOFF, SPECS, CutoffRule, Measure, MeasureSpec

HINT = (
    "write measures as NAME[(param=value)][@k], e.g. nDCG@10, P(rel=2)@5, RR, AP, R@50, "
    "or by trec_eval names: ndcg_cut_10"
)

# -- family names --------------------------------------------------------------------------------

IR_MEASURES_ALIASES = {"Precision": "P", "RPrec": "Rprec", "BPref": "Bpref"}
"""ir_measures' own aliases of families the registry may declare (only those declared count)."""

_EXACT = {name: spec for spec in SPECS.values() for name in spec.names}
_EXACT.update({a: SPECS[f] for a, f in IR_MEASURES_ALIASES.items() if f in SPECS and a not in _EXACT})
_FOLDED: dict[str, MeasureSpec] = {}
for _name, _spec in _EXACT.items():
    _FOLDED.setdefault(_name.casefold(), _spec)


def _family(name: str) -> MeasureSpec | None:
    """The family a name (no parameters, no cutoff) spells: as written, else ignoring case."""
    return _EXACT.get(name) or _FOLDED.get(name.casefold())


# -- parameters -----------------------------------------------------------------------------------

_DCG = {"log2": "linear", "exp-log2": "exp"}
"""ir_measures' `dcg` values -> qrelkit's `gain`."""
_BOOLS = {"true": True, "1": True, "false": False, "0": False}


MAX_GAIN = 1e100
"""The largest gain of a gain map: far above any use, far below where DCG sums overflow."""


def _gains(value: str) -> tuple[tuple[int, float], ...]:
    body = value.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise ValueError(value)
    pairs = []
    for part in filter(None, (p.strip() for p in body[1:-1].split(","))):
        grade, _, gain = part.partition(":")
        g, v = int(grade), float(gain)
        if not 0 <= v <= MAX_GAIN:  # NaN, infinities and negative gains
            raise ScoringError(
                f"the gain {gain.strip()} of grade {g} is not a number from 0 to {MAX_GAIN:g}",
                "gains are finite numbers >= 0, e.g. gains={0:0,1:1,2:3}",
            )
        pairs.append((g, v + 0.0))  # -0 is 0
    if not pairs or len({g for g, _ in pairs}) != len(pairs):
        raise ValueError(value)
    return tuple(sorted(pairs))


def _probability(value: str) -> float:
    p = float(value)
    if not 0 < p < 1:
        raise ValueError(value)
    return p


_CONVERT: dict[str, tuple[str, Callable[[str], object]]] = {
    "rel": ("rel", int),
    "gain": ("gain", str),
    "dcg": ("gain", lambda v: _DCG[v]),
    "judged_only": ("judged_only", lambda v: _BOOLS[v.lower()]),
    "p": ("p", _probability),
    "gains": ("gains", _gains),
    "graded": ("graded", lambda v: _BOOLS[v.lower()]),
    "max_grade": ("max_grade", int),
    "trec_eval": ("trec_eval_version", int),
}
"""Parameter name as written -> (the `Measure` field it sets, how its value reads)."""
_DEFAULTS: dict[str, object] = {"max_grade": 4, "trec_eval_version": 10, "graded": False, "judged_only": False}
"""A parameter written at its default is the default measure (`ERR(max_grade=4)@10` is `ERR@10`)."""
_MISSING = object()
_ALIAS_OF = {"dcg": "gain"}
"""A parameter accepted wherever the family declares the other (`dcg=exp-log2` is `gain=exp`)."""

PARAM_HINT = "; ".join(
    [
        *(
            f"{p.name}={p.form} for {', '.join(s.family for s in SPECS.values() if p in s.params)}"
            for p in dict.fromkeys(p for spec in SPECS.values() for p in spec.params)
        ),
        *(
            f"{alias}={'|'.join(_DCG)} as in ir_measures (= {target})"
            for alias, target in _ALIAS_OF.items()
            if any(p.name == target for s in SPECS.values() for p in s.params)
        ),
    ]
)
"""Which parameters which families take, from the registry."""


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def split_outside(text: str, separators: str) -> list[str]:
    """`text` split at `separators` outside parentheses, braces and quotes (`M1,M2` of
    --gate-pair and `METRIC:TOL` of --fail-if-worse too: a measure's parameters hold both)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in separators:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parse_params(spec: MeasureSpec, text: str, spelled: str) -> dict[str, object]:
    """`Measure` field -> value; a parameter the family does not take, or a bad value, is refused."""
    accepted = {p.name: p for p in spec.params}
    fields = {f.name for f in dataclasses.fields(Measure)}
    given: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in split_outside(text, ","))):
        key, _, raw = part.partition("=")
        key, value = key.strip(), _unquote(raw)
        param = accepted.get(key) or accepted.get(_ALIAS_OF.get(key, ""))
        field, convert = _CONVERT.get(key, (key, str))
        try:
            converted = convert(value)
        except ScoringError as exc:  # a value refused with its reason
            raise ScoringError(f"{spelled}: {exc.message}", exc.hint) from None
        except (ValueError, KeyError):
            converted = None
        checked = str(converted) if key in _ALIAS_OF else value
        if param is None or converted is None or field not in fields or not param.accepts(checked):
            raise ScoringError(f"{spelled}: parameter {part!r} is not accepted", PARAM_HINT)
        if _DEFAULTS.get(field, _MISSING) == converted:
            given.pop(field, None)
        else:
            given[field] = converted
    return given


# -- trec_eval names ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TrecName:
    """One trec_eval spelling of a family, as its `trec_eval` field writes it: `P_k` (`_k`: a
    cutoff), `iprec_at_recall_x` (`_x`: a recall level), a plain name (`map`), or a name that
    stands for the family with parameters (`rbp(p=0.9)`: trec_eval's `rbp` is RBP(p=0.9))."""

    spec: MeasureSpec
    base: str
    slot: str
    """"k" (cutoff), "x" (recall level) or "" (none)."""
    params: str = ""
    """The parameters the name implies, written as in a measure name (`p=0.9`)."""

    def measure(self, cutoff: int | None = None, level: float | None = None, spelled: str = "") -> Measure:
        given = _parse_params(self.spec, self.params, spelled or self.base) if self.params else {}
        return Measure(self.spec.family, cutoff, level=level, spelled=spelled, **given)  # type: ignore[arg-type]

    def spell(self, m: Measure) -> str | None:
        """trec_eval's name of `m` under this pattern, None when it does not fit."""
        if self.slot == "k":
            name = f"{self.base}_{m.cutoff}" if m.cutoff is not None and m.level is None else None
        elif self.slot == "x":
            name = f"{self.base}_{m.level:.2f}" if m.level is not None else None
        else:
            name = self.base if m.cutoff is None and m.level is None else None
        return name if name is not None and self.measure(m.cutoff, m.level) == m else None


_TREC_TOKEN = re.compile(r"^(?P<name>[A-Za-z0-9_.]+)(?:\((?P<params>[^)]*)\))?$")


def _trec_names(spec: MeasureSpec) -> Iterator[TrecName]:
    for token in filter(None, (t.strip() for t in split_outside(spec.trec_eval, ", "))):
        found = _TREC_TOKEN.match(token)
        if found is None:
            continue
        name, params = found.group("name"), found.group("params") or ""
        base, _, slot = name.rpartition("_")
        if base and slot in ("k", "x"):
            yield TrecName(spec, base, slot, params)
        else:
            yield TrecName(spec, name, "", params)


TREC_NAMES = [t for spec in SPECS.values() for t in _trec_names(spec)]
"""Every trec_eval spelling in the registry, in declaration order."""
_TREC_PLAIN = {t.base: t for t in TREC_NAMES if not t.slot}
_TREC_SLOTTED = [
    (re.compile(re.escape(t.base) + (r"[_.](\d+)$" if t.slot == "k" else r"[_.](\d*\.?\d+)$")), t)
    for t in TREC_NAMES
    if t.slot
]


REFERENCES = ("trec_eval", "pytrec_eval")
"""Whose numbers `score --reference` reproduces: trec_eval 10, or pytrec_eval (trec_eval 9's rules
where the two differ: IPrec's rank of a recall level)."""


def _versioned(spec: MeasureSpec) -> bool:
    return any(p.name == "trec_eval" for p in spec.params)


def for_reference(m: Measure, reference: str) -> Measure:
    """`m` as `reference` computes it: under pytrec_eval, a family with a `trec_eval=` rule and
    none given follows trec_eval 9."""
    if reference not in REFERENCES:
        raise ScoringError(f"unknown reference {reference!r}", f"use one of {', '.join(REFERENCES)}")
    if reference == "pytrec_eval" and _versioned(m.spec) and m.trec_eval_version is None:
        return dataclasses.replace(m, trec_eval_version=9)
    return m


def reference_names(names: Iterable[str], reference: str) -> list[str]:
    """Canonical names of `names` as `reference` computes them (`for_reference`)."""
    return [for_reference(parse_measure(n), reference).name for n in names]


def trec_eval_name(m: Measure, reference: str = "trec_eval") -> str | None:
    """trec_eval's name for `m` (`ndcg_cut_10` for nDCG@10), None when trec_eval has none; under
    the pytrec_eval reference, trec_eval 9's variant (`IPrec(trec_eval=9)@0.1`) has the name too."""
    if reference == "pytrec_eval" and m.trec_eval_version == 9:
        m = dataclasses.replace(m, trec_eval_version=None)
    for t in TREC_NAMES:
        if t.spec.family == m.family and (spelled := t.spell(m)) is not None:
            return spelled
    return None


def _parse_trec(spelled: str) -> Measure | None:
    plain = _TREC_PLAIN.get(spelled)
    if plain is not None:
        return plain.measure(spelled=spelled)
    for pattern, t in _TREC_SLOTTED:
        found = pattern.fullmatch(spelled)
        if found is None:
            continue
        if t.slot == "x":
            return t.measure(level=_level(found.group(1), spelled, t.spec.max_level), spelled=spelled)
        cutoff = int(found.group(1))
        _check_cutoff(t.spec, cutoff, spelled)
        return t.measure(cutoff, spelled=spelled)
    return None


# -- one name -------------------------------------------------------------------------------------

_PATTERN = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<k>[0-9.]+))?$")


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


def _level(text: str, spelled: str, top: float = 1.0) -> float:
    try:
        level = float(text)
    except ValueError:
        level = -1.0
    if not 0 <= level <= top:
        what = "the recall level" if top == 1.0 else "the level"
        raise ScoringError(f"{spelled}: {what} must be between 0 and {top:g}", HINT)
    return level


def takes_level(spec: MeasureSpec) -> bool:
    """Whether `@x` is the family's recall level (IPrec@0.1) rather than a cutoff."""
    return any(t.spec is spec and t.slot == "x" for t in TREC_NAMES)


_TREC_TAIL = re.compile(r"^(?P<head>.+?)[_.](?P<value>\d+(?:\.\d+)?)$")


def _unknown(spelled: str, name: str) -> ScoringError:
    """`unknown measure`, with the closest known name in the hint."""
    tail = _TREC_TAIL.match(spelled)
    if tail:  # a misspelled trec_eval name with a parameter: ndcg_cutt_10
        bases = {t.base.casefold(): t.base for t in TREC_NAMES if t.slot}
        near = difflib.get_close_matches(tail.group("head").casefold(), list(bases), n=1, cutoff=0.6)
        if near:
            guess = f"did you mean {bases[near[0]]}_{tail.group('value')}? "
            return ScoringError(f"unknown measure {spelled!r}", guess + HINT)
    folded = {n.casefold(): n for n in [*_EXACT, *_TREC_PLAIN]}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    if close:
        spec = _EXACT.get(folded[close[0]])
        guess = f"did you mean {spelled.replace(name, spec.family if spec else folded[close[0]], 1)}? "
    else:
        guess = ""
    return ScoringError(f"unknown measure {spelled!r}", guess + HINT)


def _at_keyword(spec: MeasureSpec, params: str) -> tuple[str, str | None]:
    """The parameters without the one `@` stands for, written as ir_measures also allows it
    (`P(cutoff=5)`, `IPrec(recall=0.1)`), and its value (None when not written so)."""
    keyword = "recall" if takes_level(spec) else "cutoff"
    rest, value = [], None
    for part in split_outside(params, ","):
        key, _, raw = part.partition("=")
        if key.strip() == keyword:
            value = _unquote(raw)
        else:
            rest.append(part)
    return ",".join(rest), value


def parse_measure(text: str) -> Measure:
    """Parse one measure name (ir_measures or trec_eval spelling); unknown names and bad
    parameters raise `ScoringError`."""
    spelled = text.strip()
    m = _PATTERN.match(spelled)
    name = m.group("name") if m else spelled
    trec_plain = _TREC_PLAIN.get(name) if name not in _EXACT else None
    spec = trec_plain.spec if trec_plain is not None else _family(name) if m else None
    if m is None or spec is None:
        trec = _parse_trec(spelled)
        if trec is not None:
            return trec
        raise _unknown(spelled, name)
    params, keyword = _at_keyword(spec, m.group("params") or "")
    if keyword is not None and m.group("k"):
        raise ScoringError(f"{spelled}: the cutoff is given twice", HINT)
    given = _parse_params(spec, params, spelled)
    if trec_plain is not None and trec_plain.params:  # `rbp@10`, `rbp(p=0.5)`: trec_eval's rbp
        given = {**_parse_params(spec, trec_plain.params, spelled), **given}
    at = m.group("k") or keyword
    if takes_level(spec) and not at and spec.cutoff is CutoffRule.REQUIRED:
        raise ScoringError(f"{spelled} needs a recall level, e.g. {spec.family}@0.1", HINT)
    if at and takes_level(spec):
        return Measure(spec.family, **{**given, "level": _level(at, spelled, spec.max_level)}, spelled=spelled)  # type: ignore[arg-type]
    if at and not at.isdigit():
        raise ScoringError(f"{spelled}: the cutoff must be a whole number", HINT)
    cutoff = int(at) if at else None
    _check_cutoff(spec, cutoff, spelled)
    return Measure(spec.family, cutoff, **given, spelled=spelled)  # type: ignore[arg-type]


# -- lists ----------------------------------------------------------------------------------------


_NUMBER = re.compile(r"^\d*\.?\d+$")
_DOTTED = re.compile(r"^(?P<base>[A-Za-z0-9_]+)\.(?P<value>\d*\.?\d+)$")


_TREC_LIST_BASES = frozenset(t.base for t in TREC_NAMES if t.slot)


def _trec_list(parts: Iterable[str]) -> Iterator[str]:
    """trec_eval's parameter lists spelled out: `ndcg_cut.5,10` -> `ndcg_cut.5`, `ndcg_cut.10`
    (as `trec_eval -m ndcg_cut.5,10`); a bare number after `BASE.x` is another value of it."""
    base = ""
    for part in parts:
        if base and _NUMBER.match(part):
            yield f"{base}.{part}"
            continue
        dotted = _DOTTED.match(part)
        base = (
            dotted.group("base")
            if dotted and any(t.slot and t.base == dotted.group("base") for t in TREC_NAMES)
            else ""
        )
        yield part


def _items(texts: str | Iterable[str]) -> list[str]:
    """The names in a comma- or space-separated list (or a sequence of names, each of which may be
    a trec_eval list such as `P.5,10`), quotes removed."""
    if isinstance(texts, str):
        parts = split_outside(texts, ", \t\n")
    else:
        parts = [p for t in texts for p in (t.split(",") if _DOTTED.match(t.split(",")[0].strip()) else [t])]
    return list(_trec_list(_unquote(t).strip() for t in parts if t.strip()))


def parse_measures(texts: str | Iterable[str]) -> list[Measure]:
    """Parse a comma- or space-separated list (or a sequence) of measure names; the same measure
    written twice (`MAP,AP`, `P@5 P_5`) is refused."""
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
    """The canonical names of the measures in a list (or a sequence), in order, each once: for
    merging a user's list with extra measures, where a repeat is no error."""
    return list(dict.fromkeys(parse_measure(t).name for t in _items(texts)))


def trec_eval_names(names: Iterable[str], reference: str = "trec_eval") -> dict[str, str]:
    """Canonical name -> trec_eval's name, for the measures trec_eval has (others left out)."""
    found = {}
    for name in names:
        spelled = trec_eval_name(parse_measure(name), reference)
        if spelled is not None:
            found[name] = spelled
    return found
