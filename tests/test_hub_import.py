"""`qrelkit import hub` (issue 28, item 2): Hugging Face / MTEB / BEIR retrieval folders in general
(the README's `configs:`, or the BEIR layout; JSON Lines, TSV or Parquet), one transaction; bad
input is one line naming the file, its line (a Parquet file: its row) and the field, exit 2,
the store as it was; repeated ids and pairs are refused. And the YAML header's reader and writer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, Cli
from qrelkit.formats import hub_yaml

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
MTEB_README = """---
language:
- en
multilinguality: monolingual
task_categories:
- text-retrieval
configs:
- config_name: default
  data_files:
  - split: dev   # a comment
    path: qrels/dev.jsonl
  - split: 'test'
    path: "qrels/test.tsv"
- config_name: corpus
  data_files:
  - split: corpus
    path: data/corpus-*.parquet
- config_name: queries
  data_files: [queries.jsonl]
dataset_info:
  features:
  - name: _id
    dtype: string
---
# A dataset card
"""


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), str(path))


def mteb_folder(tmp: Path) -> Path:
    folder = tmp / "mteb"
    (folder / "qrels").mkdir(parents=True)
    (folder / "README.md").write_text(MTEB_README)
    _parquet(folder / "data" / "corpus-00000.parquet", [{"_id": "d1", "title": "T", "text": "one"}])
    _parquet(folder / "data" / "corpus-00001.parquet", [{"_id": "d2", "title": None, "text": "two", "url": "u"}])
    (folder / "queries.jsonl").write_text(_jsonl([{"_id": "q1", "text": "find"}, {"_id": 7, "text": "seven"}]))
    (folder / "qrels" / "dev.jsonl").write_text(_jsonl([{"query-id": "q1", "corpus-id": "d1", "score": 1.0}]))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td2\t2\n7\td1\t0\nq1\td9\t-1\n")
    return folder


def test_an_mteb_folder_reads_through_its_yaml_configs(run_cli: Cli) -> None:
    folder = mteb_folder(run_cli.tmp)
    out = run_cli("import", "hub", str(folder), "--stratum", "web").output
    assert "imported 2 documents, 2 queries, 2 labels, 1 pooled from" in out
    assert run_cli("export", "qrels").output == "7 0 d1 0\nq1 0 d2 2\n"
    run_cli("freeze", "m", "1", "--out", str(run_cli.tmp / "sets"))
    docs = (run_cli.tmp / "sets" / "m" / "1" / "documents.jsonl").read_text().splitlines()
    assert [json.loads(d) for d in docs] == [
        {"id": "d1", "title": "T", "text": "one"},
        {"id": "d2", "title": "", "text": "two", "metadata": {"url": "u"}},
    ]
    status = json.loads(run_cli("status", "--format", "json").output)
    assert [s["name"] for s in status["strata"]] == ["web"] and status["unlabeled_pool"] == 1
    dev = Cli(run_cli.tmp)
    dev.db = run_cli.tmp / "dev.db"
    assert "1 labels" in dev("import", "hub", str(folder), "--split", "dev").output
    refused = dev("--db", str(run_cli.tmp / "x.db"), "import", "hub", str(folder), "--split", "train", ok=False)
    assert (
        refused.exit_code == 2
        and "README.md: config 'default' has no split 'train' (it has dev, test)" in refused.output
    )


def test_a_beir_folder_without_a_card_imports_as_import_beir_does(run_cli: Cli) -> None:
    folder = run_cli.tmp / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(_jsonl([{"_id": "d1", "title": "T", "text": "x", "metadata": {"a": 1}}]))
    (folder / "queries.jsonl").write_text(_jsonl([{"_id": "q1", "text": "find"}]))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\n")
    hub_db, beir_db = Cli(run_cli.tmp), Cli(run_cli.tmp)
    hub_db.db, beir_db.db = run_cli.tmp / "h.db", run_cli.tmp / "b.db"
    hub_db("import", "hub", str(folder))
    beir_db("import", "beir", str(folder), "--assessor", "hub")
    for cli in (hub_db, beir_db):
        cli("freeze", "s", "1", "--out", str(cli.db.with_suffix("")))
    hashes = [
        json.loads((c.db.with_suffix("") / "s" / "1" / "manifest.json").read_text())["content_hash"]
        for c in (hub_db, beir_db)
    ]
    assert hashes[0] == hashes[1]
    assert "d1" in hub_db("docs", "show", "d1").output


def _exported(run_cli: Cli, fmt: str = "jsonl") -> Path:
    out = run_cli.tmp / f"hub-{fmt}"
    run_cli("export", "hub", str(PYDOCS), "--out", str(out), "--format", fmt)
    return out


def _one_line_error(run_cli: Cli, folder: Path, expected: str, *extra: str) -> None:
    """`import hub FOLDER` into a store holding one query (not a golden set's): refused with one
    line holding `expected`, exit 2, the store as it was."""
    fresh = Cli(run_cli.tmp)
    fresh.db = run_cli.tmp / "fresh.db"
    if not fresh.db.exists():
        fresh("init")
    before = fresh("status", "--format", "json").output
    refused = fresh("import", "hub", str(folder), *extra, ok=False)
    assert refused.exit_code == 2, refused.output
    assert refused.output.count("\n") == 1 and "Traceback" not in refused.output, refused.output
    assert expected in refused.output, refused.output
    assert fresh("status", "--format", "json").output == before


def _edit_line(path: Path, number: int, edit: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = json.dumps(edit(json.loads(lines[number - 1])))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "line", "edit", "expected"),
    [
        ("corpus.jsonl", 2, lambda r: {k: v for k, v in r.items() if k != "_id"}, "corpus.jsonl:2: missing '_id'"),
        (
            "corpus.jsonl",
            3,
            lambda r: {**r, "_id": "assert-01"},
            "corpus.jsonl:3: duplicate document id 'assert-01' (first on line 1)",
        ),
        (
            "corpus.jsonl",
            4,
            lambda r: {**r, "metadata": "{not json"},
            "corpus.jsonl:4: field 'metadata' must be a JSON object",
        ),
        ("queries.jsonl", 5, lambda r: {**r, "stratum": "how to"}, "queries.jsonl:5: field 'stratum'"),
        ("queries.jsonl", 6, lambda r: {**r, "_id": "con-01"}, "queries.jsonl:6: query 'con-01' repeats line 1"),
        ("qrels/test.jsonl", 7, lambda r: {**r, "score": "2"}, "qrels/test.jsonl:7: field 'score' must be an integer"),
        ("qrels/test.jsonl", 8, lambda r: {**r, "score": 2.5}, "qrels/test.jsonl:8: field 'score' must be an integer"),
        (
            "qrels/test.jsonl",
            9,
            lambda r: {**r, "corpus-id": "a b"},
            "qrels/test.jsonl:9: document id 'a b' contains white space",
        ),
        ("qrels/test.jsonl", 10, lambda r: {**r, "score": (r["score"] + 1) % 4}, "qrels/test.jsonl:10: query 'con-01'"),
        ("labels.jsonl", 11, lambda r: {**r, "state": "maybe"}, "labels.jsonl:11: field 'state' must be one of"),
        ("labels.jsonl", 12, lambda r: {**r, "grade": None}, "labels.jsonl:12: a graded pair has a grade"),
        (
            "labels.jsonl",
            13,
            lambda r: {**r, "corpus-id": "calls-01"},
            "labels.jsonl:13: query 'con-01' doc 'calls-01' is given twice (first on line 1)",
        ),
        (
            "labels.jsonl",
            2,
            lambda r: {**r, "stratum": "how-to"},
            "labels.jsonl:2: query 'con-01' is in stratum 'how-to' here, 'conceptual' on",
        ),
        ("labels.jsonl", 15, lambda r: {**r, "extra": 1}, "labels.jsonl:15: field 'extra' is unknown"),
        (
            "labels.jsonl",
            16,
            lambda r: {**r, "grade": 9},
            "labels.jsonl:16: grade 9 is above the scale's highest grade 3",
        ),
    ],
)
def test_bad_records_name_file_record_and_field(run_cli: Cli, file: str, line: int, edit: Any, expected: str) -> None:
    folder = _exported(run_cli)
    _edit_line(folder / file, line, edit)
    _one_line_error(run_cli, folder, str(folder / expected.split(":", 1)[0]) + ":" + expected.split(":", 1)[1])


def test_a_graded_pair_missing_from_the_qrels_is_refused(run_cli: Cli) -> None:
    folder = _exported(run_cli)
    qrels = folder / "qrels" / "test.jsonl"
    qrels.write_text("".join(qrels.read_text().splitlines(keepends=True)[1:]))
    _one_line_error(
        run_cli, folder, "labels.jsonl:1: query 'con-01' doc 'calls-01' is graded here but not in the qrels"
    )


def test_parquet_records_are_named_by_row(run_cli: Cli) -> None:
    import pyarrow.parquet as pq

    folder = _exported(run_cli, "parquet")
    rows = pq.read_table(str(folder / "qrels" / "test.parquet")).to_pylist()
    rows[2]["corpus-id"] = rows[0]["corpus-id"]
    _parquet(folder / "qrels" / "test.parquet", rows)
    _one_line_error(run_cli, folder, "test.parquet: row 3: query 'con-01' doc 'calls-01' is given twice (first on")
    labels = pq.read_table(str(folder / "labels.parquet")).to_pylist()
    rows = [dict(r) for r in labels]
    rows[4]["state"] = "maybe"
    _parquet(folder / "labels.parquet", rows)
    _one_line_error(run_cli, folder, "labels.parquet: row 5: field 'state' must be one of")
    _parquet(folder / "labels.parquet", labels)
    (folder / "corpus.parquet").write_text("not parquet")
    _one_line_error(run_cli, folder, "corpus.parquet: cannot read as Parquet")


def test_an_exported_set_goes_into_a_store_without_a_golden_set_only(run_cli: Cli) -> None:
    folder = _exported(run_cli)
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.jsonl", '{"id": "mine", "text": "x"}\n')))
    refused = run_cli("import", "hub", str(folder), ok=False)
    assert refused.exit_code == 2 and "already holds other data (1 queries)" in refused.output
    assert "qrelkit --db NEW.db import hub" in refused.output
    again = Cli(run_cli.tmp)
    again.db = run_cli.tmp / "again.db"
    again("import", "hub", str(folder))
    refused = again("import", "hub", str(folder), ok=False)
    assert refused.exit_code == 2 and "already holds other data" in refused.output


def test_an_edited_folder_says_its_content_differs(run_cli: Cli) -> None:
    folder = _exported(run_cli)
    _edit_line(folder / "queries.jsonl", 1, lambda r: {**r, "text": r["text"] + "?"})
    out = run_cli("import", "hub", str(folder)).output
    assert "not the exported version's sha256:200e317fa10a (the folder was changed since)" in out


def test_repeated_ids_across_the_files_of_one_config_are_refused(run_cli: Cli) -> None:
    folder = mteb_folder(run_cli.tmp)
    _parquet(folder / "data" / "corpus-00001.parquet", [{"_id": "d1", "title": "again", "text": "two"}])
    _one_line_error(run_cli, folder, "corpus-00001.parquet: row 1: document 'd1' is also in")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            "configs:\n- config_name: corpus\n  data_files: {split: corpus}\n",
            "README.md:5: YAML header: cannot read '{split: corpus}'",
        ),
        ("configs:\n- config_name: corpus\n  data_files:\n  - split: corpus\n", "'split' and a 'path'"),
        (
            "configs:\n- config_name: corpus\n  data_files: ../elsewhere.jsonl\n",
            "'../elsewhere.jsonl' is not a path inside the folder",
        ),
        (
            "configs:\n- config_name: corpus\n  data_files: nothing-*.jsonl\n",
            "no file matches data file 'nothing-*.jsonl'",
        ),
        ("configs:\n- config_name: corpus\n  data_files: data/*.parquet\n", "declares no 'queries' config"),
        ("configs:\n- config_name: a\n  data_files: x\n- config_name: a\n", "config 'a' is given twice"),
        ('configs:\n  - config_name: "a\\q"\n', "unknown escape \\q"),
        ("configs:\n- config_name: x\n", "no data_files"),
    ],
)
def test_a_yaml_header_it_cannot_read_is_named(run_cli: Cli, header: str, expected: str) -> None:
    folder = mteb_folder(run_cli.tmp)
    (folder / "README.md").write_text(f"---\npretty_name: x\n{header}---\nbody\n")
    _one_line_error(run_cli, folder, expected)


def test_a_missing_folder_or_file_is_named(run_cli: Cli) -> None:
    _one_line_error(run_cli, run_cli.tmp / "nosuch", "nosuch: no such folder")
    folder = _exported(run_cli)
    (folder / "README.md").unlink()  # no card: the BEIR layout, which has qrels/test.jsonl, labels.jsonl
    shutil.rmtree(folder / "qrels")
    _one_line_error(run_cli, folder, "qrels: no test.tsv, test.jsonl, test.parquet here")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_a_quoted_scalar_reads_back_the_same_in_pyyaml_and_here(text: str) -> None:
    line = f"pretty_name: {hub_yaml.quoted(text)}"
    assert yaml.safe_load(line) == {"pretty_name": text}
    parsed = hub_yaml._Parser([hub_yaml._Line(1, 0, line)], "README.md").node(0, 0)[0]
    assert parsed == {"pretty_name": text}


def test_the_header_written_reads_back_in_pyyaml_and_here(tmp_path: Path) -> None:
    configs = {
        "corpus": [hub_yaml.DataFiles("corpus", ("corpus.jsonl",))],
        "default": [hub_yaml.DataFiles("test", ("qrels/test.jsonl",)), hub_yaml.DataFiles("a.b", ("x", "y #z"))],
    }
    text = hub_yaml.header([("pretty_name", "a: #b\n\u2028'\"\\"), ("tags", ["x", "- y"])], configs)
    readme = tmp_path / "README.md"
    readme.write_text(text + "body\n")
    loaded = yaml.safe_load(text.split("---\n")[1])
    assert loaded["pretty_name"] == "a: #b\n\u2028'\"\\" and loaded["tags"] == ["x", "- y"]
    assert loaded["configs"][1]["data_files"][1] == {"split": "a.b", "path": ["x", "y #z"]}
    assert hub_yaml.read_configs(readme) == configs


def test_without_qrelkit_json_the_labels_config_still_gives_states_strata_and_weights(run_cli: Cli) -> None:
    folder = _exported(run_cli)
    (folder / "qrelkit.json").unlink()
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
    rows = [{k: v for k, v in q.items() if k != "stratum"} for q in queries]  # strata from the labels config
    (folder / "queries.jsonl").write_text(_jsonl([*rows, {"_id": "new", "text": "no pairs"}]))
    out = run_cli("import", "hub", str(folder), "--stratum", "other").output
    assert "644 documents, 43 queries, 439 labels, 5 skipped, 18 pooled" in out
    assert "content" not in out  # no exported hash to compare with
    status = json.loads(run_cli("status", "--format", "json").output)
    strata = {s["name"]: (s["weight"], s["queries"], s["skipped"], s["unlabeled_pool"]) for s in status["strata"]}
    assert strata == {
        "conceptual": (0.2, 12, 1, 2),
        "how-to": (0.35, 15, 2, 5),
        "navigational": (0.45, 15, 2, 11),
        "other": (1.0, 1, 0, 0),
    }


@pytest.mark.parametrize("stratum", ["a b", "all", "x\x1b[2J"])
def test_a_stratum_option_breaking_the_stratum_rule_is_refused(run_cli: Cli, stratum: str) -> None:
    refused = run_cli("import", "hub", str(mteb_folder(run_cli.tmp)), "--stratum", stratum, ok=False)
    assert refused.exit_code == 2 and "invalid stratum" in refused.output and refused.output.count("\n") == 1
