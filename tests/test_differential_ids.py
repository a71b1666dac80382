"""The guard that would have caught issue 24's width bug: irregular ids, every path, every threshold.

Hypothesis makes qrels and runs whose ids are 1-64 bytes of digits, ASCII punctuation and UTF-8,
some the prefixes of others, the run's widest id wider or narrower than the qrels', lines grouped
or shuffled, tabs or spaces, -1 grades, tied scores and run-only queries. Each case is scored
from the qrels file, from a store the qrels were imported into, and from a version frozen from
that store, with every fast-path threshold lowered (`thresholds.lowered`, half the cases through
pyarrow's tokeniser too), and every per-query value is compared with pytrec_eval (float32 scores,
as pytrec_eval ranks) to 1e-9, and with a reference written here for Judged@k and RR@k, which
pytrec_eval lacks. `QRELKIT_STRESS=1` (make stress) runs a longer sweep.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Cli
from oracle import trec_eval
from thresholds import lowered

PAIRS = {  # qrelkit canonical name -> trec_eval name
    "P@1": "P_1",
    "P@3": "P_3",
    "P@10": "P_10",
    "R@3": "recall_3",
    "R@10": "recall_10",
    "Success@1": "success_1",
    "RR": "recip_rank",
    "nDCG@3": "ndcg_cut_3",
    "nDCG@10": "ndcg_cut_10",
    "nDCG": "ndcg",
    "AP": "map",
    "AP@5": "map_cut_5",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "NumRelRet": "num_rel_ret",
}
TREC_MEASURES = [
    "P.1,3,10",
    "recall.3,10",
    "success.1",
    "recip_rank",
    "ndcg_cut.3,10",
    "ndcg",
    "map",
    "map_cut.5",
    "Rprec",
    "bpref",
    "num_rel_ret",
]
OURS_ONLY = ["Judged@5", "RR@3"]
METRICS = ",".join([*PAIRS, *OURS_ONLY])
STRESS = bool(os.environ.get("QRELKIT_STRESS"))

_CHARS = "0123456789abcXYZ-_.:/+=@!$%&*(),;?[]{}~^'\"`|<>\\éßжø日本🙂"
_id = st.text(_CHARS, min_size=1, max_size=40).filter(
    lambda s: len(s.encode()) <= 64 and s[0] != "#" and not s.startswith(('{"', "{}"))  # `{"`: a JSON file
)


def _widths(draw: st.DrawFn, base: list[str]) -> list[str]:
    """The base ids, prefixes of some of them, and ids of every width class (<=8, 9-24, 25-56, 57-64 bytes)."""
    out = list(base)
    for b in base[:3]:
        if len(b) > 1:
            out.append(b[: draw(st.integers(1, len(b) - 1))])  # a prefix of another id
    for width in (draw(st.integers(9, 24)), draw(st.integers(25, 56)), draw(st.integers(57, 64))):
        out.append(("w" + draw(_id)) * 64)
        out[-1] = out[-1].encode()[:width].decode("utf-8", "ignore") or "w"
    return list(dict.fromkeys(x for x in out if x and x[0] != "#"))


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    queries = draw(st.lists(_id, min_size=1, max_size=6, unique=True))
    docs = _widths(draw, draw(st.lists(_id, min_size=3, max_size=10, unique=True)))
    qrels_docs = docs[: draw(st.integers(1, len(docs)))]  # the widest ids may be on one side only
    run_docs = docs[draw(st.integers(0, len(docs) - 1)) :] + docs[:2]
    grades = st.integers(-1, 3)
    scores = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 3.25, 1e-3])  # few values: many ties
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in queries:
        labels = draw(st.dictionaries(st.sampled_from(qrels_docs), grades, min_size=1, max_size=8))
        labels[draw(st.sampled_from(qrels_docs))] = draw(st.integers(0, 3))  # a judged label in every query
        qrels[q] = labels
        if q == queries[0] or draw(st.integers(0, 4)):  # some queries are missing from the run
            mine = list(dict.fromkeys([*labels, *run_docs]))
            run[q] = draw(st.dictionaries(st.sampled_from(mine), scores, min_size=1, max_size=14))
    if draw(st.booleans()):
        run["run-only-" + draw(_id)] = {draw(st.sampled_from(run_docs)): 1.0}
    return {
        "qrels": qrels,
        "run": run,
        "shuffle": draw(st.booleans()),
        "sep": draw(st.sampled_from([" ", "\t"])),
        "seed": draw(st.integers(0, 2**16)),
        "compiled": draw(st.booleans()),
    }


def _write(case: dict[str, Any], folder: Path) -> tuple[Path, Path, Path]:
    rnd = random.Random(case["seed"])
    sep = case["sep"]
    qrels = [sep.join((q, "0", d, str(g))) for q, labels in case["qrels"].items() for d, g in labels.items()]
    run = [
        sep.join((q, "Q0", d, str(i), repr(s), "r"))
        for q, ranked in case["run"].items()
        for i, (d, s) in enumerate(ranked.items(), 1)
    ]
    if case["shuffle"]:
        rnd.shuffle(qrels)
        rnd.shuffle(run)
    paths = folder / "qrels.txt", folder / "run.txt", folder / "queries.tsv"
    paths[0].write_text("\n".join(qrels) + "\n", encoding="utf-8")
    paths[1].write_text("\n".join(run) + "\n", encoding="utf-8")
    paths[2].write_text("".join(f"{q}\tq\tdefault\n" for q in case["qrels"]), encoding="utf-8")
    return paths


def _ranked(run: dict[str, float]) -> list[str]:
    """trec_eval's order as pytrec_eval ranks: float32 score descending, then doc id descending."""
    keyed = sorted(((-float(np.float32(s)), d) for d, s in run.items()), key=lambda t: (t[0], _rev(t[1])))
    return [d for _, d in keyed]


def _rev(doc: str) -> list[int]:
    return [-b for b in doc.encode()] + [1]  # descending bytes; a prefix sorts after its extensions


def _reference(labels: dict[str, int], run: dict[str, float], level: int = 1) -> dict[str, float]:
    """Judged@5 and RR@3, written from their definitions (a -1 grade is pooled, not judged)."""
    ranked = _ranked(run)
    top5 = ranked[:5]
    judged = sum(1 for d in top5 if labels.get(d, -1) >= 0) / len(top5) if top5 else 0.0
    rr = next((1.0 / i for i, d in enumerate(ranked[:3], 1) if labels.get(d, -1) >= level), 0.0)
    return {"Judged@5": judged, "RR@3": rr}


def _per_query(result_output: str) -> dict[str, dict[str, float]]:
    report = json.loads(result_output)["reports"][0]
    return {q: {m: v["value"] for m, v in ms.items()} for q, ms in report["per_query"].items()}


def _check(case: dict[str, Any], ours: dict[str, dict[str, float]], reference: dict[str, dict[str, float]]) -> int:
    compared = 0
    for q, labels in case["qrels"].items():
        values = ours[q]
        if q in reference:
            for name, trec_name in PAIRS.items():
                assert values[name] == pytest.approx(reference[q][trec_name], abs=1e-9), (q, name)
                compared += 1
        else:  # pytrec_eval leaves out a query missing from the run: every value is 0
            assert q not in case["run"] and all(v == 0.0 for v in values.values()), q
        own = _reference(labels, case["run"].get(q, {}))
        for name, value in own.items():
            assert values[name] == pytest.approx(value, abs=1e-9), (q, name)
    assert set(ours) == set(case["qrels"])  # run-only queries are not scored
    return compared


def _score(run_cli: Cli, *source: str, run: Path) -> dict[str, dict[str, float]]:
    args = ["score", *source, str(run), "--metrics", METRICS, "--format", "json", "--per-query"]
    return _per_query(run_cli(*args, "--score-precision", "float32").output)


def _every_path(case: dict[str, Any], folder: Path) -> None:
    qrels, run, queries = _write(case, folder)
    reference = trec_eval(case["qrels"], case["run"], TREC_MEASURES)
    run_cli = Cli(folder)
    with lowered(compiled=case["compiled"]):
        from_file = _score(run_cli, "--qrels", str(qrels), run=run)
        run_cli("init", "--name", "g")
        run_cli("import", "queries", str(queries))
        run_cli("import", "qrels", str(qrels))
        from_store = _score(run_cli, run=run)
        run_cli("freeze", "g", "v1", "--out", str(folder / "sets"))
        from_version = _score(run_cli, "--golden", str(folder / "sets" / "g" / "v1"), run=run)
    assert _check(case, from_file, reference) == _check(case, from_store, reference)
    _check(case, from_version, reference)


@settings(
    max_examples=400 if STRESS else 18,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(cases())
def test_irregular_ids_score_as_trec_eval_on_every_path(tmp_path_factory: pytest.TempPathFactory, case: Any) -> None:
    _every_path(case, tmp_path_factory.mktemp("case"))


def test_the_width_case_of_issue_24(tmp_path: Path) -> None:
    """trec_eval's own run plus one line with a 24-byte id for a query the qrels lack."""
    data = Path(__file__).parent / "data" / "trec_eval"
    run = tmp_path / "run.txt"
    run.write_text(
        (data / "results.test").read_text() + "999 Q0 THIS-IS-A-LONG-DOCNO-24B 1 1.0 STANDARD\n", encoding="utf-8"
    )
    ours = _score(Cli(tmp_path), "--qrels", str(data / "qrels.test"), run=run)
    qrels: dict[str, dict[str, int]] = {}
    for line in (data / "qrels.test").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    runs: dict[str, dict[str, float]] = {}
    for line in run.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        runs.setdefault(q, {})[d] = float(s)
    reference = trec_eval(qrels, runs, TREC_MEASURES)
    for q in qrels:
        for name, trec_name in PAIRS.items():
            assert ours[q][name] == pytest.approx(reference[q][trec_name], abs=1e-9), (q, name)
    assert sum(ours[q]["NumRelRet"] for q in qrels) == 131  # trec_eval -c prints 131
