"""`qrelkit assess --judge lexical`: deterministic grades from term overlap on the store's scale,
provenance per row, a content-keyed cache (resume, hit rate, --refresh), --max-calls, hostile
text, and bad input as one line with exit status 2."""

from __future__ import annotations

import hashlib
import json

import pytest

from conftest import Cli
from hostile import ALL_IN_ONE, LONG
from qrelkit.models import Document, GradeScale, Query
from qrelkit.storage import Store
from qrelkit.workflows.assess import LEXICAL_TEMPLATE, LexicalJudge, terms

DOCS = {
    "all": "Sort a Python LIST with sorted()",  # every query term: sort, python, list
    "two": "a python list holds items",  # python, list: 2 of 3
    "one": "the list of things",  # list: 1 of 3
    "none": "nothing in common here",
}


def _store(run_cli: Cli, query: str = "how to sort a python list", docs: dict[str, str] = DOCS) -> None:
    run_cli("init")
    line = json.dumps({"id": "q1", "text": query, "stratum": "s"})
    run_cli("import", "queries", str(run_cli.write("q.jsonl", line)), "--create-strata")
    rows = "\n".join(json.dumps({"id": d, "title": "", "text": t}) for d, t in docs.items())
    run_cli("import", "docs", str(run_cli.write("d.jsonl", rows)))
    run = "".join(f"q1 Q0 {d} {i} {10 - i} r\n" for i, d in enumerate(docs, 1))
    run_cli("pool", str(run_cli.write("r.run", run)), "--depth", "100")


def _grades(run_cli: Cli) -> dict[str, int | None]:
    with Store.open(run_cli.db) as store:
        return {d: g for _, d, _, g in store.machine.latest("lexical")}


def test_grades_are_the_share_of_query_terms_cut_into_the_scale(run_cli: Cli) -> None:
    _store(run_cli)
    out = run_cli("assess", "--judge", "lexical").output
    assert "4 pairs, 4 asked, 0 cached (hit rate 0.0%)" in out and "4 ok" in out
    # query terms {sort, python, list} ("how", "to", "a" are stop words): 3 terms, top grade 3
    assert terms("how to sort a python list") == {"sort", "python", "list"}
    assert _grades(run_cli) == {"all": 3, "two": 2, "one": 1, "none": 0}  # floor(3/3*3), floor(2/3*3), ...
    run_cli("init", "--max-grade", "4")  # another scale: other parameters, a new question
    out = run_cli("assess", "--judge", "lexical").output
    assert "4 asked, 0 cached" in out
    assert _grades(run_cli) == {"all": 4, "two": 2, "one": 1, "none": 0}  # floor(4), floor(8/3), floor(4/3)


def test_the_same_pairs_give_the_same_rows_on_another_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = []
    for _ in range(2):
        cli = Cli(tmp_path_factory.mktemp("s"))
        _store(cli)
        cli("assess", "--judge", "lexical")
        with Store.open(cli.db) as store:
            rows.append([r.model_dump(exclude={"timestamp", "latency"}) for r in store.machine.rows()])
    assert rows[0] == rows[1] and len(rows[0]) == 4


def test_each_row_keeps_its_provenance(run_cli: Cli) -> None:
    _store(run_cli)
    run_cli("assess", "--judge", "lexical")
    judge, scale = LexicalJudge(), GradeScale()
    with Store.open(run_cli.db) as store:
        row = next(r for r in store.machine.rows() if r.doc_id == "two")
        prompt = judge.render(
            Query(id="q1", text="how to sort a python list"), Document(id="two", text=DOCS["two"]), scale
        )
    assert row.assessor == "lexical" and row.model == "lexical" and row.endpoint_host is None
    assert row.parameters == {"max_grade": 3} and row.status == "ok" and row.grade == 2
    assert row.template_sha256 == "sha256:" + hashlib.sha256(LEXICAL_TEMPLATE.encode()).hexdigest()
    assert row.prompt_sha256 == "sha256:" + hashlib.sha256(prompt.encode()).hexdigest()
    assert row.reply is not None and row.reply.endswith("Grade: 2") and row.latency is not None


def test_a_second_run_asks_nothing_and_refresh_asks_again(run_cli: Cli) -> None:
    _store(run_cli)
    run_cli("assess", "--judge", "lexical")
    again = run_cli("assess", "--judge", "lexical").output
    assert "4 pairs, 0 asked, 4 cached (hit rate 100.0%)" in again
    fresh = json.loads(run_cli("assess", "--judge", "lexical", "--refresh", "--format", "json").output)
    assert fresh["asked"] == 4 and fresh["cached"] == 0 and fresh["statuses"] == {"ok": 4}
    with Store.open(run_cli.db) as store:
        assert len(list(store.machine.rows())) == 8  # a new row per pair; the latest counts
        assert [c.pairs for c in store.machine.counts()] == [4]


def test_max_calls_stops_and_a_rerun_goes_on_without_asking_twice(run_cli: Cli) -> None:
    _store(run_cli)
    first = run_cli("assess", "--judge", "lexical", "--max-calls", "3")
    assert "3 asked" in first.output and "1 pairs left by --max-calls 3" in first.output
    second = json.loads(run_cli("assess", "--judge", "lexical", "--format", "json").output)
    assert (second["asked"], second["cached"], second["capped"]) == (1, 3, 0)
    with Store.open(run_cli.db) as store:
        asked = [(r.query_id, r.doc_id) for r in store.machine.rows()]
    assert sorted(asked) == sorted(set(asked)) and len(asked) == 4  # no pair asked twice
    assert (
        json.loads(run_cli("assess", "--judge", "lexical", "--max-calls", "0", "--format", "json").output)["cached"]
        == 4
    )


def test_pairs_with_the_same_texts_share_one_answer(run_cli: Cli) -> None:
    _store(run_cli, docs={"a": "sort a list", "b": "sort a list", "c": "other"})
    out = json.loads(run_cli("assess", "--judge", "lexical", "--format", "json").output)
    assert out["asked"] == 3  # not yet asked when the run began: each is asked once
    run_cli("import", "docs", str(run_cli.write("d2.jsonl", json.dumps({"id": "e", "text": "sort a list"}))))
    run_cli("pool", str(run_cli.write("r2.run", "q1 Q0 e 1 1 r\n")), "--depth", "5")
    again = json.loads(run_cli("assess", "--judge", "lexical", "--format", "json").output)
    assert (again["asked"], again["cached"]) == (0, 4)
    grades = _grades(run_cli)
    assert grades["e"] == grades["a"] is not None  # e got a's answer, without asking


def test_pairs_human_and_stratum_choose_what_is_asked(run_cli: Cli) -> None:
    _store(run_cli)
    judged = run_cli.write("j.jsonl", json.dumps({"query_id": "q1", "doc_id": "all", "state": "graded", "grade": 3,
                                                  "assessor": "ann", "timestamp": "2026-01-01T00:00:00Z"}))  # fmt: skip
    run_cli("import", "judgments", str(judged))
    human = json.loads(run_cli("assess", "--judge", "lexical", "--pairs", "human", "--format", "json").output)
    assert human["pairs"] == 1
    pooled = json.loads(run_cli("assess", "--judge", "lexical", "--format", "json").output)
    assert pooled["pairs"] == 3
    assert (
        json.loads(run_cli("assess", "--judge", "lexical", "--stratum", "s", "--format", "json").output)["pairs"] == 3
    )


def test_hostile_text_is_asked_about_and_shown_plain(run_cli: Cli) -> None:
    query = "python list " + ALL_IN_ONE
    _store(run_cli, query=query, docs={"d1": ALL_IN_ONE + " python", "d2": LONG, "d3": "日本語のテキスト python list"})
    out = run_cli("assess", "--judge", "lexical").output
    assert "3 asked" in out and "\x1b" not in out
    grades = _grades(run_cli)
    assert set(grades) == {"d1", "d2", "d3"} and all(g is not None for g in grades.values())
    with Store.open(run_cli.db) as store:
        assert all(r.status == "ok" for r in store.machine.rows())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--judge", "oracle"), "--judge"),
        (("--judge", "lexical", "--pairs", "some"), "--pairs"),
        (("--judge", "lexical", "--stratum", "nope"), "--stratum 'nope' is not a stratum"),
        (("--judge", "lexical", "--max-calls", "-1"), "--max-calls"),
        (("--model", "m"), "--model needs --endpoint"),
        (("--judge", "lexical", "--endpoint", "http://127.0.0.1:9/v1"), "two judges"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Cli, args: tuple[str, ...], says: str) -> None:
    _store(run_cli)
    bad = run_cli("assess", *args, ok=False)
    assert bad.exit_code == 2 and says in bad.output
    assert len(bad.output.strip().splitlines()) == 1 and "Traceback" not in bad.output
    with Store.open(run_cli.db) as store:
        assert list(store.machine.rows()) == []


def test_order_asks_the_judging_queue_first(run_cli: Cli) -> None:
    """`--order` asks in the queue's order, so `--max-calls N` asks the queue's first N (here the
    run's ranking: depth), not the first N by document id."""
    _store(run_cli)
    queue = [
        line.split("\t")[1] for line in run_cli("queue", "--order", "depth", "--format", "tsv").output.splitlines()
    ]
    assert queue != sorted(queue)  # the test tells the two orders apart
    run_cli("assess", "--order", "depth", "--max-calls", "2")
    with Store.open(run_cli.db) as store:
        assert [r.doc_id for r in store.machine.rows()] == queue[:2]
