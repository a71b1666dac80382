"""An import file that says the same thing twice: a query id given on two lines is refused (the
file contradicts itself: which text, which stratum?), naming both lines; a judgment event that is
already in the log, or repeats one earlier in the same file, is skipped and counted (the log is
append-only: importing a file again must not double it)."""

from __future__ import annotations

import pytest

from conftest import Cli
from qrelkit.storage import Store


def _queries_in(run_cli: Cli) -> dict[str, tuple[str, str]]:
    with Store.open(run_cli.db) as s:
        return {q.id: (q.text, q.stratum) for q in s.reads.queries()}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("q.tsv", "q1\tone\tdefault\nq2\ttwo\tdefault\nq3\tthree\tdefault\nq2\tagain\tother\n"),
        (
            "q.jsonl",
            '{"id": "q1", "text": "one"}\n{"id": "q2", "text": "two"}\n\n{"id": "q3", "text": "three"}\n'
            '{"id": "q2", "text": "again", "stratum": "other"}\n',
        ),
    ],
    ids=["tsv", "jsonl"],
)
def test_a_query_id_given_twice_in_one_file_is_refused_naming_both_lines(run_cli: Cli, name: str, text: str) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("first.tsv", "q9\tkept\tdefault\n")))
    path = run_cli.write(name, text)
    refused = run_cli("import", "queries", "--create-strata", "--stratum", "default", str(path), ok=False)
    assert refused.exit_code == 2
    line = 4 if name == "q.tsv" else 5
    said = f"error: {path}:{line}: query 'q2' repeats line 2 (hint: keep one line per query)"
    assert " ".join(refused.output.split()) == said, refused.output  # one line (the console may wrap it)
    assert _queries_in(run_cli) == {"q9": ("kept", "default")}  # nothing written, no stratum made


def test_a_query_id_given_twice_in_a_beir_folder_is_refused(run_cli: Cli) -> None:
    folder = run_cli.tmp / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    refused = run_cli("import", "beir", str(folder), ok=False)
    assert refused.exit_code == 2
    assert f"{folder / 'queries.jsonl'}:2: query 'q1' repeats line 1" in refused.output


def test_a_query_file_may_update_queries_already_in_the_store(run_cli: Cli) -> None:
    """The refusal is of a file that contradicts itself, not of an update."""
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("a.tsv", "q1\tone\tdefault\n")))
    run_cli("import", "queries", str(run_cli.write("b.tsv", "q1\tuno\tdefault\nq2\ttwo\tdefault\n")))
    assert _queries_in(run_cli) == {"q1": ("uno", "default"), "q2": ("two", "default")}
