"""Malformed input to every reader, through the command line: never a traceback, always exit 2 with
the file (and the line, where there is one) named, and the store left exactly as it was."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .common import DEMO, RUN, STRESS, fingerprint, invoke, log, one_line_error, row_counts
from .common import demo_store as make_demo_store

GARBAGE = random.Random(7).randbytes(4096) + b"\xff\xfe"
BIG = 100 * 1024 * 1024
"""A line of 100 MB."""


def _bad_crc(text: bytes) -> bytes:
    """A gzip stream whose CRC does not match its data (the last 8 bytes are CRC and length)."""
    import gzip

    data = bytearray(gzip.compress(text))
    data[-8] ^= 0xFF
    return bytes(data)


def _big_line(prefix: bytes, suffix: bytes) -> bytes:
    return prefix + b"d" * BIG + suffix


# (name, file name, content, line named in the message or None)
QRELS = [
    ("qrels: wrong field count", "x.qrels", b"con-01 0 a 1\ncon-01 0 b\n", 2),
    ("qrels: non-numeric grade", "x.qrels", b"con-01 0 a 1\ncon-01 0 b high\n", 2),
    ("qrels: fractional grade", "x.qrels", b"con-01 0 a 1.5\n", 1),
    ("qrels: huge grade", "x.qrels", b"con-01 0 a 99999999999999999999999\n", 1),
    ("qrels: grade above the scale", "x.qrels", b"con-01 0 a 1\ncon-01 0 b 7\n", 2),
    ("qrels: unknown query", "x.qrels", b"con-01 0 a 1\nnope 0 b 1\n", 2),
    ("qrels: duplicate pair", "x.qrels", b"con-01 0 a 1\ncon-01 0 b 1\ncon-01 0 a 2\n", 3),
    ("qrels: empty file", "x.qrels", b"", None),
    ("qrels: only comments", "x.qrels", b"# nothing\n\n", None),
    ("qrels: binary garbage", "x.qrels", GARBAGE, 1),
    ("qrels: UTF-16", "x.qrels", "con-01 0 a 1\n".encode("utf-16"), 1),
    ("qrels: Latin-1", "x.qrels", b"con-01 0 caf\xe9 1\n", 1),
    ("qrels: control character in an id", "x.qrels", b"con-01 0 a\x00b 1\n", 1),
    ("qrels: 2,000-character id", "x.qrels", b"con-01 0 " + b"d" * 2000 + b" 1\n", 1),
    ("qrels: 100 MB line", "x.qrels", None, 2),  # built lazily: _big_line
    ("qrels: truncated gzip", "x.qrels.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03+", None),
    ("qrels: grade over 32 bits", "x.qrels", b"con-01 0 a 1\ncon-01 0 b 2147483648\n", 2),
    ("qrels: 3 fields without a header", "x.qrels", b"con-01 a 1\n", 1),
    ("qrels: BEIR TSV, 4 fields after the header", "x.tsv", b"query-id\tcorpus-id\tscore\ncon-01\ta\t0\t1\n", 2),
    ("qrels: JSON dict, grade not an integer", "x.json", b'{"con-01":\n {"a": 1.5}}', 2),
    ("qrels: JSON dict, broken", "x.json", b'{"con-01": {"a": 1},\n', 2),
    ("qrels: JSONL, grade is text", "x.jsonl", b'{"query_id": "con-01", "doc_id": "a", "grade": "1"}\n', 1),
]
RUNS = [
    ("run: wrong field count", "x.run", b"con-01 Q0 a 1 2.0 r\ncon-01 Q0 b 2 1.0\n", 2),
    ("run: non-numeric score", "x.run", b"con-01 Q0 a 1 high r\n", 1),
    ("run: NaN score", "x.run", b"con-01 Q0 a 1 2.0 r\ncon-01 Q0 b 2 nan r\n", 2),
    ("run: infinite score", "x.run", b"con-01 Q0 a 1 inf r\n", 1),
    ("run: overflowing score", "x.run", b"con-01 Q0 a 1 1e999 r\n", 1),
    ("run: duplicate document", "x.run", b"con-01 Q0 a 1 2 r\ncon-01 Q0 a 2 1 r\n", 2),
    ("run: empty file", "x.run", b"", None),
    ("run: binary garbage", "x.run", GARBAGE, 1),
    ("run: UTF-16", "x.run", "con-01 Q0 a 1 2 r\n".encode("utf-16"), 1),
    ("run: JSONL without score", "x.jsonl", b'{"query_id": "con-01", "doc_id": "a"}\n', 1),
    ("run: JSONL score is text", "x.jsonl", b'{"query_id": "con-01", "doc_id": "a", "score": "1"}\n', 1),
    ("run: 5 fields", "x.run", b"con-01 Q0 a 1 2.0\n", 1),
    ("run: 3 fields, then 4", "x.run", b"con-01 a 2.0\ncon-01 b 1 1.0\n", 2),
    ("run: 9 fields, then 5", "x.run", b"con-01 Q0 a 1 2.0 r x y z\ncon-01 Q0 b 2 1.0\n", 2),
    ("run: JSON dict, repeated doc", "x.json", b'{"con-01": {"a": 1,\n "a": 2}}', 2),
    ("run: JSON dict, score is text", "x.json", b'{"con-01": {"a": "1"}}', 1),
    ("run: JSON dict, trailing text", "x.json", b'{"con-01": {"a": 1}}\n]\n', 2),
    ("run: JSON dict, lone surrogate", "x.json", b'{"con-01":\n {"\\udc00": 1}}', 2),
    ("run: JSONL, lone surrogate", "x.jsonl", b'{"query_id": "con-01", "doc_id": "\\ud800", "score": 1}\n', 1),
]
QUERIES = [
    ("queries: not JSON", "x.jsonl", b'{"id": "n1", "text": "x"}\n{"id": \n', 2),
    ("queries: JSON array", "x.jsonl", b"[1, 2]\n", 1),
    ("queries: missing text", "x.jsonl", b'{"id": "n1"}\n', 1),
    ("queries: id with a space", "x.jsonl", b'{"id": "n 1", "text": "x"}\n', 1),
    ("queries: unknown stratum", "x.jsonl", b'{"id": "n1", "text": "x", "stratum": "nope"}\n', 1),
    ("queries: deeply nested JSON", "x.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n", 1),
    ("queries: empty file", "x.jsonl", b"", None),
    ("queries TSV: wrong field count", "x.tsv", b"n1\tx\tnavigational\textra\n", 1),
    ("queries TSV: unknown stratum", "x.tsv", b"n1\tfine\tnavigational\nn2\tx\tnope\n", 2),
    ("queries TSV: empty id", "x.tsv", b"\tx\n", 1),
]
DOCS = [
    ("docs: missing id", "x.jsonl", b'{"title": "t", "text": "x"}\n', 1),
    ("docs: text is a number", "x.jsonl", b'{"id": "n1", "text": 5}\n', 1),
    ("docs: empty file", "x.jsonl", b"", None),
    ("docs: both id and _id", "x.jsonl", b'{"id": "n1", "_id": "n1"}\n', 1),
    (
        "docs: a field twice, on the line and in metadata",
        "x.jsonl",
        b'{"_id": "n1", "url": "a", "metadata": {"url": "b"}}\n',
        1,
    ),
    ("docs: lone surrogate escape", "x.jsonl", b'{"id": "n1", "text": "ok"}\n{"id": "n2", "text": "\\ud800"}\n', 2),
]
JUDGMENTS = [
    (
        "judgments: unknown state",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "maybe", "assessor": "x"}\n',
        1,
    ),
    (
        "judgments: grade above the scale",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": 9, "assessor": "x"}\n',
        1,
    ),
    (
        "judgments: unknown query",
        "x.jsonl",
        b'{"query_id": "zz", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "x"}\n',
        1,
    ),
    (
        "judgments: bad timestamp",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "x", '
        b'"timestamp": "yesterday"}\n',
        1,
    ),
    ("judgments: empty file", "x.jsonl", b"", None),
]
REPORTS = [
    ("report: not JSON", "x.json", b'{\n  "fingerprint": \n', 2),
    ("report: wrong shape", "x.json", b'{"fingerprint": 1}\n', None),
    ("report: deeply nested", "x.json", b"[" * 100_000 + b"]" * 100_000, None),
    ("report: binary garbage", "x.json", GARBAGE, 1),
]
HUGE_INT = b"9" * 5000
"""A JSON integer over Python's 4,300-digit limit for int(str)."""
ADVERSARIAL = [
    # ids: one rule at every entry (C1 controls, NEL, a bidi override, DEL, `#`, white space)
    ("qrels: C1 control in an id", "x.qrels", "con-01 0 a\x9bb 1\n".encode(), 1),
    ("qrels: NEL in an id", "x.qrels", "con-01 0 a\x85b 1\n".encode(), 1),
    ("qrels: bidi override in an id", "x.qrels", "con-01 0 abc\u202edcba 1\n".encode(), 1),
    ("qrels: DEL in an id", "x.qrels", b"con-01 0 a 1\ncon-01 0 a\x7fb 1\n", 2),
    ("qrels: id starting with #", "x.qrels", b"con-01 0 a 1\ncon-01 0 #b 1\n", 2),
    ("qrels: control character as a separator", "x.qrels", b"con-01\x010 a 1\n", 1),
    ("qrels: Arabic-Indic digit grade", "x.qrels", "con-01 0 a \u0663\n".encode(), 1),
    ("qrels: underscore grade", "x.qrels", b"con-01 0 a 1_0\n", 1),
    ("qrels: plus-signed grade", "x.qrels", b"con-01 0 a +2\n", 1),
    ("qrels: corrupt gzip CRC", "x.qrels.gz", None, None),  # built lazily: _bad_crc
    ("run: C1 control in an id", "x.run", "con-01 Q0 a\x9bb 1 2.0 r\n".encode(), 1),
    ("run: DEL in an id", "x.run", b"con-01 Q0 a 1 2.0 r\ncon-01 Q0 a\x7fb 2 1.0 r\n", 2),
    ("run: 2,000-character id", "x.run", b"con-01 Q0 " + b"d" * 2000 + b" 1 2.0 r\n", 1),
    ("run: JSONL id with a space", "x.jsonl", b'{"query_id": "con-01", "doc_id": "a b", "score": 1.0}\n', 1),
    (
        "run: JSONL 2,000-character id",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "' + b"d" * 2000 + b'", "score": 1}\n',
        1,
    ),
    ("run: JSONL duplicate key", "x.jsonl", b'{"query_id": "con-01", "doc_id": "a", "score": 1, "score": 2}\n', 1),
    (
        "run: JSONL huge integer score",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "score": ' + HUGE_INT + b"}\n",
        1,
    ),
    ("queries: huge integer", "x.jsonl", b'{"id": "n1", "text": "x", "n": ' + HUGE_INT + b"}\n", 1),
    ("queries: duplicate key", "x.jsonl", b'{"id": "n1", "text": "x", "id": "n2"}\n', 1),
    ("queries: id starting with #", "x.jsonl", b'{"id": "#n1", "text": "x"}\n', 1),
    ("queries: C1 control in an id", "x.jsonl", b'{"id": "n\\u009b1", "text": "x"}\n', 1),
    ("queries: stratum named all", "x.jsonl", b'{"id": "n1", "text": "x", "stratum": "all"}\n', 1),
    (
        "docs: duplicate id",
        "x.jsonl",
        b'{"id": "n1", "text": "x"}\n{"id": "n2", "text": "y"}\n{"id": "n1", "text": "z"}\n',
        3,
    ),
    ("docs: id with a space", "x.jsonl", b'{"id": "n 1", "text": "x"}\n', 1),
    (
        "judgments: grade is text",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": "two", "assessor": "x"}\n',
        1,
    ),
    (
        "judgments: unknown field",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "x", "colour": 1}\n',
        1,
    ),
    (
        "judgments: huge integer grade",
        "x.jsonl",
        b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": ' + HUGE_INT + b', "assessor": "x"}\n',
        1,
    ),
    ("report: huge integer", "x.json", b'{"reports": [' + HUGE_INT + b"]}\n", 1),
    ("report: duplicate key", "x.json", b'{"reports": [], "reports": []}\n', None),
    ("pool: empty run", "x.run", b"", None),
    ("pool: duplicate document", "x.run", b"con-01 Q0 a 1 2 r\ncon-01 Q0 a 2 1 r\n", 2),
    ("status runs: empty run", "x.run", b"", None),
]
"""The cases the adversarial review of the store and its readers found (issue 15), each a file:
the id rule at every reader, ASCII-digit grades, corrupt gzip, JSON integers over 4,300 digits,
duplicate JSON keys, duplicate documents, an empty run given to pool and status."""


def _report(ndcg: float, weights: str = "{}") -> bytes:
    """A saved score report of one query whose nDCG@10 is `ndcg`, with these stratum weights."""
    summary = '"sd": null, "se": null, "ci95": [null, null], "coverage": null, "bounds": null, "exact": true'
    metric = '{"n": 1, "mean": %r, %s, "weighted_mean": null, "by_stratum": {}}'
    return (
        '{"fingerprint": {"run": {"name": "r", "sha256": "sha256:0"}, "metrics": ["nDCG@10", "R@50"],\n'
        ' "relevance_threshold": 1, "max_grade": 3, "qrelkit_version": "0"},\n'
        ' "queries": {"evaluated": 1, "missing_from_run": 0, "run_only": 0, "no_relevant": 0},\n'
        f' "metrics": {{"nDCG@10": {metric % (ndcg, summary)}, "R@50": {metric % (0.5, summary)}}},\n'
        f' "per_query": {{"con-01": {{"nDCG@10": {{"value": {ndcg!r}, "coverage": null, "bounds": null}},\n'
        ' "R@50": {"value": 0.5, "coverage": null, "bounds": null}}},\n'
        f' "query_strata": {{"con-01": "conceptual"}}, "stratum_weights": {weights}}}\n'
    ).encode()


ROUND_THREE_REPORTS = [
    ("report: nDCG@10 of 1e150", "x.json", _report(1e150), None),
    ("report: nDCG@10 below 0", "x.json", _report(-0.5), None),
    ("report: stratum weight Infinity", "x.json", _report(0.5, '{"conceptual": Infinity}'), None),
    ("report: negative stratum weight", "x.json", _report(0.5, '{"conceptual": -1}'), None),
]
"""The files of the adversarial review's third round (issue 30): saved reports holding a value a
measure in [0, 1] cannot take, or a traffic weight that is not finite and >= 0."""


_EVENT = (
    b'{"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "x"}\n'
    b'{"query_id": "con-01", "state": "graded", "assessor": "x", "doc_id": '
)
"""A good judgment line, then the start of a second one: each case below ends it."""
ROUND_THREE_IMPORTS = [
    (
        "queries: duplicate id",
        "x.jsonl",
        b'{"id": "n1", "text": "x"}\n{"id": "n2", "text": "y"}\n{"id": "n1", "text": "z"}\n',
        3,
    ),
    ("queries TSV: duplicate id", "x.tsv", b"n1\tx\nn2\ty\nn1\tz\n", 3),
    *(
        (f"judgments: {what}", "x.jsonl", _EVENT + b'"b", ' + fields + b"}\n", 2)
        for what, fields in [
            ("a year as the timestamp", b'"grade": 1, "timestamp": "2026"'),
            ("seconds since 1970 as the timestamp", b'"grade": 1, "timestamp": 1767225600'),
            ("a timestamp without its zone", b'"grade": 1, "timestamp": "2026-01-02T03:04:05"'),
            ("grade true", b'"grade": true'),
            ("grade 2.0", b'"grade": 2.0'),
            ("seconds Infinity", b'"grade": 1, "seconds": Infinity'),
            ("seconds 1e400", b'"grade": 1, "seconds": 1e400'),
            ("seconds as text", b'"grade": 1, "seconds": "5"'),
        ]
    ),
    *(
        (
            f"judgments: assessor {what}",
            "x.jsonl",
            _EVENT.replace(b'"assessor": "x", ', b"") + b'"b", ' + name + b"}\n",
            2,
        )
        for what, name in [
            ("with a NUL", b'"grade": 1, "assessor": "a\\u0000"'),
            ("with a space", b'"grade": 1, "assessor": "a b"'),
        ]
    ),
]
"""The cases of the third adversarial review (issue 30): a query id twice in one file; a judgment
event's timestamp that is no full date and time with its zone, a grade that is no integer,
`seconds` that are not a finite number, an assessor that is no name."""
ROUND_THREE_ARGUMENTS = [
    ("run: 4 fields, a 40 MB rank field", "x.run", None, 2),  # built lazily
    ("beir: a file, not a folder", "x.run", b"con-01 Q0 a 1 2.0 r\n", None),
]
"""Files given as an argument in the third review (issue 30): a run line of 4 fields whose rank
is 40 MB of digits (the fast reader tokenised it before the exact one refused it), a file where
`import beir` takes a folder."""
ROUND_THREE = ROUND_THREE_REPORTS + ROUND_THREE_IMPORTS + ROUND_THREE_ARGUMENTS
CASES = QRELS + RUNS + QUERIES + DOCS + JUDGMENTS + REPORTS + ADVERSARIAL + ROUND_THREE
LAZY: dict[str, Callable[[], bytes]] = {
    "qrels: 100 MB line": lambda: _big_line(b"con-01 0 a 1\ncon-01 0 ", b" 1\n"),
    "qrels: corrupt gzip CRC": lambda: _bad_crc(b"con-01 0 a 1\n" * 1000),
    "run: 4 fields, a 40 MB rank field": lambda: b"con-01 a 1 2.0\ncon-01 b " + b"1" * (40 << 20) + b" 1.5\n",
}
"""The cases whose content is built when their test runs (large, or compressed)."""


def _command(name: str, path: Path) -> list[str]:
    kind = name.split(":")[0]
    if kind == "qrels":
        return ["import", "qrels", str(path)]
    if kind == "run":
        return ["score", str(path)]
    if kind in ("queries", "queries TSV"):
        return ["import", "queries", "--stratum", "default", str(path)]
    if kind == "docs":
        return ["import", "docs", str(path)]
    if kind == "judgments":
        return ["import", "judgments", str(path)]
    if kind == "pool":
        return ["pool", str(path), "--depth", "5"]
    if kind == "status runs":
        return ["status", "--runs", str(path)]
    if kind == "beir":
        return ["import", "beir", str(path)]
    return ["compare", str(path), str(path)]


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_store(tmp_path_factory.mktemp("store") / "demo.db")


@pytest.mark.parametrize(("name", "filename", "content", "line"), CASES, ids=[c[0] for c in CASES])
def test_malformed_input_is_one_line_exit_2_and_changes_nothing(
    demo_store: Path, tmp_path: Path, name: str, filename: str, content: bytes | None, line: int | None
) -> None:
    path = tmp_path / filename
    path.write_bytes(LAZY[name]() if content is None else content)
    before = fingerprint(demo_store)
    code, output = invoke(demo_store, _command(name, path))
    assert code == 2, output
    message = one_line_error(output)
    assert str(path) in message
    if line is not None:
        assert f"{path}:{line}:" in message, message
    assert fingerprint(demo_store) == before


def test_crlf_and_bom_are_accepted(tmp_path: Path, demo_store: Path) -> None:
    db = tmp_path / "s.db"
    shutil.copy(demo_store, db)
    path = tmp_path / "x.qrels"
    path.write_bytes(b"\xef\xbb\xbfcon-01 0 crlf-a 1\r\ncon-01 0 crlf-b 2\r\n")
    code, output = invoke(db, ["import", "qrels", str(path)])
    assert code == 0 and "imported 2 labels" in output


def test_an_edited_version_is_refused_by_import_and_score(tmp_path: Path) -> None:
    version = tmp_path / "1.0"
    shutil.copytree(DEMO / "1.0", version)
    qrels = version / "qrels.txt"
    qrels.write_text(qrels.read_text().replace(" 3\n", " 2\n", 1))
    code, output = invoke(tmp_path / "s.db", ["import", "version", str(version)])
    assert code == 2 and "qrels.txt" in output and "--no-verify" in output
    code, output = invoke(tmp_path / "s.db", ["score", str(RUN), "--golden", str(version)])
    assert code == 2 and "qrels.txt" in output
    code, output = invoke(tmp_path / "s.db", ["score", str(RUN), "--golden", str(version), "--no-verify"])
    assert code == 0
    (version / "manifest.json").write_text("{not json")
    code, output = invoke(tmp_path / "s2.db", ["import", "version", str(version)])
    assert code == 2 and "manifest.json" in output


def test_malformed_beir_folders(tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "title": "t", "text": "x"}\n')
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\tmany\n")
    code, output = invoke(tmp_path / "s.db", ["import", "beir", str(folder)])
    assert code == 2 and "test.tsv:2:" in output
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (folder / "corpus.jsonl").unlink()
    code, output = invoke(tmp_path / "s.db", ["import", "beir", str(folder)])
    assert code == 2 and "corpus.jsonl" in output
    (folder / "corpus.jsonl").write_text('{"title": "no id"}\n')
    code, output = invoke(tmp_path / "s.db", ["import", "beir", str(folder)])
    assert code == 2 and "corpus.jsonl:1:" in output
    # issue 30: a query id twice in queries.jsonl (the last line won)
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "title": "t", "text": "x"}\n')
    twice = '{"_id": "q1", "text": "x"}\n{"_id": "q2", "text": "y"}\n{"_id": "q1", "text": "z"}\n'
    (folder / "queries.jsonl").write_text(twice)
    code, output = invoke(tmp_path / "s.db", ["import", "beir", str(folder)])
    assert code == 2 and "queries.jsonl:3: query 'q1' repeats line 1" in one_line_error(output)
    assert not (tmp_path / "s.db").exists()


READERS: dict[str, tuple[str, Callable[[Path], list[str]]]] = {
    "qrels": ("x.qrels", lambda p: ["import", "qrels", str(p)]),
    "run": ("x.run", lambda p: ["score", str(p)]),
    "run-jsonl": ("x.jsonl", lambda p: ["score", str(p)]),
    "queries-jsonl": ("x.jsonl", lambda p: ["import", "queries", str(p)]),
    "queries-tsv": ("x.tsv", lambda p: ["import", "queries", str(p)]),
    "docs": ("x.jsonl", lambda p: ["import", "docs", str(p)]),
    "judgments": ("x.jsonl", lambda p: ["import", "judgments", str(p)]),
    "report": ("x.json", lambda p: ["compare", str(p), str(p)]),
}
_TOKENS = st.sampled_from(
    [
        "con-01",
        "nav-02",
        "0",
        "Q0",
        "1",
        "3",
        "-1",
        "7",
        "nan",
        "1e999",
        "x",
        "{",
        "}",
        '"id"',
        ":",
        ",",
        "[",
        "\t",
        " ",
        "é",
        "\x00",
        "\r",
        '"text"',
        '"query_id"',
        "null",
        "true",
        "2.5",
        "\ufeff",
    ]
)
_LINES = st.lists(st.lists(_TOKENS, max_size=8).map(" ".join), max_size=6).map("\n".join)
_VALID = st.sampled_from(
    [
        "con-01 0 fuzz-doc 2",
        '{"id": "fuzz-q", "text": "x", "stratum": "conceptual"}',
        "fuzz-q2\tx\tconceptual",
        '{"id": "fuzz-doc", "text": "x"}',
        '{"query_id": "con-01", "doc_id": "fuzz-doc", "state": "graded", "grade": 1, "assessor": "fuzz"}',
    ]
)
"""A line some reader imports: fuzzed files then also import (and must say so and only add)."""
_TEXT = st.one_of(_LINES, _VALID, st.tuples(_VALID, _LINES).map("\n".join))
FUZZ_RUNS: list[str] = []


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(
    max_examples=400 if STRESS else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_TEXT, raw=st.binary(max_size=64), use_raw=st.booleans())
def test_fuzzed_input_never_escapes_as_a_traceback(
    demo_store: Path, tmp_path_factory: pytest.TempPathFactory, reader: str, text: str, raw: bytes, use_raw: bool
) -> None:
    filename, command = READERS[reader]
    path = tmp_path_factory.mktemp("fuzz") / filename
    path.write_bytes(raw if use_raw else text.encode("utf-8"))
    before, rows = fingerprint(demo_store), row_counts(demo_store)
    code, output = invoke(demo_store, command(path))
    FUZZ_RUNS.append(reader)
    assert code in (0, 1, 2), output
    assert "Traceback" not in output
    if code == 2:
        assert output.startswith("error: ") and len(output.strip().splitlines()) == 1, output
        assert fingerprint(demo_store) == before
    elif reader in ("qrels", "queries-jsonl", "queries-tsv", "docs", "judgments"):
        # a valid import says what it imported from the file, and only adds to the store (so the
        # later examples still start from a store holding the whole demo version)
        assert code == 0 and any(line.startswith("imported ") and path.name in line for line in output.splitlines()), (
            output
        )
        after = row_counts(demo_store)
        assert all(after[table] >= n for table, n in rows.items()), (rows, after)


@pytest.fixture(scope="session", autouse=True)
def _record_the_figures() -> Iterator[None]:
    """Once every test here has run (in whatever order): the figures for `make stress`'s log."""
    yield
    log(
        f"bad input: {len(CASES)} hand-written malformed files, "
        f"{len(FUZZ_RUNS)} fuzzed inputs over {len(READERS)} readers"
    )
