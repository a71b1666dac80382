from __future__ import annotations

import json
import subprocess
import sys

from conftest import Cli, one_report

QUERIES = "q1\thow to sort a list\thow-to\nq2\tassert statement\tnav\n"


def setup_store(run_cli: Cli) -> None:
    run_cli("init", "--name", "t")
    run_cli("strata", "set", "how-to", "0.4")
    run_cli("strata", "set", "nav", "0.6")
    run_cli("import", "queries", str(run_cli.write("q.tsv", QUERIES)))


def test_malformed_qrels_line_7_exits_2_and_changes_nothing(run_cli: Cli) -> None:
    setup_store(run_cli)
    lines = [f"q1 0 d{i} {i % 4}" for i in range(1, 7)] + ["q1 0 d7"] + ["q2 0 d8 1"]
    bad = run_cli.write("bad.qrels", "\n".join(lines) + "\n")
    before = json.loads(run_cli("status", "--format", "json").output)
    result = run_cli("import", "qrels", str(bad), ok=False)
    assert result.exit_code == 2
    assert "bad.qrels:7:" in result.output
    assert "expected 4 fields, found 3" in result.output
    assert "Traceback" not in result.output
    assert json.loads(run_cli("status", "--format", "json").output) == before


def test_export_never_turns_skipped_or_unlabeled_into_zero(run_cli: Cli) -> None:
    setup_store(run_cli)
    run_cli("import", "qrels", str(run_cli.write("a.qrels", "q1 0 a 2\nq1 0 b 0\nq1 0 c -1\n")))
    events = [
        {"query_id": "q2", "doc_id": "x", "state": "skipped", "assessor": "ann"},
        {"query_id": "q1", "doc_id": "a", "state": "cleared", "assessor": "ann"},
    ]
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", "\n".join(map(json.dumps, events)))))
    assert run_cli("export", "qrels").output == "q1 0 b 0\n"
    out = run_cli.tmp / "out" / "labels.jsonl"
    out.parent.mkdir()
    run_cli("export", "qrels", "--format", "jsonl", "--out", str(out))
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        {"query_id": "q1", "doc_id": "b", "grade": 0}
    ]
    st = json.loads(run_cli("status", "--format", "json").output)
    assert (st["labels"], st["skipped"], st["unlabeled_pool"]) == ({"0": 1}, 1, 1)
    by_name = {s["name"]: s for s in st["strata"]}
    assert by_name["nav"]["skipped"] == 1 and by_name["how-to"]["unlabeled_pool"] == 1


def test_unknown_stratum_error_has_a_hint(run_cli: Cli) -> None:
    run_cli("init")
    result = run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\ttext\tnav\n")), ok=False)
    assert result.exit_code == 2
    assert "q.tsv:1: unknown stratum 'nav'" in result.output
    assert "qrelkit strata set nav WEIGHT" in result.output


def test_missing_store_is_a_usage_error(run_cli: Cli) -> None:
    result = run_cli("status", ok=False)
    assert result.exit_code == 2 and "qrelkit init" in result.output


def test_demo_runs_as_a_subprocess_without_traceback(tmp_path: object) -> None:
    out = subprocess.run([sys.executable, "-m", "qrelkit", "demo"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "pydocs" in out.stdout and "42 queries" in out.stdout
    assert "A bm25.run  vs  B bm25-title.run" in out.stdout and "diagnosis: " in out.stdout


def test_bad_input_from_a_real_process_is_one_line_exit_2(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    db = folder / "s.db"
    subprocess.run([sys.executable, "-m", "qrelkit", "--db", str(db), "init"], check=True, capture_output=True)
    (folder / "q.jsonl").write_text('{"id": "q1", "text": "x"}\n{"id": "q2", "text": 5}\n')
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "qrelkit",
            "--db",
            str(db),
            "import",
            "queries",
            "--stratum",
            "default",
            str(folder / "q.jsonl"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1, out.stderr
    assert "q.jsonl:2: field 'text'" in out.stderr


def test_import_beir_folder_is_one_transaction(run_cli: Cli) -> None:
    folder = run_cli.tmp / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "x"}\n{"_id": "d2", "text": "y"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "find"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n")
    run_cli("init")
    out = run_cli("import", "beir", str(folder)).output
    assert "2 documents, 1 queries, 2 labels" in out
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq9\td2\tx\n")
    before = json.loads(run_cli("status", "--format", "json").output)
    bad = run_cli("import", "beir", str(folder), ok=False)
    assert bad.exit_code == 2 and "test.tsv:3:" in bad.output
    assert json.loads(run_cli("status", "--format", "json").output) == before


def test_scale_0_to_4_and_grades_above_it(run_cli: Cli) -> None:
    run_cli("init", "--max-grade", "4", "--threshold", "2")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    run_cli("import", "qrels", str(run_cli.write("a.qrels", "q1 0 a 4\nq1 0 b 1\n")))
    assert run_cli("export", "qrels").output == "q1 0 a 4\nq1 0 b 1\n"
    bad = run_cli("import", "qrels", str(run_cli.write("b.qrels", "q1 0 c 5\n")), ok=False)
    assert bad.exit_code == 2 and "b.qrels:1: grade 5 is above" in bad.output


def test_gz_and_commented_runs_score_like_plain_ones(run_cli: Cli) -> None:
    import gzip

    qrels = run_cli.write("t.qrels", "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    plain = "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 x 1 5 r\nq2 Q0 c 2 5 r\n"
    paths = [run_cli.write("p.run", plain), run_cli.write("c.run", "# a comment\n" + plain.replace(" ", "\t"))]
    gz = run_cli.tmp / "g.run.gz"
    gz.write_bytes(gzip.compress(plain.encode()))
    reports = [
        one_report(
            run_cli("score", str(p), "--qrels", str(qrels), "--format", "json", "--metrics", "nDCG@10,RR,AP").output
        )
        for p in [*paths, gz]
    ]
    assert reports[0]["metrics"] == reports[1]["metrics"] == reports[2]["metrics"]
    assert reports[0]["fingerprint"]["run"]["sha256"] == reports[2]["fingerprint"]["run"]["sha256"]


def test_unwritable_outputs_are_one_line_errors(run_cli: Cli) -> None:
    setup_store(run_cli)
    blocker = run_cli.write("a-file", "not a folder")  # a path below a file cannot be created
    for args in (
        ["export", "qrels", "--out", str(blocker / "x.qrels")],
        ["freeze", "t", "1", "--out", str(blocker / "sets")],
        ["schemas", "write", "--dir", str(blocker / "schemas")],
    ):
        result = run_cli(*args, ok=False)
        assert result.exit_code == 2, args
        assert ("cannot write" in result.output or "no folder" in result.output) and "Traceback" not in result.output


def test_every_command_module_is_in_the_lazy_table() -> None:
    """`qrelkit.cli.entry.COMMANDS` names every command of every module of the CLI, and only them."""
    import importlib
    import pkgutil

    import qrelkit.cli as package
    from qrelkit.cli.entry import COMMANDS

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in ("app", "entry"):  # the root group and the table itself
            continue
        module = importlib.import_module(f"qrelkit.cli.{info.name}")
        for command in getattr(module, "COMMANDS", []):
            found[command.name] = info.name
    assert found == COMMANDS


def test_every_import_subcommand_module_is_in_the_import_groups_lazy_table() -> None:
    """`qrelkit.cli.imports.LAZY` names every `IMPORT_COMMANDS` entry of the CLI's modules (the
    subcommands of `import` kept in modules of their own), and `import` lists them."""
    import importlib
    import pkgutil

    import click

    import qrelkit.cli as package
    from qrelkit.cli.imports import LAZY, import_

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"qrelkit.cli.{info.name}")
        for command in getattr(module, "IMPORT_COMMANDS", []):
            found[command.name] = info.name
    assert found == LAZY
    ctx = click.Context(import_)
    assert set(LAZY) <= set(import_.list_commands(ctx))
    assert all(import_.get_command(ctx, name) is not None for name in LAZY)
