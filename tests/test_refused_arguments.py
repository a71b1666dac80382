"""Refused arguments: names that would write outside --out, a golden-set name with a space,
click's usage errors, and the hints they give: each one line, exit 2, and nothing written or
changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, Cli

DEMO = ROOT / "goldensets" / "pydocs"


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in text, text
    return lines[0]


@pytest.mark.parametrize(("name", "version"), [("..", "1.0"), ("g", ".."), ("g", "."), ("a/b", "1"), ("g", "../1")])
def test_freeze_never_writes_outside_out(run_cli: Cli, name: str, version: str) -> None:
    run_cli("init")
    out = run_cli.tmp / "sets" / "inner"
    out.mkdir(parents=True)
    before = sorted(p.relative_to(run_cli.tmp) for p in run_cli.tmp.rglob("*") if "store.db" not in p.name)
    refused = run_cli("freeze", name, version, "--out", str(out), ok=False)
    assert refused.exit_code == 2 and "invalid name or version" in _one_line(refused.output)
    assert sorted(p.relative_to(run_cli.tmp) for p in run_cli.tmp.rglob("*") if "store.db" not in p.name) == before


def test_a_golden_set_name_with_a_space_is_refused_by_init(run_cli: Cli) -> None:
    run_cli("init", "--name", "pydocs")
    refused = run_cli("init", "--name", "my golden set", ok=False)
    assert refused.exit_code == 2 and "invalid golden-set name" in _one_line(refused.output)
    assert "golden set pydocs" in run_cli("init").output  # unchanged, and every command still works
    run_cli("status")


@pytest.mark.parametrize(
    "args",
    [
        ["score"],  # a missing argument
        ["score", "x.run", "--metrics"],  # an option without its value
        ["status", "--no-such-option"],
        ["nosuch"],
        ["init", "--max-grade", "many"],
    ],
)
def test_click_usage_errors_are_one_line_with_a_hint(run_cli: Cli, args: list[str]) -> None:
    refused = run_cli(*args, ok=False)
    assert refused.exit_code == 2
    assert "(hint: " in _one_line(refused.output)


def test_diffs_hint_offers_no_option_diff_lacks(run_cli: Cli, tmp_path: Path) -> None:
    import shutil

    altered = tmp_path / "1.0"
    shutil.copytree(DEMO / "1.0", altered)
    qrels = altered / "qrels.txt"
    qrels.write_text(qrels.read_text().replace(" 3\n", " 2\n", 1))
    refused = run_cli("diff", str(DEMO / "1.0"), str(altered), ok=False)
    line = _one_line(refused.output)
    assert refused.exit_code == 2 and "qrels.txt" in line
    options = run_cli("diff", "--help").output
    assert "--no-verify" not in line or "--no-verify" in options


@pytest.mark.parametrize("gain", ["nan", "inf", "-inf", "1e999", "-1", "-0.5", "1e308"])
@pytest.mark.parametrize("family", ["nDCG", "DCG"])
def test_a_gain_that_is_not_a_finite_number_at_least_0_is_refused(run_cli: Cli, family: str, gain: str) -> None:
    """`nDCG(gains={0:0,1:nan})@10` scored n/a with an interval, `gains={0:0,1:-1}` a mean of
    -0.69, and 1e308 overflowed the DCG sums: a gain is a finite number from 0 to 1e100, one line
    naming the measure, at every command that reads measure names."""
    name = f"{family}(gains={{0:0,1:{gain}}})@10"
    run_cli("init")
    golden = ["--golden", str(DEMO / "1.0")]
    runs = [str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run")]
    for args in (
        ["score", runs[0], "--metrics", name, *golden],
        ["compare", *runs, "--metrics", name, *golden],
        ["compare", *runs, "--fail-if-worse", name, *golden],
        ["profiles", "set", "p", "--metrics", name],
    ):
        refused = run_cli(*args, ok=False)
        line = _one_line(refused.output)
        assert refused.exit_code == 2 and name in line and "gain" in line and "(hint: " in line, line


def test_gains_from_0_up_still_score(run_cli: Cli) -> None:
    out = run_cli("score", str(DEMO / "runs" / "bm25.run"), "--golden", str(DEMO / "1.0"), "--format", "trec",
                  "--metrics", "nDCG(gains={0:0,1:0.5,2:1e100,3:-0})@10")  # fmt: skip
    name, _, value = out.output.splitlines()[-1].split("\t")
    assert name == "nDCG(gains={0:0,1:0.5,2:1e+100,3:0})@10" and 0 < float(value) <= 1


def test_a_relevance_threshold_above_the_scale_is_refused(run_cli: Cli) -> None:
    """`P(rel=4)@5` on a 0..3 golden set counts nothing as relevant (bounds [0, 0.55] that no
    labeling can reach): refused, naming the measure and the scale, against the store, a version,
    a profile and the queue; `P(rel=3)@5` is taken."""
    golden = ["--golden", str(DEMO / "1.0")]
    runs = [str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run")]
    run_cli("import", "version", str(DEMO / "1.0"))
    run_cli("pool", runs[0], "--depth", "5")
    for name in ("P(rel=4)@5", "R(rel=9)@10", "RBP(rel=4)"):
        for args in (
            ["score", runs[0], "--metrics", name, *golden],
            ["score", runs[0], "--metrics", name],
            ["score", runs[0], "--metrics", name, *golden, "--relevance-level", "2"],
            ["compare", *runs, "--metrics", name],
            ["sensitivity", *runs, "--metrics", name, *golden],
            ["profiles", "set", "p", "--metrics", name],
            ["queue", "--metrics", name],
        ):
            refused = run_cli(*args, ok=False)
            line = _one_line(refused.output)
            assert refused.exit_code == 2 and name in line and "0.." in line and "(hint: " in line, (args, line)
    assert "P(rel=3)@5" in run_cli("score", runs[0], "--metrics", "P(rel=3)@5", *golden).output
    run_cli("profiles", "set", "p", "--metrics", "P(rel=3)@5")


def test_a_plain_qrels_file_takes_any_threshold_a_grade_can_hold(run_cli: Cli) -> None:
    """A qrels file has no scale: `P(rel=4)@5` on binary qrels is 0, as trec_eval -l 4 gives,
    and nothing is said; only a threshold no grade can reach (over 2^31 - 1) is refused, and one
    above a --max-grade given."""
    qrels = run_cli.write("b.qrels", "q1 0 a 1\nq1 0 b 0\n")
    run = run_cli.write("r.run", "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    for name in ("P(rel=4)@5", "P(rel=2147483647)@5"):
        scored = run_cli("score", str(run), "--qrels", str(qrels), "--metrics", name, "--format", "trec")
        assert scored.output == f"{name}\tall\t0.000000\n"
    for name in ("P(rel=99999999999)@5", "P(rel=2147483648)@5", "NumRel(rel=99999999999999999999999)"):
        refused = run_cli("score", str(run), "--qrels", str(qrels), "--metrics", name, ok=False)
        assert refused.exit_code == 2 and name in _one_line(refused.output)
    capped = run_cli("score", str(run), "--qrels", str(qrels), "--max-grade", "2", "--metrics", "P(rel=3)@5", ok=False)
    assert capped.exit_code == 2 and "0..2" in _one_line(capped.output)


@pytest.mark.parametrize("report_id", ["9223372036854775808", "1" + "0" * 30])
def test_a_report_id_larger_than_the_store_can_hold_is_one_line(run_cli: Cli, report_id: str) -> None:
    """`reports show 9223372036854775808` overflowed SQLite's integer: a traceback. An id no row
    can have is a report the store does not hold."""
    run_cli("init")
    refused = run_cli("reports", "show", report_id, ok=False)
    assert refused.exit_code == 2 and f"no saved report {report_id}" in _one_line(refused.output)
    largest = run_cli("reports", "show", "9223372036854775807", ok=False)
    assert largest.exit_code == 2 and "no saved report 9223372036854775807" in _one_line(largest.output)


SEEDED = [
    ["queue", "--order", "random"],
    ["assign", "--overlap", "2", "--assessors", "a,b", "--pairs", "5"],
    ["compare", str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run"), "--resamples", "1000"],
    ["sensitivity", str(DEMO / "runs" / "bm25.run"), str(DEMO / "runs" / "bm25-title.run"), "--resamples", "1000"],
    ["judge"],
]


@pytest.mark.parametrize("seed", ["-1", "4294967296", "18446744073709551616"])
@pytest.mark.parametrize("command", SEEDED, ids=[c[0] for c in SEEDED])
def test_a_seed_outside_0_to_2_to_the_32_is_one_line(run_cli: Cli, command: list[str], seed: str) -> None:
    """`--seed -1` ended in numpy's traceback ("expected non-negative integer"): every command with
    --seed takes 0 <= seed < 2^32, else click's one-line refusal, before anything is done."""
    run_cli("import", "version", str(DEMO / "1.0"))
    run_cli("pool", str(DEMO / "runs" / "bm25.run"), "--depth", "5")
    before = run_cli.db.read_bytes()
    refused = run_cli(*command, "--seed", seed, ok=False)
    line = _one_line(refused.output)
    assert refused.exit_code == 2 and "--seed" in line and "0<=x<=4294967295" in line, line
    assert run_cli.db.read_bytes() == before
    if command[0] != "judge":
        assert run_cli(*command, "--seed", "4294967295").exit_code == 0
