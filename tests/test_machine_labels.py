"""Machine labels are stored apart from the human judgment log: resolution, agreement, the judging
screens, `export judgments` and a human freeze never see them; `--labels human+machine` lets a
machine grade fill a hole only (a human label wins, a human skip stays a skip, an unparsed reply
fills nothing); scores and versions say which labels they used, and `compare` refuses to mix them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli
from qrelkit.models import Judgment, JudgmentState
from qrelkit.models.machine import MachineLabel
from qrelkit.resolution import fill_holes
from qrelkit.storage import Store
from qrelkit.workflows import assessors, disagreements
from qrelkit.workflows.judging import JudgingSession

QUERIES = [
    {"id": "q1", "text": "sort a python list", "stratum": "how-to"},
    {"id": "q2", "text": "open a file for reading", "stratum": "how-to"},
]
DOCS = [
    {"id": "d1", "title": "Sorting", "text": "sort a list in python with sorted"},
    {"id": "d2", "title": "Lists", "text": "a python list holds items"},
    {"id": "d3", "title": "Files", "text": "open a file, then read it"},
    {"id": "d4", "title": "Other", "text": "nothing shared at all"},
    {"id": "d5", "title": "Reading", "text": "open the file for reading"},
    {"id": "d6", "title": "Modes", "text": "file modes: r for reading"},
]
EVENTS: list[dict[str, object]] = [  # d1: ann and bob disagree (agreement, adjudication); d2: grade 0; d3: a skip
    {"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 2, "assessor": "ann"},
    {"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 1, "assessor": "bob"},
    {"query_id": "q1", "doc_id": "d2", "state": "graded", "grade": 0, "assessor": "ann"},
    {"query_id": "q2", "doc_id": "d3", "state": "skipped", "assessor": "ann"},
    {"query_id": "q2", "doc_id": "d6", "state": "graded", "grade": 2, "assessor": "bob"},
]
POOLED = "q1 Q0 d4 1\nq2 Q0 d4 1\nq2 Q0 d5 1\n"  # as a pooled-unjudged qrels file: grade -1


def _golden(run_cli: Cli) -> None:
    run_cli("init")
    rows = "\n".join(json.dumps(q) for q in QUERIES)
    run_cli("import", "queries", str(run_cli.write("q.jsonl", rows)), "--create-strata")
    run_cli("import", "docs", str(run_cli.write("d.jsonl", "\n".join(json.dumps(d) for d in DOCS))))
    events = "\n".join(json.dumps({**e, "timestamp": "2026-01-01T00:00:00Z"}) for e in EVENTS)
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", events)))
    pool = run_cli.write("pool.run", POOLED.replace(" 1\n", " 1 1.0 r\n").replace("Q0 ", "Q0 "))
    run_cli("pool", str(pool), "--depth", "5")


def _label(assessor: str, q: str, d: str, status: str, grade: int | None) -> MachineLabel:
    reply = f"Grade: {grade}" if grade is not None else "I cannot say"
    return MachineLabel.model_validate(
        {"assessor": assessor, "query_id": q, "doc_id": d, "status": status, "grade": grade, "reply": reply,
         "template_sha256": "sha256:t", "prompt_sha256": "sha256:p", "cache_key": f"k-{q}-{d}"}
    )  # fmt: skip


def _human_view(run_cli: Cli) -> dict[str, object]:
    """Everything the humans' side shows: labels, skips, the log, agreement, adjudication, screens."""
    with Store.open(run_cli.db) as store:
        session = JudgingSession(store, "ann")
        screens = {q: [d.model_dump(mode="json") for d in session.documents(q)] for q in ("q1", "q2")}
        view = {
            "labels": store.reads.label_rows(),
            "skipped": sorted(store.reads.skipped()),
            "unlabeled": [p.model_dump() for p in store.pool.unlabeled()],
            "agreement": assessors.agreement(store).model_dump(mode="json"),
            "disagreements": [x.model_dump(mode="json") for x in disagreements.disagreements(store)],
            "screens": screens,
        }
        session.close()
    view["export_judgments"] = run_cli("export", "judgments").output
    view["export_qrels"] = run_cli("export", "qrels").output
    return view


def test_machine_labels_never_reach_the_human_side(run_cli: Cli, tmp_path: Path) -> None:
    _golden(run_cli)
    before = _human_view(run_cli)
    run_cli("freeze", "g", "1", "--out", str(tmp_path / "v"))
    run_cli("assess", "--judge", "lexical", "--pairs", "all")
    with Store.open(run_cli.db) as store:
        assert len(list(store.machine.rows())) == 7  # every pair of the store, labeled by the machine
        assert {e.assessor for e in store.log.events()} == {"ann", "bob"}
    assert _human_view(run_cli) == before
    run_cli("freeze", "g", "2", "--out", str(tmp_path / "v"))
    one, two = (json.loads((tmp_path / "v" / "g" / v / "manifest.json").read_text()) for v in ("1", "2"))
    assert one["content_hash"] == two["content_hash"] and "labels" not in two and "machine_assessor" not in two
    assert (tmp_path / "v/g/1/qrels.txt").read_bytes() == (tmp_path / "v/g/2/qrels.txt").read_bytes()


def test_human_plus_machine_fills_holes_only(run_cli: Cli) -> None:
    _golden(run_cli)
    with Store.open(run_cli.db) as store:
        store.machine.record(
            [
                _label("lexical", "q1", "d1", "ok", 0),  # human label (votes 2 and 1: median 1) wins
                _label("lexical", "q1", "d2", "ok", 3),  # a human grade 0 is a label: never replaced
                _label("lexical", "q2", "d3", "ok", 3),  # a human skip stays a skip
                _label("lexical", "q1", "d4", "ok", 2),  # a hole: filled
                _label("lexical", "q2", "d4", "unparsed", None),  # an unparsed reply fills nothing
                _label("lexical", "q2", "d5", "ok", 1),
                _label("lexical", "q2", "d5", "refused", None),  # asked again: the latest row counts
            ]
        )
    rows = run_cli("export", "qrels", "--labels", "human+machine").output.split("\n")
    assert [r for r in rows if r] == ["q1 0 d1 1", "q1 0 d2 0", "q1 0 d4 2", "q2 0 d6 2"]
    machine = run_cli("export", "qrels", "--labels", "machine").output.split("\n")
    assert [r for r in machine if r] == ["q1 0 d1 0", "q1 0 d2 3", "q1 0 d4 2", "q2 0 d3 3"]
    assert run_cli("export", "qrels").output == "q1 0 d1 1\nq1 0 d2 0\nq2 0 d6 2\n"


def test_the_fill_rule_by_itself() -> None:
    human = [("q", "a", 2), ("q", "b", 0)]
    machine = [("q", "a", 0), ("q", "b", 3), ("q", "c", 1), ("q", "s", 3), ("r", "x", 0)]
    assert fill_holes(human, [("q", "s")], machine) == [("q", "a", 2), ("q", "b", 0), ("q", "c", 1), ("r", "x", 0)]
    assert fill_holes(human, [], []) == human


def test_scores_and_versions_record_their_labels(run_cli: Cli, tmp_path: Path) -> None:
    _golden(run_cli)
    run_path = run_cli.write("r.run", "q1 Q0 d4 1 3 r\nq1 Q0 d1 2 2 r\nq2 Q0 d5 1 1 r\n")
    human = json.loads(run_cli("score", str(run_path), "--format", "json", "--metrics", "P@2").output)
    run_cli("assess", "--judge", "lexical")
    again = json.loads(run_cli("score", str(run_path), "--format", "json", "--metrics", "P@2").output)
    assert again["reports"][0]["fingerprint"] == human["reports"][0]["fingerprint"]  # human: as before
    assert "labels" not in human["reports"][0]["fingerprint"]["golden"]
    mixed = json.loads(
        run_cli("score", str(run_path), "--format", "json", "--metrics", "P@2", "--labels", "human+machine").output
    )
    golden = mixed["reports"][0]["fingerprint"]["golden"]
    assert golden["labels"] == "human+machine" and golden["machine_assessor"] == "lexical"
    assert golden["content_hash"] != human["reports"][0]["fingerprint"]["golden"]["content_hash"]
    out = tmp_path / "v"
    run_cli("freeze", "g", "m", "--out", str(out), "--labels", "human+machine")
    manifest = json.loads((out / "g/m/manifest.json").read_text())
    assert manifest["labels"] == "human+machine" and manifest["machine_assessor"] == "lexical"
    assert manifest["content_hash"] == golden["content_hash"]  # the same content, scored or frozen
    assert "match the manifest" in run_cli("verify", str(out / "g/m")).output
    frozen = json.loads(
        run_cli("score", str(run_path), "--golden", str(out / "g/m"), "--format", "json", "--metrics", "P@2").output
    )
    assert frozen["reports"][0]["fingerprint"]["golden"]["labels"] == "human+machine"


def test_a_machine_freeze_that_drops_a_human_label_fails_verify(run_cli: Cli, tmp_path: Path) -> None:
    _golden(run_cli)
    run_cli("assess", "--judge", "lexical", "--pairs", "all")
    out = tmp_path / "v"
    run_cli("freeze", "g", "m", "--out", str(out), "--labels", "human+machine")
    qrels = out / "g/m/qrels.txt"
    qrels.write_text(qrels.read_text().replace("q1 0 d1 1\n", "q1 0 d1 3\n"))
    bad = run_cli("verify", str(out / "g/m"), ok=False)
    assert bad.exit_code == 1 and "qrels.txt" in bad.output


def test_compare_refuses_mixed_labels_unless_allowed(run_cli: Cli) -> None:
    _golden(run_cli)
    run_cli("assess", "--judge", "lexical")
    run_path = run_cli.write("r.run", "q1 Q0 d4 1 3 r\nq1 Q0 d1 2 2 r\nq2 Q0 d5 1 1 r\nq2 Q0 d3 2 0 r\n")
    score = ("score", str(run_path), "--format", "json", "--metrics", "nDCG@10,R@50", "--per-query", "--no-bounds")
    human = run_cli.write("h.json", run_cli(*score).output)
    machine = run_cli.write("m.json", run_cli(*score, "--labels", "human+machine").output)
    refused = run_cli("compare", str(human), str(machine), ok=False)
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert "labels differ (human vs human+machine (lexical))" in refused.output
    assert "--allow-mixed-labels" in refused.output and "Traceback" not in refused.output
    allowed = run_cli("compare", str(human), str(machine), "--allow-mixed-labels")
    assert allowed.exit_code == 0
    assert run_cli("compare", str(human), str(human)).exit_code == 0


def test_machine_assessors_are_chosen_or_ambiguity_is_refused(run_cli: Cli) -> None:
    _golden(run_cli)
    none = run_cli("export", "qrels", "--labels", "machine", ok=False)
    assert none.exit_code == 2 and "holds no machine labels" in none.output
    run_cli("assess", "--judge", "lexical")
    with Store.open(run_cli.db) as store:
        store.machine.record([_label("llm:tiny", "q1", "d4", "ok", 1)])
    several = run_cli("export", "qrels", "--labels", "machine", ok=False)
    assert several.exit_code == 2 and len(several.output.strip().splitlines()) == 1
    assert "lexical, llm:tiny" in several.output and "--machine-assessor" in several.output
    chosen = run_cli("export", "qrels", "--labels", "machine", "--machine-assessor", "llm:tiny").output
    assert chosen == "q1 0 d4 1\n"
    unknown = run_cli("export", "qrels", "--labels", "machine", "--machine-assessor", "llm:nope", ok=False)
    assert unknown.exit_code == 2 and "lexical, llm:tiny" in unknown.output
    human_too = run_cli("export", "qrels", "--machine-assessor", "lexical", ok=False)
    assert human_too.exit_code == 2 and "--labels" in human_too.output


def test_status_counts_machine_labels_per_assessor_and_parse_status(run_cli: Cli) -> None:
    _golden(run_cli)
    assert "machine" not in run_cli("status").output
    run_cli("assess", "--judge", "lexical")
    with Store.open(run_cli.db) as store:
        store.machine.record(
            [_label("llm:tiny", "q1", "d4", "unparsed", None), _label("llm:tiny", "q1", "d4", "ok", 2)]
        )
    shown = run_cli("status").output
    assert "lexical" in shown and "llm:tiny" in shown
    counts = json.loads(run_cli("status", "--format", "json").output)["machine"]
    assert {(c["assessor"], c["status"], c["rows"], c["pairs"]) for c in counts} == {
        ("lexical", "ok", 3, 3),
        ("llm:tiny", "ok", 1, 1),
        ("llm:tiny", "unparsed", 1, 0),
    }


@pytest.mark.parametrize("status", ["unparsed", "refused", "error"])
def test_only_a_parsed_reply_carries_a_grade(status: str) -> None:
    with pytest.raises(ValueError, match="exactly when its status is ok"):
        _label("lexical", "q", "d", status, 0)
    with pytest.raises(ValueError, match="exactly when its status is ok"):
        _label("lexical", "q", "d", "ok", None)
    assert _label("lexical", "q", "d", status, None).grade is None


def test_a_human_vote_after_machine_labels_still_wins(run_cli: Cli) -> None:
    _golden(run_cli)
    run_cli("assess", "--judge", "lexical")
    with Store.open(run_cli.db) as store:
        store.log.record(Judgment(query_id="q1", doc_id="d4", state=JudgmentState.GRADED, grade=3, assessor="ann"))
    rows = run_cli("export", "qrels", "--labels", "human+machine").output
    assert "q1 0 d4 3\n" in rows


@pytest.mark.parametrize("name", ["lexical", "llm:gpt-4o", "llm:x"])
def test_a_person_cannot_take_a_machine_assessors_name(
    run_cli: Cli, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A human vote never reads as a machine's: the names machine assessors use are refused for
    people, in a file's lines and wherever a name is given (here $QRELKIT_ASSESSOR)."""
    _golden(run_cli)
    line = json.dumps({"query_id": "q1", "doc_id": "d4", "state": "graded", "grade": 1, "assessor": name})
    refused = run_cli("import", "judgments", str(run_cli.write("m.jsonl", line)), ok=False)
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert "m.jsonl:1" in refused.output and "machine assessor" in refused.output
    monkeypatch.setenv("QRELKIT_ASSESSOR", name)
    named = run_cli("judge", "--query", "q1", ok=False)
    assert named.exit_code == 2 and "is not an assessor name" in named.output
    assert "llm:" in named.output  # the hint names the rule
    with Store.open(run_cli.db) as store:
        assert name not in {e.assessor for _, e in store.log.query_events("q1", "d4")}


def test_recheck_gives_pairs_a_machine_disagrees_on_to_one_more_person_blind(run_cli: Cli) -> None:
    """`assign --recheck`: the human-labeled pairs where the machine's grade differs from the
    humans' go to one more assessor with no vote on them, shared with those who voted, so the new
    assessor judges blind: no grade, no author, and never the machine's grade."""
    from qrelkit.workflows.pairs import document_state

    _golden(run_cli)
    run_cli("assess", "--judge", "lexical", "--pairs", "human")
    with Store.open(run_cli.db) as store:
        human = {(q, d): g for q, d, g in store.reads.label_rows()}
        machine = {(q, d): g for q, d, _, g in store.machine.latest("lexical")}
        voters = {p: {v.assessor for v in votes} for p, (votes, _) in store.log.votes().items()}
    differ = {p for p in human if machine.get(p) is not None and machine[p] != human[p]}
    assert differ  # the lexical judge disagrees with the humans somewhere here
    done = run_cli("assign", "--recheck", "--assessors", "ann,bob,cat")
    assert done.output.startswith(f"assigned {len(differ)} pairs a machine disagrees on")
    # the count is the new person's assignments, not the shares written for those who voted
    assert f"({len(differ)} new assignments)" in done.output
    again = run_cli("assign", "--recheck", "--assessors", "ann,bob,cat")
    assert "(0 new assignments)" in again.output  # the same seed: the same pairs, already assigned
    with Store.open(run_cli.db) as store:
        for name in ("ann", "bob", "cat"):
            for q, d in store.log.pending_assignments(name):
                assert (q, d) in differ and name not in voters[(q, d)]
                seen = document_state(store, q, d, assessor=name, blind=True)
                assert seen.blind and seen.grade is None and seen.assessor is None
        pending = {p for n in ("ann", "bob", "cat") for p in store.log.pending_assignments(n)}
    assert pending == differ
    both = run_cli("assign", "--recheck", "--overlap", "2", ok=False)
    assert both.exit_code == 2 and len(both.output.strip().splitlines()) == 1
    neither = run_cli("assign", ok=False)
    assert neither.exit_code == 2 and "--overlap is required" in neither.output


def test_recheck_without_machine_labels_says_what_to_do(run_cli: Cli) -> None:
    _golden(run_cli)
    refused = run_cli("assign", "--recheck", ok=False)
    assert refused.exit_code == 2 and "qrelkit assess --pairs human" in refused.output
