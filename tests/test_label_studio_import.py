"""`qrelkit import label-studio` on exports written to Label Studio's documented JSON format
(tests/data/label_studio: a Choices template and a Rating template, several annotators, skipped
annotations, predictions, a ground-truth annotation), and on broken and hostile ones: each
refused with one line naming the file, the task, the annotation and the field, exit 2, nothing
written."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, Cli
from hostile import leaked
from qrelkit.storage import Store

LS = DATA / "label_studio"
CHOICES = LS / "choices_export.json"
RATING = LS / "rating_export.json"
CHOICE_MAP = [
    "--choice",
    "Not relevant=0",
    "--choice",
    "Partially relevant=1",
    "--choice",
    "Relevant=2",
    "--choice",
    "Highly relevant=3",
]
CHOICE_ARGS = ["--query-field", "qid", "--doc-field", "docno", *CHOICE_MAP]


def golden(run_cli: Cli) -> None:
    """A store holding the fixtures' queries and documents."""
    run_cli("init", "--name", "t")
    run_cli(
        "import",
        "queries",
        str(run_cli.write("q.tsv", "q1\thow to sort a list\tdefault\nq2\tassert statement\tdefault\n")),
    )
    docs = [{"id": d, "text": t} for d, t in (("d1", "sorted()"), ("d2", "list.sort()"), ("d3", "assert x"))]
    run_cli("import", "docs", str(run_cli.write("d.jsonl", "".join(json.dumps(d) + "\n" for d in docs))))


def events(run_cli: Cli) -> list[tuple[Any, ...]]:
    with Store.open(run_cli.db, create=False) as store:
        return [
            (e.query_id, e.doc_id, e.state.value, e.grade, e.assessor, e.timestamp, e.seconds)
            for e in store.log.events()
        ]


def state(run_cli: Cli) -> dict[str, Any]:
    """What the store holds: every table's rows counted, labels, skips and the pool."""
    with Store.open(run_cli.db, create=False) as store:
        return {
            "tables": store.reads.table_counts(),
            "labels": store.reads.label_rows(),
            "skipped": sorted(store.reads.skipped()),
            "pool": [(p.query_id, p.doc_id) for p in store.pool.unlabeled()],
        }


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_each_annotation_is_one_event_with_its_annotator_time_and_lead_time(run_cli: Cli) -> None:
    golden(run_cli)
    out = run_cli("import", "label-studio", str(CHOICES), *CHOICE_ARGS).output
    assert "imported 7 judgment events from 5 tasks" in out and "(5 grades, 2 skips)" in out
    assert "1 pairs without annotations pooled" in out
    assert events(run_cli) == [
        ("q1", "d1", "graded", 2, "ann@example.com", at("2024-05-01T10:02:30.5+00:00"), 12.25),
        ("q1", "d1", "graded", 3, "ls-user-2", at("2024-05-02T08:00:00+00:00"), 30.0),
        ("q1", "d2", "skipped", None, "ann@example.com", at("2024-05-01T10:05:00+00:00"), 3.5),
        ("q1", "d2", "graded", 0, "ls-user-2", at("2024-05-02T08:01:10+02:00"), 9.0),
        ("q2", "d1", "graded", 1, "ann@example.com", at("2024-05-03T11:00:00+00:00"), 7.0),  # the earlier first
        ("q2", "d1", "graded", 3, "cy@example.com", at("2024-05-03T12:00:00+00:00"), None),
        ("q2", "d2", "skipped", None, "ann@example.com", at("2024-05-04T09:30:00+00:00"), 1.5),
    ]
    st = state(run_cli)
    # the votes resolve by the median (the lower one of 2 and 3, of 1 and 3); a skip is no grade
    assert st["labels"] == [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d1", 1)]
    assert st["skipped"] == [("q2", "d2")]
    assert st["pool"] == [("q2", "d3")]  # the task without annotations; its prediction is not a label


def test_importing_the_same_export_again_adds_nothing(run_cli: Cli) -> None:
    golden(run_cli)
    run_cli("import", "label-studio", str(CHOICES), *CHOICE_ARGS)
    before = state(run_cli)
    out = run_cli("import", "label-studio", str(CHOICES), *CHOICE_ARGS).output
    assert "imported 0 judgment events" in out and "7 events already in the log (skipped)" in out
    assert state(run_cli) == before


def test_an_annotation_updated_in_label_studio_is_the_annotators_new_vote(run_cli: Cli) -> None:
    golden(run_cli)
    run_cli("import", "label-studio", str(CHOICES), *CHOICE_ARGS)
    later = json.loads(CHOICES.read_text())
    first = later[0]["annotations"][0]  # ann's Relevant on q1/d1, changed to Not relevant
    first["result"][0]["value"]["choices"] = ["Not relevant"]
    first["updated_at"] = "2024-06-01T00:00:00Z"
    run_cli("import", "label-studio", str(run_cli.write("later.json", json.dumps(later))), *CHOICE_ARGS)
    assert len(events(run_cli)) == 8
    assert state(run_cli)["labels"][0] == ("q1", "d1", 0)  # ann 0, ls-user-2 3: the lower median


def test_a_ground_truth_annotation_adjudicates_only_when_asked(run_cli: Cli) -> None:
    golden(run_cli)
    out = run_cli("import", "label-studio", str(CHOICES), *CHOICE_ARGS, "--ground-truth-adjudicates").output
    assert "(4 grades, 2 skips, 1 adjudications)" in out
    assert ("q2", "d1", "adjudicated", 3, "cy@example.com") in [e[:5] for e in events(run_cli)]
    assert ("q2", "d1", 3) in state(run_cli)["labels"]  # not the median 1 of the two votes


def test_a_rating_is_its_stars_plus_the_offset(run_cli: Cli) -> None:
    golden(run_cli)
    bad = run_cli("import", "label-studio", str(RATING), "--grade-from", "stars", ok=False)
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert (
        "rating_export.json: task 1 (tasks[0]), annotation 11 (annotations[0]): rating 4 gives grade 4, above"
        in bad.output
    )
    assert "--grade-offset -1" in bad.output
    assert events(run_cli) == []
    run_cli("import", "label-studio", str(RATING), "--grade-from", "stars", "--grade-offset", "-1")
    assert [e[:5] for e in events(run_cli)] == [
        ("q1", "d1", "graded", 3, "ls-user-5"),
        ("q1", "d1", "graded", 2, "bob@example.com"),
        ("q1", "d2", "graded", 0, "ls-user-5"),
        ("q1", "d2", "skipped", None, "bob@example.com"),
        ("q2", "d3", "graded", 1, "ls-user-5"),
    ]
    assert events(run_cli)[0][5] == datetime(2024, 6, 1, 9, tzinfo=timezone(timedelta(hours=2)))
    assert events(run_cli)[0][5] == datetime(2024, 6, 1, 7, tzinfo=UTC)


def test_choices_are_level_names_or_numbers_without_a_map(run_cli: Cli) -> None:
    golden(run_cli)
    tasks = json.loads(CHOICES.read_text())
    named = {"Not relevant": "irrelevant", "Partially relevant": "1", "Relevant": "relevant", "Highly relevant": "3"}
    for task in tasks:
        for annotation in task["annotations"]:
            for result in annotation["result"]:
                if result["type"] == "choices":
                    result["value"]["choices"] = [named[c] for c in result["value"]["choices"]]
    path = run_cli.write("named.json", json.dumps(tasks))
    run_cli("import", "label-studio", str(path), "--query-field", "qid", "--doc-field", "docno")
    assert [e[3] for e in events(run_cli)] == [2, 3, None, 0, 1, 3, None]
    bad = run_cli("import", "label-studio", str(CHOICES), "--query-field", "qid", "--doc-field", "docno", ok=False)
    assert bad.exit_code == 2
    assert (
        "task 101 (tasks[0]), annotation 1001 (annotations[0]): choice 'Relevant' is neither a grade nor a level"
        in (bad.output)
    )
    assert "--choice 'TEXT=GRADE'" in bad.output


def test_queries_and_documents_the_store_lacks_are_refused_unless_created(run_cli: Cli) -> None:
    run_cli("init")
    bad = run_cli("import", "label-studio", str(RATING), "--grade-from", "stars", "--grade-offset", "-1", ok=False)
    assert bad.exit_code == 2 and "task 1 (tasks[0]): query 'q1' is not in the golden set" in bad.output
    assert "--query-text-field" in bad.output
    bad = run_cli(
        "import",
        "label-studio",
        str(RATING),
        "--grade-from",
        "stars",
        "--grade-offset",
        "-1",
        "--query-text-field",
        "query_text",
        ok=False,
    )
    assert bad.exit_code == 2 and "task 1 (tasks[0]): document 'd1' is not in the store" in bad.output
    assert "--doc-text-field" in bad.output
    with Store.open(run_cli.db, create=False) as store:
        assert store.reads.table_counts()["queries"] == 0  # the refused import wrote nothing
    out = run_cli(
        "import",
        "label-studio",
        str(RATING),
        "--grade-from",
        "stars",
        "--grade-offset",
        "-1",
        "--query-text-field",
        "query_text",
        "--doc-text-field",
        "doc_text",
    ).output
    assert "created 2 queries, 3 documents" in out
    with Store.open(run_cli.db, create=False) as store:
        assert [(q.id, q.text, q.stratum) for q in store.reads.queries()] == [
            ("q1", "how to sort a list", "default"),
            ("q2", "assert statement", "default"),
        ]
        assert [(d.id, d.text) for d in store.reads.documents()] == [
            ("d1", "sorted() returns a new list"),
            ("d2", "list.sort() sorts in place"),
            ("d3", "assert x, 'message'"),
        ]


def test_a_created_query_needs_a_known_stratum(run_cli: Cli) -> None:
    run_cli("init")
    args = [
        "import",
        "label-studio",
        str(RATING),
        "--grade-from",
        "stars",
        "--grade-offset",
        "-1",
        "--query-text-field",
        "query_text",
        "--doc-text-field",
        "doc_text",
    ]
    bad = run_cli(*args, "--stratum", "nav", ok=False)
    assert bad.exit_code == 2 and "unknown stratum 'nav'" in bad.output and "qrelkit strata set nav" in bad.output
    run_cli("strata", "set", "nav", "0.5")
    run_cli(*args, "--stratum", "nav")
    with Store.open(run_cli.db, create=False) as store:
        assert {q.stratum for q in store.reads.queries()} == {"nav"}


def _task(tasks: list[Any], k: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = tasks[k]
    return found


def _ann(tasks: list[Any], k: int = 0, j: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = tasks[k]["annotations"][j]
    return found


BROKEN: dict[str, tuple[Any, str]] = {
    "a query id with a space": (
        lambda t: _task(t)["data"].update(qid="q 1"),
        "task 101 (tasks[0]): field 'data.qid': query id 'q 1' contains white space",
    ),
    "a document id with a control character": (
        lambda t: _task(t, 1)["data"].update(docno="d\x1b[2J"),
        "task 102 (tasks[1]): field 'data.docno': document id 'd\\x1b[2J' contains a control character",
    ),
    "a grade above the scale": (
        lambda t: _ann(t)["result"][0]["value"].update(choices=["Off the scale"]),
        "annotation 1001 (annotations[0]): choice 'Off the scale' gives grade 7, above the scale's highest grade 3",
    ),
    "a choice the map lacks": (
        lambda t: _ann(t, 1, 1)["result"][0]["value"].update(choices=["Spam"]),
        "task 102 (tasks[1]), annotation 1004 (annotations[1]): choice 'Spam' has no grade",
    ),
    "a missing query field": (
        lambda t: _task(t, 2)["data"].pop("qid"),
        "task 103 (tasks[2]): field 'data.qid' is missing (the task's data has 'docno', 'query', 'passage')",
    ),
    "a missing data": (lambda t: _task(t, 3).pop("data"), "task 104 (tasks[3]): field 'data' is missing"),
    "a repeated annotation id": (
        lambda t: _ann(t, 2, 1).update(id=1001),
        "task 103 (tasks[2]), annotation 1001 (annotations[1]): the annotation id repeats task 101 (tasks[0]), "
        "annotation 1001 (annotations[0])",
    ),
    "a repeated task id": (
        lambda t: _task(t, 4).update(id=101),
        "task 101 (tasks[4]): the task id repeats task 101 (tasks[0])",
    ),
    "a time without its zone": (
        lambda t: _ann(t, 1, 1).update(updated_at="2024-05-02T08:01:10"),
        "annotation 1004 (annotations[1]): field 'updated_at' '2024-05-02T08:01:10' has no time zone",
    ),
    "a date without a time": (
        lambda t: _ann(t).update(created_at="2024-05-01"),
        "annotation 1001 (annotations[0]): field 'created_at' '2024-05-01' is not an ISO 8601 date and time",
    ),
    "no time": (
        lambda t: [_ann(t).pop(k) for k in ("created_at", "updated_at")],
        "annotation 1001 (annotations[0]): the annotation gives neither 'created_at' nor 'updated_at'",
    ),
    "no annotator": (
        lambda t: _ann(t).pop("completed_by"),
        "annotation 1001 (annotations[0]): field 'completed_by' is missing",
    ),
    "an email with a space": (
        lambda t: _ann(t)["completed_by"].update(email="ann smith@example.com"),
        "field 'completed_by.email' 'ann smith@example.com' is not an assessor name",
    ),
    "a negative lead time": (
        lambda t: _ann(t).update(lead_time=-1),
        "annotation 1001 (annotations[0]): field 'lead_time' is -1, not a number of seconds >= 0",
    ),
    "a flag that is text": (
        lambda t: _ann(t).update(was_cancelled="no"),
        "field 'was_cancelled' is a string, not true or false",
    ),
    "two choices": (
        lambda t: _ann(t)["result"][0]["value"].update(choices=["Relevant", "Not relevant"]),
        "field 'value.choices' is ['Relevant', 'Not relevant'], not one choice",
    ),
    "no result from the control": (
        lambda t: _ann(t, 1, 1).update(result=[]),
        "annotation 1004 (annotations[1]): no result from the control 'relevance' (its result is empty)",
    ),
    "another control's result only": (
        lambda t: _ann(t)["result"].pop(0),
        "annotation 1001 (annotations[0]): no result from the control 'relevance' (it has results from 'comment')",
    ),
    "a control that is no rating or choice": (
        lambda t: _ann(t)["result"][0].update(type="textarea"),
        "the control's result is of type 'textarea'",
    ),
    "an annotation without an id": (
        lambda t: _ann(t, 4).pop("id"),
        "task 105 (tasks[4]), annotations[0]: the annotation has no 'id'",
    ),
    "annotations that are no list": (
        lambda t: _task(t, 4).update(annotations={"id": 1}),
        "task 105 (tasks[4]): field 'annotations' is a object, not a list",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_export_is_one_line_naming_the_task_and_field_and_writes_nothing(run_cli: Cli, case: str) -> None:
    golden(run_cli)
    change, expected = BROKEN[case]
    tasks = copy.deepcopy(json.loads(CHOICES.read_text()))
    change(tasks)
    path = run_cli.write("export.json", json.dumps(tasks))
    before = state(run_cli)
    extra = ["--choice", "Off the scale=7"] if case == "a grade above the scale" else []
    result = run_cli("import", "label-studio", str(path), *CHOICE_ARGS, *extra, ok=False)
    if case == "a grade above the scale":  # --choice itself refuses a grade above the scale
        assert "--choice 'Off the scale=7': grade 7 is above the scale's 3" in result.output
    else:
        assert f"export.json: {expected}" in result.output or expected in result.output, result.output
        assert "export.json: " in result.output
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output and leaked(result.output) == []
    assert state(run_cli) == before


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"id": 1, "data": {}}', "export.json:1: not valid JSON"),
        ('{"id": 1, "data": {"qid": "q1"}}', "expected a JSON list of tasks, found one JSON object"),
        ('[{"id": 1, "id": 2}]', "the key 'id' appears twice in one object"),
        (
            '[{"id": 1, "data": {"qid": "q1", "docno": "d1"}, "annotations": [{"id": 1, "lead_time": NaN}]}]',
            "NaN is not a JSON number",
        ),
        (
            '[{"data": {"qid": "q1", "docno": "d1"}, "completions": []}]',
            "tasks[0]: the task has 'completions', not 'annotations' (Label Studio before 1.0)",
        ),
        (
            '[{"id": 1, "qid": "q1", "docno": "d1", "relevance": "Relevant"}]',
            "task 1 (tasks[0]): field 'data' is missing (hint: is this a JSON-MIN or CSV export?",
        ),
        ("[]", "export.json: no tasks in the file"),
        ('[{"id": 1, "data": {"qid": "\\ud800", "docno": "d1"}}]', "a string holds a lone surrogate escape"),
    ],
    ids=["truncated", "one task", "repeated key", "NaN", "before 1.0", "JSON-MIN", "empty", "lone surrogate"],
)
def test_a_file_that_is_no_label_studio_export_is_refused(run_cli: Cli, text: str, expected: str) -> None:
    golden(run_cli)
    before = state(run_cli)
    result = run_cli("import", "label-studio", str(run_cli.write("export.json", text)), *CHOICE_ARGS, ok=False)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and expected in result.output, result.output
    assert state(run_cli) == before


def test_bad_options_are_usage_errors(run_cli: Cli) -> None:
    golden(run_cli)
    for args, expected in (
        (["--choice", "Relevant"], "--choice 'Relevant' is not TEXT=GRADE"),
        (["--choice", "a=1", "--choice", "a=2"], "--choice 'a' is given twice"),
        (["--doc-title-field", "title"], "give --doc-text-field too"),
    ):
        result = run_cli("import", "label-studio", str(CHOICES), *args, ok=False)
        assert result.exit_code == 2 and expected in result.output, result.output


def test_hostile_text_is_stored_as_given_and_shown_only_as_plain_text(run_cli: Cli, tmp_path: Path) -> None:
    """Markup in ids and texts, control characters in texts: kept as data, never drawn; an id
    that cannot be one is refused with the reason, shown visibly."""
    run_cli("init")
    text = "[red]x[/] \x1b[2J \x07 \u202e end"
    tasks: list[dict[str, Any]] = [
        {
            "id": 1,
            "data": {"q": "q[red]x[/]", "d": "d[bold]y", "qt": text, "dt": text, "dn": "[link=file:///x]t"},
            "annotations": [
                {
                    "id": 7,
                    "completed_by": {"email": "[red]ann[/]"},
                    "was_cancelled": False,
                    "created_at": "2024-01-01T00:00:00Z",
                    "lead_time": 1,
                    "result": [{"from_name": "g", "type": "rating", "value": {"rating": 2}}],
                }
            ],
        }
    ]
    args = [
        "--query-field",
        "q",
        "--doc-field",
        "d",
        "--grade-from",
        "g",
        "--grade-offset",
        "-1",
        "--query-text-field",
        "qt",
        "--doc-text-field",
        "dt",
        "--doc-title-field",
        "dn",
    ]
    path = run_cli.write("[red]x[bold].json", json.dumps(tasks))
    out = run_cli("import", "label-studio", str(path), *args).output
    assert "[red]x[bold].json" in out and leaked(out) == []
    with Store.open(run_cli.db, create=False) as store:
        assert [(q.id, q.text) for q in store.reads.queries()] == [("q[red]x[/]", text)]
        doc = store.reads.document("d[bold]y")
        assert doc is not None and (doc.title, doc.text) == ("[link=file:///x]t", text)
        assert [(e.assessor, e.grade) for e in store.log.events()] == [("[red]ann[/]", 1)]
    tasks[0]["data"]["q"] = "q[red]\x9b2J"
    bad = run_cli("import", "label-studio", str(run_cli.write("bad.json", json.dumps(tasks))), *args, ok=False)
    assert bad.exit_code == 2 and "query id 'q[red]\\x9b2J' contains a control character" in bad.output
    assert leaked(bad.output) == [] and "\x9b" not in bad.output
