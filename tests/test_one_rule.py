"""One copy of each rule: the two tiles, the canonical report, run naming, the grade check against
the scale and the default stratum each live in one place, and every path that needs them uses it."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import click
import pytest

from conftest import Cli, one_report
from qrelkit.cli.app import cli
from qrelkit.errors import InputError, ScoringError
from qrelkit.models import DEFAULT_STRATUM, TILES, GradeScale, Judgment, JudgmentState, ScoreReport
from qrelkit.scoring import impact, leaderboard, paired
from qrelkit.scoring.measures import DEFAULT_METRICS
from qrelkit.storage import Store
from qrelkit.workflows import compare, importing
from qrelkit.workflows.scoring import numbered

SRC = Path(__file__).resolve().parents[1] / "src" / "qrelkit"
DEMO = Path(__file__).resolve().parents[1] / "goldensets" / "pydocs"


def _constants(value: str) -> list[str]:
    """Where the string constant `value` is written in the package's code (not in its prose)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == value:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


# -- the two tiles ------------------------------------------------------------------------------


@pytest.mark.parametrize("tile", TILES)
def test_each_tile_is_named_once_in_the_code(tile: str) -> None:
    assert _constants(tile) == [f"models/vocabulary.py:{_line_of_tiles()}"]


def _line_of_tiles() -> int:
    text = (SRC / "models" / "vocabulary.py").read_text(encoding="utf-8")
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("TILES = "))


def test_every_default_of_the_tiles_is_the_constant() -> None:
    headline, recall = TILES
    for fn in (paired.compare, leaderboard.leaderboard):
        params = inspect.signature(fn).parameters
        assert (params["headline"].default, params["recall"].default) == TILES, fn
    assert (compare.CompareOptions().headline, compare.CompareOptions().recall) == TILES
    assert inspect.signature(impact.impact_scores).parameters["metrics"].default == TILES
    assert DEFAULT_METRICS[:2] == TILES
    options = {p.name: p.default for p in _command("compare").params}
    assert (options["headline"], options["recall"]) == (headline, recall)


# -- the canonical report -----------------------------------------------------------------------


def test_one_canonical_report_rule_for_compare_leaderboard_and_the_workflow() -> None:
    for module in (compare, leaderboard):  # no copy of the rule, whatever it would be called
        source = inspect.getsource(module).replace("canonical_report(", "")
        assert "def canonical" not in source and "def _canonical" not in source and "canonical(" not in source
    assert "canonical_report(" in inspect.getsource(compare) and "paired.canonical_report(" in inspect.getsource(
        leaderboard
    )


def test_a_report_holding_one_measure_twice_or_an_unknown_one_is_refused(run_cli: Cli) -> None:
    runs = DEMO / "runs"
    out = run_cli("score", str(runs / "bm25.run"), "--golden", str(DEMO / "1.0"), "--format", "json", "--per-query")
    saved = one_report(out.output)
    a, b = run_cli.tmp / "a.json", run_cli.tmp / "b.json"
    a.write_text(json.dumps(saved))

    def with_metric(old: str, new: str, keep: bool) -> None:
        doc = json.loads(json.dumps(saved))
        doc["metrics"][new] = doc["metrics"][old]
        for row in doc["per_query"].values():
            row[new] = row[old]
        if not keep:
            del doc["metrics"][old]
            for row in doc["per_query"].values():
                del row[old]
        b.write_text(json.dumps(doc))

    with_metric("AP", "MAP", keep=False)  # an old spelling: read as AP, compared
    assert "diagnosis: " in run_cli("compare", str(a), str(b)).output
    with_metric("AP", "MAP", keep=True)  # two names of one measure: refused, never one of them guessed
    r = run_cli("compare", str(a), str(b), ok=False)
    assert r.exit_code == 2 and f"{b} holds AP twice, as 'AP' and 'MAP'" in r.output
    with_metric("AP", "NoSuchMeasure@3", keep=False)
    for args in (["compare", str(a), str(b)], ["sensitivity", str(a), str(b)], ["compare", str(a), str(b), str(a)]):
        r = run_cli(*args, ok=False)
        assert r.exit_code == 2 and "holds a metric qrelkit does not know: 'NoSuchMeasure@3'" in r.output, args
        assert len(r.output.strip().splitlines()) <= 2 and "Traceback" not in r.output


def test_the_library_calls_refuse_what_the_command_refuses(run_cli: Cli) -> None:
    run = str(DEMO / "runs" / "bm25.run")
    out = run_cli("score", run, "--golden", str(DEMO / "1.0"), "--format", "json", "--per-query").output
    doc = one_report(out)
    report = ScoreReport.model_validate(doc)
    doc = json.loads(json.dumps(doc))
    doc["metrics"]["MAP"] = doc["metrics"]["AP"]
    twice = ScoreReport.model_validate(doc)
    for call in (lambda: paired.compare(report, twice), lambda: leaderboard.leaderboard([report, twice], ["a", "b"])):
        with pytest.raises(ScoringError, match="holds AP twice"):
            call()


# -- run naming ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["a", "b"], ["a", "b"]),
        (["a", "a", "a"], ["a", "a#2", "a#3"]),
        (["a", "a", "a#2"], ["a", "a#3", "a#2"]),  # never two runs under one name
        (["a#2", "a", "a"], ["a#2", "a", "a#3"]),
    ],
)
def test_repeated_run_names_are_numbered_and_stay_unique(given: list[str], named: list[str]) -> None:
    assert numbered(given) == named
    assert len(set(numbered(given))) == len(given)


def test_reports_and_files_are_named_by_the_one_rule(run_cli: Cli) -> None:
    run = str(DEMO / "runs" / "bm25.run")
    out = run_cli("compare", run, run, run, "--golden", str(DEMO / "1.0"), "--format", "json").output
    assert [row["run"] for row in json.loads(out)["rows"]] == ["bm25.run", "bm25.run#2", "bm25.run#3"]


# -- the grade check against the scale ----------------------------------------------------------


def test_one_grade_check_for_judging_and_every_import(store: Store, tmp_path: Path) -> None:
    store.settings.configure(scale=GradeScale.from_max(2))
    importing.import_queries(store, _write(tmp_path / "q.tsv", "q1\tfirst query\tdefault\n"))
    expected = "grade 3 is above the scale's highest grade 2"
    hint = "widen the scale with `qrelkit init --max-grade 3`"
    with pytest.raises(InputError) as raised:
        store.log.record(Judgment(query_id="q1", doc_id="d1", state=JudgmentState.GRADED, grade=3, assessor="ann"))
    assert str(raised.value) == expected and hint in (raised.value.hint or "")
    qrels = _write(tmp_path / "bad.qrels", "q1 0 d1 1\nq1 0 d2 3\n")
    with pytest.raises(InputError) as raised:
        importing.import_qrels(store, qrels, assessor="trec")
    assert str(raised.value) == f"{qrels}:2: {expected}" and hint in (raised.value.hint or "")
    log = _write(
        tmp_path / "log.jsonl",
        json.dumps({"query_id": "q1", "doc_id": "d1", "state": "graded", "grade": 3, "assessor": "b"}),
    )
    with pytest.raises(InputError) as raised:
        importing.import_judgments(store, log)
    assert str(raised.value) == f"{log}:1: {expected}" and hint in (raised.value.hint or "")
    assert store.log.events() == []  # nothing half-written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- the default stratum ------------------------------------------------------------------------


def test_the_default_stratum_is_one_constant() -> None:
    # the one other `"default"`: Hugging Face's name of a dataset's unnamed config (`export hub`)
    hub_yaml = SRC / "formats" / "hub_yaml.py"
    config = next(
        n for n, line in enumerate(hub_yaml.read_text().splitlines(), 1) if line.startswith("DEFAULT_CONFIG = ")
    )
    assert _constants(DEFAULT_STRATUM) == [
        f"formats/hub_yaml.py:{config}",
        f"models/vocabulary.py:{_line_of('DEFAULT_STRATUM = ')}",
    ]
    assert inspect.signature(importing.import_beir).parameters["stratum"].default == DEFAULT_STRATUM
    group = _command("import")
    assert isinstance(group, click.Group)
    beir = group.get_command(click.Context(group), "beir")
    assert beir is not None and {p.name: p.default for p in beir.params}["stratum"] == DEFAULT_STRATUM


def _line_of(prefix: str) -> int:
    text = (SRC / "models" / "vocabulary.py").read_text(encoding="utf-8")
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, name
    return command
