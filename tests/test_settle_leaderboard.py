"""Comparisons named by a saved leaderboard (`--leaderboard FILE` on `queue`, `judge`, `settled`):
`compare --format json --out` records each run file's path; the runs come in ranking order
(headline mean, best first, not the input order) and each adjacent pair is a comparison, the run
ranked below as A, on the leaderboard's measures unless --metric; a leaderboard without run paths,
or with a run file gone or changed, is refused in one line, exit 2; hostile run names stay text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from hostile import leaked, shown
from test_settle_order import _store


def _third(run_cli: Cli) -> Path:
    """Run C: each query's relevant document at rank 2 (between B, rank 1, and A, none)."""
    return run_cli.write(
        "c.run", "".join(f"q{i} Q0 {d} {n} {9 - n} C\n" for i in range(8) for n, d in enumerate(["z", f"r{i}"], 1))
    )


def _board(run_cli: Cli, *runs: Path, metrics: str = "P@2,RR", name: str = "board.json") -> tuple[Path, Any]:
    out = run_cli.tmp / name
    run_cli("compare", *map(str, runs), "--metrics", metrics, "--resamples", "1000", "--format", "json",
            "--out", str(out))  # fmt: skip
    return out, json.loads(out.read_text())


def test_compare_records_each_run_file_path(run_cli: Cli) -> None:
    a, b = _store(run_cli)
    c = _third(run_cli)
    _, board = _board(run_cli, a, b, c)
    assert [r["path"] for r in board["rows"]] == [str(p.absolute()) for p in (a, b, c)]
    two = json.loads(run_cli("compare", str(a), str(b), "--format", "json").stdout)
    assert "path" not in json.dumps(two)  # a two-run comparison is no leaderboard: unchanged
    from qrelkit.cli import cli

    piped = run_cli.runner.invoke(
        cli, ["--db", str(run_cli.db), "compare", "-", str(b), str(c), "--format", "json"], input=a.read_text()
    )
    assert piped.exit_code == 0, piped.output
    assert [r.get("path") for r in json.loads(piped.stdout)["rows"]] == [None, str(b.absolute()), str(c.absolute())]


def test_the_queue_settles_the_adjacent_pairs_in_ranking_order(run_cli: Cli) -> None:
    a, b, c = *_store(run_cli), _third(run_cli)
    path, board = _board(run_cli, a, b, c)  # baseline a; ranked by nDCG@10: b, c, a
    means = {r["run"]: r["cells"]["nDCG@10"]["mean"] for r in board["rows"]}
    assert sorted(means, key=means.__getitem__, reverse=True) == ["b.run", "c.run", "a.run"]
    metrics = [x for m in board["metrics"] for x in ("--metric", m)]
    by_board = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--format", "json")
    by_hand = run_cli(
        "queue", "--order", "settle", "--for", f"{c},{b}", "--for", f"{a},{c}", *metrics, "--format", "json"
    )
    assert by_board.stdout == by_hand.stdout and json.loads(by_board.stdout)[0]["priority"] > 0
    until = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--until", "settled", "--format", "tsv")
    same = run_cli("queue", "--order", "settle", "--for", f"{c},{b}", "--for", f"{a},{c}", *metrics,
                   "--until", "settled", "--format", "tsv")  # fmt: skip
    assert until.stdout == same.stdout and until.stderr == same.stderr
    one = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--metric", "RR", "--format", "json")
    hand = run_cli("queue", "--order", "settle", "--for", f"{c},{b}", "--for", f"{a},{c}", "--metric", "RR",
                   "--format", "json")  # fmt: skip
    assert one.stdout == hand.stdout


def test_settled_reports_each_adjacent_pair_as_settled_a_b_does(run_cli: Cli) -> None:
    a, b, c = *_store(run_cli), _third(run_cli)
    path, _ = _board(run_cli, a, b, c)
    found = json.loads(run_cli("settled", "--leaderboard", str(path), "--no-estimate", "--format", "json").stdout)
    assert [(r["baseline"], r["candidate"]) for r in found] == [("c.run", "b.run"), ("a.run", "c.run")]
    for report, (x, y) in zip(found, [(c, b), (a, c)], strict=True):
        alone = run_cli("settled", str(x), str(y), "--metric", "P@2", "--metric", "RR", "--metric", "nDCG@10",
                        "--metric", "R@50", "--no-estimate", "--format", "json")  # fmt: skip
        assert report == json.loads(alone.stdout)
    table = run_cli("settled", "--leaderboard", str(path), "--metric", "RR")
    assert table.stdout.count("┏") == 2 and "b.run - c.run" in table.stdout and "c.run - a.run" in table.stdout
    tsv = run_cli("settled", "--leaderboard", str(path), "--metric", "RR", "--format", "tsv").stdout.splitlines()
    assert tsv[0].startswith("baseline\tcandidate\tmetric") and tsv[1].startswith("c.run\tb.run\tRR\t")


def test_measures_the_stopping_rule_does_not_cover_are_named_and_left_out(run_cli: Cli) -> None:
    a, b, c = *_store(run_cli), _third(run_cli)
    path, _ = _board(run_cli, a, b, c, metrics="RR,Judged@2")
    out = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--format", "tsv")
    assert "not settled (the stopping rule does not cover them): Judged@2" in out.stderr
    report = run_cli("settled", "--leaderboard", str(path), "--no-estimate", "--format", "json")
    assert {r["metric"] for p in json.loads(report.stdout) for r in p["rows"]} == {"RR", "nDCG@10", "R@50"}
    refused = run_cli("settled", "--leaderboard", str(path), "--metric", "Judged@2", ok=False)
    assert refused.exit_code == 2 and "does not cover" in refused.stderr


def _refused(run_cli: Cli, board: Path, *want: str) -> None:
    for command in (
        ["queue", "--order", "settle", "--leaderboard", str(board)],
        ["judge", "--order", "settle", "--leaderboard", str(board)],
        ["settled", "--leaderboard", str(board)],
    ):
        result = run_cli(*command, ok=False)
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1, result.stderr
        assert lines[0].startswith(f"error: {board}: ") and "qrelkit compare" in lines[0], lines[0]
        for text in want:
            assert text in lines[0], lines[0]


def test_a_leaderboard_without_paths_or_with_a_run_gone_or_changed_is_refused(run_cli: Cli) -> None:
    a, b, c = *_store(run_cli), _third(run_cli)
    reports = []
    for run in (a, b, c):
        out = run_cli.tmp / f"{run.stem}.json"
        every = "P@2,RR,nDCG@10,R@50"  # the leaderboard's measures (its two tiles too)
        run_cli("score", str(run), "--metrics", every, "--per-query", "--format", "json", "--out", str(out))
        reports.append(out)
    saved, _ = _board(run_cli, *reports, name="saved.json")
    _refused(run_cli, saved, "has no run file path")
    path, _ = _board(run_cli, a, b, c)
    c.write_text(c.read_text() + "q0 Q0 extra 3 1 C\n")
    _refused(run_cli, path, "run 'c.run'", "changed since the leaderboard was saved")
    c.unlink()
    _refused(run_cli, path, "run 'c.run'", "no longer exists")
    both = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--for", f"{a},{b}", ok=False)
    assert both.exit_code == 2 and "--for and --leaderboard" in both.stderr
    runs_too = run_cli("settled", str(a), str(b), "--leaderboard", str(path), ok=False)
    assert runs_too.exit_code == 2 and len(runs_too.stderr.strip().splitlines()) == 1
    junk = run_cli.write("junk.json", '{"reports": []}')
    bad = run_cli("queue", "--order", "settle", "--leaderboard", str(junk), ok=False)
    assert bad.exit_code == 2 and str(junk) in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_judge_takes_a_leaderboard_and_serves_the_queue_s_order(run_cli: Cli) -> None:
    from qrelkit.tui.command import make_app

    a, b, c = *_store(run_cli), _third(run_cli)
    path, _ = _board(run_cli, a, b, c)
    common: dict[str, Any] = {"assessor": "ann", "stratum": None, "query_id": None, "seed": 0, "adjudicate": False}
    app = make_app(run_cli.db, order="settle", served=False, role=None, leaderboard=path, **common)
    try:
        shown_ = [(i.query_id, i.doc_id) for i in app.session.queue()]
    finally:
        app.session.close()
    rows = run_cli("queue", "--order", "settle", "--leaderboard", str(path), "--assessor", "ann", "--format", "json")
    assert shown_ == [(i["query_id"], i["doc_id"]) for i in json.loads(rows.stdout)]


HOSTILE = ["[bold]x", "\x1b[2Jclear", "ding\x07", "[@click=app.quit]q"]
"""Run file names (no slash: file names) that are markup, an escape sequence, a control character."""


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_run_names_stay_plain_text(run_cli: Cli, name: str) -> None:
    a, b = _store(run_cli)
    odd = run_cli.tmp / f"{name}.run"
    odd.write_text(_third(run_cli).read_text())
    path, board = _board(run_cli, a, b, odd)
    table = run_cli("settled", "--leaderboard", str(path), "--metric", "RR", "--no-estimate")
    assert not leaked(table.stdout + table.stderr) and shown(f"{name}.run") in table.stdout
    as_json = json.loads(run_cli("settled", "--leaderboard", str(path), "--no-estimate", "--format", "json").stdout)
    assert f"{name}.run" in {r["baseline"] for r in as_json} | {r["candidate"] for r in as_json}
    board["rows"][2]["run"] = name + "\r[/]evil"  # a hand-edited leaderboard: any text at all
    path.write_text(json.dumps(board))
    odd.unlink()
    refused = run_cli("queue", "--order", "settle", "--leaderboard", str(path), ok=False)
    assert refused.exit_code == 2 and not leaked(refused.stderr) and len(refused.stderr.strip().splitlines()) == 1
    assert "no longer exists" in refused.stderr


def test_a_file_of_score_reports_is_said_to_be_one(run_cli: Cli) -> None:
    """`score --format json` output given as a leaderboard: refused in one line that says what the
    file holds, not by the first field a leaderboard has and a report lacks."""
    a, _ = _store(run_cli)
    reports = run_cli.tmp / "s.json"
    run_cli("score", str(a), "--format", "json", "--out", str(reports))
    refused = run_cli("settled", "--leaderboard", str(reports), ok=False)
    lines = refused.stderr.strip().splitlines()
    assert refused.exit_code == 2 and len(lines) == 1, refused.stderr
    assert "holds score reports" in lines[0] and "not a leaderboard" in lines[0] and "Field required" not in lines[0]
