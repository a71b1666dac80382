"""`qrelkit export label-studio`: tasks for the pooled-unjudged pairs (or every pair), with each
assessor's current vote as an annotation when asked, and the labeling config of their project;
and the round trip: tasks with annotations imported into a fresh store that holds the same
queries and documents freeze to the same content hash and counts.

What does not round-trip, asserted below: the history behind each current vote (an earlier grade,
a retraction, a clear and what it cleared, a note), which a task cannot carry; an adjudication,
unless the import is told `--ground-truth-adjudicates`; pool sources and ranks."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from qrelkit.storage import Store

QUERIES = [
    {"id": "q1", "text": "how to sort a list", "stratum": "how", "description": "in place or not"},
    {"id": "q2", "text": "assert statement", "stratum": "nav"},
    {"id": "q3", "text": "[red]x[/] markup", "stratum": "nav"},
]
DOCS = [{"id": f"d{i}", "title": f"title {i}", "text": f"text {i} \x1b[2J"} for i in range(1, 6)]


def _e(q: str, d: str, state: str, who: str, minute: int, grade: int | None = None, **more: Any) -> dict[str, Any]:
    event = {
        "query_id": q,
        "doc_id": d,
        "state": state,
        "assessor": who,
        "timestamp": f"2024-05-01T10:{minute:02d}:00Z",
    }
    return {**event, **({"grade": grade} if grade is not None else {}), **more}


EVENTS = [
    _e("q1", "d1", "graded", "ann", 1, 2, seconds=4.5),
    _e("q1", "d1", "graded", "bob", 2, 3),
    _e("q1", "d2", "graded", "ann", 3, 1),
    _e("q1", "d2", "graded", "ann", 4, 0, seconds=2.0),  # ann's vote now: the 1 before is history
    _e("q1", "d3", "skipped", "ann", 5, seconds=1.0),
    _e("q2", "d1", "graded", "ann", 6, 1),
    _e("q2", "d1", "graded", "bob", 7, 2),
    _e("q2", "d1", "adjudicated", "cy", 8, 3),  # the label 3, where the votes' median is 1
    _e("q2", "d2", "graded", "bob", 9, 2),
    _e("q2", "d2", "retracted", "bob", 10),  # no vote left: the pair goes back to the pool
    _e("q2", "d3", "graded", "ann", 11, 1),
    _e("q2", "d3", "noted", "cy", 12, note="see the FAQ"),
    _e("q3", "d4", "graded", "ann", 13, 2),
    _e("q3", "d4", "cleared", "cy", 14),
    _e("q3", "d4", "graded", "ls-user-7", 15, 1, seconds=9.25),
]


def content(run_cli: Cli, policy: str = "median") -> None:
    """A store with the queries, documents, strata and policy of the golden set (no labels)."""
    run_cli("init", "--name", "t", "--level", "2=relevant: answers the question")
    run_cli("policy", policy)
    run_cli("strata", "set", "how", "0.4")
    run_cli("strata", "set", "nav", "0.6")
    run_cli("import", "queries", str(run_cli.write("q.jsonl", "".join(json.dumps(q) + "\n" for q in QUERIES))))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", "".join(json.dumps(d) + "\n" for d in DOCS))))


def judged(run_cli: Cli, policy: str = "median") -> None:
    content(run_cli, policy)
    run_cli("import", "qrels", str(run_cli.write("pool.qrels", "q3 0 d5 -1\nq2 0 d2 -1\n")))
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", "".join(json.dumps(e) + "\n" for e in EVENTS))))


def tasks_of(path: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return found


def pairs(tasks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(t["data"]["query_id"], t["data"]["doc_id"]) for t in tasks]


def test_tasks_are_the_pooled_unjudged_pairs_with_their_query_and_document(run_cli: Cli) -> None:
    judged(run_cli)
    out = run_cli.tmp / "tasks.json"
    said = run_cli("export", "label-studio", "--out", str(out)).output
    assert "wrote 2 tasks (0 annotations)" in said
    tasks = tasks_of(out)
    assert pairs(tasks) == [("q2", "d2"), ("q3", "d5")]
    assert tasks[1] == {
        "id": 2,
        "data": {
            "query_id": "q3",
            "query_text": "[red]x[/] markup",
            "query_description": "",
            "stratum": "nav",
            "doc_id": "d5",
            "doc_title": "title 5",
            "doc_text": "text 5 \x1b[2J",
        },
    }
    every = tasks_of(_export(run_cli, "--all"))
    assert pairs(every) == [
        ("q2", "d2"),
        ("q3", "d5"),
        ("q1", "d1"),
        ("q1", "d2"),
        ("q1", "d3"),
        ("q2", "d1"),
        ("q2", "d3"),
        ("q3", "d4"),
    ]
    assert all("annotations" not in t for t in every)
    assert every[2]["data"]["query_description"] == "in place or not"


def _export(run_cli: Cli, *args: str, name: str = "tasks.json") -> Path:
    out = run_cli.tmp / name
    run_cli("export", "label-studio", "--out", str(out), *args)
    return out


def test_annotations_are_each_assessors_current_vote_and_the_adjudication(run_cli: Cli) -> None:
    judged(run_cli)
    tasks = {
        (t["data"]["query_id"], t["data"]["doc_id"]): t["annotations"]
        for t in tasks_of(_export(run_cli, "--with-annotations"))
    }
    assert tasks[("q3", "d5")] == [] and tasks[("q2", "d2")] == []  # pooled; the retracted vote is gone
    first, second = tasks[("q1", "d1")]
    assert first == {
        "id": first["id"],
        "completed_by": {"email": "ann"},
        "result": [
            {
                "id": f"r{first['id']}",
                "from_name": "relevance",
                "to_name": "doc_text",
                "type": "choices",
                "value": {"choices": ["relevant"]},
            }
        ],
        "was_cancelled": False,
        "ground_truth": False,
        "created_at": "2024-05-01T10:01:00+00:00",
        "updated_at": "2024-05-01T10:01:00+00:00",
        "lead_time": 4.5,
    }
    assert second["completed_by"] == {"email": "bob"} and second["result"][0]["value"] == {"choices": ["perfect"]}
    assert [a["result"][0]["value"]["choices"] for a in tasks[("q1", "d2")]] == [["irrelevant"]]  # ann's latest only
    (skip,) = tasks[("q1", "d3")]
    assert skip["was_cancelled"] is True and skip["result"] == [] and skip["lead_time"] == 1.0
    settled = [a for a in tasks[("q2", "d1")] if a["ground_truth"]]
    assert [(a["completed_by"], a["result"][0]["value"]) for a in settled] == [
        ({"email": "cy"}, {"choices": ["perfect"]})
    ]
    assert [a["completed_by"] for a in tasks[("q3", "d4")]] == [7]  # after the clear; a user id for ls-user-7
    assert [a["completed_by"] for a in tasks[("q2", "d3")]] == [{"email": "ann"}]  # the note is no annotation
    ids = [a["id"] for annotations in tasks.values() for a in annotations]
    assert sorted(ids) == list(range(1, len(ids) + 1))


def _freeze(run_cli: Cli, where: str) -> dict[str, Any]:
    run_cli("freeze", "t", "1", "--out", str(run_cli.tmp / where))
    manifest: dict[str, Any] = json.loads((run_cli.tmp / where / "t" / "1" / "manifest.json").read_text())
    return manifest


@pytest.mark.parametrize(("control", "policy"), [("choices", "median"), ("rating", "median"), ("choices", "latest")])
def test_tasks_with_annotations_round_trip_to_the_same_content_hash(tmp_path: Path, control: str, policy: str) -> None:
    source, fresh = Cli(tmp_path / "source"), Cli(tmp_path / "fresh")
    for cli in (source, fresh):
        cli.tmp.mkdir()
    judged(source, policy)
    tasks = _export(source, "--with-annotations", "--control", control)
    before = _freeze(source, "sets")
    content(fresh, policy)
    offset = ["--grade-offset", "-1"] if control == "rating" else []
    said = fresh("import", "label-studio", str(tasks), *offset, "--ground-truth-adjudicates").output
    assert "imported 9 judgment events from 8 tasks" in said and "2 pairs without annotations pooled" in said
    after = _freeze(fresh, "sets")
    assert after["content_hash"] == before["content_hash"]
    assert after["counts"] == before["counts"]
    with Store.open(source.db, create=False) as a, Store.open(fresh.db, create=False) as b:
        assert b.reads.label_rows() == a.reads.label_rows()
        assert sorted(b.reads.skipped()) == sorted(a.reads.skipped())
        assert [(p.query_id, p.doc_id) for p in b.pool.unlabeled()] == [
            (p.query_id, p.doc_id) for p in a.pool.unlabeled()
        ]
        # what a task cannot carry: the history behind the current votes
        kept = {(e.query_id, e.doc_id, e.state.value, e.assessor, e.grade) for e in b.log.events()}
        assert ("q1", "d2", "graded", "ann", 1) not in kept  # ann's earlier grade
        assert not {e[2] for e in kept} & {"retracted", "cleared", "noted"}
        assert ("q3", "d4", "graded", "ann", 2) not in kept  # the vote the clear reset
        assert {e.source for e in b.pool.unlabeled()} == {str(tasks)}  # not the qrels file that pooled them
    again = fresh("import", "label-studio", str(tasks), *offset, "--ground-truth-adjudicates").output
    assert "imported 0 judgment events" in again and "9 events already in the log (skipped)" in again


def test_an_adjudication_is_a_vote_unless_the_import_is_told(tmp_path: Path) -> None:
    source, fresh = Cli(tmp_path / "source"), Cli(tmp_path / "fresh")
    for cli in (source, fresh):
        cli.tmp.mkdir()
    judged(source)
    tasks = _export(source, "--with-annotations")
    content(fresh)
    fresh("import", "label-studio", str(tasks))
    with Store.open(source.db, create=False) as a, Store.open(fresh.db, create=False) as b:
        assert ("q2", "d1", 3) in a.reads.label_rows()
        assert ("q2", "d1", 2) in b.reads.label_rows()  # cy's 3 is one vote of 1, 2, 3: the median 2
    assert _freeze(fresh, "sets")["content_hash"] != _freeze(source, "sets")["content_hash"]


def test_the_labeling_config_offers_the_scale(run_cli: Cli) -> None:
    run_cli("init", "--max-grade", "2", "--level", '0=<b>&"no"</b>', "--level", "1=half: $doc_text & <more>")
    choices = run_cli.tmp / "choices.xml"
    run_cli("export", "label-studio", "--out", str(run_cli.tmp / "t.json"), "--config", str(choices))
    root = ET.fromstring(choices.read_text(encoding="utf-8"))
    control = root.find("Choices")
    assert control is not None and control.get("name") == "relevance" and control.get("toName") == "doc_text"
    assert [c.get("value") for c in control.findall("Choice")] == ['<b>&"no"</b>', "half", "grade 2"]
    assert [h.get("value") for h in root.findall("Header")][-1] == "half: $doc_text & <more>"
    assert {t.get("name"): t.get("value") for t in root.findall("Text")}["doc_text"] == "$doc_text"
    rating = run_cli.tmp / "rating.xml"
    run_cli(
        "export", "label-studio", "--control", "rating", "--out", str(run_cli.tmp / "t.json"), "--config", str(rating)
    )
    stars = ET.fromstring(rating.read_text(encoding="utf-8")).find("Rating")
    assert stars is not None and stars.get("maxRating") == "3"


def test_level_names_that_clash_become_numbers(run_cli: Cli) -> None:
    run_cli("init", "--max-grade", "2", "--level", "0=2", "--level", "1=one", "--level", "2=two")
    config = run_cli.tmp / "c.xml"
    run_cli("export", "label-studio", "--out", str(run_cli.tmp / "t.json"), "--config", str(config))
    choices = ET.fromstring(config.read_text(encoding="utf-8")).find("Choices")
    assert choices is not None and [c.get("value") for c in choices.findall("Choice")] == ["0", "1", "2"]


def test_outputs_never_replace_the_store_or_each_other(run_cli: Cli) -> None:
    judged(run_cli)
    before = run_cli.db.read_bytes()
    for args, expected in (
        (["--out", str(run_cli.db)], "is the store"),
        (["--out", str(run_cli.tmp / "a.json"), "--config", str(run_cli.tmp / "a.json")], "is the --out file"),
        (["--out", str(run_cli.tmp / "a.json"), "--config", str(run_cli.db)], "is the store"),
    ):
        result = run_cli("export", "label-studio", *args, ok=False)
        assert result.exit_code == 2 and expected in result.output and result.output.count("\n") == 1
    assert run_cli.db.read_bytes() == before and not (run_cli.tmp / "a.json").exists()


def test_tasks_go_to_standard_output_without_out(run_cli: Cli) -> None:
    judged(run_cli)
    result = run_cli("export", "label-studio")
    text = result.stdout
    assert pairs(json.loads(text)) == [("q2", "d2"), ("q3", "d5")]
