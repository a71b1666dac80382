"""Every message about standard input names it `<stdin>` (`formats.paths.STDIN_NAME`), never `-`:
bad input piped to each command that reads `-` is one line, `<stdin>:LINE: ...`, exit status 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from conftest import Cli
from qrelkit.cli import cli

QUERIES = "q1\tone\nq2\ttwo\n"
QRELS = "q1 0 d1 1\nq2 0 d2 2\n"
RUN = "q1 Q0 d1 1 2.0 r\nq2 Q0 d2 1 1.0 r\n"
BAD_RUN = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 x r\n"

CASES = [
    (["score", "-", "--qrels", "QRELS"], BAD_RUN, "<stdin>:2: "),
    (["score", "RUN", "--qrels", "-"], b"q1 0 d1 1\nq1 0 d2 x\n", "<stdin>:2: "),
    (["score", "RUN", "--qrels", "-"], b"q1 0 d1 1\nq1 0 d1 2\n", "<stdin>:2: duplicate judgment"),
    (["compare", "RUN", "-", "--qrels", "QRELS"], BAD_RUN, "<stdin>:2: "),
    (["sensitivity", "RUN", "-", "--qrels", "QRELS"], BAD_RUN, "<stdin>:2: "),
    (["pool", "-", "-k", "5"], BAD_RUN, "<stdin>:2: "),
    (["status", "--runs", "-"], BAD_RUN, "<stdin>:2: "),
    (["import", "queries", "-"], b"q3\tthree\tdefault\nq3\tagain\tdefault\n", "<stdin>:2: query 'q3' repeats line 1"),
    (["import", "queries", "-"], b"q1\tone\nq9\tnine\n", "<stdin>:2: query 'q9' has no stratum"),
    (["import", "queries", "-"], b'{"id": "q9", "text": "x", "stratum": "nope"}\n', "<stdin>:1: unknown stratum"),
    (["import", "docs", "-"], b'{"id": "d1", "text": "x"}\n{"id": "d1", "text": "y"}\n', "<stdin>:2: "),
    (["import", "qrels", "-"], b"q1 0 d1 1\nq1 0 d1 2\n", "<stdin>:2: duplicate judgment"),
    (["import", "qrels", "-"], b"q1 0 d1 1\nq7 0 d1 2\n", "<stdin>:2: query 'q7' is not in the golden set"),
    (
        ["import", "judgments", "-"],
        b'{"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 1, "assessor": "a"}\n{"query_id": "q1"}\n',
        "<stdin>:2: ",
    ),  # fmt: skip
]


def _run(run_cli: Cli, args: list[str], data: bytes) -> tuple[int, str]:
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.tsv", QUERIES)))
    files = {"QRELS": str(run_cli.write("x.qrels", QRELS)), "RUN": str(run_cli.write("r.run", RUN))}
    done = CliRunner().invoke(
        cli, ["--db", str(run_cli.db), *[files.get(a, a) for a in args]], input=data, catch_exceptions=False
    )
    return done.exit_code, done.output


@pytest.mark.parametrize(("args", "data", "where"), CASES, ids=[f"{' '.join(c[0])} {c[2]}" for c in CASES])
def test_bad_standard_input_is_named_stdin_with_its_line(
    run_cli: Cli, args: list[str], data: bytes, where: str
) -> None:
    code, out = _run(run_cli, args, data)
    assert code == 2, out
    assert out.startswith(f"error: {where}"), out
    assert len(out.strip().splitlines()) == 1 and "-:" not in out, out


@pytest.mark.parametrize(
    ("args", "data", "said"),
    [
        (["score", "-", "--qrels", "QRELS"], b"q8 Q0 d1 1 2.0 r\n", "error: <stdin> shares no query with the qrels"),
        (["score", "RUN", "--qrels", "-", "--max-grade", "1"], QRELS.encode(), "error: <stdin> holds grade 2"),
        (["import", "qrels", "-"], b"", "error: <stdin>: no qrels lines in the file"),
    ],
)
def test_a_message_without_a_line_names_stdin_too(run_cli: Cli, args: list[str], data: bytes, said: str) -> None:
    code, out = _run(run_cli, args, data)
    assert code == 2 and out.startswith(said), out
    assert "error: -" not in out, out


def test_what_an_import_read_is_named_stdin(run_cli: Cli) -> None:
    code, out = _run(run_cli, ["import", "qrels", "-"], QRELS.encode())
    assert code == 0 and out.strip() == "imported 2 labels and 0 pooled-unjudged pairs from <stdin>", out
