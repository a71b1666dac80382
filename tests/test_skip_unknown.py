"""`import qrels` and `import judgments` of a file naming queries outside the golden set (issue 30):
refused, counting every such line and query and naming the first with its file and line, with a
hint of `--skip-unknown`; with it, those lines are skipped and the summary counts them, naming a
few of their queries as plain text. Everything else the import checks it still checks, in one
transaction. (Documents need not be in the store for either: a label or an event may name a
document not imported yet.)"""

from __future__ import annotations

import json

import pytest
from click.testing import Result

from conftest import Cli
from hostile import BAD_IDS, IDS, leaked, shown
from qrelkit.storage import Store

KNOWN = ("q1", "q2")
UNKNOWN = ["nope", "q9", "q10", "[red]x[/]", IDS["q_link"]]
"""Queries not in the golden set, markup among them (a Rich renderer would eat it)."""


def _store(run_cli: Cli) -> None:
    run_cli("init")
    queries = "".join(f"{q}\tquery {q}\tdefault\n" for q in KNOWN)
    run_cli("import", "queries", str(run_cli.write("q.tsv", queries)))


def _pairs() -> list[tuple[str, str, int]]:
    """12 lines: 5 for the known queries, 7 for 5 unknown ones (the first on line 2)."""
    return [
        ("q1", "a", 1),
        (UNKNOWN[0], "a", 2),
        ("q1", "b", 0),
        (UNKNOWN[1], "a", 1),
        (UNKNOWN[1], "b", 1),
        ("q2", "a", 3),
        (UNKNOWN[2], "c", 2),
        (UNKNOWN[3], "d", 1),
        ("q2", "b", 2),
        (UNKNOWN[4], "e", 1),
        (UNKNOWN[0], "f", 1),
        ("q2", "c", 1),
    ]


def _qrels_file(run_cli: Cli, kind: str, pairs: list[tuple[str, str, int]]) -> tuple[str, int]:
    """The pairs as a qrels file of `kind`; and the line the first pair is on (after a header)."""
    if kind == "trec":
        return str(run_cli.write("x.qrels", "".join(f"{q} 0 {d} {g}\n" for q, d, g in pairs))), 0
    if kind == "tsv":
        body = "".join(f"{q}\t{d}\t{g}\n" for q, d, g in pairs)
        return str(run_cli.write("x.tsv", "query-id\tcorpus-id\tscore\n" + body)), 1
    lines = "".join(json.dumps({"query_id": q, "doc_id": d, "grade": g}) + "\n" for q, d, g in pairs)
    return str(run_cli.write("x.jsonl", lines)), 0


TIME = "2026-01-02T03:04:05Z"
"""Every event's time (an event without one is timed at its import: never a repeat)."""


def _judgments_file(run_cli: Cli, pairs: list[tuple[str, str, int]]) -> str:
    events = [
        {"query_id": q, "doc_id": d, "state": "graded", "grade": g, "assessor": "ann", "timestamp": TIME}
        for q, d, g in pairs
    ]
    return str(run_cli.write("j.jsonl", "".join(json.dumps(e) + "\n" for e in events)))


def _labels(run_cli: Cli) -> list[tuple[str, str, int | None]]:
    with Store.open(run_cli.db) as s:
        return sorted((e.query_id, e.doc_id, e.grade) for e in s.log.events())


def _one_line(result: Result) -> str:
    """The command's output as one line (the console may wrap a long one)."""
    assert "Traceback" not in result.output and not leaked(result.output), result.output
    return " ".join(result.output.split())


HINT = "or pass --skip-unknown to skip their lines"


@pytest.mark.parametrize("kind", ["trec", "tsv", "jsonl"])
def test_unknown_queries_are_refused_counting_every_line_and_query(run_cli: Cli, kind: str) -> None:
    _store(run_cli)
    path, header = _qrels_file(run_cli, kind, _pairs())
    refused = run_cli("import", "qrels", path, ok=False)
    assert refused.exit_code == 2
    said = _one_line(refused)
    assert said.startswith(f"error: {path}:{2 + header}: query 'nope' is not in the golden set"), said
    assert "(7 lines for 5 queries are not)" in said and HINT in said, said
    assert len(refused.output.strip().splitlines()) == 1, refused.output
    assert _labels(run_cli) == []


@pytest.mark.parametrize("kind", ["trec", "tsv", "jsonl"])
def test_skip_unknown_imports_the_rest_and_counts_what_it_skipped(run_cli: Cli, kind: str) -> None:
    _store(run_cli)
    path, _ = _qrels_file(run_cli, kind, _pairs())
    done = run_cli("import", "qrels", "--skip-unknown", path)
    said = _one_line(done)
    assert said.startswith(f"imported 5 labels and 0 pooled-unjudged pairs from {path}"), said
    # the first three unknown queries in file order, as written (markup is text), then an ellipsis
    assert said.endswith("; skipped 7 lines for 5 queries not in the golden set: nope, q9, q10, …"), said
    assert _labels(run_cli) == sorted((q, d, g) for q, d, g in _pairs() if q in KNOWN)


def test_the_skipped_list_shows_markup_as_written(run_cli: Cli) -> None:
    _store(run_cli)
    pairs = [("q1", "a", 1), ("[red]x[/]", "a", 1), (IDS["q_close"], "b", 1), (IDS["q_link"], "c", 1)]
    path, _ = _qrels_file(run_cli, "trec", pairs)
    said = _one_line(run_cli("import", "qrels", "--skip-unknown", path))
    assert said.endswith(f"skipped 3 lines for 3 queries not in the golden set: [red]x[/], q[/]1, {IDS['q_link']}")
    refused = _one_line(run_cli("import", "judgments", _judgments_file(run_cli, pairs[1:]), ok=False))
    assert "query '[red]x[/]' is not in the golden set (3 lines for 3 queries are not)" in refused, refused


@pytest.mark.parametrize("name", ["escape", "c1_csi", "bidi_override"])
def test_an_id_with_a_control_character_is_refused_not_skipped(run_cli: Cli, name: str) -> None:
    """A control character makes the line malformed, not unknown: refused as before, shown visibly."""
    _store(run_cli)
    bad = BAD_IDS[name]
    pairs = [("q1", "a", 1), ("nope", "a", 1), (bad, "b", 1)]
    for args in (
        ["import", "qrels", "--skip-unknown", _qrels_file(run_cli, "jsonl", pairs)[0]],
        ["import", "judgments", "--skip-unknown", _judgments_file(run_cli, pairs)],
    ):
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2, refused.output
        said = _one_line(refused)
        assert said.startswith(f"error: {args[-1]}:3: "), said
        assert f"'{shown(bad)}'" in said and "golden set" not in said, said
        assert _labels(run_cli) == []


def test_skipping_keeps_every_other_check_in_one_transaction(run_cli: Cli) -> None:
    _store(run_cli)
    path, _ = _qrels_file(run_cli, "trec", [("q1", "a", 1), ("nope", "a", 1), ("q2", "a", 7)])
    refused = run_cli("import", "qrels", "--skip-unknown", path, ok=False)
    assert refused.exit_code == 2 and f"{path}:3: grade 7 is above" in _one_line(refused)
    path, _ = _qrels_file(run_cli, "trec", [("q1", "a", 1), ("nope", "a", 1), ("q1", "a", 2)])
    refused = run_cli("import", "qrels", "--skip-unknown", path, ok=False)
    assert refused.exit_code == 2 and f"{path}:3: duplicate judgment" in _one_line(refused)
    assert _labels(run_cli) == []


def test_a_file_of_only_unknown_queries_imports_nothing_and_says_so(run_cli: Cli) -> None:
    _store(run_cli)
    path, _ = _qrels_file(run_cli, "trec", [("nope", "a", 1), ("nope", "b", 1)])
    said = _one_line(run_cli("import", "qrels", "--skip-unknown", path))
    assert said == (
        f"imported 0 labels and 0 pooled-unjudged pairs from {path}; "
        "skipped 2 lines for 1 query not in the golden set: nope"
    )
    assert _labels(run_cli) == []


def test_one_unknown_line_is_refused_without_a_count(run_cli: Cli) -> None:
    _store(run_cli)
    path, _ = _qrels_file(run_cli, "trec", [("q1", "a", 1), ("nope", "a", 1)])
    said = _one_line(run_cli("import", "qrels", path, ok=False))
    assert said.startswith(f"error: {path}:2: query 'nope' is not in the golden set (hint: "), said


def test_judgments_refuse_and_skip_unknown_queries_the_same_way(run_cli: Cli) -> None:
    _store(run_cli)
    path = _judgments_file(run_cli, _pairs())
    refused = run_cli("import", "judgments", path, ok=False)
    assert refused.exit_code == 2
    said = _one_line(refused)
    assert said.startswith(f"error: {path}:2: query 'nope' is not in the golden set (7 lines for 5 queries are not)")
    assert HINT in said and _labels(run_cli) == []
    said = _one_line(run_cli("import", "judgments", "--skip-unknown", path))
    assert said == (
        f"imported 5 judgment events from {path}; skipped 7 lines for 5 queries not in the golden set: nope, q9, q10, …"
    )
    assert _labels(run_cli) == sorted((q, d, g) for q, d, g in _pairs() if q in KNOWN)
    # again: the known events are in the log (skipped as repeats), the unknown ones skipped again
    said = _one_line(run_cli("import", "judgments", "--skip-unknown", path))
    assert said == (
        f"imported 0 judgment events from {path}; 5 events already in the log (skipped); "
        "skipped 7 lines for 5 queries not in the golden set: nope, q9, q10, …"
    )
