"""The `settle` order over several measures (`scoring.settle_joint`): one measure gives the
one-measure priorities to the bit, several weigh each measure's priorities so that every measure's
open width counts alike, `queue --until settled` stops only once every (comparison, measure) is
settled (checked by judging those pairs and asking `settled`), and `settled A B --metric M1
--metric M2` estimates with the same order as the queue serves."""

from __future__ import annotations

import json

import pytest

from conftest import Cli
from qrelkit.models import PoolEntry
from qrelkit.scoring.arrays import RunLists
from qrelkit.scoring.names import parse_measure
from qrelkit.scoring.orders import OrderInput, order_entries
from qrelkit.scoring.settle import QueryCase, Scale, delta_range, grade_prior
from qrelkit.scoring.settle_joint import joint_priorities, weights
from qrelkit.scoring.settle_order import Matchup, priorities
from qrelkit.workflows.comparisons import Comparisons
from test_settle_order import _store

A = RunLists("A", {"q1": ["a", "b", "c"], "q2": ["e", "f"], "q4": ["h", "i"]})
B = RunLists("B", {"q1": ["b", "d", "a"], "q2": ["f", "g"], "q4": ["i", "j"]})
LABELS = {"q1": {"a": 1}, "q2": {"e": 0}, "q3": {"z": 2}, "q4": {"k": 1}}
SCALE = Scale(1)


def _cases() -> list[QueryCase]:
    return [QueryCase(q, A.ranked.get(q, ()), B.ranked.get(q, ()), LABELS[q]) for q in sorted(LABELS)]


def _entries() -> list[PoolEntry]:
    pairs = [("q1", "b", 1), ("q1", "c", 3), ("q1", "d", 2), ("q2", "f", 1), ("q2", "g", 2)]
    pairs += [("q4", "h", 1), ("q4", "i", 1), ("q4", "j", 2)]
    return [PoolEntry(query_id=q, doc_id=d, best_rank=r) for q, d, r in pairs]


def _order(*metrics: str) -> list[tuple[str, str, float]]:
    x = OrderInput(_entries(), [A, B], LABELS, comparisons=[("A", "B")], metrics=metrics, max_grade=1)
    return [(i.query_id, i.doc_id, i.priority) for i in order_entries(x, "settle")]


def test_one_measure_is_the_one_measure_order_to_the_bit() -> None:
    prior = grade_prior([1, 0, 1, 1], 1)
    mu = [Matchup("A", "B", _cases())]
    for name in ("P@2", "RR", "nDCG@2", "AP"):
        m = parse_measure(name)
        assert joint_priorities([m], mu, SCALE, prior) == priorities(m, mu, SCALE, prior)
    x = OrderInput(_entries(), [A, B], LABELS, comparisons=[("A", "B")], metric="RR", max_grade=1)
    assert [(i.query_id, i.doc_id, i.priority) for i in order_entries(x, "settle")] == _order("RR")


def test_several_measures_weigh_each_measures_open_width_alike() -> None:
    prior = grade_prior([1, 0, 1, 1], 1)
    cases = _cases()
    mu = [Matchup("A", "B", cases)]
    measures = [parse_measure(n) for n in ("P@2", "RR", "AP")]
    widths = [(r := delta_range(m, cases, SCALE)).high - r.low for m in measures]
    assert len({round(w, 6) for w in widths}) == 3  # three scales of open width
    w = weights(measures, mu, SCALE)
    mean = sum(widths) / 3
    assert [wi * width for wi, width in zip(w, widths, strict=True)] == pytest.approx([mean] * 3)
    got = joint_priorities(measures, mu, SCALE, prior)
    want: dict[tuple[str, str], float] = {}
    for m, wm in zip(measures, w, strict=True):
        for pair, v in priorities(m, mu, SCALE, prior).items():
            want[pair] = want.get(pair, 0.0) + wm * v
    assert got == pytest.approx(want) and set(got) == set(want)
    order = _order("P@2", "RR", "AP")
    assert {(q, d) for q, d, p in order if p > 0} == {pair for pair, v in want.items() if v > 0}
    assert [p for _, _, p in order] == sorted((p for _, _, p in order), reverse=True)
    # P@2 alone ties its four pairs (each B-only or A-only in one top 2); RR and AP tell them apart
    assert len({p for _, _, p in _order("P@2") if p > 0}) == 1
    assert len({p for q, d, p in order if (q, d) in {("q4", "h"), ("q1", "d"), ("q2", "g"), ("q4", "j")}}) == 4


def test_a_settled_measure_weighs_nothing() -> None:
    """P@1 is settled on these three queries (B's first document relevant, A's not), RR is not
    (A's second document may be): P@1 weighs 0 and the order is RR's own, to the bit."""
    cases = [QueryCase(f"q{i}", ["a", "u"], ["b", "v"], {"a": 0, "b": 1}) for i in range(3)]
    p1, rr = parse_measure("P@1"), parse_measure("RR")
    assert delta_range(p1, cases, SCALE).settled and not delta_range(rr, cases, SCALE).settled
    mu = [Matchup("A", "B", cases)]
    assert weights([p1, rr], mu, SCALE) == [0.0, 1.0]
    prior = grade_prior([0, 1], 1)
    assert joint_priorities([p1, rr], mu, SCALE, prior) == priorities(rr, mu, SCALE, prior)
    same = [QueryCase(c.query_id, c.run_a, c.run_a, c.labels) for c in cases]
    assert weights([p1, rr], [Matchup("A", "A", same)], SCALE) == [0.0, 0.0]


def test_comparisons_refuse_a_measure_named_twice_or_none(run_cli: Cli) -> None:
    from qrelkit.errors import ScoringError

    a = run_cli.write("a.run", "q1 Q0 x 1 1 A\n")
    with pytest.raises(ScoringError, match="same measure"):
        Comparisons.parse([f"{a},{a}"], ("P@2", "P_2"))
    with pytest.raises(ScoringError, match="unknown measure"):
        Comparisons.parse([f"{a},{a}"], ("P@2", "zz@k"))
    assert Comparisons.parse([f"{a},{a}"], "RR") == Comparisons([(a, a)], ("RR",))


def _judged(run_cli: Cli, lines: list[str]) -> None:
    """The queue's first pairs judged as the replay assumes them (grade 0), as qrels."""
    text = "".join(f"{q} 0 {d} 0\n" for q, d, _ in (line.split("\t") for line in lines))
    run_cli("import", "qrels", str(run_cli.write("judged.qrels", text)))


def test_until_settled_stops_once_every_measure_is_settled(run_cli: Cli) -> None:
    a, b = _store(run_cli)
    args = ["queue", "--order", "settle", "--for", f"{a},{b}", "--metric", "P@2", "--metric", "RR"]
    until = run_cli(*args, "--until", "settled", "--format", "tsv")
    lines = until.stdout.splitlines()
    assert f"{len(lines)} pairs until settled (estimate)" in until.stderr
    rr = run_cli(*args[:5], "--metric", "RR", "--until", "settled", "--format", "tsv").stdout.splitlines()
    assert 0 < len(rr) < len(lines)  # RR alone is settled sooner: the queue goes on for P@2
    # one pair fewer leaves a measure open; all of them settles both
    verdicts = ["settled", str(a), str(b), "--metric", "P@2", "--metric", "RR", "--format", "json"]
    _judged(run_cli, lines[:-1])
    short = json.loads(run_cli(*verdicts).stdout)
    assert any(r["sign"] == "open" or r["significance"] == "open" for r in short["rows"])
    _judged(run_cli, lines[-1:])
    done = json.loads(run_cli(*verdicts).stdout)
    assert all(r["sign"] != "open" and r["significance"] != "open" for r in done["rows"])


def test_settled_estimates_with_the_queue_s_order_over_every_measure(run_cli: Cli) -> None:
    a, b = _store(run_cli)
    metrics = ["--metric", "P@2", "--metric", "RR"]
    queue = ["queue", "--order", "settle", "--for", f"{a},{b}", *metrics]
    until = run_cli(*queue, "--until", "settled", "--format", "tsv")
    report = run_cli("settled", str(a), str(b), *metrics, "--format", "json")
    rows = json.loads(report.stdout)["rows"]
    assert max(r["to_settle"] for r in rows) == len(until.stdout.splitlines())
    table = run_cli("settled", str(a), str(b), *metrics)
    assert f"every comparison on every metric settled in: ~{len(until.stdout.splitlines())}" in table.stderr
    one = run_cli("settled", str(a), str(b), "--metric", "P@2")
    assert "every comparison" not in one.stderr
