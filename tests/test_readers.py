"""The readers: run layouts (3, 4, 6 and more fields), header rows, 32-bit grades, JSON dict runs
and qrels, JSON Lines qrels, documents with `_id` and metadata, and the Python API's record shapes.

References: records written out by hand in each test, trec_eval's own test run (`results.trunc`,
whose lines carry 6 to 9 fields) scored by pytrec_eval, and ir_measures' record types."""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import trec_eval
from qrelkit.errors import InputError, UsageError
from qrelkit.formats import jsondict, jsonl, trec, tsv
from qrelkit.formats.columns import Columns, trec_columns
from qrelkit.formats.records import qrels_rows, run_rows
from qrelkit.formats.runs import (
    file_kind,
    is_report,
    read_qrels_file,
    read_qrels_records,
    read_run_file,
    read_run_records,
)
from qrelkit.models import Label
from qrelkit.scoring import evaluate

DATA = Path(__file__).parent / "data" / "readers"

# one run, written in each layout: (query, doc, rank, score)
ROWS = [("q1", "d1", 1, 2.5), ("q1", "d2", 2, 1.25), ("q2", "d1", 1, -0.5), ("q2", "d3", 2, 1e-3)]
LAYOUTS = {
    "3 fields": lambda q, d, r, s: f"{q} {d} {s}",
    "4 fields": lambda q, d, r, s: f"{q}\t{d}\t{r}\t{s}",
    "6 fields": lambda q, d, r, s: f"{q} Q0 {d} {r} {s} tag",
    "9 fields": lambda q, d, r, s: f"{q} Q0 {d} {r} {s} tag extra junk here",
}
EXPECTED = [("q1", "d1", 2.5), ("q1", "d2", 1.25), ("q2", "d1", -0.5), ("q2", "d3", 0.001)]


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def triples(columns: Columns) -> list[tuple[str, str, float]]:
    return [
        (q.decode(), d.decode(), float(v))
        for q, d, v in zip(columns.query.tolist(), columns.doc.tolist(), columns.value.tolist(), strict=True)
    ]


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_run_layout_gives_the_same_records_through_both_readers(tmp_path: Path, layout: str) -> None:
    text = "\n".join(LAYOUTS[layout](*row) for row in ROWS) + "\n"
    path = write(tmp_path / "r.run", text)
    assert [(r.query_id, r.doc_id, r.score) for r in trec.read_run(path)] == EXPECTED
    fast = trec_columns(text.encode(), "run")
    assert fast is not None, "the fast path reads every regular layout"
    assert triples(fast.columns) == EXPECTED
    read = read_run_file(path)
    assert read.doc_hash is not None and triples(read.columns) == EXPECTED


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_header_row_is_skipped_in_every_layout(tmp_path: Path, layout: str) -> None:
    header = {"3 fields": "qid docid score", "4 fields": "query_id\tdoc_id\trank\tscore"}.get(
        layout, "qid Q0 docno rank score tag" + (" a b c" if layout == "9 fields" else "")
    )
    text = header + "\n" + "\n".join(LAYOUTS[layout](*row) for row in ROWS) + "\n"
    path = write(tmp_path / "r.run", text)
    assert [(r.query_id, r.doc_id, r.score, r.line) for r in trec.read_run(path)][0] == ("q1", "d1", 2.5, 2)
    fast = trec_columns(text.encode(), "run")
    assert fast is not None and triples(fast.columns) == EXPECTED


def test_lines_with_a_varying_number_of_extra_fields_are_read_as_trec_eval_reads_them(tmp_path: Path) -> None:
    text = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.25 tag more\nq2 Q0 d1 1 -0.5 tag a b c\nq2 Q0 d3 2 1e-3 t\n"
    assert trec_columns(text.encode(), "run") is None  # irregular: the exact reader reads it
    assert triples(read_run_file(write(tmp_path / "r.run", text)).columns) == EXPECTED


def test_trec_evals_own_test_run_with_up_to_9_fields_scores_as_pytrec_eval_does() -> None:
    path = DATA / "results.trunc"
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    assert {len(f) for f in lines} == {6, 7, 8, 9}
    run: dict[str, dict[str, float]] = {}
    for f in lines:  # the reference parse: trec_eval's first six fields
        run.setdefault(f[0], {})[f[2]] = float(f[4])
    read = read_run_file(path)
    assert triples(read.columns) == [(f[0], f[2], float(f[4])) for f in lines]
    qrels: dict[str, dict[str, int]] = {}
    for rec in trec.read_qrels(DATA / "qrels.test"):
        qrels.setdefault(rec.query_id, {})[rec.doc_id] = rec.grade
    ours = evaluate(qrels, [(r.query_id, r.doc_id, r.score) for r in read_run_records(path)], "AP,nDCG,P@10,RR")
    reference = trec_eval(qrels, run, ["map", "ndcg", "P.10", "recip_rank"])
    values = ours.per_query()
    assert set(reference) == {"301", "303"}  # 302 is not in the truncated run
    for q, ref in reference.items():
        assert values[q]["AP"] == pytest.approx(ref["map"], abs=1e-9)
        assert values[q]["nDCG"] == pytest.approx(ref["ndcg"], abs=1e-9)
        assert values[q]["P@10"] == pytest.approx(ref["P_10"], abs=1e-9)
        assert values[q]["RR"] == pytest.approx(ref["recip_rank"], abs=1e-9)


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("q1 Q0 d1 1 2.0\n", 1, "expected 6 fields (or 3 or 4), found 5"),
        ("q1 d1 2.0\nq1 d2 3 1.0\n", 2, "expected 3 fields, found 4"),
        ("q1 d1 1 2.0\nq1 d2 1.0\n", 2, "expected 4 fields, found 3"),
        ("q1 Q0 d1 1 2.0 r x y\nq1 Q0 d2 2 1.0\n", 2, "expected 6 or more fields, found 5"),
        ("q1 d1 high\n", 1, "score 'high' is not a number"),
        ("q1 d1 1 nan\n", 1, "score 'nan' is not finite"),
        ("q1 d1 2\nq1 d1 1\n", 2, "document 'd1' appears twice"),
        ("docid qid score\nq1 d1 1\n", 1, "score 'score' is not a number"),  # not a header: data
    ],
)
def test_bad_run_lines_are_named_by_both_readers(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = write(tmp_path / "bad.run", text)
    for read in (lambda: list(trec.read_run(path)), lambda: read_run_file(path)):
        with pytest.raises(InputError) as exc:
            read()
        assert exc.value.line == line and fragment in exc.value.message, exc.value.message
        assert f"bad.run:{line}:" in exc.value.message and exc.value.hint


@pytest.mark.parametrize(
    "text",
    [
        "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td3\t-1\n",
        "qid docid rel\nq1 d1 2\nq1 d2 0\nq2 d3 -1\n",
        "query_id iter doc_id relevance\nq1 0 d1 2\nq1 0 d2 0\nq2 0 d3 -1\n",
        "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 -1\n",
    ],
)
def test_qrels_with_three_fields_after_a_header_or_four(tmp_path: Path, text: str) -> None:
    expected = [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", -1)]
    path = write(tmp_path / "x.tsv", text)
    assert [(r.query_id, r.doc_id, r.grade) for r in trec.read_qrels(path)] == expected
    fast = trec_columns(text.encode(), "qrels")
    assert fast is not None and triples(fast.columns) == expected
    assert triples(read_qrels_file(path).columns) == expected


def test_three_field_qrels_without_a_header_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"x.qrels:1: expected 4 fields, found 3"):
        list(trec.read_qrels(write(tmp_path / "x.qrels", "q1 d1 1\n")))


@pytest.mark.parametrize("grade", [50, 200, 40_000, 2**31 - 1, -(2**31)])
def test_grades_that_fit_a_signed_32_bit_int_are_read(tmp_path: Path, grade: int) -> None:
    text = f"q1 0 d1 {grade}\nq1 0 d2 1\n"
    path = write(tmp_path / "x.qrels", text)
    assert [r.grade for r in trec.read_qrels(path)] == [grade, 1]
    fast = trec_columns(text.encode(), "qrels")
    assert fast is not None and fast.columns.value.tolist() == [grade, 1]
    assert read_qrels_file(path).columns.value.tolist() == [grade, 1]


@pytest.mark.parametrize("grade", [2**31, -(2**31) - 1, 10**30])
def test_grades_beyond_32_bits_are_refused_by_every_reader(tmp_path: Path, grade: int) -> None:
    for name, text, line in (
        ("x.qrels", f"q1 0 d1 1\nq1 0 d2 {grade}\n", 2),
        ("x.json", json.dumps({"q1": {"d1": 1, "d2": grade}}, indent=1), 4),  # {, "q1": {, "d1", "d2"
        (
            "x.jsonl",
            '{"query_id":"q1","doc_id":"d1","grade":1}\n'
            + json.dumps({"query_id": "q", "doc_id": "d", "grade": grade}),
            2,
        ),
    ):
        path = write(tmp_path / name, text)
        with pytest.raises(InputError, match=rf"{name}:{line}: grade -?[0-9]+ is out of range"):
            read_qrels_file(path)


JSON_RUN = '{\n  "q1": {"d1": 2.5, "d2": 1.25},\n  "q2": {"d1": -0.5, "d3": 0.001}\n}\n'


@pytest.mark.parametrize("name", ["run.json", "run.json.gz", "run.txt", "run"])
def test_a_json_dict_run_is_found_by_content_or_suffix(tmp_path: Path, name: str) -> None:
    data = JSON_RUN.encode()
    path = write(tmp_path / name, gzip.compress(data) if name.endswith(".gz") else data)
    assert file_kind(path) == "json" and not is_report(path)
    assert [(r.query_id, r.doc_id, r.score, r.line) for r in read_run_records(path)] == [
        ("q1", "d1", 2.5, 2),
        ("q1", "d2", 1.25, 2),
        ("q2", "d1", -0.5, 3),
        ("q2", "d3", 0.001, 3),
    ]
    assert triples(read_run_file(path).columns) == EXPECTED


def test_json_dict_qrels_read_as_pytrec_eval_takes_them(tmp_path: Path) -> None:
    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": -1}}
    path = write(tmp_path / "qrels.json", json.dumps(qrels))
    assert [(r.query_id, r.doc_id, r.grade) for r in read_qrels_records(path)] == [
        ("q1", "d1", 2),
        ("q1", "d2", 0),
        ("q2", "d3", -1),
    ]
    assert triples(read_qrels_file(path).columns) == [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", -1)]


def test_a_saved_report_is_still_a_report(tmp_path: Path) -> None:
    assert is_report(write(tmp_path / "a.json", '{"reports": []}'))
    assert is_report(write(tmp_path / "b.json", '{"fingerprint": {"run": 1}}'))
    assert is_report(write(tmp_path / "c.json", "[1, 2]"))
    assert is_report(write(tmp_path / "d.json", "garbage"))
    assert not is_report(write(tmp_path / "e.json", '{"q1": {"d1": 1}}'))


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('{\n "q1": {"d1": 1.5,\n        "d1": 0.5}\n}', 3, "the key 'd1' appears twice"),
        ('{"q1": {"d1": 1},\n "q1": {"d2": 1}}', 2, "the key 'q1' appears twice"),
        ('{"q1": {"d1": "x"}}', 1, "score 'x' is not a finite number"),
        ('{"q1": {"d1": NaN}}', 1, "not a finite number"),
        ('{"q1": {"d1": 1}\n\n,}', 3, "expected a quoted key"),
        ('{"q1": {"d1": 1}} trailing', 1, "text after the JSON object"),
        ('{"q1": [1, 2]}', 1, "expected a JSON object"),
        ('{"q1": {"d 1": 1}}', 1, "document id 'd 1' contains white space"),
        ('{"q1":\n {"d1": 1', 2, "expected ',' or '}'"),
    ],
)
def test_bad_json_dict_runs_are_named_by_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = write(tmp_path / "bad.json", text)
    with pytest.raises(InputError) as exc:
        read_run_file(path)
    assert exc.value.line == line and fragment in exc.value.message, exc.value.message
    assert "bad.json" in exc.value.message and exc.value.hint


def test_bad_json_dict_qrels_grades(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"q.json:2: grade 1.5 is not an integer"):
        list(jsondict.read_qrels(write(tmp_path / "q.json", '{"q1":\n {"d1": 1.5}}')))
    with pytest.raises(InputError, match=r"q.json:1: grade True is not an integer"):
        list(jsondict.read_qrels(write(tmp_path / "q.json", '{"q1": {"d1": true}}')))


def test_jsonl_qrels_as_export_writes_them(tmp_path: Path) -> None:
    labels = [Label(query_id="q1", doc_id="d1", grade=3), Label(query_id="q2", doc_id="d9", grade=0)]
    path = tmp_path / "labels.jsonl"
    with open(path, "w") as fh:
        jsonl.write_models(labels, fh)
    assert file_kind(path) == "jsonl"
    assert [(r.query_id, r.doc_id, r.grade) for r in read_qrels_records(path)] == [("q1", "d1", 3), ("q2", "d9", 0)]
    no_suffix = write(tmp_path / "labels", path.read_text())  # found by content too
    assert triples(read_qrels_file(no_suffix).columns) == [("q1", "d1", 3), ("q2", "d9", 0)]
    with pytest.raises(InputError, match=r"labels.jsonl:2: duplicate judgment .* \(first on line 1\)"):
        list(jsonl.read_qrels(write(path, (path.read_text().splitlines()[0] + "\n") * 2)))


def test_jsonl_qrels_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"x.jsonl:1: grade '2' is not an integer"):
        list(jsonl.read_qrels(write(tmp_path / "x.jsonl", '{"query_id": "q", "doc_id": "d", "grade": "2"}\n')))
    with pytest.raises(InputError, match=r"x.jsonl:1: query_id and doc_id must be non-empty strings"):
        list(jsonl.read_qrels(write(tmp_path / "x.jsonl", '{"query_id": "q", "grade": 2}\n')))


def test_documents_take_id_or_underscore_id_and_keep_other_fields_as_metadata(tmp_path: Path) -> None:
    path = write(
        tmp_path / "docs.jsonl",
        '{"_id": "d1", "title": "T", "text": "x", "url": "http://a", "metadata": {"lang": "en", "n": [1, 2]}}\n'
        '{"id": "d2", "text": "y"}\n'
        '{"_id": "d3", "metadata": "free text"}\n',
    )
    docs = [d for _, d in jsonl.read_documents(path)]
    assert [(d.id, d.title, d.text) for d in docs] == [("d1", "T", "x"), ("d2", "", "y"), ("d3", "", "")]
    assert docs[0].metadata == {"lang": "en", "n": [1, 2], "url": "http://a"}
    assert docs[1].metadata is None
    assert docs[2].metadata == {"metadata": "free text"}


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"id": "d1", "_id": "d1"}', "gives both 'id' and '_id'"),
        ('{"id": "d1", "url": "a", "metadata": {"url": "b"}}', "field 'url' is given twice"),
        ('{"_id": "d 1"}', "field 'id' is 'd 1', not a single word"),
        ('{"_id": "d1", "text": 5}', "field 'text' must be a string (found 5)"),
        ('{"title": "t"}', "field 'id' is missing"),
    ],
)
def test_bad_documents_are_named_in_our_words(tmp_path: Path, line: str, fragment: str) -> None:
    with pytest.raises(InputError) as exc:
        list(jsonl.read_documents(write(tmp_path / "d.jsonl", '{"id": "ok"}\n' + line + "\n")))
    assert exc.value.line == 2 and fragment in exc.value.message, exc.value.message
    assert "Input should" not in str(exc.value) and "pattern" not in str(exc.value)


def test_queries_take_underscore_id_and_tsv_header_rows(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", '{"_id": "q1", "text": "hello", "stratum": "nav"}\n')
    assert [(q.id, q.text, q.stratum) for _, q in jsonl.read_queries(path)] == [("q1", "hello", "nav")]
    tsv_path = write(tmp_path / "q.tsv", "id\ttext\tstratum\nq1\thello\tnav\nq2\tworld\tnav\n")
    assert [(n, q.id) for n, q in tsv.read_queries(tsv_path)] == [(2, "q1"), (3, "q2")]
    no_header = write(tmp_path / "r.tsv", "q1\thello\n")
    assert [q.id for _, q in tsv.read_queries(no_header)] == ["q1"]


class _Named:
    """Any object with query_id, doc_id and a value attribute (as pyterrier / ir_datasets rows)."""

    def __init__(self, query_id: str, doc_id: str, relevance: int) -> None:
        self.query_id, self.doc_id, self.relevance = query_id, doc_id, relevance


def test_the_python_api_takes_ir_measures_records_tuples_iterables_and_dicts() -> None:
    qrels_dict = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    run_dict = {"q1": {"d1": 1.0, "d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0, "d4": 0.5}}
    flat_q = [(q, d, g) for q, docs in qrels_dict.items() for d, g in docs.items()]
    flat_r = [(q, d, s) for q, docs in run_dict.items() for d, s in docs.items()]
    qrels_forms: list[Callable[[], Any]] = [
        lambda: qrels_dict,
        lambda: [ir_measures.Qrel(q, d, g) for q, d, g in flat_q],
        lambda: (row for row in flat_q),  # a generator
        lambda: [list(row) for row in flat_q],
        lambda: [{"query_id": q, "doc_id": d, "relevance": g} for q, d, g in flat_q],
        lambda: [Label(query_id=q, doc_id=d, grade=g) for q, d, g in flat_q],
        lambda: [_Named(q, d, g) for q, d, g in flat_q],
    ]
    run_forms: list[Callable[[], Any]] = [
        lambda: run_dict,
        lambda: [ir_measures.ScoredDoc(q, d, s) for q, d, s in flat_r],
        lambda: iter(flat_r),
        lambda: [{"query_id": q, "doc_id": d, "score": s} for q, d, s in flat_r],
    ]
    reference = trec_eval(qrels_dict, run_dict, ["ndcg_cut.10", "recip_rank", "map"])
    assert set(reference) == {"q1", "q2"}
    for qrels in qrels_forms:
        for run in run_forms:
            values = evaluate(qrels(), run(), "nDCG@10,RR,AP").per_query()
            for q, ref in reference.items():
                assert values[q]["nDCG@10"] == pytest.approx(ref["ndcg_cut_10"], abs=1e-9)
                assert values[q]["RR"] == pytest.approx(ref["recip_rank"], abs=1e-9)
                assert values[q]["AP"] == pytest.approx(ref["map"], abs=1e-9)


def test_the_python_api_refuses_records_it_cannot_read() -> None:
    assert qrels_rows([("q", "d", 2)]) == ([("q", "d", 2.0)], ["q"])
    assert run_rows([("q", "d", 1)]) == [("q", "d", 1.0)]
    with pytest.raises(UsageError, match="record 2: .* is no \\(query_id, doc_id, relevance\\) record"):
        qrels_rows([("q", "d", 1), ("q", "d")])
    with pytest.raises(UsageError, match="record 1: the grade 1.5 is not an integer"):
        qrels_rows([("q", "d", 1.5)])
    with pytest.raises(UsageError, match="record 1: the score 'x' is not a finite number"):
        run_rows([("q", "d", "x")])
    with pytest.raises(UsageError, match="the score nan is not a finite number"):
        run_rows({"q": {"d": float("nan")}})


def test_the_python_api_takes_numpy_numbers_and_refuses_a_flat_dict() -> None:
    import numpy as np

    rows, queries = qrels_rows({"q": {"d": np.int64(2), "e": np.float64(1.0)}})
    assert rows == [("q", "d", 2.0), ("q", "e", 1.0)] and queries == ["q"]
    assert run_rows([("q", "d", np.float32(0.5))]) == [("q", "d", 0.5)]
    with pytest.raises(UsageError, match="query 'q' maps to list, not a dict of documents"):
        qrels_rows({"q": [("d", 1)]})
    with pytest.raises(UsageError, match="the grade True is not an integer"):
        qrels_rows([("q", "d", True)])


_ids = st.text(alphabet="abcXYZ019-_.:", min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(st.tuples(_ids, _ids), st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30),
    st.sampled_from(list(LAYOUTS)),
    st.booleans(),
    st.sampled_from([" ", "\t", "  ", " \t"]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_the_fast_and_exact_run_readers_agree_on_generated_files(
    rows: dict[tuple[str, str], float], layout: str, header: bool, sep: str, newline: str
) -> None:
    lines = [LAYOUTS[layout](q, d, i + 1, repr(s)).replace(" ", sep) for i, ((q, d), s) in enumerate(rows.items())]
    if header:
        lines.insert(
            0, {"3 fields": "qid docid score", "4 fields": "qid docid rank score"}.get(layout, "qid a b c d e")
        )
    data = (newline.join(lines) + newline).encode()
    expected = [(q, d, s) for (q, d), s in rows.items()]
    fast = trec_columns(data, "run")
    if fast is not None:  # the fast path may give up (it never decides), but never disagrees
        assert triples(fast.columns) == expected
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "r.run", data)
        assert [(r.query_id, r.doc_id, r.score) for r in trec.read_run(path)] == expected
        assert triples(read_run_file(path).columns) == expected
