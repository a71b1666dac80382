"""Frozen versions: freeze, verify, diff, import round trip, comparability of reports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conftest import ROOT, Cli
from qrelkit import versioning

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
    assert d["queries"] == {"added": ["nav-16"], "removed": [], "moved": []}
    assert d["labels"]["added"] == 0 and d["labels"]["removed"] == 0
    assert d["labels"]["regraded"] == {"0->1": 1, "2->3": 1}
    assert d["labels"]["regraded_by_stratum"] == {"how-to": {"0->1": 1}, "navigational": {"2->3": 1}}
    assert d["strata"] == {} and d["profiles"] == {"added": [], "removed": [], "changed": []}
    assert d["content_changed"] is True
    table = run_cli("diff", str(out / "pydocs" / "v1"), str(out / "pydocs" / "v2")).output
    assert "regraded 0->1: 1, 2->3: 1" in table and "nav-16" in table

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
    report = json.loads(a.read_text())
    assert report["fingerprint"]["golden"]["version"] == "1.0"
    assert report["fingerprint"]["golden"]["content_hash"] == versioning.read_manifest(PYDOCS).content_hash


def test_bad_report_is_an_input_error(run_cli: Cli) -> None:
    bad = run_cli.write("r.json", '{"fingerprint": 1}')
    result = run_cli("compare", str(bad), str(bad), ok=False)
    assert result.exit_code == 2 and "r.json" in result.output


def test_a_golden_set_folder_instead_of_a_version_names_its_versions(run_cli: Cli) -> None:
    result = run_cli("score", RUN, "--golden", str(PYDOCS.parent), ok=False)
    assert result.exit_code == 2 and "holds versions 1.0" in result.output
