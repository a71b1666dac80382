"""Untrusted text through every command of the command line.

A store is built through the CLI from hostile strings (`tests/hostile.py`): the golden-set name,
strata, query ids, texts and guidelines, document ids, titles and texts, assessor names, notes,
run and qrels file names, a frozen version's name and note. Then every command that prints data
runs on it.

* Tables and messages (text for a person at a terminal): the command exits as expected without a
  traceback, the hostile text is there as it is made visible (markup literally, `\\x1b` as the
  four characters `\\x1b`), and the raw bytes of no escape sequence or control character from the
  data are in stdout or stderr.
* JSON, JSON Lines, TSV, TREC and CSV outputs are data formats, read by programs: there every
  string round-trips exactly (JSON escapes C0 controls as `\\u001b`; TSV and TREC lines carry ids,
  which hold no white space and no control character). Making text visible there would alter the data.
* The HTML page of `compare` is a page, not data: names are HTML-escaped and their control
  characters written visibly, as in the terminal.
* Click's own usage errors quote the user's arguments: they are one line `error: ... (hint: ...)`,
  exit status 2, with the arguments made visible too.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from conftest import Cli
from hostile import ALL_IN_ONE, IDS, LONG, MARKUP, STRATA, TEXT, leaked, shown
from qrelkit import progress
from qrelkit.cli import _common, cli

GOLDEN = "g[/][bold]x[@click=app.quit]"
"""The store's name: it must be an id (no white space, no control character), so markup."""

Q1, Q2, Q3 = IDS["q_close"], IDS["q_bold"], IDS["q_link"]
Q4 = "q[red]4"
D1, D2, D3 = IDS["d_click"], IDS["d_close_named"], IDS["d_plain"]
D4 = "d[bold]4"
MISSING_DOC = "dmissing[/]"
S1, S2, S3 = STRATA["s_close"], STRATA["s_bold"], STRATA["s_click"]

QUERIES: list[dict[str, object]] = [
    {"id": Q1, "text": ALL_IN_ONE, "stratum": S1, "description": LONG},
    {"id": Q2, "text": TEXT["osc8_link"], "stratum": S2, "description": TEXT["window_title"]},
    {"id": Q3, "text": LONG, "stratum": S3, "description": ALL_IN_ONE},
    {"id": Q4, "text": TEXT["c1_csi"], "stratum": S2},
]
DOCS: list[dict[str, object]] = [
    {"id": D1, "title": TEXT["clear_screen"], "text": ALL_IN_ONE},
    {"id": D2, "title": LONG, "text": TEXT["bell"]},
    {"id": D3, "title": TEXT["carriage_return"], "text": TEXT["cursor_up_erase"]},
    {"id": D4, "title": TEXT["c1_osc"], "text": "c1"},
]

ANN = "ann" + "".join(v for v in MARKUP.values() if " " not in v)
"""An assessor named with every markup an id may hold (assessor names follow the id rule: no
white space or control character, so no escape sequence either; tests/test_assessor_names.py)."""
BOB = "bob[/]"
CAT = "cat[bold]"
QRELS_ASSESSOR = "qrels" + MARKUP["file_link"]
EVENTS: list[dict[str, object]] = [
    {"query_id": Q1, "doc_id": D1, "state": "graded", "grade": 2, "assessor": ANN, "note": ALL_IN_ONE},
    {"query_id": Q1, "doc_id": D1, "state": "graded", "grade": 1, "assessor": BOB, "note": LONG},
    {"query_id": Q2, "doc_id": D1, "state": "graded", "grade": 1, "assessor": BOB},
    {"query_id": Q2, "doc_id": D1, "state": "graded", "grade": 3, "assessor": ANN, "note": TEXT["osc8_link"]},
    {"query_id": Q3, "doc_id": D2, "state": "skipped", "assessor": CAT, "note": TEXT["carriage_return"]},
    {"query_id": Q2, "doc_id": D3, "state": "graded", "grade": 0, "assessor": ANN},
    {"query_id": Q4, "doc_id": D4, "state": "graded", "grade": 2, "assessor": BOB, "note": TEXT["c1_csi"]},
]

RUN_A = "a[bold]\x1b]0;pwned\x07.run"
RUN_B = "b[@click=app.quit]\x1b[2J.run"
"""Run files (a file name holds no `/`, so no `[/]`): their names are the file names."""
RUNS = {
    RUN_A: [(Q1, D1), (Q1, D2), (Q1, MISSING_DOC), (Q2, D1), (Q2, D3), (Q3, D2), (Q4, D4)],
    RUN_B: [(Q1, D2), (Q1, D1), (Q2, D3), (Q2, D1), (Q3, D1), (Q3, D2), (Q4, D4)],
}
QRELS_FILE = "x[red]\x1b[2J.qrels"
VERSION_NAME = "n[bold][red]x"
"""A frozen version's name (a folder name and an id: no white space, no slash, no C0 control)."""
PROFILE = "p[/]"
ASSIGNEES = ["bob[/]", "ann[@click=app.quit]", "c" + MARKUP["nested"]]


WIDTH = 250
"""Consoles this wide in these tests, so that the long hostile ids fit in their table cells (the
checks look for each one whole); the subprocess test runs at 100 columns."""


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch: pytest.MonkeyPatch) -> None:
    for console in (_common.out, _common.err):
        monkeypatch.setattr(console.console, "_width", WIDTH)


def run_lines(path: Path) -> list[str]:
    return [f"{q} Q0 {d} {r} {10 - r} tag[/]" for r, (q, d) in enumerate(RUNS[path.name], 1)]


def jsonl(rows: Sequence[Mapping[str, object]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def text_of(result: Result, code: int = 0) -> str:
    """A command's output (stdout and stderr) for a person: it exited with `code`, without a
    traceback, and holds no raw escape sequence or control character from the data."""
    assert result.exit_code == code, result.output[-3000:]
    assert "Traceback" not in result.output
    assert leaked(result.output) == [], result.output[-3000:]
    assert not re.search(r"\x1b[\[\]]", result.output), "an escape sequence reached the output"
    return result.output


def has(output: str, *texts: str) -> None:
    """Each of `texts` is in `output` as a terminal shows it."""
    for t in texts:
        assert shown(t) in output, (shown(t), output[-3000:])


@dataclass
class Built:
    cli: Cli
    runs: dict[str, Path]
    qrels: Path
    v1: Path
    v2: Path
    setup: dict[str, Result] = field(default_factory=dict)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The hostile store, built through the CLI, and frozen twice (v1, then v2 after a regrade)."""
    tmp = tmp_path_factory.mktemp("hostile")
    cli = Cli(tmp)
    runs = {name: tmp / name for name in RUNS}
    for path in runs.values():
        path.write_text("\n".join(run_lines(path)) + "\n", encoding="utf-8")
    qrels = cli.write(QRELS_FILE, f"{Q3} 0 {D1} 1\n{Q1} 0 {D3} -1\n")
    steps: dict[str, Result] = {}
    steps["init"] = cli("init", "--name", GOLDEN)
    for i, s in enumerate((S1, S2, S3)):
        steps[f"strata set {i}"] = cli("strata", "set", s, "0.5")
    steps["import queries"] = cli("import", "queries", str(cli.write("q[bold].jsonl", jsonl(QUERIES))))
    steps["import docs"] = cli("import", "docs", str(cli.write("d\x1b]0;pwned\x07.jsonl", jsonl(DOCS))))
    steps["pool"] = cli("pool", "-k", "10", *map(str, runs.values()))
    steps["import judgments"] = cli("import", "judgments", str(cli.write("j[@click=app.quit].jsonl", jsonl(EVENTS))))
    steps["import qrels"] = cli("import", "qrels", "--assessor", QRELS_ASSESSOR, str(qrels))
    steps["profiles set"] = cli("profiles", "set", PROFILE, "--metrics", "RR,P@1", "--strata", S1)
    steps["assign"] = cli("assign", "--overlap", "2", "--assessors", ",".join(ASSIGNEES))
    sets = tmp / "sets[bold]"
    steps["freeze v1"] = cli("freeze", VERSION_NAME, "v1", "--out", str(sets), "--note", ALL_IN_ONE)
    regrade = [{**EVENTS[0], "grade": 3, "note": TEXT["clear_screen"]}]
    cli("import", "judgments", str(cli.write("regrade.jsonl", jsonl(regrade))))
    steps["strata set again"] = cli("strata", "set", S1, "0.7")
    steps["freeze v2"] = cli("freeze", VERSION_NAME, "v2", "--out", str(sets))
    yield Built(cli, runs, qrels, sets / VERSION_NAME / "v1", sets / VERSION_NAME / "v2", steps)


# -- building the store: every message names the data it took, visibly --------------------------

SETUP_SHOWS: dict[str, list[str]] = {
    "init": [GOLDEN],
    "strata set 0": [f"stratum {S1}: weight 0.5"],
    "strata set 1": [f"stratum {S2}: weight 0.5"],
    "strata set 2": [f"stratum {S3}: weight 0.5"],
    "import queries": ["imported 4 queries from ", "q[bold].jsonl"],
    "import docs": ["imported 4 documents from ", "d\x1b]0;pwned\x07.jsonl"],
    "pool": ["pooled ", RUN_A.removesuffix(".run"), RUN_B.removesuffix(".run"), MISSING_DOC],
    "import judgments": ["imported 7 judgment events from ", "j[@click=app.quit].jsonl"],
    "import qrels": ["imported 1 labels and 1 pooled-unjudged pairs from ", QRELS_FILE],
    "profiles set": [f"profile {PROFILE}: RR, P@1 over {S1}"],
    "assign": [f"{ASSIGNEES[0]} ", f"{ASSIGNEES[1]} ", f"{ASSIGNEES[2]} "],
    "freeze v1": ["froze ", f"sets[bold]/{VERSION_NAME}/v1"],
    "freeze v2": ["froze ", f"sets[bold]/{VERSION_NAME}/v2", "(parent v1)"],
}


@pytest.mark.parametrize("step", list(SETUP_SHOWS))
def test_building_the_store_names_its_data_visibly(built: Built, step: str) -> None:
    has(text_of(built.setup[step]), *SETUP_SHOWS[step])


# -- tables: every command that shows data --------------------------------------------------------


def table_commands(b: Built) -> dict[str, tuple[list[str], list[str]]]:
    """Command -> (its arguments, texts its output must show)."""
    a, bb = str(b.runs[RUN_A]), str(b.runs[RUN_B])
    run_a, run_b = RUN_A.removesuffix(".run"), RUN_B.removesuffix(".run")
    return {
        "status": (["status"], [f"{GOLDEN}: 4 queries", S1, S2, S3]),
        "status --runs": (["status", "--runs", a, bb, "--per-query"], [run_a, run_b, S1, S2, Q1, Q2, Q4]),
        "strata list": (["strata", "list"], [S1, S2, S3]),
        "profiles list": (["profiles", "list"], [PROFILE, S1]),
        "queue": (["queue", "--order", "depth"], [Q1, D2, D3, MISSING_DOC, run_a, QRELS_FILE]),
        "queue as an assignee": (["queue", "--assessor", ASSIGNEES[2]], [Q1, D3]),
        "agreement": (["agreement"], [S1, S2, "bob[/]", "[@click=app.quit]q"]),
        "agreement of a stratum": (["agreement", "--stratum", S2], [S2]),
        "score": (["score", a, bb], [f"{RUN_A} vs {GOLDEN}", RUN_B, S1, S2]),
        "score --per-query": (["score", a, "--per-query"], [RUN_A, Q1, Q2, Q3, Q4]),
        "score --profile": (["score", a, "--profile", PROFILE], [RUN_A]),
        "score --qrels": (["score", a, "--qrels", str(b.qrels)], [f"{RUN_A} vs {QRELS_FILE}"]),
        "score --golden": (["score", a, "--golden", str(b.v1)], [f"{RUN_A} vs {VERSION_NAME} (v1"]),
        "compare": (["compare", a, bb], [f"A {RUN_A}  vs  B {RUN_B}", S1, S2]),
        "compare --golden": (["compare", a, bb, "--golden", str(b.v2), "--resamples", "1000"], [RUN_A, RUN_B]),
        "diff": (["diff", str(b.v1), str(b.v2)], [f"{VERSION_NAME}/v1 -> {VERSION_NAME}/v2", f"stratum {S1}"]),
        "verify": (["verify", str(b.v1)], [f"{VERSION_NAME}/v1: ", "files match the manifest"]),
        "policy": (["policy"], ["label policy: median"]),
        "queries show": (["queries", "show", Q1], [Q1, D2]),
        "docs list": (["docs", "list"], [D2, D3]),
        "docs show": (["docs", "show", D2], [D2, "ding\\x07"]),
    }


TABLES = [
    "status",
    "status --runs",
    "strata list",
    "profiles list",
    "queue",
    "queue as an assignee",
    "agreement",
    "agreement of a stratum",
    "score",
    "score --per-query",
    "score --profile",
    "score --qrels",
    "score --golden",
    "compare",
    "compare --golden",
    "diff",
    "verify",
    "policy",
    "queries show",
    "docs list",
    "docs show",
]


@pytest.mark.parametrize("name", TABLES)
def test_tables_show_data_as_plain_visible_text(built: Built, name: str) -> None:
    args, texts = table_commands(built)[name]
    has(text_of(built.cli(*args)), *texts)


# -- data formats: every string round-trips exactly ------------------------------------------------

C0 = re.compile(r"[\x00-\x08\x0b-\x1f]")
"""C0 controls but tab and newline: JSON escapes them (`\\u001b`); a C1 control or DEL is valid
JSON as it is, and passes through."""


def json_of(result: Result) -> object:
    assert result.exit_code == 0, result.output[-3000:]
    assert not C0.search(result.stdout), "JSON holds a raw C0 control"
    return json.loads(result.stdout)


def test_json_outputs_round_trip_every_string(built: Built) -> None:
    cli, a, b = built.cli, str(built.runs[RUN_A]), str(built.runs[RUN_B])
    run_a, run_b = RUN_A.removesuffix(".run"), RUN_B.removesuffix(".run")

    status = json_of(cli("status", "--format", "json"))
    assert isinstance(status, dict)
    assert status["name"] == GOLDEN and {s["name"] for s in status["strata"]} == {S1, S2, S3}

    coverage = json_of(cli("status", "--runs", a, b, "--format", "json"))
    assert isinstance(coverage, list)
    assert [r["run"] for r in coverage] == [run_a, run_b]
    assert {q["query_id"] for q in coverage[0]["queries"]} == {Q1, Q2, Q3, Q4}
    assert {q["stratum"] for q in coverage[0]["queries"]} == {S1, S2, S3}

    queue = json_of(cli("queue", "--format", "json"))
    assert isinstance(queue, list)
    assert {(i["query_id"], i["doc_id"]) for i in queue} == {(Q1, D2), (Q1, D3), (Q1, MISSING_DOC)}
    assert {i["source"] for i in queue} >= {f"{run_a},{run_b}", str(built.qrels)}

    agreement = json_of(cli("agreement", "--format", "json"))
    assert isinstance(agreement, dict)
    assert set(agreement["by_stratum"]) == {S1, S2, S3}
    assert set(agreement["overall"]["kappa_linear"]) & {f"{ANN}|{BOB}", f"{BOB}|{ANN}"}

    reports = json_of(cli("score", a, b, "--per-query", "--format", "json"))
    assert isinstance(reports, dict)
    first = reports["reports"][0]
    assert [r["fingerprint"]["run"]["name"] for r in reports["reports"]] == [RUN_A, RUN_B]
    assert first["fingerprint"]["golden"]["name"] == GOLDEN
    assert set(first["per_query"]) == {Q1, Q2, Q3, Q4}
    assert set(first["metrics"]["RR"]["by_stratum"]) == {S1, S2, S3}

    comparison = json_of(cli("compare", a, b, "--format", "json", "--resamples", "1000"))
    assert isinstance(comparison, dict)
    assert (comparison["baseline"]["run"]["name"], comparison["candidate"]["run"]["name"]) == (RUN_A, RUN_B)

    diff = json_of(cli("diff", str(built.v1), str(built.v2), "--format", "json"))
    assert isinstance(diff, dict)
    assert (diff["from_version"], diff["to_version"]) == (f"{VERSION_NAME}/v1", f"{VERSION_NAME}/v2")
    assert set(diff["strata"]) == {S1}


def test_tsv_trec_and_csv_outputs_round_trip_every_string(built: Built) -> None:
    cli, a, b = built.cli, str(built.runs[RUN_A]), str(built.runs[RUN_B])

    tsv = cli("queue", "--format", "tsv").stdout
    assert {tuple(line.split("\t")[:2]) for line in tsv.splitlines()} == {(Q1, D2), (Q1, D3), (Q1, MISSING_DOC)}

    trec = cli("score", a, b, "--per-query", "--format", "trec").stdout
    rows = [line.split("\t") for line in trec.splitlines()]
    assert {r[0] for r in rows} == {RUN_A, RUN_B}  # run names as they are: a data format
    assert {r[2] for r in rows} == {Q1, Q2, Q3, Q4, "all"}

    table = list(csv.reader(io.StringIO(cli("score", a, b, "--per-query", "--format", "csv").stdout)))
    assert {r[0] for r in table[1:]} == {RUN_A, RUN_B} and {r[1] for r in table[1:]} == {Q1, Q2, Q3, Q4}
    by_stratum = list(csv.reader(io.StringIO(cli("score", a, "--format", "csv").stdout)))
    assert {r[2] for r in by_stratum[1:]} == {"all", S1, S2, S3}


def test_exports_round_trip_every_string(built: Built) -> None:
    qrels = [line.split(" ") for line in built.cli("export", "qrels").stdout.splitlines()]
    assert {(q, d) for q, _, d, _ in qrels} == {(Q1, D1), (Q2, D1), (Q2, D3), (Q3, D1), (Q4, D4)}
    labels = [json.loads(line) for line in built.cli("export", "qrels", "--format", "jsonl").stdout.splitlines()]
    assert {(x["query_id"], x["doc_id"]) for x in labels} == {(q, d) for q, _, d, _ in qrels}
    out = built.cli("export", "judgments").stdout
    assert not C0.search(out)
    events = [json.loads(line) for line in out.splitlines()]
    said = {(e["assessor"], e.get("note")) for e in events}
    assert {(ANN, ALL_IN_ONE), (BOB, LONG), (CAT, TEXT["carriage_return"]), (BOB, TEXT["c1_csi"])} <= said
    assert {e["assessor"] for e in events} == {ANN, BOB, CAT, QRELS_ASSESSOR}


def test_the_html_page_escapes_names_and_shows_their_controls(built: Built) -> None:
    a, b = str(built.runs[RUN_A]), str(built.runs[RUN_B])
    page = built.cli("compare", a, b, "--format", "html", "--resamples", "1000").stdout
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page), "a control character in the page"
    assert escape(shown(RUN_A)) in page and escape(shown(RUN_B)) in page  # markup is no HTML: as it is


# -- messages that name a file, a folder or an id -------------------------------------------------


def test_messages_about_files_name_them_visibly(built: Built, tmp_path: Path) -> None:
    cli, a, b = built.cli, str(built.runs[RUN_A]), str(built.runs[RUN_B])
    hostile_dir = tmp_path / "o[bold]\x1b]0;pwned\x07"
    (hostile_dir / "r[").mkdir(parents=True)  # `r[/x].json` below is the file `x].json` in the folder `r[`
    for args, texts in [
        (["export", "qrels", "--out", str(hostile_dir / "l[@click=app.quit].qrels")], ["wrote 5 labels to "]),
        (["export", "judgments", "--out", str(hostile_dir / "j\x1b[2J.jsonl")], ["wrote 9 events to "]),
        (["score", a, "--out", str(hostile_dir / "s\x9b2J.txt")], ["wrote "]),
        (["score", a, "--format", "json", "--out", str(hostile_dir / "r[/x].json")], ["wrote "]),
        (["compare", a, b, "--format", "html", "--out", str(hostile_dir / "c\x07.html")], ["wrote "]),
        (["schemas", "write", "--dir", str(hostile_dir / "schemas[bold]")], ["schemas to "]),
    ]:
        has(text_of(cli(*args)), *texts, str(hostile_dir))

    fresh = Cli(tmp_path / "fresh")
    (tmp_path / "fresh").mkdir()
    tsv = fresh.write("q[bold]\x1b]0;pwned\x07.tsv", f"{Q1}\t{TEXT['osc8_link']}\t{S1}\n")
    text_of(fresh("init"))
    has(text_of(fresh("import", "queries", "--create-strata", str(tsv))), "imported 1 queries from ", str(tsv))
    beir = tmp_path / "beir[bold]\x1b[2J"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text(jsonl([{"_id": D1, "title": LONG, "text": ALL_IN_ONE}]), encoding="utf-8")
    (beir / "queries.jsonl").write_text(jsonl([{"_id": Q2, "text": ALL_IN_ONE}]), encoding="utf-8")
    (beir / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\n{Q2}\t{D1}\t1\n", encoding="utf-8")
    has(text_of(fresh("import", "beir", str(beir), "--stratum", S2, "--assessor", ANN)), str(beir))
    has(text_of(fresh("status")), S1, S2)

    loaded = Cli(tmp_path / "loaded")
    (tmp_path / "loaded").mkdir()
    has(text_of(loaded("import", "version", str(built.v1))), f"imported {VERSION_NAME} v1 (", str(built.v1))
    has(text_of(loaded("status")), f"{VERSION_NAME}: 4 queries")


def test_a_tampered_manifest_is_shown_visibly(built: Built, tmp_path: Path) -> None:
    tampered = tmp_path / "tampered[bold]"
    tampered.mkdir()
    for f in built.v1.iterdir():
        (tampered / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((tampered / "manifest.json").read_text(encoding="utf-8"))
    manifest["content_hash"] = "\x1b]0;pwned\x07" + manifest["content_hash"]
    (tampered / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    fresh = Cli(tmp_path)
    out = text_of(fresh("import", "version", "--no-verify", str(tampered)))
    has(out, f"imported {VERSION_NAME} v1 (\x1b]0;pwned\x07sha256:", str(tampered))
    has(text_of(fresh("verify", str(tampered), ok=False), 1), f"altered: {tampered}/manifest.json")


def test_demo_names_the_kept_store_visibly(tmp_path: Path) -> None:
    keep = tmp_path / "demo[bold]\x1b]0;pwned\x07.db"
    out = text_of(Cli(tmp_path)("demo", "--keep", str(keep)))
    has(out, f"the demo store is at {keep}: try qrelkit --db {keep} status")


def error_commands(b: Built, tmp: Path) -> list[tuple[list[str], int, list[str]]]:
    """(arguments, exit status, texts the one-line error must show)."""
    a = str(b.runs[RUN_A])
    missing = tmp / "nope[bold]\x1b]0;pwned\x07.tsv"
    bad_run = tmp / "bad[@click=app.quit]\x1b[2J.run"
    bad_run.write_text(f"{Q1} Q0 {D1} 1 x\n", encoding="utf-8")
    altered = tmp / "altered[bold]\x1b]0;pwned\x07"
    altered.mkdir()
    for f in b.v1.iterdir():
        (altered / f.name).write_bytes(f.read_bytes())
    with (altered / "qrels.txt").open("a", encoding="utf-8") as fh:
        fh.write(f"{Q2} 0 {D2} 3\n")
    nope_stratum, nope_query = "s[/]nope\x1b[2J", "nope[/]\x1b]0;pwned\x07"
    return [
        (["import", "queries", str(missing)], 2, [str(missing)]),
        (["score", str(missing)], 2, [str(missing)]),
        (["score", str(bad_run)], 2, [f"{bad_run}:1:"]),
        (["import", "qrels", str(bad_run)], 2, [f"{bad_run}:1:"]),
        (["queue", "--stratum", nope_stratum], 2, [f"unknown stratum {nope_stratum!r}"]),
        (["agreement", "--stratum", nope_stratum], 2, [f"unknown stratum {nope_stratum!r}"]),
        (["assign", "--overlap", "2", "--assessors", "x,y", "--stratum", nope_stratum], 2, ["unknown stratum"]),
        (["profiles", "set", "p2", "--metrics", "RR", "--strata", nope_query], 2, [f"unknown strata: {nope_query}"]),
        (["score", a, "--metrics", f"RR,{nope_query}"], 2, [nope_query]),
        (["strata", "set", nope_stratum, "1"], 2, [f"invalid stratum {nope_stratum!r}"]),
        (["judge", "--query", nope_query], 2, [f"query {nope_query!r} is not in the golden set"]),
        (["judge", "--stratum", nope_stratum], 2, [f"unknown stratum {nope_stratum!r}"]),
        (["score", a, "--golden", str(missing)], 2, [str(missing)]),
        (["verify", str(altered)], 1, [f"altered: {altered}/qrels.txt"]),
        (["score", a, "--golden", str(altered)], 2, [str(altered)]),
        (["score", a, "--min-coverage", "0.99"], 1, ["coverage below 0.99:", S1, S2]),
    ]


def test_errors_name_files_ids_and_strata_visibly(built: Built, tmp_path: Path) -> None:
    for args, code, texts in error_commands(built, tmp_path):
        out = text_of(built.cli(*args, ok=False), code)
        has(out, *texts)
        if code == 2:
            assert out.startswith("error: ") and out.count("\n") == 1, (args, out)


def test_a_missing_store_is_named_visibly(tmp_path: Path) -> None:
    db = tmp_path / "db[bold]\x1b]0;pwned\x07.db"
    out = text_of(CliRunner().invoke(cli, ["--db", str(db), "status"]), 2)
    has(out, f"no store at {db}")


# -- click's own errors quote the arguments: one line, made visible -------------------------------

USAGE_ERRORS: dict[str, tuple[list[str], str]] = {
    "a bad choice": (["queue", "--order", "\x1b]0;pwned\x07"], "\x1b]0;pwned\x07"),
    "an extra argument": (["init", "extra\x1b]0;pwned\x07"], "Got unexpected extra argument (extra\x1b]0;pwned\x07)"),
    "no such option": (["status", "--x\x1b[2J"], "--x\x1b[2J"),
    "no such command": (["bad[bold]\x1b[2J"], "bad[bold]\x1b[2J"),
    "no such subcommand": (["strata", "b[/]\x1b]0;pwned\x07"], "b[/]\x1b]0;pwned\x07"),
    "not a number": (["strata", "set", "a", "[/]\x1b[2J"], "[/]\x1b[2J"),
    "not an integer": (["queue", "--limit", "\x9b2J"], "\x9b2J"),
    "a missing value": (["--db"], "Option '--db' requires an argument"),
    "a missing argument": (["import", "queries"], "Missing argument 'FILE'"),
}


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_usage_errors_are_one_visible_line(tmp_path: Path, case: str) -> None:
    args, quoted = USAGE_ERRORS[case]
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), *args], prog_name="qrelkit")
    out = text_of(result, 2)
    assert out.startswith("error: ") and out.count("\n") == 1, out
    assert "Usage:" not in out and re.search(r"\(hint: see `qrelkit[^`]* --help`\)$", out.strip()), out
    has(out, quoted)


def test_a_group_without_a_command_still_shows_its_help(tmp_path: Path) -> None:
    for args in ([], ["--db", str(tmp_path / "s.db"), "strata"]):
        result = CliRunner().invoke(cli, args, prog_name="qrelkit")
        assert "Usage:" in result.output and "Commands:" in result.output and "error:" not in result.output
    missing = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db")], prog_name="qrelkit")
    assert (missing.exit_code, missing.output) == (2, "error: Missing command. (hint: see `qrelkit --help`)\n")
    assert CliRunner().invoke(cli, ["queue", "--help"]).exit_code == 0


# -- a real process on a colour terminal: colours, and no escape from the data --------------------

SGR = re.compile(r"\x1b\[[0-9;]*m")
BAR_SHOWN = "\x1b[?25l"
"""The progress bar (on stderr, once a command has run a second) hides the cursor as it starts..."""
BAR = re.compile(r"\x1b\[\?25[lh]|\x1b\[1A|\x1b\[2K|\r")
"""...and draws and erases its own lines: these codes are qrelkit's, not the data's (the bar's text,
a file name, is checked like any other)."""


def test_a_colour_terminal_gets_colours_but_no_escape_from_data(built: Built) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "COLUMNS")}
    env |= {"FORCE_COLOR": "1", "COLUMNS": "100", "TERM": "xterm-256color"}
    a, b = str(built.runs[RUN_A]), str(built.runs[RUN_B])
    for args, code, texts in [
        (["status"], 0, [GOLDEN, S1, S2, S3]),
        (["queue"], 0, [Q1, D2, MISSING_DOC]),
        (["score", a], 0, [RUN_A, GOLDEN]),
        (["compare", a, b, "--resamples", "1000"], 0, [RUN_A, RUN_B]),
        (["queue", "--stratum", "s[/]\x1b[2J"], 2, ["s[/]\x1b[2J"]),
        (["queue", "--order", "\x1b]0;pwned\x07"], 2, ["\x1b]0;pwned\x07"]),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "qrelkit", "--db", str(built.cli.db), *args],
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == code, done.stderr[-2000:]
        errors = done.stderr.decode("utf-8")
        if BAR_SHOWN in errors:  # a busy machine: the command ran a second and drew its progress bar
            errors = BAR.sub("", errors)
        both = done.stdout.decode("utf-8") + errors
        assert SGR.search(both), f"no colour: is this a terminal? {args}"
        assert leaked(both) == [] and "Traceback" not in both, args
        stray = SGR.sub("", both)
        assert "\x1b" not in stray, (args, stray[stray.index("\x1b") - 40 :][:80])
        has(SGR.sub("", both), *texts)


# -- the progress bar names the file it reads --------------------------------------------------------


def test_the_progress_bar_shows_a_file_name_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(
        _common, "err", _common.LazyConsole(stderr=True, console=Console(file=screen, force_terminal=True, width=100))
    )
    task = f"reading {RUN_A}"
    with _common.progress_bar(delay=0):
        progress.report(task, 10, 100)
        progress.report(task, 50, 100)
    drawn = screen.getvalue()
    assert shown(task) in drawn
    assert "\x1b]0;pwned" not in drawn and "\x07" not in drawn


# -- names the CLI takes but the store cannot hold --------------------------------------------------


def test_init_refuses_a_name_the_store_cannot_use(run_cli: Cli) -> None:
    result = run_cli("init", "--name", ALL_IN_ONE, ok=False)
    if result.exit_code == 0:  # accepted: then every command can use it
        run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", "q1\tsome text\n")))
        has(text_of(run_cli("status")), TEXT["window_title"], TEXT["osc8_link"])
        run = run_cli.write("r.run", "q1 Q0 d1 1 1 r\n")
        has(text_of(run_cli("score", str(run))), "r.run vs ", TEXT["window_title"])
        text_of(run_cli("freeze", "ok", "v1", "--out", str(run_cli.tmp / "sets")))
        return
    out = text_of(result, 2)
    assert out.startswith("error: ") and out.count("\n") == 1
    has(out, TEXT["window_title"])


def test_freeze_refuses_a_name_the_manifest_cannot_hold(built: Built, tmp_path: Path) -> None:
    name = "n[bold]\x1b]0;pwned\x07"
    out = text_of(built.cli("freeze", name, "v1", "--out", str(tmp_path), ok=False), 2)
    assert out.startswith("error: ") and out.count("\n") == 1
    has(out, name)
    assert not (tmp_path / name).exists()
