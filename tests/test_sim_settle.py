"""`benchmarks/sim_settle.py` on tiny cases (the full one is `make sim`): the judgments at which
each run pair, and every pair, is settled are where the stopping rule first says so, the same
under the same --seed, and the script writes them in its JSON and figure."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
sim_replay: Any = importlib.import_module("sim_replay")  # benchmarks/ is no package: untyped here
sim_settle: Any = importlib.import_module("sim_settle")
Tiny = tuple[Any, list[tuple[int, int]], dict[str, dict[str, Any]]]


def _labels(w: Any, judged: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q, d in judged:
        out.setdefault(q, {})[d] = w.hidden[q][d]
    return out


def _holds(key: str, w: Any, pair: tuple[int, int], judged: list[tuple[str, str]]) -> bool:
    """The stopping rule's verdict on `pair` after `judged`: sign settled, or sign and test."""
    v = sim_settle.verdict(w, pair, _labels(w, judged))
    return bool(v.sign != "open") if key == "sign_at" else bool(v.settled)


@pytest.fixture(scope="module")
def tiny() -> Tiny:
    """Six TREC topics, three runs pooled to depth 10, the queue recomputed every 10 judgments."""
    hidden = dict(sorted(sim_replay.trec_rag24().items())[:6])
    w = sim_settle.world(hidden, 3, 10, 7, 10)
    pairs = [(0, 1), (0, 2), (1, 2)]
    return w, pairs, {column: sim_settle.judge_until(w, column, pairs) for column in sim_settle.ORDERS}


def test_each_pair_is_settled_at_the_judgment_where_the_rule_first_says_so(
    tiny: Tiny,
) -> None:
    w, pairs, replays = tiny
    settled = 0
    for column, r in replays.items():
        judged = r["judged"]
        assert len(judged) == len(set(judged)) <= len(w.best) and set(judged) <= set(w.best), column
        for k, pair in enumerate(pairs):
            for key in ("sign_at", "settled_at"):
                at = r[key][k]
                if at is None:
                    assert not _holds(key, w, pair, judged), (column, pair, key)
                    continue
                assert _holds(key, w, pair, judged[:at]), (column, pair, key)
                if at:
                    assert not _holds(key, w, pair, judged[: at - 1]), (column, pair, key)
            settled += r["settled_at"][k] is not None
        if all(x is not None for x in r["settled_at"]):
            assert len(judged) < max(r["settled_at"]) + w.step  # stopped in the chunk where the last one settled
        summary = sim_settle.summary(r, len(w.best))
        assert summary["every_settled_at"] == sim_settle.every(r["settled_at"])
        assert summary["at"]["1.0"]["settled"] == sum(x is not None for x in r["settled_at"])
    assert settled >= 10, "most pairs settle within the budget on this case"


def test_the_replay_is_the_same_under_the_same_seed(
    tiny: Tiny,
) -> None:
    w, pairs, replays = tiny
    again = sim_settle.world(w.hidden, 3, 10, 7, 10)
    for column in ("depth", "settle"):
        first = {k: v for k, v in replays[column].items() if k != "seconds"}
        second = {k: v for k, v in sim_settle.judge_until(again, column, pairs).items() if k != "seconds"}
        assert first == second, column


def test_the_script_writes_the_clear_pairs_and_every_pair(tmp_path: Any) -> None:
    out = tmp_path / "settle.json"
    args = ["--sets", "trec-rag24", "--runs", "3", "--pairs", "1", "--step", "100", "--depth", "12"]
    script = ROOT / "benchmarks" / "sim_settle.py"
    subprocess.run(
        [sys.executable, str(script), *args, "--json", str(out), "--png", str(tmp_path / "s.png")],
        check=True,
        capture_output=True,
    )
    result = json.loads(out.read_text())["trec-rag24"]
    budget, columns = result["budget"], set(sim_settle.ORDERS)
    assert set(result["orders"]) == columns and result["seed"] == 7
    every_pair = result["every_pair"]
    assert len(every_pair["pairs"]) == 3 and set(every_pair["orders"]) == columns
    for o in every_pair["orders"].values():
        assert set(o["at"]) == {"0.2", "0.5", "1.0"}
        counts = [o["at"][s]["settled"] for s in ("0.2", "0.5", "1.0")]
        assert counts == sorted(counts) and counts[-1] == sum(x is not None for x in o["settled_at"])
        assert o["every_settled_at"] == sim_settle.every(o["settled_at"])
        for sign, both in zip(o["sign_at"], o["settled_at"], strict=True):
            assert both is None or (sign is not None and sign <= both <= budget)
    assert result["comparisons"], "the TREC topics have a clear pair even among three runs"
    for c in result["comparisons"]:
        assert abs(c["z"]) > 2 and set(c["orders"]) == columns
        k = every_pair["pairs"].index([c["a"], c["b"]])
        assert c["orders"]["depth"]["settled_at"] == every_pair["orders"]["depth"]["settled_at"][k]
        for o in c["orders"].values():
            if o["settled_at"] is not None:
                assert o["final_sign"] != "open" and o["final_test"] != "open"
        # the greedy that knows the hidden grades settles this clear pair, within the budget
        assert c["oracle"]["sign_at"] <= c["oracle"]["settled_at"] <= budget
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
