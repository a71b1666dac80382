"""An import file that says the same thing twice: a query id given on two lines is refused (the
file contradicts itself: which text, which stratum?), naming both lines; a judgment event that is
already in the log, or repeats one earlier in the same file, is skipped and counted (the log is
append-only: importing a file again must not double it)."""

from __future__ import annotations

import json

import pytest
from click.testing import Result

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


# -- judgment events: a repeat is skipped and counted -----------------------------------------------


def _event(doc: str, who: str = "ann", **fields: object) -> str:
    base = {"query_id": "q1", "doc_id": doc, "state": "graded", "grade": 1, "assessor": who}
    return json.dumps({**base, "timestamp": "2026-01-02T03:04:05Z", **fields})


def _log(run_cli: Cli) -> list[tuple[str, str, str, int | None, str, str | None, float | None]]:
    with Store.open(run_cli.db) as s:
        sql = "SELECT doc_id, state, assessor, grade, ts, note, seconds FROM judgments ORDER BY seq"
        return [tuple(r) for r in s.conn.execute(sql)]


def _said(result: Result) -> str:
    """A command's output as one line (the console may wrap it)."""
    return " ".join(result.output.split())


def _judged_store(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))


def test_importing_the_same_judgments_file_again_adds_nothing_and_says_so(run_cli: Cli) -> None:
    _judged_store(run_cli)
    lines = [
        _event("a"),
        _event("a", "bob", grade=2, note="why", seconds=4.5),
        _event("b", state="skipped", grade=None),
        _event("b", state="noted", grade=None, note="n", timestamp="2026-01-02T03:04:05.123456+02:00"),
    ]
    lines[2] = lines[2].replace(', "grade": null', "")
    lines[3] = lines[3].replace(', "grade": null', "")
    path = run_cli.write("j.jsonl", "\n".join(lines) + "\n")
    first = run_cli("import", "judgments", str(path))
    assert _said(first) == f"imported 4 judgment events from {path}"
    log = _log(run_cli)
    again = run_cli("import", "judgments", str(path))
    assert _said(again) == f"imported 0 judgment events from {path}; 4 events already in the log (skipped)"
    assert _log(run_cli) == log
    # one more line: only it goes in
    path.write_text("\n".join([*lines, _event("c")]) + "\n")
    more = run_cli("import", "judgments", str(path))
    assert _said(more) == f"imported 1 judgment events from {path}; 4 events already in the log (skipped)"
    assert _log(run_cli) == [*log, ("c", "graded", "ann", 1, "2026-01-02T03:04:05+00:00", None, None)]


def test_an_exported_log_imported_back_is_already_there(run_cli: Cli) -> None:
    """What `export judgments` writes (times as written back, events judged here, notes, seconds)
    is found in the log it came from."""
    from qrelkit.models import Judgment, JudgmentState

    _judged_store(run_cli)
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", _event("a", seconds=3) + "\n")))
    with Store.open(run_cli.db) as s:
        s.log.record(
            Judgment(query_id="q1", doc_id="b", state=JudgmentState.GRADED, grade=2, assessor="cy", seconds=1.25)
        )
    exported = run_cli.write("e.jsonl", run_cli("export", "judgments").output)
    log = _log(run_cli)
    again = run_cli("import", "judgments", str(exported))
    assert _said(again) == f"imported 0 judgment events from {exported}; 2 events already in the log (skipped)"
    assert _log(run_cli) == log


def test_an_event_repeated_within_one_file_is_written_once(run_cli: Cli) -> None:
    _judged_store(run_cli)
    lines = [_event("a"), _event("b"), _event("a"), _event("a", seconds=2), _event("a", note="x"), _event("b")]
    path = run_cli.write("j.jsonl", "\n".join(lines) + "\n")
    result = run_cli("import", "judgments", str(path))
    assert _said(result) == f"imported 4 judgment events from {path}; 2 events repeated in the file (skipped)"
    assert [(d, n, sec) for d, _, _, _, _, n, sec in _log(run_cli)] == [
        ("a", None, None),
        ("b", None, None),
        ("a", None, 2.0),
        ("a", "x", None),
    ]
    run_cli("import", "judgments", str(run_cli.write("k.jsonl", _event("z") + "\n" + "\n".join(lines) + "\n")))
    assert len(_log(run_cli)) == 5  # z; the rest was there, in the log or earlier in the file


def test_repeats_are_found_across_the_import_batches(run_cli: Cli) -> None:
    """A long file goes in batches: a line repeating one of an earlier batch is still a repeat
    in the file, and a log line is still found."""
    _judged_store(run_cli)
    docs = [f"d{i}" for i in range(12_000)]
    path = run_cli.write("j.jsonl", "".join(_event(d) + "\n" for d in [*docs, docs[0], docs[-1]]))
    first = run_cli("import", "judgments", str(path))
    assert _said(first) == f"imported 12000 judgment events from {path}; 2 events repeated in the file (skipped)"
    again = run_cli("import", "judgments", str(path))
    assert _said(again) == f"imported 0 judgment events from {path}; 12002 events already in the log (skipped)"
    assert len(_log(run_cli)) == 12_000


def test_a_frozen_version_loads_its_log_exactly(run_cli: Cli) -> None:
    """A version's log is the store's, copied: loaded as it is, even two identical events (an
    older qrelkit imported a file twice), so that it resolves, counts and compares as frozen."""
    from datetime import UTC, datetime

    from qrelkit.models import Judgment, JudgmentState

    _judged_store(run_cli)
    when = datetime(2026, 1, 2, tzinfo=UTC)
    with Store.open(run_cli.db) as s:
        for _ in range(2):
            s.log.record(
                Judgment(query_id="q1", doc_id="a", state=JudgmentState.GRADED, grade=1, assessor="a", timestamp=when)
            )
    run_cli("freeze", "g", "v1", "--out", str(run_cli.tmp / "sets"))
    other = Cli(run_cli.tmp / "o")
    (run_cli.tmp / "o").mkdir()
    other("import", "version", str(run_cli.tmp / "sets" / "g" / "v1"))
    assert len(_log(other)) == 2
    assert "already holds" in other("import", "version", str(run_cli.tmp / "sets" / "g" / "v1")).output
