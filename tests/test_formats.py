from __future__ import annotations

import gzip
import io
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.formats import atomic_write, beir, jsonl, trec, tsv
from qrelkit.models import Judgment, JudgmentState, Label, Query


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_qrels_negative_grade_is_pooled_not_a_label(tmp_path: Path) -> None:
    p = write(tmp_path, "q.txt", "q1 0 d1 2\nq1 0 d2 -1\n# comment\n\nq2 0 d1 0\n")
    recs = list(trec.read_qrels(p))
    assert [(r.query_id, r.doc_id, r.grade, r.line) for r in recs] == [
        ("q1", "d1", 2, 1),
        ("q1", "d2", -1, 2),
        ("q2", "d1", 0, 5),
    ]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 fields, found 3"),
        ("q1 0 d1 x\n", 1, "'x' is not an integer"),
        (
            "q1 0 d1 1\nq1 0 d2 1\nq1 0 d1 2\n",
            3,
            "duplicate judgment for query 'q1' doc 'd1' (first on line 1)",
        ),
        ("q1 0 d1 99999999999\n", 1, "out of range"),
    ],
)
def test_qrels_errors_name_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    p = write(tmp_path, "bad.qrels", text)
    with pytest.raises(InputError) as exc:
        list(trec.read_qrels(p))
    assert exc.value.line == line
    assert f"bad.qrels:{line}:" in exc.value.message
    assert fragment in exc.value.message
    assert exc.value.hint


def test_reader_handles_bom_crlf_and_gzip(tmp_path: Path) -> None:
    raw = "\ufeffq1 0 d1 1\r\nq1 0 d2 0\r\n".encode()
    plain = write(tmp_path, "a.qrels", raw)
    gz = tmp_path / "a.qrels.gz"
    gz.write_bytes(gzip.compress(raw))
    for p in (plain, gz):
        assert [(r.doc_id, r.grade) for r in trec.read_qrels(p)] == [("d1", 1), ("d2", 0)]


def test_reader_rejects_non_utf8_naming_the_line(tmp_path: Path) -> None:
    p = write(tmp_path, "x.qrels", b"q1 0 d1 1\nq1 0 d\xff 1\n")
    with pytest.raises(InputError, match=r"x.qrels:2: not valid UTF-8"):
        list(trec.read_qrels(p))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(trec.read_qrels(tmp_path / "nope"))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("q1 Q0 d1 1 nan run\n", "not finite"),
        ("q1 Q0 d1 1 abc run\n", "not a number"),
        ("q1 Q0 d1 1 2.0\n", "expected 6 fields"),
        ("q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n", "appears twice"),
    ],
)
def test_run_errors(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment):
        list(trec.read_run(write(tmp_path, "r.run", text)))


ids = st.text(alphabet=string.ascii_letters + string.digits + "-_.:/", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.tuples(ids, ids), st.integers(0, 4), max_size=40))
def test_trec_qrels_round_trip(labels: dict[tuple[str, str], int]) -> None:
    buf = io.StringIO()
    trec.write_qrels([Label(query_id=q, doc_id=d, grade=g) for (q, d), g in labels.items()], buf)
    with tempfile.TemporaryDirectory() as folder:  # a file of its own: not a name another run may share
        path = Path(folder) / "rt.qrels"
        path.write_text(buf.getvalue(), encoding="utf-8")
        back = {(r.query_id, r.doc_id): r.grade for r in trec.read_qrels(path)}
    assert back == labels


judgments = st.builds(
    lambda q, d, state, grade, assessor, note, secs: Judgment(
        query_id=q,
        doc_id=d,
        state=state,
        grade=grade if state in (JudgmentState.GRADED, JudgmentState.ADJUDICATED) else None,
        assessor=assessor,
        note=note if state is not JudgmentState.NOTED or (note or "").strip() else "a note",  # a note event has one
        seconds=secs,
    ),
    ids,
    ids,
    st.sampled_from(list(JudgmentState)),
    st.integers(0, 3),
    ids,  # assessor names follow the id rule
    st.none() | st.text(max_size=30),
    st.none() | st.floats(0, 1e4, allow_nan=False),
)


@settings(max_examples=60, deadline=None)
@given(events=st.lists(judgments, max_size=20))
def test_jsonl_judgments_round_trip(events: list[Judgment], tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("rt") / "j.jsonl"
    with atomic_write(path) as out:
        jsonl.write_models(events, out)
    assert [j for _, j in jsonl.read_models(path, Judgment)] == events


@settings(max_examples=40, deadline=None)
@given(
    queries=st.lists(
        st.builds(
            Query,
            id=ids,
            text=st.text(max_size=40),
            stratum=ids,
            description=st.none() | st.text(max_size=20),
        ),
        max_size=15,
    )
)
def test_jsonl_queries_round_trip(queries: list[Query], tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("rt") / "q.jsonl.gz"
    with atomic_write(path) as out:
        jsonl.write_models(queries, out)
    assert [q for _, q in jsonl.read_models(path, Query)] == queries


def test_jsonl_validation_error_names_field_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, "q.jsonl", '{"id": "a", "text": "x"}\n{"id": "b c", "text": "y"}\n')
    with pytest.raises(InputError, match=r"q.jsonl:2: field 'id'"):
        list(jsonl.read_models(p, Query))
    p = write(tmp_path, "q2.jsonl", '{"id": "a", "text": "x"}\n[1, 2]\n')
    with pytest.raises(InputError, match=r"q2.jsonl:2: expected a JSON object"):
        list(jsonl.read_models(p, Query))


def test_judgment_states_are_validated() -> None:
    with pytest.raises(ValueError):
        Judgment(query_id="q", doc_id="d", state=JudgmentState.GRADED, assessor="a")
    with pytest.raises(ValueError):
        Judgment(query_id="q", doc_id="d", state=JudgmentState.SKIPPED, grade=0, assessor="a")


def test_tsv_queries(tmp_path: Path) -> None:
    p = write(tmp_path, "q.tsv", "q1\thow to sort\thow-to\nq2\twhat is a list\n")
    qs = [q for _, q in tsv.read_queries(p)]
    assert [(q.id, q.stratum) for q in qs] == [("q1", "how-to"), ("q2", "default")]
    bad = write(tmp_path, "b.tsv", "q1\ta\tb\tc\n")
    with pytest.raises(InputError, match=r"b.tsv:1: expected 2 or 3"):
        list(tsv.read_queries(bad))


def test_beir_folder(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    write(tmp_path, "corpus.jsonl", '{"_id": "d1", "title": "T", "text": "body"}\n{"_id": 7, "text": "x"}\n')
    write(tmp_path, "queries.jsonl", '{"_id": "q1", "text": "find"}\n')
    write(tmp_path, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\n")
    assert [d.id for _, d in beir.read_corpus_lines(tmp_path)] == ["d1", "7"]
    assert [(n, q.id) for n, q in beir.read_queries(tmp_path, "s")] == [(1, "q1")]
    assert [(r.query_id, r.doc_id, r.grade) for r in beir.read_qrels(beir.split_path(tmp_path, "test"))] == [
        ("q1", "d1", 2)
    ]


def test_atomic_write_leaves_target_untouched_on_error(tmp_path: Path) -> None:
    target = write(tmp_path, "out.txt", "old\n")
    with pytest.raises(RuntimeError), atomic_write(target) as out:
        out.write("partial")
        raise RuntimeError("boom")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_write_to_a_pipe_writes_through_and_keeps_the_pipe(tmp_path: Path) -> None:
    """Renaming a temporary file over a device or a pipe would replace it (it once replaced
    /dev/null when a benchmark passed `--out /dev/null`)."""
    import os
    import stat
    import threading

    from qrelkit.formats.writing import atomic_write

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    with atomic_write(fifo) as out:
        out.write("through the pipe\n")
    reader.join(timeout=10)
    assert got == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
