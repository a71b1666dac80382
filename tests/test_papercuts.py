"""What a new user hit (issue 30's papercuts): each message says what happened and the way on."""

from __future__ import annotations

from click.testing import CliRunner

from conftest import ROOT, Cli
from qrelkit.cli import cli
from qrelkit.scoring.agreement import stats

GOLDEN = ROOT / "goldensets" / "pydocs" / "1.0"
RUN = ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run"


def _stdin(run_cli: Cli, text: str, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["--db", str(run_cli.db), *args], input=text, catch_exceptions=False)
    return done.exit_code, done.output


def test_json_lines_on_standard_input_are_read_as_queries(run_cli: Cli) -> None:
    run_cli("init")
    code, out = _stdin(run_cli, '{"id": "q1", "text": "hello", "stratum": "nav"}\n', "import", "queries", "-")
    assert code == 2 and "unknown stratum" in out  # read as JSON Lines (TSV would have found 1 field)
    code, out = _stdin(
        run_cli, '{"id": "q1", "text": "hello", "stratum": "nav"}\n', "import", "queries", "--create-strata", "-"
    )
    assert code == 0 and "imported 1 queries" in out, out
    code, out = _stdin(run_cli, '{"id": "q2", "text": "x"}\n', "import", "queries", "--format", "tsv", "-")
    assert code == 2 and "this line looks like JSON: pass --format jsonl" in out, out


def test_empty_metrics_are_an_error_not_the_defaults(run_cli: Cli) -> None:
    for args in (
        ["score", str(RUN), "--golden", str(GOLDEN)],
        ["compare", str(RUN), str(RUN), "--golden", str(GOLDEN)],
        ["sensitivity", str(RUN), "--golden", str(GOLDEN)],
    ):
        for empty in ("", " , "):
            refused = run_cli(*args, "--metrics", empty, ok=False)
            assert refused.exit_code == 2 and "--metrics names no measure" in refused.output, (args, refused.output)
    run_cli("import", "version", str(GOLDEN))
    refused = run_cli("queue", "--metrics", "", ok=False)
    assert refused.exit_code == 2 and "--metrics names no measure" in refused.output


def test_run_options_of_status_without_run_files_are_refused(run_cli: Cli) -> None:
    run_cli("import", "version", str(GOLDEN))
    for args in (["-k", "5"], ["--per-query"], ["--holes", "3"]):
        refused = run_cli("status", *args, ok=False)
        assert refused.exit_code == 2 and "given without run files" in refused.output, refused.output
    assert run_cli("status", str(RUN), "-k", "5", "--per-query").exit_code == 0


def test_pool_says_what_it_did_on_standard_output(run_cli: Cli) -> None:
    run_cli("import", "version", str(GOLDEN))
    done = CliRunner().invoke(cli, ["--db", str(run_cli.db), "pool", "-k", "5", str(RUN)])
    assert done.exit_code == 0 and "pooled bm25 at depth 5:" in done.stdout, (done.stdout, done.stderr)
    assert "already pooled (ranks updated)" in done.stdout


def test_beir_given_a_file_says_it_is_a_file(run_cli: Cli) -> None:
    run_cli("init")
    refused = run_cli("import", "beir", str(RUN), ok=False)
    assert refused.exit_code == 2 and "is a file, not a folder" in refused.output


def test_one_query_is_one_query_and_labeled_is_spelled_one_way(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\thello\tnav\n")))
    run_cli("import", "qrels", str(run_cli.write("r.qrels", "q1 0 d1 1\n")))
    out = run_cli("score", str(run_cli.write("a.run", "q1 Q0 d1 1 1.0 a\n"))).output
    assert "macro mean over 1 query:" in out and "1 queries" not in out
    src = ROOT / "src" / "qrelkit"
    assert not [p for p in src.rglob("*.py") if "labelled" in p.read_text(encoding="utf-8")]


def test_agreement_over_one_pair_reports_no_alpha_or_kappa() -> None:
    one = stats({("q", "d"): {"a": 1, "b": 2}}, 0)
    assert one.n_pairs == 1 and one.alpha_ordinal is None and one.kappa_linear == {}
    two = stats({("q", "d"): {"a": 1, "b": 2}, ("q", "e"): {"a": 0, "b": 0}}, 0)
    assert two.alpha_ordinal is not None and two.kappa_linear["a|b"] is not None


def test_agreement_over_one_pair_says_too_few(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\thello\tnav\n")))
    lines = '{"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": %d, "assessor": "%s"}\n'
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", lines % (1, "a") + lines % (2, "b"))))
    done = CliRunner().invoke(cli, ["--db", str(run_cli.db), "agreement"])
    assert done.exit_code == 0 and "too few pairs for alpha and kappa (1; at least 2" in done.stderr, done.stderr


def test_a_query_and_a_document_can_be_looked_at(run_cli: Cli) -> None:
    run_cli("import", "version", str(GOLDEN))
    shown = run_cli("queries", "show", "con-01").output
    assert shown.startswith("query con-01 (conceptual): why is a mutable default argument") and "labels (13):" in shown
    assert "function-06 3" in shown
    listed = run_cli("docs", "list", "--limit", "2").output
    assert "assert-01" in listed and "assert-02" in listed and "assignment-01" not in listed
    doc = run_cli("docs", "show", "function-06").output
    assert doc.startswith("document function-06") and "con-01 3" in doc
    for args, says in (
        (["queries", "show", "nosuch"], "no query 'nosuch' in the golden set"),
        (["docs", "show", "nosuch"], "no document 'nosuch' in the store"),
    ):
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2 and says in refused.output
