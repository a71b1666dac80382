"""The rest of trec_eval's `all_trec` (scoring/kernels_trec.py and the geometric means).

* Generated cases (tests/data/trec_eval_generated/: graded, -1 grades, ties, mixed id widths, a
  query missing from the run): `score --format trec_eval --per-query` against trec_eval 10's
  `-m all_trec -q -c` output, every measure qrelkit computes under its trec_eval name, to the
  printed precision (1e-4).
* pytrec_eval (trec_eval 9.0.8) on the same cases to 1e-9, for the measures it implements.
* Bounds against every labeling of the unlabeled documents retrieved, coverage windows, and the
  geometric mean.
"""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest

from conftest import Cli
from oracle import trec_eval
from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate
from qrelkit.scoring.aggregate import GEOMETRIC_FLOOR
from qrelkit.scoring.measures import SPECS
from qrelkit.scoring.names import parse_measure
from test_trec_eval_format import computed

DATA = Path(__file__).parent / "data" / "trec_eval_generated"
SEEDS = (1, 2, 3)
FAMILIES = [
    "GMAP", "GMBpref", "RprecMult", "Utility", "BinG", "G", "nDCGRel", "RnDCG", "RelP", "SetRelP", "SetAP",
    "NumNonRelJudgedRet", "RBPResid", "Unjudged",
]  # fmt: skip


def _lines(text: str) -> dict[tuple[str, str], str]:
    rows = (line.split("\t") for line in text.splitlines())
    return {(name.rstrip(), qid): value for name, qid, value in rows}


def _read(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for line in (DATA / f"qrels.{seed}").read_text(encoding="utf-8").splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in (DATA / f"run.{seed}").read_text(encoding="utf-8").splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return qrels, run


def test_every_family_is_declared_and_named_in_trec_eval() -> None:
    for family in FAMILIES:
        assert family in SPECS and SPECS[family].trec_eval, family


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_cases_match_trec_eval_10_per_query(run_cli: Cli, seed: int) -> None:
    want = _lines((DATA / f"out.{seed}.aqc").read_text(encoding="utf-8"))
    names = list(dict.fromkeys(n for n, _ in want))
    compared = [n for n in names if n not in ("runid", "num_q") and computed(n)]
    for family in FAMILIES:  # every new family is among them
        assert any(parse_measure(n).family == family for n in compared), family
    out = run_cli(
        "score", "--qrels", str(DATA / f"qrels.{seed}"), str(DATA / f"run.{seed}"), "--metrics", " ".join(compared),
        "--format", "trec_eval", "--per-query",
    ).output  # fmt: skip
    got = _lines(out)
    expected = {k: v for k, v in want.items() if k[0] in compared or k[0] in ("runid", "num_q")}
    assert set(got) == set(expected)  # the same lines: gm_* in the `all` rows only, every query (-c)
    for key, value in expected.items():
        if key[0] == "runid":
            assert got[key] == value
        else:
            assert float(got[key]) == pytest.approx(float(value), abs=5.1e-5), key


PYTREC = [
    "gm_map", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg_rel", "Rndcg", "relative_P",
    "set_relative_P", "set_map", "num_nonrel_judged_ret",
]  # fmt: skip
"""The new families pytrec_eval implements (`pytrec_eval.supported_measures`)."""


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_cases_match_pytrec_eval_to_1e9(seed: int) -> None:
    qrels, run = _read(seed)
    ref = trec_eval(qrels, run, PYTREC)
    keys = sorted({k for values in ref.values() for k in values})
    assert len(keys) >= len(PYTREC)
    per_query = evaluate(qrels, run, keys).per_query()
    for qid, values in ref.items():
        for key, expected in values.items():
            mine = per_query[qid][parse_measure(key).name]
            if key.startswith("gm_"):  # pytrec_eval's per-query gm_* is trec_eval's log(max(v, 0.00001))
                mine = math.log(max(mine, GEOMETRIC_FLOOR))
            assert mine == pytest.approx(expected, abs=1e-9), (qid, key)


# -- bounds -----------------------------------------------------------------------------------------

BOUNDED = ["GMAP", "RprecMult@0.4", "RprecMult@1.6", "Utility", "RelP@3", "SetRelP", "SetAP", "NumNonRelJudgedRet"]
UNBOUNDED = ["GMBpref", "BinG", "G", "nDCGRel", "RnDCG", "RBPResid", "Unjudged@3"]


def _completions(labels: dict[str, int], run: dict[str, float], name: str, max_grade: int, t: int) -> list[float]:
    """The value under every grade assignment to the unlabeled documents retrieved."""
    unl = [d for d in run if labels.get(d, -1) < 0]
    values = []
    for grades in itertools.product(range(max_grade + 1), repeat=len(unl)):
        done = {d: g for d, g in labels.items() if g >= 0} | dict(zip(unl, grades, strict=True))
        ev = evaluate({"q": done}, {"q": run}, name, relevance_threshold=t, max_grade=max_grade)
        values.append(ev.per_query()["q"][name])
    return values


@pytest.mark.parametrize("seed", range(40))
def test_bounds_are_the_extremes_over_every_labeling(seed: int) -> None:
    rnd = random.Random(seed)
    max_grade = rnd.choice([1, 2])
    t = rnd.randint(1, max_grade)
    docs = [f"d{i}" for i in range(9)]
    run = {d: float(rnd.choice([1, 2, 3, 4])) for d in rnd.sample(docs, rnd.randint(1, 7))}
    labels = {d: rnd.choice([-1, 0, 1, max_grade]) for d in rnd.sample(docs, rnd.randint(0, 8))}
    for name in BOUNDED:
        m = parse_measure(name)
        s = evaluate(
            {"q": labels}, {"q": run}, m.name, relevance_threshold=t, max_grade=max_grade, keep_unlabeled=True
        ).scores[m.name]
        values = _completions(labels, run, m.name, max_grade, t)
        assert s.exact[0]
        assert s.low[0] == pytest.approx(min(values), abs=1e-12), name
        assert s.high[0] == pytest.approx(max(values), abs=1e-12), name
        assert s.low[0] <= s.value[0] <= s.high[0]


def test_families_without_bounds_report_none() -> None:
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "x": 1.0}}, UNBOUNDED)
    for name in (parse_measure(n).name for n in UNBOUNDED):
        assert np.isnan(ev.scores[name].low).all() and np.isnan(ev.scores[name].high).all(), name
        assert "none" in parse_measure(name).spec.bounds


def test_bing_is_extreme_at_neither_uniform_completion() -> None:
    # ranks x (unlabeled), a (relevant), n1, n2 (not), y (unlabeled). x relevant, y not: (1 + 1) / 2 = 1;
    # neither: 1 / log2(3) = 0.63; both: (1 + 1 + 1 / log2(2 + 2)) / 3 = 0.83
    run = {"x": 5.0, "a": 4.0, "n1": 3.0, "n2": 2.0, "y": 1.0}
    labels = {"a": 1, "n1": 0, "n2": 0}

    def bing(x: int, y: int) -> float:
        ev = evaluate({"q": labels | {"x": x, "y": y}}, {"q": run}, "BinG")
        return ev.per_query()["q"]["BinG"]

    mixed, none, both = bing(1, 0), bing(0, 0), bing(1, 1)
    assert mixed == 1.0 and mixed > max(none, both)


# -- windows, values by hand, aggregation ----------------------------------------------------------


def test_coverage_windows() -> None:
    # ranks: x (unlabeled), a (1), y (unlabeled), b (0); Unjudged@2 reads the top 2 only
    run = {"x": 4.0, "a": 3.0, "y": 2.0, "b": 1.0}
    ev = evaluate({"q": {"a": 1, "b": 0}}, {"q": run}, "Unjudged@2,RelP@2,SetAP,RBPResid")
    cov = {m: float(ev.scores[m].coverage[0]) for m in ev.scores}
    assert cov == {"Unjudged@2": 0.5, "RelP@2": 0.5, "SetAP": 0.5, "RBPResid": 0.5}
    values = ev.per_query()["q"]
    assert values["Unjudged@2"] == 0.5  # x of the top 2
    assert values["RelP@2"] == 1.0  # 1 relevant in the top 2 / min(2, R = 1)
    assert values["SetAP"] == pytest.approx(1 / 4)  # 1^2 / (4 retrieved x 1)
    # p^4 + (1 - p)(p^0 + p^2) with p = 0.9
    assert values["RBPResid"] == pytest.approx(0.9**4 + 0.1 * (1 + 0.81))


def test_rprec_mult_cuts_at_trunc_x_r_plus_0_9() -> None:
    # R = 3: @0.2 -> trunc(1.5) = 1, @1.0 -> 3, @2.0 -> 6 (past the run: 2 relevant retrieved / 6)
    run = {"a": 5.0, "n": 4.0, "b": 3.0, "m": 2.0}
    ev = evaluate({"q": {"a": 1, "b": 1, "c": 1, "n": 0}}, {"q": run}, "RprecMult@0.2,RprecMult@1,RprecMult@2")
    assert ev.per_query()["q"] == {"RprecMult@0.2": 1.0, "RprecMult@1": pytest.approx(2 / 3), "RprecMult@2": 2 / 6}


def test_geometric_mean_as_trec_eval(run_cli: Cli) -> None:
    # AP 1 and 0: exp((log 1 + log 0.00001) / 2) = sqrt(0.00001)
    ev = evaluate({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"x": 1.0}}, "GMAP,AP")
    assert ev.means() == {"GMAP": pytest.approx(math.sqrt(GEOMETRIC_FLOOR)), "AP": 0.5}
    fp = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=["GMAP"],
        relevance_threshold=1,
        max_grade=1,
        qrelkit_version="t",
    )
    gm = ev.report(fp).metrics["GMAP"]
    assert gm.mean == pytest.approx(math.sqrt(GEOMETRIC_FLOOR))
    # query 2's x may be relevant: AP in [0, 1/2] (R becomes 2); the bounds are geometric means too
    assert gm.bounds is not None
    assert list(gm.bounds) == [pytest.approx(math.sqrt(GEOMETRIC_FLOOR)), pytest.approx(math.sqrt(0.5))]
    assert 0 < gm.ci95[0] <= gm.mean <= gm.ci95[1] <= 1
    qrels = run_cli.write("q.txt", "1 0 a 1\n2 0 b 1\n")
    runf = run_cli.write("r.run", "1 Q0 a 1 1.0 r\n2 Q0 x 1 1.0 r\n")
    args = ["score", "--qrels", str(qrels), str(runf), "--metrics", "gm_map"]
    out = run_cli(*args, "--format", "trec_eval", "--per-query")
    rows = [line.split("\t") for line in out.output.splitlines()]
    assert [(q, v) for name, q, v in rows if name.rstrip() == "gm_map"] == [("all", "0.0032")]  # no per-query row
    assert {q for _, q, _ in rows} == {"1", "2", "all"}


def test_the_interval_of_a_negative_measure_is_not_clipped_at_0() -> None:
    ev = evaluate({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"x": 1.0, "y": 0.5}, "2": {"b": 1.0}}, "Utility")
    fp = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=["Utility"],
        relevance_threshold=1,
        max_grade=1,
        qrelkit_version="t",
    )
    u = ev.report(fp).metrics["Utility"]
    assert ev.per_query() == {"1": {"Utility": -2.0}, "2": {"Utility": 1.0}}
    assert u.mean == -0.5 and u.ci95[0] < -0.5 < u.ci95[1]


def test_rprec_mult_bounds_move_only_with_documents_that_can_become_relevant() -> None:
    """RprecMult shares Rprec's bounds (kernel_base.precision_at_moving_cut): with a threshold
    above the scale, no unlabeled document can become relevant, so the bounds are the value."""
    ev = evaluate({"q": {"a": 2, "b": 0}}, {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}, "RprecMult@1,Rprec", max_grade=2)
    for name in ("RprecMult@1", "Rprec"):
        s = ev.scores[name]
        assert s.exact[0] and s.low[0] < s.high[0], name  # x (rank 1) may still become relevant
    above = evaluate(
        {"q": {"a": 2, "b": 0}}, {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}, "RprecMult@1,Rprec",
        relevance_threshold=3, max_grade=2,
    )  # fmt: skip
    for name in ("RprecMult@1", "Rprec"):
        s = above.scores[name]
        assert s.low[0] == s.value[0] == s.high[0] == 0.0, name
