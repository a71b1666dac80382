"""The fields of an imported judgment event are taken as written, or refused: a timestamp is a full
ISO 8601 date-time with its time zone (never a number of seconds since 1970, never a bare year), a
grade is an integer (not `true`, not `2.0`), `seconds` a finite number >= 0 (not `Infinity`, not
`"5"`). Each refusal is one line naming the file, the line and the field; nothing is imported."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from conftest import Cli
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store

GOOD = '{"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 1, "assessor": "ann"}'


def _setup(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.tsv", "q1\tx\tdefault\n")))


def _refused(run_cli: Cli, fields: str) -> str:
    """The one line `import judgments` says of a file whose second line carries `fields`."""
    line = '{"query_id": "q1", "doc_id": "b", "state": "graded", "assessor": "ann", ' + fields + "}"
    path = run_cli.write("j.jsonl", GOOD + "\n" + line + "\n")
    result = run_cli("import", "judgments", str(path), ok=False)
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())  # the console may wrap the line
    assert said.startswith(f"error: {path}:2: ") and "Traceback" not in result.output, result.output
    with Store.open(run_cli.db) as s:
        assert s.log.events() == []
    return said


BAD_TIMES = [
    '"2026"',  # was 1970-01-01T00:33:46Z: a string of digits read as seconds since 1970
    "2026",
    "1767225600",
    '"1767225600"',
    "1767225600.5",
    "true",
    '"2026-01-02"',
    '"2026-01-02T03:04:05"',  # no time zone
    '"2026-01-02T03:04Z"',  # no seconds
    '"2026-01-02 03:04:05Z"',
    '"2026-01-02T03:04:05.1234567Z"',  # finer than a microsecond: it would be cut
    '"20260102T030405Z"',
    '"2026-13-02T03:04:05Z"',
    '"yesterday"',
    "null",
]


@pytest.mark.parametrize("value", BAD_TIMES)
def test_a_timestamp_is_a_full_iso_date_time_with_its_zone(run_cli: Cli, value: str) -> None:
    _setup(run_cli)
    said = _refused(run_cli, f'"grade": 1, "timestamp": {value}')
    assert "field 'timestamp' must be an ISO 8601 date and time with its time zone" in said, said
    assert "2026-01-31T12:00:00Z" in said and "+00:00" in said  # the expected form


@pytest.mark.parametrize(
    ("value", "when"),
    [
        ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02T03:04:05+00:00", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02T03:04:05.25-05:30", datetime(2026, 1, 2, 3, 4, 5, 250000, tzinfo=timezone(-timedelta(hours=5.5)))),
        ("2026-01-02T03:04:05.123456+02:00", datetime(2026, 1, 2, 1, 4, 5, 123456, tzinfo=UTC)),
    ],
)
def test_full_timestamps_are_taken_as_written(run_cli: Cli, value: str, when: datetime) -> None:
    _setup(run_cli)
    line = GOOD[:-1] + f', "timestamp": "{value}"}}'
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", line + "\n")))
    with Store.open(run_cli.db) as s:
        assert [e.timestamp for e in s.log.events()] == [when]


@pytest.mark.parametrize("value", ["true", "false", "2.0", '"2"', "1.5"])
def test_a_grade_is_a_json_integer(run_cli: Cli, value: str) -> None:
    """As the JSONL qrels reader and the TREC readers already refuse `2.0` and `"1"`."""
    _setup(run_cli)
    said = _refused(run_cli, f'"grade": {value}')
    assert "field 'grade' must be an integer" in said, said


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("Infinity", "must be a finite number"),
        ("-Infinity", "must be a finite number"),
        ("NaN", "must be a finite number"),
        ("1e400", "must be a finite number"),  # JSON's 1e400 reads as infinity
        ('"5"', "must be a number"),
        ("true", "must be a number"),
        ("-1", "must be >= 0"),
    ],
)
def test_seconds_are_a_finite_json_number_at_least_0(run_cli: Cli, value: str, what: str) -> None:
    _setup(run_cli)
    said = _refused(run_cli, f'"grade": 1, "seconds": {value}')
    assert f"field 'seconds' {what}" in said, said


def test_whole_and_fractional_seconds_are_kept(run_cli: Cli) -> None:
    _setup(run_cli)
    lines = [GOOD[:-1] + ', "seconds": 5}', GOOD.replace('"a"', '"b"')[:-1] + ', "seconds": 0.25}']
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", "\n".join(lines) + "\n")))
    with Store.open(run_cli.db) as s:
        assert [e.seconds for e in s.log.events()] == [5.0, 0.25]


def test_what_the_store_wrote_reads_back_whatever_an_older_qrelkit_let_in(run_cli: Cli) -> None:
    """Events an older qrelkit stored (a time without a zone, infinite seconds) still export: the
    store's rows are not input, and `export judgments` writes a zone for a time that had none."""
    _setup(run_cli)
    with Store.open(run_cli.db) as s:
        s.log.record(Judgment(query_id="q1", doc_id="a", state=JudgmentState.GRADED, grade=1, assessor="ann"))
        s.conn.execute("UPDATE judgments SET ts = '2026-01-02T03:04:05', seconds = 9e999")
        s.conn.commit()
    exported = [json.loads(x) for x in run_cli("export", "judgments").output.splitlines()]
    assert exported[0]["timestamp"] == "2026-01-02T03:04:05Z" and exported[0].get("seconds") is None
    again = run_cli.tmp / "again.db"
    from click.testing import CliRunner

    from qrelkit.cli import cli

    path = run_cli.write("e.jsonl", "\n".join(json.dumps(e) for e in exported) + "\n")
    for args in (["init"], ["import", "queries", str(run_cli.tmp / "q.tsv")], ["import", "judgments", str(path)]):
        assert CliRunner().invoke(cli, ["--db", str(again), *args]).exit_code == 0
