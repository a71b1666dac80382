"""Run layouts read as their writers meant (issue 24): the rank field is an integer wherever a
layout has one, a 4-field line whose second field is `Q0` is refused, and a 3-field file whose
third column runs 1..n within each query is MS MARCO's `qid pid rank` (ranked by rank). Every path
agrees: the exact line reader, the numpy tokeniser, the pyarrow tokeniser (files of
`COMPILED_FROM` bytes or more, lowered here), blocks of a few lines and the exact fallback.

References: the records each test writes out by hand, and the exact reader for the property
tests (irregular white space, CRLF, blank lines, UTF-8 and ids of every width)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Cli, one_report
from qrelkit.errors import InputError
from qrelkit.formats import columns, runs, trec
from qrelkit.formats.columns import trec_columns
from qrelkit.formats.runs import read_run_file, read_run_records
from qrelkit.formats.trec import RunFormat
from thresholds import lowered

Outcome = tuple[object, ...]


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def outcome(read: Callable[[], list[tuple[str, str, float]]]) -> Outcome:
    """What a reader made of a file: its (query, doc, score) rows, or the line and message it refused."""
    try:
        return ("rows", read())
    except InputError as exc:
        return ("refused", exc.line, exc.message)


def exact(path: Path, run_format: RunFormat = "auto") -> Outcome:
    return outcome(lambda: [(r.query_id, r.doc_id, r.score) for r in trec.read_run(path, run_format=run_format)])


def rows_of(run: runs.RunFile) -> list[tuple[str, str, float]]:
    c = run.columns
    return [
        (q.decode(), d.decode(), float(v))
        for q, d, v in zip(c.query.tolist(), c.doc.tolist(), c.value.tolist(), strict=True)
    ]


def scored(path: Path, run_format: RunFormat = "auto") -> Outcome:
    return outcome(lambda: rows_of(read_run_file(path, run_format)))


# -- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "run_format", "line", "fragment", "hint"),
    [
        ("q1 d1 abc 3.5\n", "auto", 1, "rank 'abc' is not an integer", "write the rank as an integer"),
        ("q1 d1 1 3.5\nq1 d2 2.0 1.5\n", "auto", 2, "rank '2.0' is not an integer", "write the rank"),
        ("q1 Q0 d1 x 2.5 t\n", "auto", 1, "rank 'x' is not an integer", "write the rank"),
        ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 - 1.5 t\n", "auto", 2, "rank '-' is not an integer", "write the rank"),
        ("q1 Q0 d1 +1 2.5 t\n", "auto", 1, "rank '+1' is not an integer", "write the rank"),
        ("q1 Q0 d1 0x1F 2.5 t\n", "auto", 1, "rank '0x1F' is not an integer", "write the rank"),
        ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 -0X1 2.5 t\n", "auto", 2, "rank '-0X1' is not", "write the rank"),
        (
            "q1 Q0 d1 1\n",
            "auto",
            1,
            "Q0 as its second field",
            "a TREC run line has 6 fields: qid Q0 docid rank score tag",
        ),
        ("q1 d0 1 2.5\nq1 Q0 d1 2\n", "auto", 2, "Q0 as its second field", "qid Q0 docid rank score tag"),
        ("q1 d1 1\n", "trec", 1, "expected 6 fields (qid Q0 docid rank score tag)", "run lines are"),
        ("q1 d1 1 2.5\n", "trec", 1, "expected 6 fields", "run lines are"),
        ("q1 Q0 d1 1 2.5 t\n", "msmarco", 1, "expected 3 fields (qid pid rank)", "run lines are"),
        ("q1 Q0 d1 1 2.5 t\n", "scores", 1, "expected 3 fields (qid docid score)", "run lines are"),
        ("q1 d1 1\nq1 d2 1\n", "msmarco", 2, "rank 1 follows rank 1 for query 'q1'", "ranks rising"),
        ("q1 d1 2\nq2 d1 1\nq1 d2 1\n", "msmarco", 3, "rank 1 follows rank 2 for query 'q1'", "ranks rising"),
        ("q1 d1 1\nq1 d2 2.5\n", "msmarco", 2, "rank '2.5' is not an integer", "--run-format scores"),
        ("q1 d1 -1\n", "msmarco", 1, "rank '-1' is not an integer", "MS MARCO"),
        ("q1 d1 2147483648\n", "msmarco", 1, "rank 2147483648 is too large", "at most"),
    ],
)
def test_every_path_refuses_the_same_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    run_format: RunFormat,
    line: int,
    fragment: str,
    hint: str,
) -> None:
    path = write(tmp_path / "bad.run", text)
    readers = [
        lambda: list(trec.read_run(path, run_format=run_format)),
        lambda: list(read_run_records(path, run_format=run_format)),
        lambda: read_run_file(path, run_format),
    ]
    for read in readers:
        with pytest.raises(InputError) as exc:
            read()  # type: ignore[no-untyped-call]
        assert exc.value.line == line and fragment in exc.value.message, exc.value.message
        assert f"bad.run:{line}:" in exc.value.message and exc.value.hint and hint in exc.value.hint
    monkeypatch.setattr(columns, "COMPILED_FROM", 0)  # the pyarrow path, where installed
    with pytest.raises(InputError) as exc:
        read_run_file(path, run_format)
    assert exc.value.line == line and fragment in exc.value.message
    for large in (False, True):  # the fast parser steps aside: the exact reader names the line
        assert trec_columns(text.encode(), "run", large=large, run_format=run_format) is None


def test_a_json_run_takes_no_text_layout(tmp_path: Path) -> None:
    jsonl_run = write(tmp_path / "r.jsonl", '{"query_id": "q1", "doc_id": "d1", "score": 1.5}\n')
    dict_run = write(tmp_path / "r.json", '{"q1": {"d1": 1.5}}')
    for path in (jsonl_run, dict_run):
        assert rows_of(read_run_file(path)) == [("q1", "d1", 1.5)]
        for read in (
            lambda p=path: read_run_file(p, "msmarco"),
            lambda p=path: list(read_run_records(p, run_format="trec")),
        ):
            with pytest.raises(InputError, match="is for TREC text runs"):
                read()


@pytest.mark.parametrize(
    ("rank", "ok"), [("3", True), ("-1", True), ('"3"', False), ("2.0", False), ("true", False), ("null", False)]
)
def test_a_json_lines_rank_is_an_integer(tmp_path: Path, rank: str, ok: bool) -> None:
    path = write(tmp_path / "r.jsonl", f'{{"query_id": "q1", "doc_id": "d1", "score": 1.5, "rank": {rank}}}\n')
    for read in (lambda: read_run_file(path).columns.value.tolist(), lambda: [r.score for r in read_run_records(path)]):
        if ok:
            assert read() == [1.5]  # the rank is checked, then ignored: the score ranks
        else:
            with pytest.raises(InputError, match="rank .* is not an integer") as exc:
                read()
            assert exc.value.line == 1


# -- MS MARCO ranks --------------------------------------------------------------------------


MSMARCO = "q1\td7\t1\nq1\td3\t2\nq1\td9\t3\nq2\td3\t1\nq2\td1\t2\n"
AS_RANKS = [("q1", "d7", -1.0), ("q1", "d3", -2.0), ("q1", "d9", -3.0), ("q2", "d3", -1.0), ("q2", "d1", -2.0)]


@pytest.mark.parametrize("run_format", ["auto", "msmarco"])
def test_an_ms_marco_run_is_ranked_by_rank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_format: RunFormat
) -> None:
    path = write(tmp_path / "dev.tsv", MSMARCO)
    run = read_run_file(path, run_format)
    assert run.ranks and run.read_as == trec.MSMARCO_NOTE and run.doc_hash is not None  # the fast path read it
    assert rows_of(run) == AS_RANKS
    assert [(r.query_id, r.doc_id, r.score) for r in trec.read_run(path, run_format=run_format)] == AS_RANKS
    monkeypatch.setattr(columns, "COMPILED_FROM", 0)
    assert rows_of(read_run_file(path, run_format)) == AS_RANKS
    irregular = write(tmp_path / "irregular.tsv", "# a comment\n" + MSMARCO)  # the exact fallback
    fallback = read_run_file(irregular, run_format)
    assert fallback.ranks and fallback.doc_hash is None and rows_of(fallback) == AS_RANKS


def test_an_explicit_ms_marco_run_may_start_anywhere_and_skip_ranks(tmp_path: Path) -> None:
    path = write(tmp_path / "r.tsv", "q1 a 0\nq1 b 4\nq1 c 9\nq2 a 3\n")
    assert rows_of(read_run_file(path, "msmarco")) == [
        ("q1", "a", -0.0),
        ("q1", "b", -4.0),
        ("q1", "c", -9.0),
        ("q2", "a", -3.0),
    ]
    assert not read_run_file(path).ranks  # auto: 0, 4, 9 are no 1..n: scores
    assert rows_of(read_run_file(path))[1] == ("q1", "b", 4.0)


@pytest.mark.parametrize(
    "text",
    [
        "q1 d1 1\nq1 d2 3\n",  # a gap
        "q1 d1 2\nq1 d2 1\n",  # descending: scores
        "q1 d1 1\nq1 d2 2.0\n",  # 2.0 is no rank
        "q1 d1 1\nq1 d2 +2\n",
        "q1 d1 1.5\nq1 d2 2\n",
        "q1 d1 1\nq2 d2 2\n",  # q2 does not start at 1
    ],
)
def test_a_third_column_that_is_not_1_to_n_holds_scores(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "r.run", text)
    expected = [(f[0], f[1], float(f[2])) for f in (line.split() for line in text.splitlines())]
    run = read_run_file(path)
    assert not run.ranks and run.read_as is None and rows_of(run) == expected
    assert exact(path) == ("rows", expected)


def test_scores_that_look_like_ranks_are_scores_when_told(tmp_path: Path) -> None:
    path = write(tmp_path / "r.run", "q1 d1 1\nq1 d2 2\n")
    assert rows_of(read_run_file(path)) == [("q1", "d1", -1.0), ("q1", "d2", -2.0)]
    assert rows_of(read_run_file(path, "scores")) == [("q1", "d1", 1.0), ("q1", "d2", 2.0)]
    assert exact(path, "scores") == ("rows", [("q1", "d1", 1.0), ("q1", "d2", 2.0)])


def test_the_six_field_layout_is_read_as_before(tmp_path: Path) -> None:
    text = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 -3 0.5 t x y\n"
    path = write(tmp_path / "r.run", text)
    for run_format in ("auto", "trec"):
        run = read_run_file(path, run_format)
        assert not run.ranks and rows_of(run) == [("q1", "d1", 2.5), ("q1", "d2", 1.5), ("q2", "d1", 0.5)]


# -- every path agrees -----------------------------------------------------------------------

ASCII_IDS = st.text(st.sampled_from(list("abcXYZ019-_.:/")), min_size=1, max_size=30).filter(lambda s: s[0] != "#")
UTF8_IDS = st.text(st.sampled_from(list("abc019-") + ["é", "中", "ß"]), min_size=1, max_size=30)
SEPARATORS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t"])


@st.composite
def run_texts(draw: st.DrawFn) -> tuple[str, RunFormat]:
    """A run in one layout, written irregularly, sometimes with one line spoilt."""
    layout = draw(st.sampled_from(["ranks", "scores", "near-ranks", "4", "6", "9"]))
    ids = UTF8_IDS if draw(st.integers(0, 4)) == 0 else ASCII_IDS  # non-ASCII: the exact reader reads it
    queries = draw(st.lists(ids, min_size=1, max_size=5, unique=True))
    lines: list[list[str]] = []
    for q in queries:
        docs = draw(st.lists(ids, min_size=1, max_size=8, unique=True))
        for i, d in enumerate(docs, 1):
            value = draw(st.sampled_from(["2.5", "-1", "0.125", "7", "1e3", str(len(docs) - i)]))
            if layout in ("ranks", "near-ranks"):
                lines.append([q, d, str(i)])
            elif layout == "scores":
                lines.append([q, d, value])
            elif layout == "4":
                lines.append([q, d, str(i), value])
            else:
                lines.append([q, "Q0", d, str(i), value, "tag"] + (["x", "y", "z"] if layout == "9" else []))
    if layout == "near-ranks":  # one value off the 1..n run
        at = draw(st.integers(0, len(lines) - 1))
        lines[at][2] = draw(st.sampled_from(["0", "2.0", "+1", str(int(lines[at][2]) + 1), "01", "-1"]))
    if draw(st.integers(0, 2)) == 0:  # spoil one line
        at = draw(st.integers(0, len(lines) - 1))
        spoil = draw(st.sampled_from(["rank", "q0", "drop", "nan"]))
        fields = lines[at]
        if spoil == "rank" and len(fields) >= 4:
            fields[3 if len(fields) >= 6 else 2] = draw(
                st.sampled_from(["abc", "1.5", "-", "+2", "1e2", "0x1F", "-0x1", "99999999999999999999"])
            )
        elif spoil == "q0" and len(fields) == 4:
            fields[1] = "Q0"
        elif spoil == "drop":
            fields.pop()
        elif spoil == "nan":
            fields[{3: 2, 4: 3}.get(len(fields), 4)] = "nan"
    if draw(st.integers(0, 3)) == 0:  # queries interleaved: not one block each
        order = draw(st.permutations(range(len(lines))))
        lines = [lines[i] for i in order]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    out = []
    for fields in lines:
        out.append(draw(SEPARATORS).join(fields) + newline)
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["\n", " \n", "\t\r\n"])))
    fitting = {"ranks": "msmarco", "near-ranks": "msmarco", "scores": "scores", "4": "auto"}.get(layout, "trec")
    run_format = draw(st.sampled_from(["auto", "auto", "auto", fitting, fitting, "trec", "scores", "msmarco"]))
    return "".join(out), run_format  # type: ignore[return-value]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=run_texts())
def test_fast_and_exact_agree_on_every_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[str, RunFormat]
) -> None:
    text, run_format = case
    path = write(tmp_path / "r.run", text)
    want = exact(path, run_format)
    assert scored(path, run_format) == want
    for large in (False, True):
        fast = trec_columns(text.encode(), "run", large=large, run_format=run_format)
        if fast is not None:  # the fast parser reads it or steps aside; it never reads it otherwise
            assert want[0] == "rows"
            assert list(
                zip(fast.columns.query.tolist(), fast.columns.doc.tolist(), fast.columns.value.tolist(), strict=True)
            ) == [
                (q.encode(), d.encode(), v)
                for q, d, v in want[1]  # type: ignore[attr-defined]
            ]
    for compiled in (False, True):  # every threshold crossed: blocks of a line or two, small chunks, pyarrow
        with lowered(compiled=compiled):
            assert scored(path, run_format) == want


def test_a_large_ms_marco_file_agrees_across_the_thresholds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many blocks of a file past `COMPILED_FROM`, each query spread over several of them."""
    rng = np.random.default_rng(7)
    lines = [f"{q}\t{rng.integers(10**6)}x{r}\t{r}\n" for q in range(300) for r in range(1, 201)]
    path = write(tmp_path / "big.tsv", "".join(lines))
    monkeypatch.setattr(runs, "BLOCK", 4096)
    plain = read_run_file(path)
    monkeypatch.setattr(columns, "COMPILED_FROM", 0)
    compiled = read_run_file(path)
    assert plain.ranks and compiled.ranks and plain.doc_hash is not None and compiled.doc_hash is not None
    assert np.array_equal(plain.columns.value, compiled.columns.value)
    assert plain.columns.value[:3].tolist() == [-1.0, -2.0, -3.0]
    assert rows_of(plain) == [(r.query_id, r.doc_id, r.score) for r in trec.read_run(path)]
    spoilt = write(tmp_path / "spoilt.tsv", "".join(lines[:-1]) + lines[-1].replace("\t200", "\t201"))
    assert not read_run_file(spoilt).ranks and read_run_file(spoilt, "msmarco").ranks  # 201 after 199: rising
    spaced = write(tmp_path / "spaced.tsv", "".join(lines).replace("\t", " "))  # pyarrow's plainest layout
    assert rows_of(read_run_file(spaced)) == rows_of(plain)


# -- what the command line says --------------------------------------------------------------

QRELS = "q1 0 d7 0\nq1 0 d3 2\nq2 0 d1 1\n"


def test_score_says_it_read_ms_marco_ranks(run_cli: Cli) -> None:
    qrels, run = run_cli.write("qrels.txt", QRELS), run_cli.write("dev.tsv", MSMARCO)
    table = run_cli("score", "--qrels", str(qrels), str(run), "--metrics", "RR")
    assert "read as MS MARCO ranks (qid pid rank)" in table.output
    report = one_report(run_cli("score", "--qrels", str(qrels), str(run), "--metrics", "RR", "--format", "json").output)
    assert report["run_read_as"] == "read as MS MARCO ranks (qid pid rank)"
    csv = run_cli("score", "--qrels", str(qrels), str(run), "--metrics", "RR", "--format", "csv")
    assert "note: dev.tsv: read as MS MARCO ranks (qid pid rank)" in csv.output  # on standard error
    assert report["metrics"]["RR"]["mean"] == pytest.approx((1 / 2 + 1 / 2) / 2)  # d3 at rank 2, d1 at rank 2
    as_scores = one_report(
        run_cli(
            "score", "--qrels", str(qrels), str(run), "--metrics", "RR", "--format", "json", "--run-format", "scores"
        ).output
    )
    assert as_scores["run_read_as"] is None
    assert as_scores["metrics"]["RR"]["mean"] == pytest.approx((1 / 2 + 1) / 2)  # reversed: d3 at 2, d1 first
    six = one_report(
        run_cli(
            "score", "--qrels", str(qrels), str(run_cli.write("r.run", "q1 Q0 d3 1 2.0 t\n")), "--format", "json"
        ).output
    )
    assert six["run_read_as"] is None


@pytest.mark.parametrize(
    ("text", "args", "fragment"),
    [
        ("q1 d1 abc 3.5\n", [], "bad.run:1: rank 'abc' is not an integer"),
        ("q1 Q0 d1 1\n", [], "a TREC run line has 6 fields: qid Q0 docid rank score tag"),
        ("q1 d1 1\n", ["--run-format", "trec"], "bad.run:1: expected 6 fields"),
        ("q1 d1 2\nq1 d2 1\n", ["--run-format", "msmarco"], "bad.run:2: rank 1 follows rank 2"),
    ],
)
def test_a_bad_run_is_one_line_and_exit_2(run_cli: Cli, text: str, args: list[str], fragment: str) -> None:
    qrels, run = run_cli.write("qrels.txt", QRELS), run_cli.write("bad.run", text)
    for command in (["score", "--qrels", str(qrels)], ["compare", "--qrels", str(qrels), str(run)]):
        result = run_cli(*command, *args, str(run), ok=False)
        assert result.exit_code == 2 and fragment in result.output and "Traceback" not in result.output


def test_compare_and_pool_read_ms_marco_ranks(run_cli: Cli) -> None:
    qrels, run = run_cli.write("qrels.txt", QRELS), run_cli.write("dev.tsv", MSMARCO)
    other = run_cli.write("other.run", "q1 Q0 d3 1 2.0 t\nq2 Q0 d1 1 1.0 t\n")
    result = run_cli("compare", "--qrels", str(qrels), str(run), str(other), "--format", "json", "--resamples", "1000")
    assert "dev.tsv: read as MS MARCO ranks (qid pid rank)" in result.output
    comparison = json.loads(result.output[result.output.index("{") :])
    assert comparison["metrics"]["nDCG@10"]["mean_a"] < comparison["metrics"]["nDCG@10"]["mean_b"]
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.tsv", "q1\tfirst\nq2\tsecond\n")))
    run_cli("pool", "--depth", "1", str(run))  # each query's rank 1: d7 (q1) and d3 (q2)
    pooled = run_cli("queue", "--format", "json").output
    assert '"d7"' in pooled and '"d3"' in pooled and '"d9"' not in pooled and '"d1"' not in pooled
