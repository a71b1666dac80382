"""`qrelkit export hub` (issue 28, item 1): a frozen version as a Hugging Face dataset folder that
`datasets.load_dataset(DIR, CONFIG)` reads as it is (configs corpus, queries, default, labels,
loaded offline in a process of their own), and `import hub` of it into a new store freezing to the
same content hash, for the bundled set and for hostile ids and text. MTEB itself is not installed
(it pulls torch): its loader's reading is MTEB's own `datasets` calls on this layout."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, Cli
from hubdata import DOCS, HOSTILE_DEFINITION, QUERIES, hostile_version, load_with_datasets
from qrelkit import versioning
from qrelkit.formats import hub_card

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"


def _manifest_hash(version: Path) -> str:
    return versioning.read_manifest(version).content_hash


def _freeze_imported(run_cli: Cli, folder: Path, db: str, *extra: str) -> tuple[Path, str]:
    """`import hub FOLDER` into a new store, then freeze it: (the version, the import's output)."""
    cli = Cli(run_cli.tmp)
    cli.db = run_cli.tmp / db
    out = cli("import", "hub", str(folder), *extra).output
    cli("freeze", "back", "1", "--out", str(run_cli.tmp / f"{db}-sets"))
    return run_cli.tmp / f"{db}-sets" / "back" / "1", out


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_the_bundled_set_loads_with_datasets_and_comes_back_with_its_hash(run_cli: Cli, fmt: str) -> None:
    out = run_cli.tmp / "pydocs-hub"
    said = run_cli("export", "hub", str(PYDOCS), "--out", str(out), "--format", fmt, "--split-by-stratum").output
    assert "644 documents, 42 queries, 439 labels (split test, conceptual, how_to, navigational)" in said
    snap = versioning.read(PYDOCS)
    rows = load_with_datasets(out, run_cli.tmp, "corpus", "queries", "default", "labels")
    corpus = rows["corpus"]["corpus"]
    assert [(r["_id"], r["title"], r["text"]) for r in corpus] == sorted(
        (d.id, d.title, d.text) for d in snap.documents
    )
    queries = {r["_id"]: r for r in rows["queries"]["queries"]}
    assert {q: (r["text"], r["stratum"], r["description"]) for q, r in queries.items()} == {
        q.id: (q.text, q.stratum, q.description) for q in snap.queries
    }
    qrels = rows["default"]
    assert set(qrels) == {"test", "conceptual", "how_to", "navigational"}
    labels = sorted((lab.query_id, lab.doc_id, lab.grade) for lab in snap.labels)
    assert [(r["query-id"], r["corpus-id"], r["score"]) for r in qrels["test"]] == labels
    stratum_of = {q.id: q.stratum for q in snap.queries}
    assert [(r["query-id"], r["corpus-id"], r["score"]) for r in qrels["how_to"]] == [
        lab for lab in labels if stratum_of[lab[0]] == "how-to"
    ]
    pairs = rows["labels"]["labels"]
    assert Counter(r["state"] for r in pairs) == {"graded": 439, "skipped": 5, "unlabeled": 18}
    weights = {s.name: s.weight for s in snap.info.strata}
    assert all(r["weight"] == weights[r["stratum"]] and r["stratum"] == stratum_of[r["query-id"]] for r in pairs)
    judged = [r for r in pairs if r["state"] != "unlabeled"]
    assert {r["assessor_kind"] for r in judged} == {"human"} and {r["assessors"] for r in judged} == {1}
    assert all(r["grade"] is None for r in pairs if r["state"] != "graded")
    assert all(r["assessor_kind"] is None and r["assessors"] == 0 for r in pairs if r["state"] == "unlabeled")
    assert {(r["query-id"], r["corpus-id"]) for r in pairs if r["state"] == "skipped"} == set(snap.skipped)
    pooled = {(p.query_id, p.doc_id, p.source, p.best_rank) for p in snap.unlabeled}
    assert {
        (r["query-id"], r["corpus-id"], r["pooled_by"], r["best_rank"]) for r in pairs if r["state"] == "unlabeled"
    } == pooled

    back, said = _freeze_imported(run_cli, out, f"{fmt}.db")
    assert "644 documents, 42 queries, 439 labels, 5 skipped, 18 pooled" in said
    assert "the exported version's" in said
    assert _manifest_hash(back) == _manifest_hash(PYDOCS)
    again = versioning.read(back)
    assert sorted(again.skipped) == sorted(snap.skipped)
    assert {(p.query_id, p.doc_id, p.source, p.best_rank) for p in again.unlabeled} == pooled
    assert versioning.read_manifest(back).counts == versioning.read_manifest(PYDOCS).counts
    # what does not come back: the log's events (444 by qrelkit-authors) -> one event per label or skip
    assert len(list(again.events)) == 439 + 5 and {e.assessor for e in again.events} == {"hub"}


def test_qrelkit_json_and_the_labels_rows_follow_their_schemas(run_cli: Cli) -> None:
    import jsonschema

    out = run_cli.tmp / "hub"
    run_cli("export", "hub", str(hostile_version(run_cli)), "--out", str(out))
    schemas = ROOT / "schemas"
    info = json.loads((out / "qrelkit.json").read_text())
    jsonschema.validate(info, json.loads((schemas / "hub-info.schema.json").read_text()))
    row_schema = json.loads((schemas / "hub-label.schema.json").read_text())
    for line in (out / "labels.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), row_schema)


def test_hostile_ids_and_text_survive_exactly_in_the_files_and_back(run_cli: Cli) -> None:
    version = hostile_version(run_cli)
    for fmt in ("jsonl", "parquet"):
        out = run_cli.tmp / f"hub-{fmt}"
        run_cli("export", "hub", str(version), "--out", str(out), "--format", fmt, "--split-by-stratum")
        rows = load_with_datasets(out, run_cli.tmp, "corpus", "queries", "default", "labels")
        corpus = {r["_id"]: r for r in rows["corpus"]["corpus"]}
        assert {d: (r["title"], r["text"]) for d, r in corpus.items()} == {d: (t, x) for d, (t, x, _) in DOCS.items()}
        assert {d: json.loads(r["metadata"]) if r["metadata"] else None for d, r in corpus.items()} == {
            d: m for d, (_, _, m) in DOCS.items()
        }
        queries = {r["_id"]: (r["text"], r["stratum"], r["description"]) for r in rows["queries"]["queries"]}
        assert queries == QUERIES
        # strata named s[/], s[bold]x and how-to are split names only once rewritten; q4's stratum has no label
        assert set(rows["default"]) == {"test", "s___", "s_bold_x", "how_to"}
        back, said = _freeze_imported(run_cli, out, f"hostile-{fmt}.db")
        assert _manifest_hash(back) == _manifest_hash(version), said
        restored = versioning.read(back)
        assert {d.id: d.metadata for d in restored.documents} == {d: m for d, (_, _, m) in DOCS.items()}
        assert restored.info.scale == versioning.read(version).info.scale
        store = Cli(run_cli.tmp)
        store.db = run_cli.tmp / f"hostile-{fmt}.db"
        assert json.loads(store("status", "--format", "json").output)["name"] == "g[bold]x"
        assert {s.name: s.weight for s in restored.info.strata} == {
            s.name: s.weight for s in versioning.read(version).info.strata
        }


def test_the_labels_config_keeps_states_votes_and_the_one_assessor_kind(
    run_cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hostile import IDS
    from qrelkit.workflows import hub

    version = hostile_version(run_cli)
    out = run_cli.tmp / "hub"
    run_cli("export", "hub", str(version), "--out", str(out))
    rows = {
        (r["query-id"], r["corpus-id"]): r for r in map(json.loads, (out / "labels.jsonl").read_text().splitlines())
    }
    disputed = rows[(IDS["q_close"], IDS["d_click"])]
    assert (disputed["state"], disputed["grade"], disputed["assessors"], disputed["assessor_kind"]) == (
        "graded",
        0,
        2,
        "human",
    )
    settled = rows[(IDS["q_bold"], IDS["d_close_named"])]  # ann's vote and cy[bold]'s adjudication
    assert (settled["grade"], settled["assessors"]) == (3, 2)
    cleared = rows[(IDS["q_link"], IDS["d_plain"])]
    assert (cleared["state"], cleared["grade"], cleared["assessors"], cleared["assessor_kind"]) == (
        "unlabeled",
        None,
        0,
        None,
    )
    assert rows[(IDS["q_close"], IDS["d_plain"])]["state"] == "skipped"
    assert rows[(IDS["q_bold"], "d-only-pooled")]["pooled_by"].endswith("p.qrels")
    # the assessor kind comes from one function: a machine assessor there makes the pair's kind follow
    monkeypatch.setattr(hub, "assessor_kind", lambda name: "machine" if name == "bob" else "human")
    other = run_cli.tmp / "hub2"
    run_cli("export", "hub", str(version), "--out", str(other))
    rows = {
        (r["query-id"], r["corpus-id"]): r for r in map(json.loads, (other / "labels.jsonl").read_text().splitlines())
    }
    assert rows[(IDS["q_close"], IDS["d_click"])]["assessor_kind"] == "mixed"
    assert "1 machine" in (other / "README.md").read_text()


def test_the_card_says_what_the_version_holds_and_shows_its_strings_as_text(run_cli: Cli) -> None:
    from markdown_it import MarkdownIt

    version = hostile_version(run_cli)
    out = run_cli.tmp / "hub"
    run_cli("export", "hub", str(version), "--out", str(out), "--license", "cc-by-4.0", "--split-by-stratum")
    card = (out / "README.md").read_text(encoding="utf-8")
    manifest = versioning.read_manifest(version)
    assert card.startswith('---\npretty_name: "g[bold]x v1"\nlicense: "cc-by-4.0"\n')
    body = card.split("\n---\n", 1)[1]
    html = MarkdownIt("commonmark").enable("table").render(body)
    assert "<script>" not in html and "<a " not in html and "<em>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the definition, shown as text
    assert md_text(HOSTILE_DEFINITION) in html and md_text("re<b>la|ted") in html
    for fact in (manifest.content_hash, "0.001", "how-to", "median", "qrelkit export judgments"):
        assert md_text(fact) in html, fact
    assert "3 human" in body and "Pairs with votes of two or more assessors: 2" in body
    assert "relevant at grade 2 and above" in body and "tools that read the qrels alone count grade 1" in body
    assert "`s___` holds stratum s\\[\\/\\]" in body
    default = run_cli.tmp / "hub-default"
    run_cli("export", "hub", str(version), "--out", str(default))
    card = (default / "README.md").read_text(encoding="utf-8")
    assert 'license: "other"' in card and hub_card.LICENSE_TODO in card
    assert "no machine label is in it" in card


def md_text(text: str) -> str:
    """What a Markdown renderer shows for plain `text` (HTML-escaped)."""
    import html

    return html.escape(text, quote=False)


def test_the_folder_is_written_whole_or_not_at_all(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from qrelkit.formats import hub

    real = hub.write_rows
    calls: list[Any] = []

    def failing(path: Path, *args: Any) -> int:
        calls.append(path)
        if path.name.startswith("labels"):
            raise OSError(28, "No space left on device")
        return real(path, *args)

    monkeypatch.setattr(hub, "write_rows", failing)
    out = run_cli.tmp / "out"
    refused = run_cli("export", "hub", str(PYDOCS), "--out", str(out), ok=False)
    assert refused.exit_code == 2 and "No space left on device" in refused.output and len(calls) == 4
    assert not out.exists() and [p.name for p in run_cli.tmp.iterdir() if p.name.startswith(".")] == []


def test_out_is_new_empty_or_an_earlier_export_under_force(run_cli: Cli) -> None:
    out = run_cli.tmp / "out"
    run_cli("export", "hub", str(PYDOCS), "--out", str(out), "--split-by-stratum")
    refused = run_cli("export", "hub", str(PYDOCS), "--out", str(out), ok=False)
    assert refused.exit_code == 2 and "is not empty" in refused.output and "--force" in refused.output
    run_cli("export", "hub", str(PYDOCS), "--out", str(out), "--force")
    assert sorted(p.name for p in (out / "qrels").iterdir()) == ["test.jsonl"]  # the old splits went with it
    other = run_cli.tmp / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    refused = run_cli("export", "hub", str(PYDOCS), "--out", str(other), "--force", ok=False)
    assert refused.exit_code == 2 and "did not write" in refused.output
    assert (other / "notes.txt").read_text() == "keep me"
    empty = run_cli.tmp / "empty"
    empty.mkdir()
    run_cli("export", "hub", str(PYDOCS), "--out", str(empty))
    assert (empty / "README.md").is_file()
    frozen = run_cli.tmp / "frozen"
    frozen.mkdir()
    for f in PYDOCS.iterdir():
        (frozen / f.name).write_bytes(f.read_bytes())
    for bad, words in [
        (PYDOCS / "hub", "inside the input folder"),
        (frozen / "hub", "inside the frozen version"),
        (PYDOCS.parent, "holds the version"),
        (run_cli.tmp / "no" / "such", "no folder"),
        (run_cli.db, "is the store"),
    ]:
        refused = run_cli("export", "hub", str(PYDOCS), "--out", str(bad), ok=False)
        assert refused.exit_code == 2 and words in refused.output, (bad, refused.output)
        assert refused.output.count("\n") == 1
    assert not (PYDOCS / "hub").exists() and not (frozen / "hub").exists()


def test_split_names_that_would_clash_are_refused(run_cli: Cli) -> None:
    run_cli("init")
    for s in ("a-b", "a_b", "test"):
        run_cli("strata", "set", s, "1")
    queries = "".join(
        f'{{"id": "q{i}", "text": "x", "stratum": "{s}"}}\n' for i, s in enumerate(("a-b", "a_b", "test"))
    )
    run_cli("import", "queries", str(run_cli.write("q.jsonl", queries)))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", '{"id": "d", "text": "x"}\n')))
    run_cli("import", "qrels", str(run_cli.write("l.qrels", "q0 0 d 1\nq1 0 d 1\nq2 0 d 1\n")))
    run_cli("freeze", "s", "1", "--out", str(run_cli.tmp / "sets"))
    refused = run_cli("export", "hub", str(run_cli.tmp / "sets" / "s" / "1"), "--out", str(run_cli.tmp / "o"),
                      "--split-by-stratum", ok=False)  # fmt: skip
    assert refused.exit_code == 2 and "'a_b' would be split 'a_b', as stratum 'a-b'" in refused.output
    assert not (run_cli.tmp / "o").exists()


def test_a_version_without_labels_or_altered_is_refused(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--stratum", "default", str(run_cli.write("q.jsonl", '{"id": "q", "text": "x"}\n')))
    run_cli("import", "docs", str(run_cli.write("d.jsonl", '{"id": "d", "text": "x"}\n')))
    run_cli("freeze", "s", "1", "--out", str(run_cli.tmp / "sets"))
    version = run_cli.tmp / "sets" / "s" / "1"
    refused = run_cli("export", "hub", str(version), "--out", str(run_cli.tmp / "o"), ok=False)
    assert refused.exit_code == 2 and "has no labels" in refused.output
    copy = run_cli.tmp / "altered"
    copy.mkdir()
    for f in PYDOCS.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    (copy / "queries.jsonl").write_text((copy / "queries.jsonl").read_text().replace("mutable", "immutable", 1))
    refused = run_cli("export", "hub", str(copy), "--out", str(run_cli.tmp / "o"), ok=False)
    assert refused.exit_code == 2 and "was altered" in refused.output and not (run_cli.tmp / "o").exists()


def test_parquet_without_pyarrow_says_what_to_install(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    refused = run_cli("export", "hub", str(PYDOCS), "--out", str(run_cli.tmp / "o"), "--format", "parquet", ok=False)
    assert refused.exit_code == 2 and "qrelkit[fast]" in refused.output and not (run_cli.tmp / "o").exists()


def test_a_bad_licence_is_a_usage_error(run_cli: Cli) -> None:
    refused = run_cli("export", "hub", str(PYDOCS), "--out", str(run_cli.tmp / "o"), "--license", "CC BY", ok=False)
    assert refused.exit_code == 2 and "not a licence identifier" in refused.output
