"""Input that used to be taken wrongly or to end in a traceback: grades that are not ASCII
integers, cutoffs and depths too large to hold."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import Cli
from hostile import BAD_IDS

RUN = "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n"


@pytest.mark.parametrize("grade", ["+2", "1_0", "\u0663", "2.0", "0x1", " 1 1"])
def test_a_grade_is_ascii_digits_through_every_reader(run_cli: Cli, grade: str) -> None:
    """`int()` takes `+2`, `1_0` and the Arabic-Indic `٣`; trec_eval's grades are digits. The fast
    columnar path and the exact reader refuse the same lines, and so does `import qrels`."""
    qrels = run_cli.write("g.qrels", f"q1 0 b 1\nq1 0 a {grade}\n")
    run = run_cli.write("r.run", RUN)
    scored = run_cli("score", str(run), "--qrels", str(qrels), ok=False)
    assert scored.exit_code == 2 and "g.qrels:2:" in scored.output and "Traceback" not in scored.output
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    imported = run_cli("import", "qrels", str(qrels), ok=False)
    assert imported.exit_code == 2 and "g.qrels:2:" in imported.output


def test_plain_and_negative_grades_still_read(run_cli: Cli) -> None:
    qrels = run_cli.write("g.qrels", "q1 0 a 007\nq1 0 b -1\n")
    out = run_cli(
        "score", str(run_cli.write("r.run", RUN)), "--qrels", str(qrels), "--metrics", "P@1", "--format", "trec"
    )
    assert out.output.splitlines()[-1] == "P@1\tall\t1.000000"


def test_cutoffs_and_depths_too_large_are_one_line(run_cli: Cli) -> None:
    qrels = run_cli.write("g.qrels", "q1 0 a 1\n")
    run = run_cli.write("r.run", RUN)
    huge = run_cli("score", str(run), "--qrels", str(qrels), "--metrics", "nDCG@100000000000000000000", ok=False)
    assert huge.exit_code == 2 and "cutoff is larger than" in huge.output and "Traceback" not in huge.output
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    deep = run_cli("pool", str(run), "--depth", "100000000000000000000", ok=False)
    assert deep.exit_code == 2 and len(deep.output.strip().splitlines()) == 1 and "Traceback" not in deep.output


def test_a_stratum_may_not_be_named_all(run_cli: Cli) -> None:
    """`all` is the totals row of every table and report."""
    run_cli("init")
    refused = run_cli("strata", "set", "all", "0.5", ok=False)
    assert refused.exit_code == 2 and "invalid stratum" in refused.output
    queries = run_cli.write("q.jsonl", '{"id": "q1", "text": "x", "stratum": "all"}\n')
    imported = run_cli("import", "queries", "--create-strata", str(queries), ok=False)
    assert imported.exit_code == 2 and "q.jsonl:1:" in imported.output and "totals" in imported.output


def test_pool_and_status_runs_refuse_an_empty_run_as_score_does(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    empty = run_cli.write("empty.run", "")
    for args in (["pool", str(empty), "--depth", "5"], ["status", "--runs", str(empty)]):
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2 and "empty.run" in refused.output and "no run lines" in refused.output


def test_a_sign_warning_needs_the_other_sign_within_the_bounds() -> None:
    from qrelkit.models import MetricComparison
    from qrelkit.scoring.paired import _warning

    def m(delta: float, bounds: tuple[float, float]) -> MetricComparison:
        return MetricComparison(
            n=3, mean_a=0.5, mean_b=0.5 + delta, delta=delta, ci95=(0.0, 0.1), p_value=0.5, p_exact=True,
            wins=1, ties=1, losses=1, by_stratum={}, weighted_delta=None, coverage_a=None, coverage_b=None,
            delta_bounds=bounds,
        )  # fmt: skip

    assert _warning(m(0.02, (0.0, 0.0778))) is None  # the delta can shrink to 0, never turn negative
    assert _warning(m(0.02, (-0.01, 0.05))) is not None
    assert _warning(m(-0.02, (-0.05, 0.01))) is not None
    assert _warning(m(-0.02, (-0.05, 0.0))) is None


def test_an_id_starting_with_a_hash_is_refused_at_every_entry(run_cli: Cli) -> None:
    """A TREC line starting with `#` is a comment: a query `#q` would vanish from the frozen
    qrels.txt and from `export qrels`, so no entry takes it."""
    run_cli("init")
    bad = run_cli(
        "import", "queries", "--stratum", "s", "--create-strata", str(run_cli.write("q.tsv", "#q\tx\n")), ok=False
    )
    assert bad.exit_code == 2 and "q.tsv:1:" in bad.output
    jsonl = run_cli.write("q.jsonl", '{"id": "#q", "text": "x", "stratum": "s"}\n')
    assert run_cli("import", "queries", "--create-strata", str(jsonl), ok=False).exit_code == 2
    run_cli("import", "queries", "--create-strata", str(run_cli.write("ok.tsv", "q1\tx\ts\n")))
    qrels = run_cli("import", "qrels", str(run_cli.write("r.qrels", "q1 0 #d 1\n")), ok=False)
    assert qrels.exit_code == 2 and "starts with '#'" in qrels.output


def test_a_report_with_a_value_that_is_not_finite_is_refused(run_cli: Cli) -> None:
    import json

    from conftest import ROOT

    demo = ROOT / "goldensets" / "pydocs"
    paths = []
    for name in ("bm25", "bm25-title"):
        target = run_cli.tmp / f"{name}.json"
        run_cli("score", str(demo / "runs" / f"{name}.run"), "--golden", str(demo / "1.0"), "--per-query",
                "--format", "json", "--out", str(target))  # fmt: skip
        paths.append(target)
    data = json.loads(paths[1].read_text())
    first = next(iter(data["reports"][0]["per_query"]))
    data["reports"][0]["per_query"][first]["nDCG@10"]["value"] = float("inf")
    paths[1].write_text(json.dumps(data))
    for fmt in ("table", "html"):
        refused = run_cli("compare", *map(str, paths), "--format", fmt, ok=False)
        assert refused.exit_code == 2 and "is not a finite number" in refused.output
        assert "Traceback" not in refused.output


def test_a_missing_beir_folder_is_named(run_cli: Cli) -> None:
    refused = run_cli("import", "beir", str(run_cli.tmp / "nosuch"), ok=False)
    assert refused.exit_code == 2 and "nosuch: no such folder" in refused.output


def test_queries_outside_a_profile_are_not_called_run_only(run_cli: Cli) -> None:
    from conftest import ROOT, one_report

    demo = ROOT / "goldensets" / "pydocs"
    out = run_cli("score", str(demo / "runs" / "bm25.run"), "--golden", str(demo / "1.0"), "--profile", "palette",
                  "--format", "json").output  # fmt: skip
    counts = one_report(out)["queries"]
    assert (counts["evaluated"], counts["run_only"], counts["outside_profile"]) == (15, 0, 27)


@pytest.mark.parametrize("bad", ["d 1", "d\x1b1", "#d", "d" * 2000])
def test_one_id_rule_for_jsonl_runs_given_to_pool_and_score(run_cli: Cli, bad: str) -> None:
    """The JSON Lines run reader applies the id rule of the TREC readers: an id with white space,
    a control character, a leading `#` or 2,000 characters is refused, naming the line."""
    import json

    run_cli("init")
    run_cli("import", "queries", "--stratum", "s", "--create-strata", str(run_cli.write("q.tsv", "q1\tx\n")))
    lines = [{"query_id": "q1", "doc_id": "ok", "score": 2.0}, {"query_id": "q1", "doc_id": bad, "score": 1.0}]
    run = run_cli.write("r.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    for args in (["pool", str(run), "--depth", "5"], ["score", str(run)]):
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2 and "r.jsonl:2:" in refused.output and "Traceback" not in refused.output


@pytest.mark.parametrize("name", sorted(BAD_IDS))
def test_an_id_with_a_control_character_is_refused_by_every_reader(run_cli: Cli, name: str) -> None:
    """C1 controls, NEL, a right-to-left override, an escape, DEL: refused in a qrels file (the
    numpy fast path hands such a file to the exact reader, which names the line), in a run, in
    queries JSONL, and as a golden-set or version name."""
    import json

    bad = BAD_IDS[name]
    run_cli("init")
    run_cli("import", "queries", "--stratum", "s", "--create-strata", str(run_cli.write("q.tsv", "q1\tx\n")))
    qrels = run_cli.write("r.qrels", f"q1 0 ok 1\nq1 0 {bad} 1\n")
    run = run_cli.write("r.run", f"q1 Q0 ok 1 2.0 r\nq1 Q0 {bad} 2 1.0 r\n")
    good_qrels = run_cli.write("g.qrels", "q1 0 ok 1\n")
    queries = run_cli.write("q.jsonl", json.dumps({"id": bad, "text": "x", "stratum": "s"}) + "\n")
    for args, where in (
        (["import", "qrels", str(qrels)], "r.qrels:2:"),
        (["score", "--qrels", str(qrels), str(run_cli.write("ok.run", "q1 Q0 ok 1 2.0 r\n"))], "r.qrels:2:"),
        (["score", "--qrels", str(good_qrels), str(run)], "r.run:2:"),
        (["import", "queries", str(queries)], "q.jsonl:1"),
    ):
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2 and where in refused.output, refused.output
        assert "Traceback" not in refused.output
    assert run_cli("freeze", f"n{bad}", "1", "--out", str(run_cli.tmp / "sets"), ok=False).exit_code == 2


def test_the_fast_and_exact_trec_readers_agree_on_separators_and_length(run_cli: Cli) -> None:
    """A C0 control is no field separator (trec_eval splits on C isspace only), and an id over
    1,024 characters is refused: the fast path gives up on both and the exact reader names them."""
    run = run_cli.write("ok.run", "q1 Q0 d 1 2.0 r\n")
    for text, message in (
        ("q1\x010 d 1\n", "expected 4 fields, found 3"),
        ("q1 0 " + "d" * 2000 + " 1\n", "2,000 characters long"),
        ("q1\x1f0 d 1\n", "expected 4 fields, found 3"),
    ):
        refused = run_cli("score", "--qrels", str(run_cli.write("x.qrels", text)), str(run), ok=False)
        assert refused.exit_code == 2 and message in refused.output, refused.output


def test_a_file_name_that_is_not_utf8_is_shown_not_crashed_on(run_cli: Cli, tmp_path: Path) -> None:
    """A run file whose name holds a byte that is not UTF-8 (Python keeps it as a lone surrogate,
    which no JSON, CSV or terminal can encode) is named with `\\x9b` in every output."""
    import json

    root = Path(__file__).resolve().parents[1] / "goldensets" / "pydocs"
    odd = tmp_path / os.fsdecode(b"raw\x9bbyte.run")
    odd.write_bytes((root / "runs" / "bm25.run").read_bytes())
    args = [str(root / "runs" / "bm25.run"), str(root / "runs" / "bm25-title.run"), str(odd)]
    args += ["--golden", str(root / "1.0"), "--metrics", "RR", "--resamples", "1000"]
    board = json.loads(run_cli("compare", *args, "--format", "json").output)
    assert board["runs"][2] == "raw\\x9bbyte.run"
    for fmt in ("csv", "html", "latex", "table"):
        out = tmp_path / f"out.{fmt}"
        run_cli("compare", *args, "--format", fmt, "--out", str(out))
        assert "raw\\x9bbyte.run" in out.read_text(encoding="utf-8").replace("\\textbackslash{}", "\\")


def test_out_into_a_missing_folder_is_refused(run_cli: Cli, tmp_path: Path) -> None:
    run_cli("init")
    refused = run_cli("export", "qrels", "--out", str(tmp_path / "nosuch" / "x.qrels"), ok=False)
    assert refused.exit_code == 2 and "no folder" in refused.output
    assert not (tmp_path / "nosuch").exists()


def _weighted(run_cli: Cli, weight: str) -> tuple[float, float, str]:
    """score's weighted nDCG@10 mean and compare's weighted delta of the demo runs with every
    stratum at `weight`, and `strata list`'s output."""
    import json

    from conftest import ROOT, one_report

    runs = [str(ROOT / "goldensets" / "pydocs" / "runs" / f"{n}.run") for n in ("bm25", "bm25-title")]
    for stratum in ("conceptual", "how-to", "navigational"):
        run_cli("strata", "set", stratum, weight)
    report = one_report(run_cli("score", runs[0], "--metrics", "nDCG@10,R@50", "--format", "json").output)
    compared = json.loads(run_cli("compare", *runs, "--resamples", "1000", "--format", "json").output)
    delta = compared["metrics"]["nDCG@10"]["weighted_delta"]
    return report["metrics"]["nDCG@10"]["weighted_mean"], delta, run_cli("strata", "list").output


def test_huge_stratum_weights_are_shares_not_an_overflow(run_cli: Cli) -> None:
    """Three strata at 1e308 summed to infinity: weighted means of 0.0000, shares of 0%. Weights
    are shares of their total, computed without overflow, wherever they are used."""
    from dataclasses import replace

    from conftest import ROOT
    from qrelkit.models import PlainSummary
    from qrelkit.scoring.aggregate import weighted_mean
    from qrelkit.scoring.impact import query_weights

    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    mean, delta, listed = _weighted(run_cli, "1e308")
    assert (mean, delta) == pytest.approx(_weighted(run_cli, "1")[:2], rel=1e-12)
    assert mean > 0.5 and listed.count("33.3%") == 3, listed
    assert query_weights({"q1": "a", "q2": "b"}, {"a": 1e308, "b": 1e308}) == {"q1": 0.5, "q2": 0.5}
    s = PlainSummary(n=1, mean=0.5, sd=0.0, se=0.0, ci95=(0.5, 0.5), coverage=None, bounds=None, exact=True)
    assert weighted_mean({"a": s, "b": replace(s, mean=1.0)}, {"a": 1e308, "b": 1e308}) == 0.75
    assert weighted_mean({"a": s}, {"a": 5e-324}) == 0.5  # the smallest weight above 0 still counts


@pytest.mark.parametrize("weight", ["nan", "inf", "1e999", "-1", "-1e-300"])
def test_a_weight_that_is_not_finite_and_at_least_0_is_refused_at_every_entry(run_cli: Cli, weight: str) -> None:
    """`strata set`, a version's manifest (`import version`) and a saved report's stratum weights
    (`compare`): one line, exit 2, nothing changed."""
    import json
    import shutil

    from conftest import ROOT, one_report

    demo = ROOT / "goldensets" / "pydocs"
    run_cli("init")
    refused = [run_cli("strata", "set", "s", "--", weight, ok=False)]
    version = run_cli.tmp / "1.0"
    shutil.copytree(demo / "1.0", version)
    manifest = json.loads((version / "manifest.json").read_text())
    manifest["strata"][0]["weight"] = float(weight)
    (version / "manifest.json").write_text(json.dumps(manifest))
    refused.append(run_cli("import", "version", str(version), "--no-verify", ok=False))
    saved = run_cli.tmp / "a.json"
    run_cli("score", str(demo / "runs" / "bm25.run"), "--golden", str(demo / "1.0"), "--format", "json",
            "--per-query", "--out", str(saved))  # fmt: skip
    data = one_report(saved.read_text())
    data["stratum_weights"]["conceptual"] = float(weight)
    edited = run_cli.write("b.json", json.dumps({"reports": [data]}))
    refused.append(run_cli("compare", str(saved), str(edited), ok=False))
    for result in refused:
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2 and len(lines) == 1 and "weight" in lines[0], result.output
    assert "manifest.json" in refused[1].output and "b.json" in refused[2].output
    assert "pydocs" not in run_cli("status").output and " s " not in run_cli("strata", "list").output
