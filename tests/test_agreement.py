"""`qrelkit agreement`: two assessors on 50 overlapping pairs (fixture), checked against the
`krippendorff` package and a kappa computed by hand."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import krippendorff
import numpy as np
import pytest

from conftest import DATA, Cli
from qrelkit.scoring.agreement import alpha_ordinal, kappa_linear, raw_agreement


def _load(run_cli: Cli) -> dict[str, Any]:
    run_cli("init")
    run_cli("strata", "set", "head", "2")
    run_cli("strata", "set", "tail", "1")
    run_cli("import", "queries", str(DATA / "agreement_queries.tsv"))
    run_cli("import", "judgments", str(DATA / "agreement_50.jsonl"))
    report: dict[str, Any] = json.loads(run_cli("agreement", "--format", "json").output)
    return report


def _fixture() -> dict[tuple[str, str], dict[str, int]]:
    votes: dict[tuple[str, str], dict[str, int]] = {}
    for line in (DATA / "agreement_50.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["state"] == "graded":
            votes.setdefault((e["query_id"], e["doc_id"]), {})[e["assessor"]] = e["grade"]
    return {p: v for p, v in votes.items() if len(v) == 2}


def _hand_kappa(a: list[int], b: list[int]) -> float:
    """Weighted kappa as in Cohen (1968), linear weights over the 4-point scale, by counting."""
    n = len(a)
    cells = Counter(zip(a, b, strict=True))
    ra, rb = Counter(a), Counter(b)
    k = 4

    def w(i: int, j: int) -> float:  # agreement weights
        return 1 - abs(i - j) / (k - 1)

    po = sum(w(i, j) * c for (i, j), c in cells.items()) / n
    pe = sum(w(i, j) * ra[i] * rb[j] for i in range(k) for j in range(k)) / n**2
    return (po - pe) / (1 - pe)


def test_two_assessors_on_50_pairs_match_the_references(run_cli: Cli) -> None:
    report = _load(run_cli)
    pairs = _fixture()
    assert len(pairs) == 50
    overall = report["overall"]
    assert overall["n_pairs"] == 50 and overall["skipped"] == 2
    ann = [v["ann"] for v in pairs.values()]
    bob = [v["bob"] for v in pairs.values()]
    data = np.array([ann, bob], dtype=float)
    ref_alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert overall["alpha_ordinal"] == pytest.approx(ref_alpha, abs=1e-9)
    assert overall["kappa_linear"]["ann|bob"] == pytest.approx(_hand_kappa(ann, bob), abs=1e-9)
    assert overall["raw_agreement"] == pytest.approx(sum(x == y for x, y in zip(ann, bob, strict=True)) / 50, abs=1e-12)
    # per stratum: the same references over each stratum's pairs
    for stratum, queries in (("head", {f"q{i}" for i in range(5)}), ("tail", {f"q{i}" for i in range(5, 10)})):
        sub = {p: v for p, v in pairs.items() if p[0] in queries}
        a, b = [v["ann"] for v in sub.values()], [v["bob"] for v in sub.values()]
        got = report["by_stratum"][stratum]
        assert got["n_pairs"] == len(sub)
        ref = krippendorff.alpha(reliability_data=np.array([a, b], dtype=float), level_of_measurement="ordinal")
        assert got["alpha_ordinal"] == pytest.approx(ref, abs=1e-9)
        assert got["kappa_linear"]["ann|bob"] == pytest.approx(_hand_kappa(a, b), abs=1e-9)
    table = run_cli("agreement").output
    assert "kappa ann|bob" in table and "head" in table
    one = json.loads(run_cli("agreement", "--stratum", "tail", "--format", "json").output)
    assert set(one["by_stratum"]) == {"tail"}


@pytest.mark.parametrize("seed", range(20))
def test_alpha_with_three_assessors_and_missing_votes_matches_krippendorff(seed: int) -> None:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 4, size=(3, 30)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    units = {
        ("q", f"d{j}"): {f"a{i}": int(data[i, j]) for i in range(3) if not np.isnan(data[i, j])} for j in range(30)
    }
    units = {p: v for p, v in units.items() if len(v) >= 2}
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert alpha_ordinal(units) == pytest.approx(ref, abs=1e-9)


def test_small_cases_by_hand() -> None:
    assert raw_agreement({("q", "d"): {"a": 1, "b": 1, "c": 2}}) == pytest.approx(1 / 3)
    assert kappa_linear([0, 1, 2, 3], [0, 1, 2, 3]) == pytest.approx(1.0)
    assert kappa_linear([1, 1], [1, 1]) is None  # no variation: undefined, not 1
    assert alpha_ordinal({("q", "d"): {"a": 2, "b": 2}}) is None
