"""Evidence passages (issue 25, item 6): the passage an assessor marks as the evidence for their
vote is stored with the vote, exported by `export judgments` and read back by `import judgments`,
kept from the other assessors of a blind pair until they have voted, and refused on an event
that is no vote."""

from __future__ import annotations

import json

from conftest import ROOT, Cli
from hostile import TEXT
from qrelkit.models import JudgmentState
from qrelkit.storage import Store
from qrelkit.workflows import evidence
from qrelkit.workflows.evidence import EvidenceChange
from qrelkit.workflows.judging import JudgingSession

PASSAGE = "[bold]the answer[/bold] is \x1b[31m42\x07"
HOSTILE = "".join(TEXT.values())


def _pair(store: Store) -> tuple[str, str]:
    label = store.reads.labels()[0]
    return label.query_id, label.doc_id


def test_the_evidence_goes_out_with_the_vote_and_comes_back(run_cli: Cli) -> None:
    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    with Store.open(run_cli.db) as store:
        q, d = _pair(store)
        JudgingSession(store, "ann").judge_next(q, d, JudgmentState.GRADED, 1, evidence=PASSAGE)
    out = run_cli("export", "judgments").output
    lines = [json.loads(line) for line in out.splitlines()]
    marked = [line for line in lines if "evidence" in line]
    assert [(x["assessor"], x["doc_id"], x["evidence"]) for x in marked] == [("ann", d, PASSAGE)]
    path = run_cli.write("events.jsonl", out)
    other = Cli(run_cli.tmp / "other")
    (run_cli.tmp / "other").mkdir()
    other("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    other("import", "judgments", str(path))
    with Store.open(other.db) as store:
        events = [e for e in store.log.events() if e.evidence is not None]
        assert [(e.assessor, e.doc_id, e.grade, e.evidence) for e in events] == [("ann", d, 1, PASSAGE)]
        assert other("import", "judgments", str(path)).exit_code == 0
        assert len([e for e in store.log.events() if e.evidence is not None]) == 1  # a repeat adds nothing
    assert other("export", "judgments").output.count('"evidence"') == 1


def test_evidence_on_an_event_that_is_no_vote_is_refused_in_one_line(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))
    line = '{"query_id": "q1", "doc_id": "a", "state": "noted", "note": "n", "assessor": "ann", "evidence": "p"}\n'
    path = run_cli.write("j.jsonl", line)
    result = run_cli("import", "judgments", str(path), ok=False)
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert said.startswith(f"error: {path}:1: ") and "carries no evidence" in said, said


def test_marking_evidence_before_and_after_voting(run_cli: Cli) -> None:
    """Before a vote, the passage is kept for it (nothing written); on a vote of one's own, the
    vote is recorded again carrying it; the same passage again writes nothing; empty withdraws it,
    and `z` brings back the vote with the evidence it had."""
    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    with Store.open(run_cli.db) as store:
        q, d = _pair(store)
        session = JudgingSession(store, "ann")
        before = store.log.size()
        change, state, kept = evidence.mark(session, q, d, "  a passage \n")
        assert (change, state, kept, store.log.size()) == (EvidenceChange.PENDING, None, "a passage", before)
        session.judge_next(q, d, JudgmentState.GRADED, 2, evidence=kept)
        assert evidence.current(session, q, d) == "a passage"
        change, state, _ = evidence.mark(session, q, d, "a passage")
        assert (change, state, store.log.size()) == (EvidenceChange.UNCHANGED, None, before + 1)
        change, state, _ = evidence.mark(session, q, d, HOSTILE)
        assert change is EvidenceChange.SAVED and state is not None and state.evidence == {"ann": HOSTILE.strip()}
        own = session.own_vote(q, d)
        assert own is not None and (own.state, own.grade) == ("graded", 2)  # the same vote, again
        change, state, _ = evidence.mark(session, q, d, "")
        assert change is EvidenceChange.WITHDRAWN and state is not None and state.evidence == {}
        session.undo()
        assert evidence.current(session, q, d) == HOSTILE.strip()


def test_a_blind_pair_keeps_the_others_evidence_until_the_viewer_has_graded(run_cli: Cli) -> None:
    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    with Store.open(run_cli.db) as store:
        q = store.reads.labels()[0].query_id
        d = "evidence-blind-doc"
        store.log.assign([(q, d, "ann"), (q, d, "bob")])
        bob, ann = JudgingSession(store, "bob"), JudgingSession(store, "ann")
        bob.judge_next(q, d, JudgmentState.GRADED, 2, evidence="bob's passage")
        seen = ann.doc_state(q, d)
        assert seen.blind and seen.evidence == {}
        ann.judge_next(q, d, JudgmentState.SKIPPED, evidence="ann's passage")
        assert ann.doc_state(q, d).evidence == {"ann": "ann's passage"}  # a skip lifts no blind
        ann.judge_next(q, d, JudgmentState.GRADED, 0, evidence="ann's passage")
        assert ann.doc_state(q, d).evidence == {"ann": "ann's passage", "bob": "bob's passage"}
        (item,) = [x for x in ann.disagreements() if x.doc_id == d]
        assert item.evidence == {"ann": "ann's passage", "bob": "bob's passage"}
