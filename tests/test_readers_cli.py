"""The readers through the command line and the store: JSONL qrels exported and imported back,
document metadata through the store and a frozen version, `-` for standard input, BEIR-style and
JSON dict files outside a BEIR folder, and the help and errors of `import judgments`.

References: the files each test writes by hand, pytrec_eval (through `oracle`) for scores, and
the pydantic models' own field lists for the help text."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from conftest import Cli, one_report
from oracle import trec_eval
from qrelkit.cli import cli
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.storage.schema import MIGRATIONS

QUERIES = "q1\tfirst\nq2\tsecond\n"
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 -1\n"
RUN = "q1 Q0 d2 1 3.0 r\nq1 Q0 d3 2 2.0 r\nq1 Q0 d1 3 1.0 r\nq2 Q0 d5 1 1.0 r\nq2 Q0 d4 2 0.5 r\n"
METRICS = "nDCG@10,AP,RR"
PAIRS = {"nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank"}


def setup(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.tsv", QUERIES)))


def piped(run_cli: Cli, data: bytes, *args: str) -> Result:
    """`qrelkit ARGS` with `data` on standard input."""
    return CliRunner().invoke(cli, ["--db", str(run_cli.db), *args], input=data, catch_exceptions=False)


def values(output: str) -> dict[str, dict[str, float]]:
    report = one_report(output)
    return {q: {m: s["value"] for m, s in ms.items()} for q, ms in report["per_query"].items()}


def reference() -> dict[str, dict[str, float]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS.splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for line in RUN.splitlines():
        f = line.split()
        run.setdefault(f[0], {})[f[2]] = float(f[4])
    return trec_eval(qrels, run, list(PAIRS.values()))


def assert_matches_trec_eval(got: dict[str, dict[str, float]]) -> None:
    ref = reference()
    assert set(ref) == {"q1", "q2"}
    for q, measures in ref.items():
        for ours, theirs in PAIRS.items():
            assert got[q][ours] == pytest.approx(measures[theirs], abs=1e-9), (q, ours)


def test_jsonl_qrels_from_export_import_back_into_another_store(run_cli: Cli, tmp_path: Path) -> None:
    setup(run_cli)
    run_cli("import", "qrels", str(run_cli.write("a.qrels", QRELS)))
    exported = tmp_path / "labels.jsonl"
    run_cli("export", "qrels", "--format", "jsonl", "--out", str(exported))
    trec_before = run_cli("export", "qrels").output
    other = Cli(tmp_path / "other")
    other.tmp.mkdir()
    setup(other)
    result = other("import", "qrels", str(exported))
    assert "imported 4 labels" in result.output
    assert other("export", "qrels").output == trec_before
    assert trec_before.splitlines() == ["q1 0 d1 2", "q1 0 d2 0", "q1 0 d3 1", "q2 0 d4 1"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("beir.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td4\t1\nq2\td5\t-1\n"),
        ("qrels.json", json.dumps({"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": -1}})),
        ("trec.qrels", QRELS),
    ],
)
def test_qrels_in_any_format_import_and_score_the_same(run_cli: Cli, name: str, text: str) -> None:
    setup(run_cli)
    qrels = run_cli.write(name, text)
    assert "imported 4 labels and 1 pooled-unjudged pairs" in run_cli("import", "qrels", str(qrels)).output
    assert run_cli("export", "qrels").output.splitlines() == ["q1 0 d1 2", "q1 0 d2 0", "q1 0 d3 1", "q2 0 d4 1"]
    run = run_cli.write("r.run", RUN)
    args = ["--metrics", METRICS, "--per-query", "--format", "json"]
    assert_matches_trec_eval(values(run_cli("score", str(run), "--qrels", str(qrels), *args).output))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("r.json", json.dumps({"q1": {"d2": 3.0, "d3": 2.0, "d1": 1.0}, "q2": {"d5": 1.0, "d4": 0.5}})),
        ("r3.run", "qid docid score\nq1 d2 3.0\nq1 d3 2.0\nq1 d1 1.0\nq2 d5 1.0\nq2 d4 0.5\n"),
        ("r4.tsv", "q1\td2\t1\t3.0\nq1\td3\t2\t2.0\nq1\td1\t3\t1.0\nq2\td5\t1\t1.0\nq2\td4\t2\t0.5\n"),
        ("r9.run", RUN.replace(" r\n", " r x y z\n")),
    ],
)
def test_runs_in_every_layout_score_as_trec_eval_does(run_cli: Cli, name: str, text: str) -> None:
    qrels = run_cli.write("x.qrels", QRELS)
    args = ["--qrels", str(qrels), "--metrics", METRICS, "--per-query", "--format", "json"]
    assert_matches_trec_eval(values(run_cli("score", str(run_cli.write(name, text)), *args).output))


def test_standard_input_is_a_run_or_qrels_file(run_cli: Cli) -> None:
    qrels = run_cli.write("x.qrels", QRELS)
    args = ["--metrics", METRICS, "--per-query", "--format", "json"]
    for data in (RUN.encode(), gzip.compress(RUN.encode()), json.dumps({"q1": {"d1": 1.0}}).encode()):
        result = piped(run_cli, data, "score", "-", "--qrels", str(qrels), *args)
        assert result.exit_code == 0, result.output
        report = one_report(result.output)
        assert report["fingerprint"]["run"]["name"] == "-"  # the path given, as for any run file
        if data != json.dumps({"q1": {"d1": 1.0}}).encode():
            assert_matches_trec_eval(values(result.output))
            assert report["fingerprint"]["run"]["sha256"].endswith(
                __import__("hashlib").sha256(RUN.encode()).hexdigest()
            )
    run = run_cli.write("r.run", RUN)
    result = piped(run_cli, QRELS.encode(), "score", str(run), "--qrels", "-", *args)
    assert result.exit_code == 0, result.output
    assert_matches_trec_eval(values(result.output))


def test_standard_input_for_import_and_pool(run_cli: Cli) -> None:
    setup(run_cli)
    result = piped(run_cli, QRELS.encode(), "import", "qrels", "-")
    assert result.exit_code == 0 and "imported 4 labels and 1 pooled-unjudged pairs" in result.output, result.output
    more = "q1 Q0 d9 1 5.0 r\nq2 Q0 d8 1 4.0 r\n"
    result = piped(run_cli, more.encode(), "pool", "-", "--depth", "5")
    assert result.exit_code == 0, result.output
    with Store.open(run_cli.db) as store:
        pooled = {tuple(r) for r in store.conn.execute("SELECT query_id, doc_id FROM pool")}
    assert {("q1", "d9"), ("q2", "d8")} <= pooled


@pytest.mark.parametrize(
    ("args", "data", "where"),
    [
        (["score", "-", "--qrels", "QRELS"], b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2\n", "<stdin>:2:"),
        (["score", "-", "--qrels", "QRELS"], b'{"q1": {"d1": "x"}}', "<stdin>:1:"),
        (["score", "-", "--qrels", "QRELS"], b"", "<stdin>"),
        (["import", "qrels", "-"], b"q1 0 d1 1\nq1 0 d2 x\n", "<stdin>:2:"),
    ],
)
def test_bad_standard_input_is_one_line_exit_2(run_cli: Cli, args: list[str], data: bytes, where: str) -> None:
    setup(run_cli)
    qrels = str(run_cli.write("x.qrels", QRELS))
    result = piped(run_cli, data, *[qrels if a == "QRELS" else a for a in args])
    assert result.exit_code == 2, result.output
    assert where in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


DOCS = (
    '{"_id": "d1", "title": "One", "text": "x", "url": "https://example.org/1", "metadata": {"lang": "en"}}\n'
    '{"id": "d2", "title": "Two", "text": "y"}\n'
    '{"_id": "d3", "text": "z", "tags": ["a", "b"], "rank": 3, "extra": {"nested": {"deep": null}}}\n'
)


def test_document_metadata_round_trips_through_the_store_and_a_version(run_cli: Cli, tmp_path: Path) -> None:
    setup(run_cli)
    run_cli("import", "docs", str(run_cli.write("docs.jsonl", DOCS)))
    expected = {
        "d1": {"lang": "en", "url": "https://example.org/1"},
        "d2": None,
        "d3": {"tags": ["a", "b"], "rank": 3, "extra": {"nested": {"deep": None}}},
    }
    with Store.open(run_cli.db) as store:
        assert {d.id: d.metadata for d in store.reads.documents()} == expected
    sets = tmp_path / "sets"
    run_cli("freeze", "gs", "1.0", "--out", str(sets))
    folder = sets / "gs" / "1.0"
    lines = [json.loads(line) for line in (folder / "documents.jsonl").read_text().splitlines()]
    assert {d["id"]: d.get("metadata") for d in lines} == expected
    run_cli("verify", str(folder))
    other = Cli(tmp_path / "other")
    other.tmp.mkdir()
    other("import", "version", str(folder))
    with Store.open(other.db) as store:
        assert {d.id: d.metadata for d in store.reads.documents()} == expected
    other("freeze", "gs", "1.1", "--out", str(sets))
    assert (sets / "gs" / "1.1" / "documents.jsonl").read_bytes() == (folder / "documents.jsonl").read_bytes()
    first = json.loads((folder / "manifest.json").read_text())
    second = json.loads((sets / "gs" / "1.1" / "manifest.json").read_text())
    assert first["content_hash"] == second["content_hash"]


def test_metadata_is_part_of_the_content_and_an_edit_is_caught(run_cli: Cli, tmp_path: Path) -> None:
    setup(run_cli)
    run_cli("import", "docs", str(run_cli.write("docs.jsonl", DOCS)))
    run_cli("freeze", "gs", "1.0", "--out", str(tmp_path / "sets"))
    run_cli("import", "docs", str(run_cli.write("docs2.jsonl", DOCS.replace("example.org/1", "example.org/2"))))
    run_cli("freeze", "gs", "1.1", "--out", str(tmp_path / "sets"))
    hashes = [
        json.loads((tmp_path / "sets" / "gs" / v / "manifest.json").read_text())["content_hash"] for v in ("1.0", "1.1")
    ]
    assert hashes[0] != hashes[1]
    folder = tmp_path / "sets" / "gs" / "1.0"
    docs = folder / "documents.jsonl"
    docs.write_text(docs.read_text().replace("example.org/1", "example.org/3"))
    assert run_cli("verify", str(folder), ok=False).exit_code == 1


def test_a_store_from_before_metadata_is_migrated_and_keeps_its_documents(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    before = len(MIGRATIONS) - 1  # every migration but the metadata column
    for migration in MIGRATIONS[:before]:
        migration(conn)
    conn.execute(f"PRAGMA user_version={before}")
    conn.execute("INSERT INTO documents(id, title, text) VALUES ('d1', 't', 'x')")
    conn.close()
    with Store.open(path) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        doc = store.reads.document("d1")
        assert doc is not None and (doc.title, doc.text, doc.metadata) == ("t", "x", None)


def test_import_judgments_help_lists_every_field_and_state(run_cli: Cli) -> None:
    text = run_cli("import", "judgments", "--help").output
    for field in Judgment.model_fields:
        assert f"\n    {field} " in text, field
    for state in JudgmentState:
        assert state.value in text


PYDANTIC_WORDING = ("Input should", "type=", "For further information", "pydantic", "Value error", "String should")


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"query_id": "q1", "doc_id": "a", "state": "maybe", "assessor": "x"}', "field 'state' must be one of"),
        ('{"query_id": "q1", "doc_id": "a", "state": "graded", "assessor": "x"}', "a graded judgment needs a grade"),
        ('{"query_id": "q1", "doc_id": "a", "state": "graded", "grade": "two", "assessor": "x"}', "field 'grade'"),
        ('{"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1.5, "assessor": "x"}', "field 'grade'"),
        ('{"query_id": "q 1", "doc_id": "a", "state": "skipped", "assessor": "x"}', "field 'query_id'"),
        ('{"query_id": "q1", "doc_id": "a", "state": "skipped", "assessor": ""}', "field 'assessor' must not be empty"),
        (
            '{"query_id": "q1", "doc_id": "a", "state": "skipped", "assessor": "x", "timestamp": "yesterday"}',
            "ISO 8601",
        ),
        ('{"query_id": "q1", "doc_id": "a", "state": "skipped", "assessor": "x", "ts": "2026-01-01"}', "field 'ts'"),
        ('{"query_id": "q1", "doc_id": "a", "state": "skipped", "assessor": "x", "seconds": -1}', "field 'seconds'"),
        ('{"query_id": 5, "doc_id": "a", "state": "skipped", "assessor": "x"}', "field 'query_id' must be a string"),
        ('{"doc_id": "a", "state": "skipped", "assessor": "x"}', "field 'query_id' is missing"),
    ],
)
def test_import_judgments_errors_name_file_line_and_field_in_our_words(run_cli: Cli, line: str, fragment: str) -> None:
    setup(run_cli)
    good = '{"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "x"}'
    path = run_cli.write("j.jsonl", good + "\n" + line + "\n")
    result = run_cli("import", "judgments", str(path), ok=False)
    assert result.exit_code == 2
    output = " ".join(result.output.split())  # the console may wrap the line
    assert "j.jsonl:2:" in output and fragment in output, output
    assert "hint:" in output
    assert not [w for w in PYDANTIC_WORDING if w in output], output
    if "'ts'" in fragment:
        assert "timestamp" in output  # the hint lists the fields a line takes


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    """A writer for the named pipe (it blocks until qrelkit opens the pipe for reading)."""

    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_named_pipe_is_read_once_however_often_the_readers_open_it(run_cli: Cli, tmp_path: Path) -> None:
    """`<(zcat run.gz)` and named pipes can be read only once: the format sniff, the fast parser
    and the exact reader all see the same bytes."""
    setup(run_cli)
    qrels = run_cli.write("x.qrels", QRELS)
    irregular = "# a comment makes the fast parser give up\n" + RUN
    for data in (RUN.encode(), gzip.compress(irregular.encode())):
        fifo = tmp_path / f"run-{len(data)}.fifo"
        os.mkfifo(fifo)
        writer = _feed(fifo, data)
        result = run_cli(
            "score", str(fifo), "--qrels", str(qrels), "--metrics", METRICS, "--per-query", "--format", "json"
        )
        writer.join(10)
        assert_matches_trec_eval(values(result.output))
    fifo = tmp_path / "pool.fifo"
    os.mkfifo(fifo)
    writer = _feed(fifo, b"q1 d7 2.0\nq2 d6 1.0\n")  # pooling sniffs the format, then reads
    run_cli("pool", str(fifo), "--depth", "5")
    writer.join(10)
    with Store.open(run_cli.db) as store:
        pooled = {tuple(r) for r in store.conn.execute("SELECT query_id, doc_id FROM pool")}
    assert {("q1", "d7"), ("q2", "d6")} <= pooled
