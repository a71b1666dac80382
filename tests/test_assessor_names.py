"""An assessor's name follows the id rule (one word, no control character, not starting with `#`,
at most 1,024 characters) wherever it comes in: a judgments file's `assessor` field, `--assessor`
of `judge`, `queue`, `import qrels` and `import beir`, `assign --assessors`, `serve token add`,
`$QRELKIT_ASSESSOR`. Each refusal is one line, exit 2, and writes nothing."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, Cli
from qrelkit.storage import Store

DEMO = ROOT / "goldensets" / "pydocs" / "1.0"
BAD = {
    "nul": "a\x00",
    "space": "a b",
    "tab": "a\tb",
    "hash": "#a",
    "bidi": "a\u202eb",
    "c1": "a\x9bb",
    "long": "a" * 1025,
}


def _rows(run_cli: Cli) -> list[int]:
    """How many events, assignments and tokens the store holds."""
    with Store.open(run_cli.db) as s:
        return [
            s.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("judgments", "assignments", "tokens")
        ]


def _one_line_exit_2(output: str, *fragments: str) -> None:
    said = output.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("error: ") and "Traceback" not in output, output
    for f in fragments:
        assert f in said[0], said[0]


@pytest.mark.parametrize("name", list(BAD.values()), ids=list(BAD))
def test_a_judgments_file_with_an_assessor_that_is_no_name_is_refused(run_cli: Cli, name: str) -> None:
    run_cli("import", "version", str(DEMO))
    before = _rows(run_cli)
    good = {"query_id": "con-01", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "ann"}
    path = run_cli.write("j.jsonl", json.dumps(good) + "\n" + json.dumps({**good, "assessor": name}) + "\n")
    refused = run_cli("import", "judgments", str(path), ok=False)
    assert refused.exit_code == 2
    _one_line_exit_2(" ".join(refused.output.split()), f"{path}:2: field 'assessor'")
    assert _rows(run_cli) == before


@pytest.mark.parametrize("name", list(BAD.values()), ids=list(BAD))
def test_every_option_that_names_an_assessor_refuses_what_is_no_name(
    run_cli: Cli, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli("import", "version", str(DEMO))
    qrels = run_cli.write("x.qrels", "con-01 0 a 1\n")
    before = _rows(run_cli)
    for args, given_as in [
        (["assign", "--overlap", "2", "--assessors", f"ann,{name},cy"], "--assessors"),
        (["judge", "--assessor", name], "--assessor"),
        (["queue", "--assessor", name], "--assessor"),
        (["import", "qrels", "--assessor", name, str(qrels)], "--assessor"),
        (["import", "beir", "--assessor", name, str(run_cli.tmp)], "--assessor"),
    ]:
        refused = run_cli(*args, ok=False)
        assert refused.exit_code == 2, (args, refused.output)
        _one_line_exit_2(" ".join(refused.output.split()), given_as, "is not an assessor name")
    if "\x00" not in name:  # no environment variable holds a NUL
        monkeypatch.setenv("QRELKIT_ASSESSOR", name)
        for args in (["judge"], ["queue"], ["queries", "remove", "con-01", "--with-labels"]):
            refused = run_cli(*args, ok=False)
            assert refused.exit_code == 2, (args, refused.output)
            _one_line_exit_2(" ".join(refused.output.split()), "$QRELKIT_ASSESSOR", "is not an assessor name")
    token = run_cli("serve", "token", "add", name, ok=False)  # a stricter rule: letters, digits, . _ @ -
    assert token.exit_code == 2
    _one_line_exit_2(" ".join(token.output.split()), "is not an assessor name")
    assert _rows(run_cli) == before


def test_names_made_of_markup_are_names(run_cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule is the id rule: markup is text like any other (shown as text, never parsed)."""
    run_cli("import", "version", str(DEMO))
    out = run_cli("assign", "--overlap", "2", "--assessors", "ann[/],bob[bold]", "--pairs", "2")
    assert "ann[/] 2, bob[bold] 2" in out.output
    monkeypatch.setenv("QRELKIT_ASSESSOR", "ann[/]")
    assert run_cli("queue", "--format", "tsv").exit_code == 0
