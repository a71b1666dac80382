"""Frozen versions: freeze, verify, diff, import round trip, comparability of reports."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, Cli, one_report
from qrelkit import versioning
from qrelkit.models import (
    FileFingerprint,
    Fingerprint,
    MetricReport,
    Query,
    QueryChanges,
    QueryCounts,
    QueryScore,
    ScoreReport,
    Stratum,
    VersionDiff,
    WeightChange,
)
from qrelkit.storage import Store
from qrelkit.storage.log import Log
from qrelkit.storage.reads import Reads

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUN = str(PYDOCS.parent / "runs" / "bm25.run")


def demo_store(run_cli: Cli) -> None:
    run_cli("import", "version", str(PYDOCS))


def test_bundled_version_verifies_and_validates_against_the_schemas() -> None:
    assert versioning.verify(PYDOCS) == []
    schemas = {
        name: jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / name).read_text()))
        for name in (
            "manifest.schema.json",
            "query.schema.json",
            "document.schema.json",
            "judgment.schema.json",
            "pool-entry.schema.json",
        )
    }
    schemas["manifest.schema.json"].validate(json.loads((PYDOCS / "manifest.json").read_text()))
    for file_name, schema in (
        ("queries.jsonl", "query"),
        ("documents.jsonl", "document"),
        ("judgments.jsonl", "judgment"),
        ("unlabeled.jsonl", "pool-entry"),
    ):
        for line in (PYDOCS / file_name).read_text().splitlines():
            schemas[f"{schema}.schema.json"].validate(json.loads(line))


def test_freeze_edit_one_byte_verify_names_the_file(run_cli: Cli) -> None:
    demo_store(run_cli)
    out = run_cli.tmp / "gs"
    run_cli("freeze", "pydocs", "2.0", "--out", str(out))
    folder = out / "pydocs" / "2.0"
    assert run_cli("verify", str(folder)).exit_code == 0
    data = bytearray((folder / "qrels.txt").read_bytes())
    data[-2] = ord("2") if data[-2] != ord("2") else ord("1")  # one grade, one byte
    (folder / "qrels.txt").write_bytes(bytes(data))
    result = run_cli("verify", str(folder), ok=False)
    assert result.exit_code == 1
    assert "qrels.txt: changed" in result.output and "queries.jsonl" not in result.output
    # an altered version is refused by import and by score --golden unless --no-verify
    refused = run_cli("import", "version", str(folder), ok=False)
    assert refused.exit_code == 2 and "qrels.txt" in refused.output and "--no-verify" in refused.output
    assert run_cli("score", RUN, "--golden", str(folder), ok=False).exit_code == 2
    assert run_cli("score", RUN, "--golden", str(folder), "--no-verify").exit_code == 0


def test_freeze_is_content_addressed_and_immutable(run_cli: Cli) -> None:
    demo_store(run_cli)
    out = run_cli.tmp / "gs"
    run_cli("freeze", "pydocs", "a", "--out", str(out))
    run_cli("freeze", "pydocs", "b", "--out", str(out), "--note", "again")
    ma, mb = versioning.read_manifest(out / "pydocs" / "a"), versioning.read_manifest(out / "pydocs" / "b")
    assert ma.content_hash == mb.content_hash == versioning.read_manifest(PYDOCS).content_hash
    assert mb.parent_version == "a" and mb.note == "again"
    again = run_cli("freeze", "pydocs", "a", "--out", str(out), ok=False)
    assert again.exit_code == 2 and "already exists" in again.output
    assert sorted(p.name for p in (out / "pydocs").iterdir()) == ["a", "b"]  # no temporary folder left


def test_import_version_round_trip(run_cli: Cli, tmp_path: Path) -> None:
    demo_store(run_cli)
    out = tmp_path / "gs"
    run_cli("freeze", "pydocs", "rt", "--out", str(out))
    m = versioning.read_manifest(out / "pydocs" / "rt")
    assert m.counts["all"].skipped == 5 and m.counts["all"].unlabeled == 18
    assert sum(m.counts["all"].labels.values()) == 439
    assert (out / "pydocs" / "rt" / "judgments.jsonl").read_text() == (PYDOCS / "judgments.jsonl").read_text()


def test_diff_reports_exactly_two_regrades_and_one_query(run_cli: Cli) -> None:
    demo_store(run_cli)
    out = run_cli.tmp / "gs"
    run_cli("freeze", "pydocs", "v1", "--out", str(out))
    events = [
        # the original assessor regrades (another assessor's grade would be a second vote)
        {"query_id": "nav-01", "doc_id": "assert-02", "state": "graded", "grade": 3, "assessor": "qrelkit-authors"},
        {"query_id": "how-02", "doc_id": "in-02", "state": "graded", "grade": 1, "assessor": "qrelkit-authors"},
    ]
    run_cli("import", "judgments", str(run_cli.write("e.jsonl", "\n".join(map(json.dumps, events)))))
    run_cli("import", "queries", str(run_cli.write("q.tsv", "nav-16\tdel statement\tnavigational\n")))
    run_cli("freeze", "pydocs", "v2", "--out", str(out))
    d = json.loads(run_cli("diff", str(out / "pydocs" / "v1"), str(out / "pydocs" / "v2"), "--format", "json").output)
    assert d["queries"] == {
        "added": ["nav-16"], "removed": [], "moved": [], "text_changed": [], "guidelines_changed": [],
    }  # fmt: skip
    assert d["labels"]["added"] == 0 and d["labels"]["removed"] == 0
    assert d["labels"]["regraded"] == {"0->1": 1, "2->3": 1}
    assert d["labels"]["regraded_by_stratum"] == {"how-to": {"0->1": 1}, "navigational": {"2->3": 1}}
    assert d["strata"] == {} and d["profiles"] == {"added": [], "removed": [], "changed": []}
    assert d["content_changed"] is True
    table = run_cli("diff", str(out / "pydocs" / "v1"), str(out / "pydocs" / "v2")).output
    assert "regraded 0->1: 1, 2->3: 1" in table and "nav-16" in table
    # which pairs, not only how many (issue 30)
    assert d["labels"]["changes"] == [
        {"query_id": "how-02", "doc_id": "in-02", "from_grade": 0, "to_grade": 1},
        {"query_id": "nav-01", "doc_id": "assert-02", "from_grade": 2, "to_grade": 3},
    ]
    assert "  how-02 in-02: 0 -> 1" in table and "  nav-01 assert-02: 2 -> 3" in table
    assert d["same_golden_set"] is True and "two different golden sets" not in table
    run_cli("init", "--name", "other")
    run_cli("freeze", "other", "v1", "--out", str(out))
    across = run_cli("diff", str(out / "pydocs" / "v2"), str(out / "other" / "v1")).output
    assert "versions of two different golden sets" in across

    # the same run scored against v1 and v2: comparing the reports is refused, with the reason
    a, b = run_cli.tmp / "a.json", run_cli.tmp / "b.json"
    for version, target in (("v1", a), ("v2", b)):
        run_cli(
            "score",
            RUN,
            "--golden",
            str(out / "pydocs" / version),
            "--format",
            "json",
            "--per-query",
            "--out",
            str(target),
        )
    refused = run_cli("compare", str(a), str(b), ok=False)
    assert refused.exit_code == 2 and "golden content differs" in refused.output
    assert "pydocs v1" in refused.output and "pydocs v2" in refused.output
    allowed = run_cli("compare", str(a), str(b), "--allow-mismatch")
    assert allowed.exit_code == 0 and "over the 42 queries both reports share" in allowed.output


def test_reports_with_other_metrics_or_thresholds_are_not_comparable(run_cli: Cli) -> None:
    a, b, c = (run_cli.tmp / f"{x}.json" for x in "abc")
    for target, metrics in ((a, "nDCG@10,R@50"), (b, "nDCG@20,R@50"), (c, "nDCG@10,R@50")):
        run_cli(
            "score",
            RUN,
            "--golden",
            str(PYDOCS),
            "--format",
            "json",
            "--per-query",
            "--metrics",
            metrics,
            "--out",
            str(target),
        )
    refused = run_cli("compare", str(a), str(b), ok=False)
    assert refused.exit_code == 2 and "cutoffs differ" in refused.output and "nDCG@20" in refused.output
    assert run_cli("compare", str(a), str(c)).exit_code == 0
    report = one_report(a.read_text())
    assert report["fingerprint"]["golden"]["version"] == "1.0"
    assert report["fingerprint"]["golden"]["content_hash"] == versioning.read_manifest(PYDOCS).content_hash


def test_bad_report_is_an_input_error(run_cli: Cli) -> None:
    bad = run_cli.write("r.json", '{"fingerprint": 1}')
    result = run_cli("compare", str(bad), str(bad), ok=False)
    assert result.exit_code == 2 and "r.json" in result.output


def test_a_golden_set_folder_instead_of_a_version_names_its_versions(run_cli: Cli) -> None:
    result = run_cli("score", RUN, "--golden", str(PYDOCS.parent), ok=False)
    assert result.exit_code == 2 and "holds versions 1.0" in result.output


def _report(queries: list[str] | None, metrics: tuple[str, ...] = ("nDCG@10",)) -> ScoreReport:
    return ScoreReport(
        fingerprint=Fingerprint(
            qrels=FileFingerprint(name="q.txt", sha256="sha256:q"),
            run=FileFingerprint(name="r", sha256="sha256:r"),
            metrics=list(metrics),
            relevance_threshold=1,
            max_grade=3,
            qrelkit_version="t",
        ),
        queries=QueryCounts(evaluated=len(queries or []), missing_from_run=0, run_only=0, no_relevant=0),
        metrics={
            m: MetricReport(
                n=1,
                mean=0.0,
                sd=0.0,
                se=0.0,
                ci95=(0.0, 0.0),
                coverage=1.0,
                bounds=None,
                exact=True,
                weighted_mean=None,
                by_stratum={},
            )
            for m in metrics
        },
        per_query=None
        if queries is None
        else {q: {m: QueryScore(value=0.5, coverage=1.0, bounds=None) for m in metrics} for q in queries},
    )


def test_comparability_names_reports_over_other_queries() -> None:
    assert versioning.comparability(_report(["q1", "q2"]), _report(["q2", "q1"])) == []
    assert versioning.comparability(_report(["q1", "q2", "q3"]), _report(["q2", "q4"])) == [
        "the reports cover other queries (A 3, B 2, both 1)"
    ]
    # without per-query values on both sides there is nothing to check
    assert versioning.comparability(_report(["q1"]), _report(None)) == []
    both = versioning.comparability(_report(["q1"], ("nDCG@10",)), _report(["q2"], ("nDCG@20",)))
    assert len(both) == 2 and "cutoffs differ" in both[0] and "other queries" in both[1]


def test_diff_is_typed_and_its_json_keeps_from_and_to() -> None:
    a = versioning.read(PYDOCS)
    strata = [s for s in a.info.strata if s.name != "how-to"]
    strata = [Stratum(name=s.name, weight=s.weight + 1) if s.name == "navigational" else s for s in strata]
    b = dataclasses.replace(
        a,
        info=a.info.model_copy(update={"strata": [*strata, Stratum(name="new", weight=2.0)]}),
        unlabeled=[],
    )
    d = versioning.diff(a, b, "pydocs/a", "pydocs/b")
    old = {s.name: s.weight for s in a.info.strata}
    assert d.strata == {
        "how-to": WeightChange(from_weight=old["how-to"], to_weight=None),
        "navigational": WeightChange(from_weight=old["navigational"], to_weight=old["navigational"] + 1),
        "new": WeightChange(from_weight=None, to_weight=2.0),
    }
    assert d.coverage.to_coverage == 1.0 and d.coverage.from_coverage == 439 / (439 + 18)
    assert d.queries == QueryChanges(added=[], removed=[], moved=[]) and d.labels.regraded == {}
    data = json.loads(d.model_dump_json())
    assert data["strata"]["new"] == {"from": None, "to": 2.0}
    assert data["coverage"] == {"from": d.coverage.from_coverage, "to": 1.0}
    assert VersionDiff.model_validate(data) == d  # the JSON reads back


def test_diff_lists_edited_queries_guidelines_and_documents(run_cli: Cli, tmp_path: Path) -> None:
    """Re-importing edited queries or documents changes no label, and `diff` still says what changed."""
    out = tmp_path / "sets"
    run_cli("init", "--name", "g")
    queries = [
        {"id": "q1", "text": "assert", "stratum": "nav", "description": "the statement"},
        {"id": "q2", "text": "sort", "stratum": "nav"},
    ]
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.jsonl", "\n".join(map(json.dumps, queries)))))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", json.dumps({"id": "d1", "title": "t", "text": "x"}))))
    run_cli("freeze", "g", "v1", "--out", str(out))
    queries[0]["text"], queries[1]["description"] = "assert statement", "how to sort"
    run_cli("import", "queries", str(run_cli.write("q2.jsonl", "\n".join(map(json.dumps, queries)))))
    docs = [{"id": "d1", "title": "t", "text": "y"}, {"id": "d2", "title": "", "text": "new"}]
    run_cli("import", "docs", str(run_cli.write("d2.jsonl", "\n".join(map(json.dumps, docs)))))
    run_cli("freeze", "g", "v2", "--out", str(out))
    d = json.loads(run_cli("diff", str(out / "g" / "v1"), str(out / "g" / "v2"), "--format", "json").output)
    assert d["content_changed"] and (d["queries"]["text_changed"], d["queries"]["guidelines_changed"]) == (
        ["q1"],
        ["q2"],
    )
    assert d["documents"] == {"added": ["d2"], "removed": [], "changed": ["d1"]}
    table = run_cli("diff", str(out / "g" / "v1"), str(out / "g" / "v2")).output
    assert "text changed: q1" in table and "guidelines changed: q2" in table and "documents: +1 -0 changed 1" in table


def test_freeze_and_export_stream_the_log_and_the_labels(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A freeze writes the event log and the labels from the store's cursor (never the whole log
    as a list: a 2-million-event store froze in 3.9 GiB that way), and gives the same files and
    content hash as the in-memory snapshot."""
    from qrelkit.storage import Store
    from qrelkit.workflows import versions

    run_cli("import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    store = Store.open(run_cli.db)
    in_memory = versions.snapshot(store).content_hash()

    def no_lists(*_a: object, **_k: object) -> None:
        raise AssertionError("the whole log or every label was read into a list")

    monkeypatch.setattr(Log, "events", no_lists)
    monkeypatch.setattr(Reads, "labels", no_lists)
    manifest = versions.freeze(store, run_cli.tmp / "sets", "pydocs", "2.0")
    assert manifest.content_hash == in_memory
    for name in ("qrels.txt", "judgments.jsonl"):
        frozen = (run_cli.tmp / "sets" / "pydocs" / "2.0" / name).read_text()
        assert frozen == (ROOT / "goldensets" / "pydocs" / "1.0" / name).read_text()
    out = run_cli.tmp / "events.jsonl"
    run_cli("export", "judgments", "--out", str(out))
    assert out.read_text() == (ROOT / "goldensets" / "pydocs" / "1.0" / "judgments.jsonl").read_text()


def test_the_streamed_content_hash_is_the_sorted_one() -> None:
    from qrelkit.versioning import snapshot as sn

    snap = versioning.read(ROOT / "goldensets" / "pydocs" / "1.0")
    rows = [(x.query_id, x.doc_id, x.grade) for x in snap.labels]
    docs = sn.documents_hash(snap.documents)
    shuffled = rows[::-1]
    assert sn.content_hash(snap.info, snap.queries, shuffled, docs) == snap.content_hash()
    assert sn.content_hash(snap.info, snap.queries, iter(sorted(rows)), docs, presorted=True) == snap.content_hash()
    assert (
        snap.content_hash()
        == json.loads((ROOT / "goldensets" / "pydocs" / "1.0" / "manifest.json").read_text())["content_hash"]
    )


def test_the_fast_label_encoding_is_the_canonical_json() -> None:
    """The content hash writes (query, doc, grade) rows without json.dumps when no character needs
    escaping; on ids with quotes, backslashes, controls and non-ASCII it is byte for byte json.dumps."""
    import random
    import string

    from qrelkit.versioning import snapshot as sn

    rnd = random.Random(20261201)
    alphabet = string.ascii_letters + '"\\é\u202e€\x01\x1f '
    for _ in range(5_000):
        q, d = ("".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 6))) for _ in range(2))
        g = rnd.randint(-5, 2**31 - 1)
        assert sn._label_json(q, d, g).encode("utf-8") == sn._canonical([q, d, g])


@pytest.mark.parametrize("edit", ["documents", "judgments", "content_hash", "scale"])
def test_scoring_against_a_version_refuses_any_altered_part(run_cli: Cli, tmp_path: Path, edit: str) -> None:
    """Scoring reads only the settings, queries and labels of a version, but every file's sha256
    and the content hash must still match the manifest."""
    import shutil

    folder = tmp_path / "1.0"
    shutil.copytree(ROOT / "goldensets" / "pydocs" / "1.0", folder)
    run = str(ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run")
    fine = one_report(run_cli("score", run, "--golden", str(folder), "--format", "json").output)
    assert (
        fine["fingerprint"]["golden"]["content_hash"]
        == json.loads((folder / "manifest.json").read_text())["content_hash"]
    )
    if edit in ("documents", "judgments"):
        path = folder / f"{edit}.jsonl"
        path.write_text(path.read_text().replace("a", "b", 1))
    else:
        manifest = json.loads((folder / "manifest.json").read_text())
        if edit == "content_hash":
            manifest["content_hash"] = "sha256:" + "0" * 64
        else:
            manifest["scale"]["levels"][-1]["name"] = "edited"
        (folder / "manifest.json").write_text(json.dumps(manifest))
    refused = run_cli("score", run, "--golden", str(folder), ok=False)
    assert refused.exit_code == 2 and "was altered" in refused.output and "--no-verify" in refused.output


_JUDGING_WRITER = r"""
import sys
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
store = Store.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.log.record(Judgment(query_id=f"q{i % 5}", doc_id=f"d{i % 97}", state=JudgmentState.GRADED, grade=i % 4,
                          assessor=f"a{i % 3}"))
"""


def test_versions_frozen_while_someone_judges_import_cleanly(run_cli: Cli) -> None:
    """The snapshot is read in one transaction: versions frozen while another process writes
    judgments verify and import into a fresh store (3 of 15 did not when it was read piecewise)."""
    store = Store.open(run_cli.db)
    store.imports.queries(
        [(i, Query(id=f"q{i}", text="x", stratum="s")) for i in range(5)], source="t", create_strata=True
    )
    store.close()
    writer = subprocess.Popen(
        [sys.executable, "-c", _JUDGING_WRITER, str(run_cli.db), "3000"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    sets = run_cli.tmp / "sets"
    try:
        frozen = [f"v{i}" for i in range(8)]
        for v in frozen:
            run_cli("freeze", "g", v, "--out", str(sets))
    finally:
        writer.wait(timeout=120)
    for i, v in enumerate(frozen):
        fresh = Cli(run_cli.tmp / f"fresh{i}")
        (run_cli.tmp / f"fresh{i}").mkdir()
        fresh("verify", str(sets / "g" / v))
        fresh("import", "version", str(sets / "g" / v))
