"""`qrelkit settled A B` and the `settled:` lines of `compare`: against --qrels, the verdicts and
ranges the scoring module gives, the formats, refused input, and the estimate replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 0\nq3 0 e 1\n"
RUN_A = "q1 Q0 b 1 3 A\nq1 Q0 x 2 2 A\nq2 Q0 d 1 3 A\nq2 Q0 y 2 2 A\nq3 Q0 z 1 1 A\n"
RUN_B = "q1 Q0 a 1 3 B\nq1 Q0 x 2 2 B\nq2 Q0 c 1 3 B\nq2 Q0 w 2 2 B\nq3 Q0 e 1 1 B\n"


def _files(run_cli: Cli) -> tuple[str, str, str]:
    return (
        str(run_cli.write("q.qrels", QRELS)),
        str(run_cli.write("a.run", RUN_A)),
        str(run_cli.write("b.run", RUN_B)),
    )


def test_settled_says_per_metric_the_range_and_verdicts(run_cli: Cli) -> None:
    qrels, a, b = _files(run_cli)
    out = run_cli("settled", a, b, "--qrels", qrels, "--metric", "P@1", "--metric", "nDCG@2", "--format", "json")
    report = json.loads(out.stdout)
    assert (report["baseline"], report["candidate"], report["queries"]) == ("a.run", "b.run", 3)
    p1, ndcg = report["rows"]
    # P@1: B's first documents are all relevant, A's all labeled not relevant except q3's z
    assert p1["metric"] == "P@1" and p1["now"] == pytest.approx(1.0)
    assert p1["low"] == pytest.approx(2 / 3) and p1["high"] == pytest.approx(1.0)
    assert p1["sign"] == "settled B>A" and p1["open_pairs"] == 1
    assert ndcg["sign"] == "settled B>A" and ndcg["exact_queries"] == 3
    assert ndcg["to_settle"] is not None and ndcg["to_settle"] <= ndcg["open_pairs"]


def test_settled_table_and_tsv(run_cli: Cli) -> None:
    qrels, a, b = _files(run_cli)
    table = run_cli("settled", a, b, "--qrels", qrels)
    assert "nDCG@10" in table.stdout and "settled B>A" in table.stdout
    assert "estimate" in table.stderr
    tsv = run_cli("settled", a, b, "--qrels", qrels, "--metric", "RR", "--format", "tsv").stdout.splitlines()
    assert tsv[0].split("\t")[:4] == ["metric", "now", "low", "high"]
    assert tsv[1].split("\t")[0] == "RR"


def test_settled_refuses_a_measure_it_does_not_cover(run_cli: Cli) -> None:
    qrels, a, b = _files(run_cli)
    result = run_cli("settled", a, b, "--qrels", qrels, "--metric", "ERR@10", ok=False)
    assert result.exit_code == 2 and "does not cover" in result.stderr


@pytest.mark.parametrize("command", ["judge", "queue"])
def test_for_refuses_a_missing_run_or_an_unknown_measure_before_anything_starts(run_cli: Cli, command: str) -> None:
    """`judge` reads the --for runs later, in the queue's worker: a missing file or a measure that is
    none is refused first, in one line, and the terminal UI never starts."""
    _, a, _ = _files(run_cli)
    run_cli("init", "--name", "t")
    missing = run_cli(command, "--order", "settle", "--for", f"{a},nope.run", ok=False)
    assert missing.exit_code == 2 and "nope.run: no such file" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    unknown = run_cli(command, "--order", "settle", "--for", f"{a},{a}", "--metric", "zz@k", ok=False)
    assert unknown.exit_code == 2 and "unknown measure 'zz@k'" in unknown.stderr


def test_an_open_comparison_estimates_its_judgments(run_cli: Cli) -> None:
    """Every document unlabeled but one per query: open now; the estimate judges some of them."""
    qrels = run_cli.write("q.qrels", "".join(f"q{i} 0 r{i} 1\n" for i in range(6)))
    a = run_cli.write("a.run", "".join(f"q{i} Q0 u{i}{j} {j} {9 - j} A\n" for i in range(6) for j in range(3)))
    b = run_cli.write("b.run", "".join(f"q{i} Q0 v{i}{j} {j} {9 - j} B\n" for i in range(6) for j in range(3)))
    out = run_cli("settled", str(a), str(b), "--qrels", str(qrels), "--metric", "P@3", "--format", "json")
    row = json.loads(out.stdout)["rows"][0]
    assert row["sign"] == "open" and row["significance"] == "open"
    assert row["now"] == 0.0 and row["low"] == pytest.approx(-1.0) and row["high"] == pytest.approx(1.0)
    assert row["open_pairs"] == 36
    # the prior (add-one smoothed over 6 grade-1 labels on 0..1) makes the assumed grade 1
    assert row["to_settle"] is not None and 0 < row["to_settle"] <= 36


def test_compare_prints_a_settled_line_per_covered_metric(run_cli: Cli) -> None:
    qrels, a, b = _files(run_cli)
    out = run_cli("compare", a, b, "--qrels", qrels, "--metrics", "P@1,Judged@2")
    lines = [x for x in out.stderr.splitlines() if x.startswith("settled:")]
    assert [x.split()[1] for x in lines] == ["P@1", "nDCG@10", "R@50"]
    assert "sign settled B>A" in lines[0]
    as_json = run_cli("compare", a, b, "--qrels", qrels, "--format", "json")
    assert "settled:" not in as_json.stderr


def test_no_estimate_leaves_the_judgments_out(run_cli: Cli) -> None:
    qrels, a, b = _files(run_cli)
    out = run_cli("settled", a, b, "--qrels", qrels, "--metric", "P@1", "--no-estimate", "--format", "json")
    row = json.loads(out.stdout)["rows"][0]
    assert row["sign"] == "settled B>A" and row["to_settle"] is None and row["to_settle_sign"] is None


def test_compare_reads_the_labels_once_for_its_settled_lines(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `settled:` lines take the source `compare` scored with: the qrels file is read once."""
    import qrelkit.formats.runs as runs

    qrels, a, b = _files(run_cli)
    calls: list[str] = []
    read = runs.read_qrels_file

    def counted(path: Path, **kw: Any) -> Any:
        calls.append(str(path))
        return read(path, **kw)

    monkeypatch.setattr(runs, "read_qrels_file", counted)
    out = run_cli("compare", a, b, "--qrels", qrels, "--metrics", "P@1")
    assert calls == [qrels]
    lines = [x for x in out.stderr.splitlines() if x.startswith("settled:")]
    alone = json.loads(run_cli("settled", a, b, "--qrels", qrels, "--metric", "P@1", "--format", "json").stdout)
    assert (
        lines[0] == f"settled: P@1 B - A {alone['rows'][0]['now']:+.4f} in [+0.6667, +1.0000] over every labeling "
        "(exact): sign settled B>A, t-test open"
    )


def _profiled(run_cli: Cli) -> tuple[str, str]:
    """A store of two strata (q1, q2 in s1; q3 in s2) and a profile over s1."""
    run_cli("init")
    run_cli("strata", "set", "s1", "1")
    run_cli("strata", "set", "s2", "1")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tone\ts1\nq2\ttwo\ts1\nq3\tthree\ts2\n")))
    run_cli("import", "qrels", str(run_cli.write("q.qrels", QRELS)))
    run_cli("profiles", "set", "p", "--metrics", "RR,P@1,Judged@1", "--strata", "s1")
    return str(run_cli.write("a.run", RUN_A)), str(run_cli.write("b.run", RUN_B))


def test_settled_honours_a_profile(run_cli: Cli) -> None:
    a, b = _profiled(run_cli)
    everyone = json.loads(run_cli("settled", a, b, "--metric", "RR", "--format", "json").stdout)
    assert everyone["queries"] == 3
    out = run_cli("settled", a, b, "--profile", "p", "--no-estimate", "--format", "json")
    report = json.loads(out.stdout)
    assert report["queries"] == 2 and [r["metric"] for r in report["rows"]] == ["RR", "P@1"]
    assert "not settled (the stopping rule does not cover them): Judged@1" in out.stderr
    chosen = json.loads(run_cli("settled", a, b, "--profile", "p", "--metric", "nDCG@2", "--format", "json").stdout)
    assert chosen["queries"] == 2 and [r["metric"] for r in chosen["rows"]] == ["nDCG@2"]
    # RR: B's first document is relevant everywhere; A's (q1, q2) is not, but its second is
    # unlabeled: delta in [1/2, 1]; q3 (s2, left out by the profile): A's first unlabeled, [0, 1]
    assert report["rows"][0]["low"] == pytest.approx(0.5) and everyone["rows"][0]["low"] == pytest.approx(1 / 3)
    unknown = run_cli("settled", a, b, "--profile", "nope", ok=False)
    assert unknown.exit_code == 2 and "no scoring profile 'nope'" in unknown.stderr


def test_compare_under_a_profile_prints_settled_lines_over_its_queries(run_cli: Cli) -> None:
    a, b = _profiled(run_cli)
    out = run_cli("compare", a, b, "--profile", "p")
    lines = [x for x in out.stderr.splitlines() if x.startswith("settled:")]
    assert [x.split()[1] for x in lines] == ["RR", "P@1", "nDCG@10", "R@50"]
    rr = json.loads(run_cli("settled", a, b, "--profile", "p", "--metric", "RR", "--format", "json").stdout)["rows"][0]
    assert f"in [{rr['low']:+.4f}, {rr['high']:+.4f}]" in lines[0]
