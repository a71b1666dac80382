"""Machine labels travel with a golden set and never arrive as human votes: a version frozen with
machine labels keeps each one with its provenance (`machine_labels.jsonl`, covered by the content
hash and checked by `verify`), and `import version` puts them back into the machine table; a
human-only freeze stays as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import Cli
from qrelkit.storage import Store

ROOT = Path(__file__).resolve().parents[1]
PYDOCS = ROOT / "goldensets" / "pydocs" / "1.1"

QUERIES = [
    {"id": "q1", "text": "sort a python list", "stratum": "how-to"},
    {"id": "q2", "text": "open a file for reading", "stratum": "api"},
]
DOCS = [
    {"id": "d1", "title": "Sorting", "text": "sort a list in python with sorted"},
    {"id": "d2", "title": "Lists", "text": "a python list holds items"},
    {"id": "d3", "title": "Files", "text": "open a file, then read it"},
    {"id": "d4", "title": "Other", "text": "nothing shared at all"},
    {"id": "d5", "title": "Reading", "text": "open the file for reading"},
    {"id": "d6", "title": "Modes", "text": "file modes: r for reading"},
]
EVENTS: list[dict[str, object]] = [  # d1: two votes; d2: grade 0; d3: a skip; d6: one vote
    {"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 2, "assessor": "ann"},
    {"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 1, "assessor": "bob"},
    {"query_id": "q1", "doc_id": "d2", "state": "graded", "grade": 0, "assessor": "ann"},
    {"query_id": "q2", "doc_id": "d3", "state": "skipped", "assessor": "ann"},
    {"query_id": "q2", "doc_id": "d6", "state": "graded", "grade": 2, "assessor": "bob"},
]
POOL = "q1 Q0 d4 1 1.0 r\nq2 Q0 d4 1 1.0 r\nq2 Q0 d5 2 0.5 r\nq1 Q0 d5 2 0.5 r\n"
HUMANS = {"ann", "bob"}


def _golden(cli: Cli) -> None:
    """A golden set with human votes, a skip, pooled-unjudged pairs, and the lexical judge's labels."""
    cli("init")
    cli("import", "queries", str(cli.write("q.jsonl", "\n".join(json.dumps(q) for q in QUERIES))), "--create-strata")
    cli("import", "docs", str(cli.write("d.jsonl", "\n".join(json.dumps(d) for d in DOCS))))
    events = "\n".join(json.dumps({**e, "timestamp": "2026-01-01T00:00:00Z"}) for e in EVENTS)
    cli("import", "judgments", str(cli.write("j.jsonl", events)))
    cli("pool", str(cli.write("pool.run", POOL)), "--depth", "5")
    cli("assess", "--judge", "lexical", "--pairs", "all")


def _manifest(folder: Path) -> dict[str, object]:
    return json.loads((folder / "manifest.json").read_text())  # type: ignore[no-any-return]


def _machine_rows(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "machine_labels.jsonl").read_text().splitlines()]


def _qrels(folder: Path) -> dict[tuple[str, str], int]:
    rows = (line.split() for line in (folder / "qrels.txt").read_text().splitlines())
    return {(q, d): int(g) for q, _, d, g in rows}


def _log_assessors(db: Path) -> set[str]:
    with Store.open(db) as store:
        return {e.assessor for e in store.log.events()}


@pytest.fixture
def golden(run_cli: Cli) -> Cli:
    _golden(run_cli)
    return run_cli


# -- 1. a frozen version keeps its machine labels ------------------------------------------------


@pytest.mark.parametrize("labels", ["machine", "human+machine"])
def test_a_machine_freeze_keeps_each_machine_label_with_its_provenance(
    golden: Cli, tmp_path: Path, labels: str
) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", labels)
    folder = tmp_path / "v/g/m"
    manifest = _manifest(folder)
    assert "machine_labels.jsonl" in manifest["files"]  # type: ignore[operator]
    rows = _machine_rows(folder)
    qrels = _qrels(folder)
    human = {("q1", "d1"), ("q1", "d2"), ("q2", "d3"), ("q2", "d6")}  # labeled or skipped by a person
    filled = set(qrels) if labels == "machine" else set(qrels) - human
    assert {(r["query_id"], r["doc_id"]) for r in rows} == filled and filled
    with Store.open(golden.db) as store:
        latest = {(x.query_id, x.doc_id): x for x in store.machine.latest_rows("lexical")}
    for r in rows:
        pair = (r["query_id"], r["doc_id"])
        assert r["grade"] == qrels[pair] and r["status"] == "ok" and r["assessor"] == "lexical"  # type: ignore[index]
        stored = latest[pair]  # type: ignore[index]
        assert r["model"] == stored.model and r["reply"] == stored.reply and r["template_sha256"]
        assert r["prompt_sha256"] == stored.prompt_sha256 and r["cache_key"] == stored.cache_key
        assert r["parameters"] == stored.parameters and "timestamp" in r and "latency" in r
    assert "match the manifest" in golden("verify", str(folder)).output


def test_the_machine_labels_are_covered_by_the_content_hash(golden: Cli, tmp_path: Path) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", "human+machine")
    folder = tmp_path / "v/g/m"
    path = folder / "machine_labels.jsonl"
    rows = _machine_rows(folder)
    rows[0]["reply"] = "another reply"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = _manifest(folder)
    manifest["files"]["machine_labels.jsonl"] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()  # type: ignore[index]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    bad = golden("verify", str(folder), ok=False)
    assert bad.exit_code == 1 and "content_hash does not match" in bad.output


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("drop", "has no row of it"),  # a machine-filled pair without its row
        ("on_human", "which humans labeled"),  # a machine row on a pair humans labeled
        ("regrade", "not qrels.txt's"),
    ],
)
def test_verify_finds_machine_labels_that_do_not_match_qrels(golden: Cli, tmp_path: Path, edit: str, said: str) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", "human+machine")
    folder = tmp_path / "v/g/m"
    rows = _machine_rows(folder)
    if edit == "drop":
        rows = rows[1:]
    elif edit == "on_human":
        rows.append({**rows[0], "query_id": "q1", "doc_id": "d2"})
    else:
        rows[0]["grade"] = (int(rows[0]["grade"]) + 1) % 4  # type: ignore[call-overload]
    (folder / "machine_labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bad = golden("verify", str(folder), ok=False)
    assert bad.exit_code == 1 and said in bad.output


def test_a_human_freeze_is_as_before(golden: Cli, tmp_path: Path) -> None:
    golden("freeze", "g", "h", "--out", str(tmp_path / "v"))
    folder = tmp_path / "v/g/h"
    assert not (folder / "machine_labels.jsonl").exists() and "machine_labels.jsonl" not in _manifest(folder)["files"]  # type: ignore[operator]
    # the bundled set: verifies, and frozen again from a store it went into, the same bytes and hash
    assert "match the manifest" in golden("verify", str(PYDOCS)).output
    other = tmp_path / "pydocs.db"
    golden("--db", str(other), "import", "version", str(PYDOCS))
    golden("--db", str(other), "freeze", "pydocs", "again", "--out", str(tmp_path / "p"))
    again = tmp_path / "p/pydocs/again"
    assert _manifest(again)["content_hash"] == _manifest(PYDOCS)["content_hash"]
    for name in ("qrels.txt", "queries.jsonl", "documents.jsonl", "judgments.jsonl", "unlabeled.jsonl"):
        assert (again / name).read_bytes() == (PYDOCS / name).read_bytes(), name
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in PYDOCS.iterdir())


@pytest.mark.parametrize("labels", ["machine", "human+machine"])
def test_import_version_brings_machine_labels_back_as_machine_labels(golden: Cli, tmp_path: Path, labels: str) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", labels)
    folder = tmp_path / "v/g/m"
    fresh = tmp_path / "fresh.db"
    golden("--db", str(fresh), "import", "version", str(folder))
    assert _log_assessors(fresh) == HUMANS  # never a vote
    with Store.open(fresh) as store:
        assert {(x.query_id, x.doc_id) for x in store.machine.rows()} == {
            (str(r["query_id"]), str(r["doc_id"])) for r in _machine_rows(folder)
        }
    golden("--db", str(fresh), "freeze", "g", "again", "--out", str(tmp_path / "w"), "--labels", labels)
    again = tmp_path / "w/g/again"
    assert _manifest(again)["content_hash"] == _manifest(folder)["content_hash"]
    assert (again / "machine_labels.jsonl").read_bytes() == (folder / "machine_labels.jsonl").read_bytes()
    assert (again / "qrels.txt").read_bytes() == (folder / "qrels.txt").read_bytes()
    # the same version into the store that holds it: nothing written
    assert "already" in golden("--db", str(fresh), "import", "version", str(folder)).output
    # the pairs machine labels fill that no person labeled wait for a person, as in the store frozen
    with Store.open(golden.db) as store:
        waiting = {(e.query_id, e.doc_id) for e in store.pool.unlabeled()}
    with Store.open(fresh) as store:
        assert {(e.query_id, e.doc_id) for e in store.pool.unlabeled()} == waiting and waiting


# -- 2. export hub / import hub ----------------------------------------------------------------


def _labels_config(folder: Path) -> dict[tuple[str, str], dict[str, object]]:
    rows = (json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines())
    return {(str(r["query-id"]), str(r["corpus-id"])): r for r in rows}


@pytest.mark.parametrize("labels", ["machine", "human+machine"])
def test_export_hub_marks_machine_labels_and_import_hub_brings_them_back(
    golden: Cli, tmp_path: Path, labels: str
) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", labels)
    version = tmp_path / "v/g/m"
    out = tmp_path / "hub"
    golden("export", "hub", str(version), "--out", str(out))
    config = _labels_config(out)
    machine = {(str(r["query_id"]), str(r["doc_id"])): r for r in _machine_rows(version)}
    for pair, row in config.items():
        if pair in machine:
            assert row["assessor_kind"] == "machine" and row["machine_assessor"] == "lexical", pair
            assert row["grade"] == machine[pair]["grade"] and row["state"] == "graded"
        else:
            assert row["assessor_kind"] != "machine" and row["machine_assessor"] is None, pair
    assert (out / "machine_labels.jsonl").read_bytes() == (version / "machine_labels.jsonl").read_bytes()
    card = (out / "README.md").read_text()
    n = sum(1 for _ in _qrels(version))
    shown = labels.replace("+", "\\+")  # the card escapes punctuation
    assert f"**Labels**: {shown}" in card
    assert f"{len(machine):,} of the {n:,} labels are machine labels of lexical" in card
    assert "no machine label" not in card and "records no machine labels" not in card
    fresh = tmp_path / "fresh.db"
    imported = golden("--db", str(fresh), "import", "hub", str(out))
    assert str(_manifest(version)["content_hash"])[:19] + ": the exported version's" in imported.output
    assert not (_log_assessors(fresh) - {"hub"})  # the humans' rows are one event each by --assessor
    with Store.open(fresh) as store:
        assert not {(e.query_id, e.doc_id) for e in store.log.events()} & set(machine)  # never a vote
        assert {(x.query_id, x.doc_id) for x in store.machine.rows()} == set(machine)
        # what the machine fills and no person labeled in the import waits for a person
        assert set(machine) <= {(e.query_id, e.doc_id) for e in store.pool.unlabeled()}
    golden("--db", str(fresh), "freeze", "g", "again", "--out", str(tmp_path / "w"), "--labels", labels)
    assert _manifest(tmp_path / "w/g/again")["content_hash"] == _manifest(version)["content_hash"]


def test_a_human_hub_export_says_so_and_has_no_machine_column(golden: Cli, tmp_path: Path) -> None:
    golden("freeze", "g", "h", "--out", str(tmp_path / "v"))
    golden("export", "hub", str(tmp_path / "v/g/h"), "--out", str(tmp_path / "hub"))
    rows = _labels_config(tmp_path / "hub")
    assert all("machine_assessor" not in r and r["assessor_kind"] in ("human", None) for r in rows.values())
    assert not (tmp_path / "hub/machine_labels.jsonl").exists()
    assert "**Labels**: human" in (tmp_path / "hub/README.md").read_text()


@pytest.mark.parametrize("edit", ["no_provenance", "regraded"])
def test_import_hub_never_takes_a_machine_row_for_a_vote(golden: Cli, tmp_path: Path, edit: str) -> None:
    golden("freeze", "g", "m", "--out", str(tmp_path / "v"), "--labels", "human+machine")
    out = tmp_path / "hub"
    golden("export", "hub", str(tmp_path / "v/g/m"), "--out", str(out))
    if edit == "no_provenance":
        (out / "machine_labels.jsonl").unlink()
    else:
        rows = _machine_rows(out)
        rows[0]["grade"] = (int(rows[0]["grade"]) + 1) % 4  # type: ignore[call-overload]
        (out / "machine_labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    fresh = tmp_path / "fresh.db"
    refused = golden("--db", str(fresh), "import", "hub", str(out), ok=False)
    assert refused.exit_code == 2 and "labels.jsonl" in refused.output and "Traceback" not in refused.output
    with Store.open(fresh) as store:
        assert not list(store.log.events()) and not list(store.machine.rows())


# -- 3. Label Studio predictions ---------------------------------------------------------------

LS_EXPORT = ROOT / "tests" / "data" / "label_studio" / "choices_export.json"
LS_ARGS = ["--query-field", "qid", "--doc-field", "docno", "--query-text-field", "query", "--doc-text-field", "passage"]
LS_CHOICES = ["--choice", "Not relevant=0", "--choice", "Partially relevant=1", "--choice", "Relevant=2"]
LS_CHOICES += ["--choice", "Highly relevant=3"]


def _ls_store(cli: Cli) -> None:
    cli("init", "--name", "t")


def _predicted(tasks: list[dict[str, object]]) -> dict[tuple[str, str], str]:
    """(qid, docno) -> the choice of each task's prediction, as the hand-written export gives it."""
    found = {}
    for t in tasks:
        data = t["data"]
        for p in t.get("predictions") or []:  # type: ignore[attr-defined]
            found[(data["qid"], data["docno"])] = p["result"][0]["value"]["choices"][0]  # type: ignore[index]
    return found


def test_import_label_studio_ignores_predictions_unless_asked(run_cli: Cli) -> None:
    _ls_store(run_cli)
    run_cli("import", "label-studio", str(LS_EXPORT), *LS_ARGS, *LS_CHOICES)
    with Store.open(run_cli.db) as store:
        assert not list(store.machine.rows())
        assert not {e.assessor for e in store.log.events()} & {"bm25-v1", "lexical"}


def test_predictions_become_machine_labels_of_the_named_machine_assessor_never_votes(run_cli: Cli) -> None:
    _ls_store(run_cli)
    tasks = json.loads(LS_EXPORT.read_text())
    grades = {"Not relevant": 0, "Partially relevant": 1, "Relevant": 2, "Highly relevant": 3}
    expected = {pair: grades[c] for pair, c in _predicted(tasks).items()}
    assert expected  # the hand-written export has predictions
    args = ["import", "label-studio", str(LS_EXPORT), *LS_ARGS, *LS_CHOICES, "--predictions-as", "llm:bm25-v1"]
    done = run_cli(*args)
    assert f"{len(expected)} predictions as machine labels" in done.output
    with Store.open(run_cli.db) as store:
        rows = list(store.machine.rows())
        assert {(x.query_id, x.doc_id): x.grade for x in rows} == expected
        assert all(x.assessor == "llm:bm25-v1" and x.model == "bm25-v1" and x.status == "ok" for x in rows)
        votes = {(e.query_id, e.doc_id, e.assessor) for e in store.log.events()}
        assert not {a for _, _, a in votes} & {"llm:bm25-v1", "bm25-v1"}
    run_cli(*args)  # again: nothing added
    with Store.open(run_cli.db) as store:
        assert len(list(store.machine.rows())) == len(expected)


@pytest.mark.parametrize("name", ["ann", "bm25-v1", "hub"])
def test_predictions_as_a_persons_name_is_refused(run_cli: Cli, name: str) -> None:
    _ls_store(run_cli)
    refused = run_cli(
        "import", "label-studio", str(LS_EXPORT), *LS_ARGS, *LS_CHOICES, "--predictions-as", name, ok=False
    )
    assert refused.exit_code == 2 and "machine assessor" in refused.output and "Traceback" not in refused.output
    with Store.open(run_cli.db) as store:
        assert not list(store.log.events()) and not list(store.machine.rows())


@pytest.mark.parametrize("control", ["choices", "rating"])
def test_export_label_studio_writes_machine_labels_as_predictions_and_they_come_back(
    golden: Cli, tmp_path: Path, control: str
) -> None:
    out = tmp_path / "tasks.json"
    golden("export", "label-studio", "--all", "--with-annotations", "--control", control, "--predictions",
           "--out", str(out))  # fmt: skip
    tasks = json.loads(out.read_text())
    with Store.open(golden.db) as store:
        machine = {(q, d): g for q, d, g in store.machine.grades("lexical")}
    given = {}
    for t in tasks:
        pair = (t["data"]["query_id"], t["data"]["doc_id"])
        assert all(a["completed_by"] != {"email": "lexical"} for a in t["annotations"])  # never an annotation
        for p in t.get("predictions", []):
            assert p["model_version"] == "lexical" and p["result"][0]["from_name"] == "relevance"
            assert p["result"][0]["type"] == control
            given[pair] = p
    assert set(given) == {(t["data"]["query_id"], t["data"]["doc_id"]) for t in tasks} & set(machine) and given
    fresh = Cli(tmp_path / "fresh")
    (tmp_path / "fresh").mkdir()
    fresh("init")
    fresh("import", "queries", str(golden.tmp / "q.jsonl"), "--create-strata")
    fresh("import", "docs", str(golden.tmp / "d.jsonl"))
    offset = ["--grade-offset", "-1"] if control == "rating" else []
    fresh("import", "label-studio", str(out), *offset, "--predictions-as", "lexical")
    with Store.open(fresh.db) as store:
        assert {(x.query_id, x.doc_id): x.grade for x in store.machine.rows()} == {p: machine[p] for p in given}
        assert {e.assessor for e in store.log.events()} == HUMANS  # the annotations: the humans' votes only


def test_export_predictions_needs_machine_labels(run_cli: Cli) -> None:
    _ls_store(run_cli)
    refused = run_cli("export", "label-studio", "--predictions", ok=False)
    assert refused.exit_code == 2 and "no machine labels" in refused.output


# -- no importer takes a machine label for a human vote ------------------------------------------


@pytest.mark.parametrize("name", ["lexical", "llm:gpt-4o"])
def test_import_judgments_refuses_a_machine_assessors_name(golden: Cli, name: str) -> None:
    line = json.dumps({"query_id": "q1", "doc_id": "d4", "state": "graded", "grade": 1, "assessor": name,
                       "timestamp": "2026-01-02T00:00:00Z"})  # fmt: skip
    refused = golden("import", "judgments", str(golden.write("m.jsonl", line + "\n")), ok=False)
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert _log_assessors(golden.db) == HUMANS
