"""`qrelkit import ir-datasets` (issue 28, item 3): datasets registered with ir_datasets from small
files in the test's folder (what `ir_datasets.create_dataset` builds: TSV documents and queries,
TREC qrels), ir_datasets' own home in a folder of the tests (conftest.py), and no socket that
can connect: nothing reaches the network, whatever ir_datasets would like to do."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conftest import Cli, one_report
from qrelkit.formats.irds import level
from qrelkit.storage import Store

DOCS = (
    "d1\tsorting a list in place\nd2\tsorted() returns a new list\nd3\tthe assert statement\n"
    "d4\tunrelated\nd5\tnot judged\n"
)
QUERIES = "q1\thow to sort a list\nq2\tassert statement\nq3\ta query nobody judged\n"
QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d4 0\nq2 0 d3 2\nq2 0 d9 1\n"
"""d9 is not in the corpus; d4 is judged irrelevant; q3 has no qrels (unlabeled, not irrelevant)."""
DEFS = {
    0: "Non: nothing on the topic.",
    1: "Rel: some information on the topic,\n which may be minimal.",
    2: "highly relevant",
    -2: "Junk: spam.",
}


class Topic(NamedTuple):
    query_id: str
    text: str
    category: str

    def default_text(self) -> str:
        return self.text


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to resolve a name or connect a socket fails (and is kept here)."""
    tried: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        tried.append(args)
        raise OSError("the tests reach no network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return tried


def register(
    run_cli: Cli,
    *,
    docs: str = DOCS,
    queries: str = QUERIES,
    qrels: str = QRELS,
    defs: dict[int, str] | None = None,
    query_cls: type | None = None,
) -> str:
    """A dataset of these files, registered with ir_datasets under an id of this test's own."""
    import ir_datasets
    from ir_datasets.formats import GenericQuery, TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    files = [run_cli.write(name, text) for name, text in (("docs.tsv", docs), ("q.tsv", queries), ("q.qrels", qrels))]
    if defs is None and query_cls is None:
        dataset = ir_datasets.create_dataset(
            docs_tsv=str(files[0]), queries_tsv=str(files[1]), qrels_trec=str(files[2])
        )
    else:
        dataset = ir_datasets.Dataset(
            TsvDocs(LocalDownload(files[0])),
            TsvQueries(LocalDownload(files[1]), query_cls or GenericQuery),
            TrecQrels(LocalDownload(files[2]), defs or {}),
        )
    dataset_id = f"qrelkit-tests/{run_cli.tmp.name}"
    ir_datasets.registry.register(dataset_id, dataset)
    return dataset_id


def stored(run_cli: Cli) -> dict[str, Any]:
    """What the store holds: queries, documents, labels, pooled pairs and grade levels."""
    with Store.open(run_cli.db, create=False) as store:
        labels = {(q, d): g for q, d, g in store.reads.label_rows()}
        return {
            "queries": {q.id: (q.text, q.stratum) for q in store.reads.queries()},
            "docs": {d.id: d.text for d in store.reads.documents()},
            "labels": labels,
            "pooled": {(p.query_id, p.doc_id) for p in store.pool.unlabeled()},
            "levels": [(lv.grade, lv.name, lv.definition) for lv in store.settings.scale.every_level()],
        }


def test_queries_named_documents_qrels_and_grade_definitions_are_imported(run_cli: Cli) -> None:
    dataset_id = register(run_cli, defs={g: d for g, d in DEFS.items() if g >= 0})
    out = run_cli("import", "ir-datasets", dataset_id).output
    assert "imported 4 documents, 3 queries, 5 labels (0 pooled)" in out
    assert "1 documents the qrels name are not in the corpus" in out
    assert "left out: qrels.iteration" in out
    got = stored(run_cli)
    assert got["queries"] == {
        "q1": ("how to sort a list", "default"),
        "q2": ("assert statement", "default"),
        "q3": ("a query nobody judged", "default"),
    }
    assert got["docs"] == {
        "d1": "sorting a list in place",
        "d2": "sorted() returns a new list",
        "d3": "the assert statement",
        "d4": "unrelated",
    }
    assert got["labels"] == {
        ("q1", "d1"): 2, ("q1", "d2"): 1, ("q1", "d4"): 0, ("q2", "d3"): 2, ("q2", "d9"): 1,
    }  # fmt: skip
    assert got["levels"] == [
        (0, "Non", "Non: nothing on the topic."),
        (1, "Rel", "Rel: some information on the topic, which may be minimal."),
        (2, "highly relevant", "highly relevant"),
    ]


def test_all_docs_imports_the_whole_corpus(run_cli: Cli) -> None:
    dataset_id = register(run_cli)
    run_cli("import", "ir-datasets", dataset_id, "--all-docs")
    assert sorted(stored(run_cli)["docs"]) == ["d1", "d2", "d3", "d4", "d5"]


def test_a_dataset_without_definitions_gets_the_scale_of_its_grades(run_cli: Cli) -> None:
    run_cli("import", "ir-datasets", register(run_cli))
    assert stored(run_cli)["levels"] == [(0, "irrelevant", None), (1, "grade 1", None), (2, "grade 2", None)]


def test_a_definition_above_every_grade_widens_the_scale(run_cli: Cli) -> None:
    run_cli("import", "ir-datasets", register(run_cli, defs={3: "Perfect: the answer itself."}))
    assert stored(run_cli)["levels"][-1] == (3, "Perfect", "Perfect: the answer itself.")


def test_level_names_come_from_the_head_of_a_definition_or_are_grade_g() -> None:
    assert level(4, "Nav: This page represents a home page of an entity").name == "Nav"
    assert level(2, "Partially Relevant: the article answers part of it").name == "Partially Relevant"
    assert level(1, "relevant").name == "relevant"
    long = "It can be an answer to the question, however, it is not sufficiently convincing."
    assert (level(3, long).name, level(3, long).definition) == ("grade 3", long)
    assert level(0, "Two annotators rated as non-relevant").name == "grade 0"


def test_strata_from_a_query_field_or_one_for_all(run_cli: Cli) -> None:
    topics = "q1\thow to sort a list\thow-to\nq2\tassert statement\tnav\nq3\tunjudged\tnav\n"
    dataset_id = register(run_cli, queries=topics, query_cls=Topic)
    run_cli("import", "ir-datasets", dataset_id, "--stratum-field", "category")
    assert {q: s for q, (_, s) in stored(run_cli)["queries"].items()} == {"q1": "how-to", "q2": "nav", "q3": "nav"}
    run_cli("import", "ir-datasets", dataset_id, "--stratum", "web")
    assert {s for _, s in stored(run_cli)["queries"].values()} == {"web"}
    bad = run_cli("import", "ir-datasets", dataset_id, "--stratum-field", "topic", ok=False)
    assert bad.exit_code == 2
    assert "--stratum-field 'topic': the dataset's queries have no such field" in bad.output
    assert "query_id, text, category" in bad.output


def test_queries_keep_fields_they_do_not_use_out_and_say_so(run_cli: Cli) -> None:
    topics = "q1\thow to sort a list\thow-to\nq2\tassert statement\tnav\nq3\tunjudged\tnav\n"
    out = run_cli("import", "ir-datasets", register(run_cli, queries=topics, query_cls=Topic)).output
    assert "left out: qrels.iteration, queries.category" in out


def test_negative_relevance_is_refused_unless_mapped(run_cli: Cli) -> None:
    dataset_id = register(run_cli, qrels=QRELS + "q2 0 d4 -2\n", defs=DEFS)
    refused = run_cli("import", "ir-datasets", dataset_id, ok=False)
    assert refused.exit_code == 2
    line = f"error: ir_datasets:{dataset_id}/qrels:6: relevance -2 (Junk: spam.) of query 'q2' doc 'd4' is below 0"
    assert refused.output.startswith(line)
    assert "--negative zero" in refused.output and "--negative unjudged" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not run_cli.db.exists()
    out = run_cli("import", "ir-datasets", dataset_id, "--negative", "zero").output
    assert "1 qrels with a negative relevance graded 0" in out
    assert stored(run_cli)["labels"][("q2", "d4")] == 0
    run_cli.db.unlink()
    run_cli("import", "ir-datasets", dataset_id, "--negative", "unjudged")
    got = stored(run_cli)
    assert ("q2", "d4") not in got["labels"] and got["pooled"] == {("q2", "d4")}


def test_an_unknown_dataset_id_is_one_line_and_creates_no_store(run_cli: Cli) -> None:
    result = run_cli("import", "ir-datasets", "no-such/dataset", ok=False)
    assert result.exit_code == 2
    assert result.output == (
        "error: ir_datasets has no dataset 'no-such/dataset' (hint: see `ir_datasets list`, or register a "
        "dataset of your own files with ir_datasets first)\n"
    )
    assert not run_cli.db.exists()


def test_a_dataset_that_is_not_downloaded_is_named_and_nothing_is_fetched(run_cli: Cli, no_network: list[Any]) -> None:
    """vaswani is in ir_datasets' catalogue, and not in this test's (empty) ir_datasets home."""
    from ir_datasets.util.download import RequestsDownload

    sources = RequestsDownload.stream
    run_cli("init")
    result = run_cli("import", "ir-datasets", "vaswani", ok=False)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: vaswani is not all on this machine: ir_datasets would download http")
    assert "`ir_datasets export vaswani qrels`" in lines[0]
    assert no_network == []  # stopped before it asked for a connection
    assert RequestsDownload.stream is sources  # ir_datasets' download sources are as they were
    assert stored(run_cli)["queries"] == {}


def test_a_local_file_gone_missing_is_named(run_cli: Cli) -> None:
    dataset_id = register(run_cli)
    (run_cli.tmp / "q.qrels").unlink()
    result = run_cli("import", "ir-datasets", dataset_id, ok=False)
    assert result.exit_code == 2
    assert f"error: {dataset_id} is not all on this machine: ir_datasets needs " in result.output
    assert "q.qrels" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_bad_record_is_named_and_nothing_is_written(run_cli: Cli) -> None:
    """The documents come after the scale and the queries, in the same transaction."""
    run_cli("init")
    before = stored(run_cli)
    dataset_id = register(run_cli, docs=DOCS + "d 9\tan id with a space\n")
    result = run_cli("import", "ir-datasets", dataset_id, "--all-docs", ok=False)
    assert result.exit_code == 2
    assert f"ir_datasets:{dataset_id}/docs:6: document 'd 9': field 'id' is 'd 9', not a single word" in result.output
    assert stored(run_cli) == before


def test_a_repeated_pair_in_the_qrels_is_refused(run_cli: Cli) -> None:
    result = run_cli("import", "ir-datasets", register(run_cli, qrels=QRELS + "q1 1 d1 1\n"), ok=False)
    assert result.exit_code == 2
    assert "/qrels:6: duplicate judgment for query 'q1' doc 'd1' (first on line 1)" in result.output


def test_a_qrel_of_a_query_the_dataset_lacks_is_refused(run_cli: Cli) -> None:
    result = run_cli("import", "ir-datasets", register(run_cli, qrels=QRELS + "q7 0 d1 1\n"), ok=False)
    assert result.exit_code == 2
    assert "/qrels:6: query 'q7' is not among the dataset's queries" in result.output


def test_stratum_and_stratum_field_together_are_refused(run_cli: Cli) -> None:
    result = run_cli("import", "ir-datasets", "x", "--stratum", "a", "--stratum-field", "b", ok=False)
    assert result.exit_code == 2 and "--stratum and --stratum-field both given" in result.output


def test_without_the_package_the_error_says_how_to_install_it(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # `import ir_datasets` raises ImportError
    result = run_cli("import", "ir-datasets", "vaswani", ok=False)
    assert result.exit_code == 2
    assert "needs the ir-datasets package" in result.output and "pip install 'qrelkit[irds]'" in result.output


def test_imported_frozen_and_scored_it_gives_the_numbers_of_the_qrels_file(run_cli: Cli) -> None:
    dataset_id = register(run_cli, defs={g: d for g, d in DEFS.items() if g >= 0})
    run_cli("import", "ir-datasets", dataset_id)
    run_cli("freeze", "tiny", "1", "--out", str(run_cli.tmp / "sets"))
    run = run_cli.write("r.run", "q1 Q0 d2 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq1 Q0 d5 3 1.0 r\nq2 Q0 d9 1 1.0 r\n")
    score = ["score", str(run), "--format", "json", "--per-query", "--metrics", "nDCG@10,RR,AP,P@2,R@10"]
    frozen = one_report(run_cli(*score, "--golden", str(run_cli.tmp / "sets" / "tiny" / "1")).output)
    direct = one_report(run_cli(*score, "--qrels", str(run_cli.tmp / "q.qrels")).output)
    assert frozen["queries"]["unlabeled"] == 1  # q3: counted, not scored as irrelevant
    for name, metric in direct["metrics"].items():
        assert frozen["metrics"][name]["mean"] == metric["mean"], name
        assert frozen["metrics"][name]["coverage"] == metric["coverage"], name
    assert json.dumps(frozen["per_query"], sort_keys=True) == json.dumps(direct["per_query"], sort_keys=True)


def test_other_imports_load_neither_ir_datasets_nor_its_command(tmp_path: Path) -> None:
    (tmp_path / "q.tsv").write_text("q1\tsome text\n")
    code = (
        "import sys\nfrom qrelkit.cli import main\nsys.argv = ['qrelkit', '--db', 'x.db', 'import', 'queries', "
        "'q.tsv', '--stratum', 'a', '--create-strata']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "names = ('ir_datasets', 'qrelkit.cli.irds', 'qrelkit.workflows.irds')\n"
        "print(sorted(m for m in sys.modules if m.startswith(names)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_the_same_dataset_imported_again_or_elsewhere_freezes_to_the_same_content_hash(run_cli: Cli) -> None:
    dataset_id = register(run_cli, defs={g: d for g, d in DEFS.items() if g >= 0})
    sets = run_cli.tmp / "sets"

    def frozen(version: str) -> str:
        run_cli("freeze", "tiny", version, "--out", str(sets))
        return str(json.loads((sets / "tiny" / version / "manifest.json").read_text())["content_hash"])

    run_cli("import", "ir-datasets", dataset_id)
    first = frozen("1")
    run_cli("import", "ir-datasets", dataset_id)  # again, into the same store
    again = frozen("2")
    run_cli.db.unlink()
    run_cli("import", "ir-datasets", dataset_id)  # into a fresh store
    assert first == again == frozen("3")


def test_the_lookup_of_the_judged_documents_reports_its_progress(run_cli: Cli) -> None:
    from qrelkit import progress
    from qrelkit.workflows.irds import import_ir_dataset

    dataset_id = register(run_cli)
    seen: list[tuple[str, int, int]] = []
    with Store.open(run_cli.db) as store, progress.reporting(lambda *report: seen.append(report)):
        done = import_ir_dataset(store, dataset_id)
    assert (done.documents, done.missing_documents) == (4, 1)
    assert seen[-1] == (f"looking up the judged documents of {dataset_id}", 5, 5)  # d9 is asked for too


def test_documents_ir_datasets_would_download_roll_the_whole_import_back(run_cli: Cli, no_network: list[Any]) -> None:
    """Queries and qrels on this machine, the corpus only on a server: the queries written first
    in the transaction are gone with it, and nothing was fetched."""
    import ir_datasets
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import Download, LocalDownload, RequestsDownload

    remote = Download([RequestsDownload("https://example.invalid/docs.tsv")], cache_path=str(run_cli.tmp / "d.tsv"))
    queries, qrels = run_cli.write("q.tsv", QUERIES), run_cli.write("q.qrels", QRELS)
    dataset_id = f"qrelkit-tests/{run_cli.tmp.name}"
    ir_datasets.registry.register(
        dataset_id,
        ir_datasets.Dataset(TsvDocs(remote), TsvQueries(LocalDownload(queries)), TrecQrels(LocalDownload(qrels), {})),
    )
    run_cli("init")
    result = run_cli("import", "ir-datasets", dataset_id, ok=False)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {dataset_id} is not all on this machine: ir_datasets would download https://example.invalid/docs.tsv "
        f"(hint: let ir_datasets download it where it may (`ir_datasets export {dataset_id} qrels`, then queries and "
        "docs), then import again)"
    ]
    assert no_network == [] and stored(run_cli)["queries"] == {} and not (run_cli.tmp / "d.tsv").exists()
