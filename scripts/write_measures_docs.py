"""Write docs/measures.md from the measure registry (`scoring.measures.SPECS`), run by `make generated`.

`--check` exits 1 when the committed file differs (a test runs it). Definitions, parameters,
coverage windows, bounds and trec_eval names come from each family's `MeasureSpec`; the notes on
where qrelkit knowingly differs from a peer are kept here, next to the page they appear on.
"""

from __future__ import annotations

import sys
from pathlib import Path

from qrelkit.scoring.measures import SPECS, CutoffRule, MeasureSpec
from qrelkit.scoring.names import IR_MEASURES_ALIASES, TREC_NAMES, takes_level

OUT = Path(__file__).resolve().parents[1] / "docs" / "measures.md"

IR_MEASURES = {
    "P", "R", "Success", "RR", "nDCG", "AP", "Rprec", "Judged", "NumRet", "NumRel", "NumRelRet", "NumQ",
    "SetP", "SetR", "SetF", "Bpref", "infAP", "IPrec", "ERR", "RBP", "SetAP",
}  # fmt: skip
"""Families ir_measures' registry has under the same name (ir_measures/measures/__init__.py)."""

PEERS = {
    "P": "Fewer than k retrieved counts the missing ranks as not relevant, as every peer does "
    "(ranx's `precision` without k divides by the run length instead).",
    "R": "Divides by all relevant documents R, as trec_eval does, not by min(k, R) (ranx#19 asks for the "
    "other reading).",
    "RR": "`RR@k` (looking at the top k only) has no trec_eval spelling: trec_eval's `recip_rank` takes no "
    "cutoff. ir_measures computes `RR@k` through its msmarco provider, which breaks score ties by "
    "document id ascending, so on tied scores its `RR@k` can differ from qrelkit's and trec_eval's.",
    "nDCG": "Gains are the grades (trec_eval, ir_measures `dcg='log2'`); `gain=exp` is ir_measures' "
    "`dcg='exp-log2'` (2^grade - 1, as gdeval). The ideal list is built from every judged document, "
    "not only the retrieved ones, and cut at k for `nDCG@k`; without a cutoff the whole ideal list is "
    "used, so a short run cannot reach 1 (trec_eval's `ndcg`). A relevance threshold does not apply "
    "(trec_eval ignores -l for nDCG); ranx's `-l2` variants give other values.",
    "AP": "`AP@k` divides by all relevant documents R, as trec_eval's `map_cut_k` does.",
    "Bpref": "With no judged non-relevant document trec_eval's rule applies (each relevant document "
    "retrieved scores 1); ranx returns NaN or 0 there (ranx#66).",
    "IPrec": "The rank where recall reaches the level x R is found as trec_eval 10 finds it: x R rounded "
    "half away from zero (lround). trec_eval 9 and pytrec_eval (so ir_measures) truncate x R + 0.9 instead, "
    "which `IPrec(trec_eval=9)@x` (and `score --reference pytrec_eval`) computes.",
    "IPrec11pt": "The mean of the 11 `IPrec` values, added from level 1 down to 0 as trec_eval adds them; "
    "`IPrec11pt(trec_eval=9)` follows trec_eval 9 and pytrec_eval.",
    "SetF": "Computed as trec_eval computes it (P and R first, then 2PR / (P + R)), so a value half-way "
    "between two printed digits rounds as trec_eval's does.",
    "ERR": "`ERR@k` is ir_measures' ERR (its gdeval provider): the top grade is 4 whatever the scale, as "
    "gdeval fixes it, so on a 0..3 scale a grade-3 document stops with probability 7/16; `ERR(max_grade=3)@k` "
    "uses the scale's own top (7/8). A qrels grade above the top grade is refused, as gdeval refuses it. "
    "trec_eval has no ERR.",
    "RBP": "Two readings under two names. `RBP` has ir_measures' default p = 0.8 and is binary: a document "
    "at or above the relevance threshold gains 1 (ir_measures' `RBP(rel=N)`). `rbp` is trec_eval 10's "
    "(`RBP(p=0.9,graded=True)`): each document gains "
    "its grade divided by the top grade in that query's qrels when that top is above 1 (on a 0..3 query a "
    "grade-1 document gains 1/3), and the relevance threshold (-l) does not apply; on binary qrels it is "
    "RBP(p=0.9). Its lower bound allows for a new label above the query's top grade, which rescales the "
    "other gains.",
    "Judged": "A document graded -1 (pooled but not judged) counts as unlabeled, as in trec_eval's `unj`; "
    "ir_measures' `Judged@k` counts it as judged (it is present in the qrels), so the two differ "
    "on qrels with -1 grades. Nor is it 1 - trec_eval's `unj_k`, which pads a run shorter than k "
    "with judged documents. `Judged` without a cutoff is over all retrieved documents, as ir_measures'.",
    "Unjudged": "trec_eval's `unj_k` (and `rbp_resid`) count a document graded -1 as unjudged, as qrelkit "
    "does; `Unjudged@k` divides by k, `Judged@k` by the documents retrieved in the top k, so the two "
    "add up to 1 only when k documents are retrieved.",
    "RBPResid": "trec_eval's `rbp_resid` is 0 for a run without unlabeled documents, even though the ranks "
    "past its end leave p^n open (that part is in `RBP`'s upper bound); ir_measures has no residual.",
    "RnDCG": "As trec_eval, the run's end is an averaging point only when the run is longer than the last "
    "positive ideal rank plus one.",
    "NumQ": "Counts every evaluated query, those missing from the run included (trec_eval -c); "
    "ir_measures' `NumQ` counts the queries it averages over differently (its sum can be smaller).",
}
"""Family -> where qrelkit knowingly differs from trec_eval, ir_measures or ranx."""

GENERAL = """\
## Everywhere

- **Ties** are broken by score, then document id descending (byte order), as trec_eval does; the
  rank column is ignored. ranx keeps the run's insertion order, so on tied scores its P@k, RR,
  nDCG and AP can differ from qrelkit's and trec_eval's.
- **Queries**: the golden set's (or the qrels') queries are evaluated; one missing from the run
  scores 0 and counts in the mean (trec_eval `-c`, ir_measures); run-only queries are ignored.
  trec_eval without `-c` averages over the queries the run has. A golden-set query with no label
  of any grade is left out and counted, as trec_eval leaves out queries its qrels lack
  (`--keep-unlabeled-queries` scores it 0); one judged with grade 0 only stays in, at 0.
- **Scores** are ranked as float64 (trec_eval 10); `--score-precision float32` ranks as
  pytrec_eval and trec_eval 9 do, where scores that differ past float32 precision tie.
- **References**: `score --reference trec_eval` (the default) reproduces trec_eval 10.0;
  `--reference pytrec_eval` reproduces pytrec_eval (trec_eval 9.0.x): float32 scores, and
  trec_eval 9's rank of a recall level in `IPrec` and `IPrec11pt` (`IPrec(trec_eval=9)`).
- **Scale**: `--relevance-level N` is trec_eval's `-l N` (the lowest relevant grade of the binary
  measures) and `--max-grade N` the top of the grade scale (the grade an unlabeled document may
  take in the bounds). With `--qrels` they default to 1 and the file's top grade (raised to the
  relevance level); with `--golden` or the store, to the golden set's own scale.
- **Zero queries**: a mean, SD or interval over no query is NaN in Python (ir_measures gives
  NaN too), null in JSON and `n/a` in tables, never 0.
- **Unlabeled documents** (absent from the qrels, skipped, or graded -1) count as not relevant
  for the value; coverage says how much of the window is labeled, and bounds how far the value
  could still move: the minimum and maximum over every labeling of the unlabeled documents
  retrieved, at any rank (one below k can still raise R or the ideal DCG); documents not
  retrieved stay unlabeled. `exact: false` marks an outer interval, which still contains every
  labeling's value.
- **`--format trec_eval`** prints trec_eval's layout (`%-22s\\t%s\\t%6.4f`, integers for the
  counts), its names, its order, `runid` (the tag of the run's last line), `num_q` and the counts
  `num_ret`, `num_rel`, `num_rel_ret`; with `--per-query` the per-query rows of `trec_eval -q`.
  Measures trec_eval lacks follow under qrelkit's names. `--names trec_eval` prints trec_eval's
  names in tables, trec and csv output; JSON keeps qrelkit's canonical names. The output equals
  trec_eval 10.0's byte for byte on the measures qrelkit computes (tests/data/trec_eval: trec_eval's
  own test files and generated graded cases); the `all` rows add the per-query values in query
  order, as trec_eval does.
- **trec_eval's lists**: `-m`-style `ndcg_cut.5,10`, `P.5,10,20`, `recall.100,1000`,
  `map_cut.5,10` are several measures, as trec_eval reads them.
"""


def _trec(spec: MeasureSpec) -> str:
    shown = []
    for t in TREC_NAMES:
        if t.spec is spec:
            text = {"k": f"`{t.base}_k`", "x": f"`{t.base}_x` (e.g. `{t.base}_0.10`)", "": f"`{t.base}`"}[t.slot]
            shown.append(text + (f" (= `{t.measure().name}`)" if t.params else ""))
    return ", ".join(shown) or "none"


def _ir_measures(spec: MeasureSpec) -> str:
    if spec.family not in IR_MEASURES:
        return "none (ir_measures has no such measure)"
    names = [spec.family, *(a for a, f in IR_MEASURES_ALIASES.items() if f == spec.family and a != spec.family)]
    return ", ".join(f"`{n}`" for n in names)


def _written(spec: MeasureSpec) -> str:
    level = "a recall level in [0, 1]" if spec.max_level == 1 else f"a level in [0, {spec.max_level:g}]"
    at = f"@x, {level}" if takes_level(spec) else "@k"
    rule = {CutoffRule.REQUIRED: f"needs {at}", CutoffRule.OPTIONAL: f"{at} optional"}
    forbidden = "takes no cutoff" + (f" (its cutoff is {spec.implied_cutoff})" if spec.implied_cutoff else "")
    return rule.get(spec.cutoff, forbidden)


def _family(spec: MeasureSpec) -> str:
    params = ", ".join(f"`{p.name}={p.form}`" for p in spec.params) or "none"
    aliases = "".join(f", `{a}`" for a in spec.aliases)
    rows = [
        f"\n## {spec.family}\n\n{spec.definition}.\n",
        f"- **qrelkit name**: `{spec.family}`{aliases} ({_written(spec)}), in any case",
        f"- **ir_measures**: {_ir_measures(spec)}",
        f"- **trec_eval**: {_trec(spec)}",
        f"- **parameters**: {params}",
        f"- **coverage**: {spec.coverage}",
        f"- **bounds**: {spec.bounds}",
        "- **values**: "
        + ("in [0, 1] (a saved report holding another is refused)" if spec.unit_interval else "a count or a sum"),
    ]
    if spec.aggregate != "mean":
        rows.append(f"- **mean over queries**: {spec.aggregate}")
    if spec.family in PEERS:
        rows.append(f"- **differs from peers**: {PEERS[spec.family]}")
    return "\n".join(rows) + "\n"


def render() -> str:
    head = [
        "# Measures\n",
        "Generated by `make generated` from the measure registry (`qrelkit.scoring.measures.SPECS`); do not edit.\n",
        "Write measures in ir_measures' syntax, `NAME[(param=value,...)][@k]` (`nDCG@10`, `P(rel=2)@5`, "
        "`nDCG(dcg='exp-log2')@10`, `nDCG(gains={0:0,1:1,2:3})@10`), or by their trec_eval names "
        "(`ndcg_cut_10`, `P_5`, `map`). Lists are comma- or space-separated; commas inside parentheses "
        "belong to the measure; as in ir_measures, `P(cutoff=5)` is `P@5`. Names are matched as written, then "
        "ignoring case (`map`, `mrr`, `p@5`). "
        "Every output uses one canonical spelling (the family name below); the same measure written "
        "twice is refused.\n",
        "| family | definition | ir_measures | trec_eval |",
        "|---|---|---|---|",
    ]
    table = [
        f"| {s.family} | {s.definition} | {_ir_measures(s).split(' (')[0]} | {_trec(s).split(' (')[0]} |"
        for s in SPECS.values()
    ]
    return "\n".join(head + table) + "\n\n" + GENERAL + "".join(_family(s) for s in SPECS.values())


if __name__ == "__main__":
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("docs/measures.md is out of date: run `make generated`")
            sys.exit(1)
        print("docs/measures.md is up to date")
    else:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")
