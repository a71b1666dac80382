"""Flags on queries (issue 25, item 6): an assessor tells the owner a query cannot be judged as it
stands; `qrelkit flags` lists them and `qrelkit status` counts them. A flag is no vote."""

from __future__ import annotations

import json

import pytest

from conftest import Cli
from hostile import shown
from qrelkit.errors import NotInGoldenSet, UsageError
from qrelkit.storage import Store
from qrelkit.workflows import flags
from qrelkit.workflows.judging import open_session

QUERIES = "q1\thello\tnav\nq2\tworld\tnav\n"
QRELS = "q1 0 d1 2\nq2 0 d2 1\n"


def _setup(run_cli: Cli) -> None:
    run_cli("init")
    run_cli("import", "queries", "--create-strata", str(run_cli.write("q.tsv", QUERIES)))
    run_cli("import", "qrels", str(run_cli.write("r.qrels", QRELS)))


def test_a_flag_is_listed_for_the_owner_and_changes_no_label(run_cli: Cli) -> None:
    _setup(run_cli)
    before = run_cli("export", "judgments").output
    session = open_session(run_cli.db, "ann")
    flags.flag_query(session, "q1", "d1", "  the query is ambiguous: which assert?  ")
    session.close()
    assert run_cli("export", "judgments").output == before  # no event, no vote
    assert run_cli("export", "qrels").output == "q1 0 d1 2\nq2 0 d2 1\n"
    listed = json.loads(run_cli("flags", "--format", "json").output)
    assert [(f["query_id"], f["doc_id"], f["assessor"], f["reason"]) for f in listed] == [
        ("q1", "d1", "ann", "the query is ambiguous: which assert?")
    ]
    table = run_cli("flags").output
    assert "q1" in table and "ambiguous" in table and "ann" in table
    assert "1 flag(s) from assessors" in run_cli("status").output
    assert run_cli("flags", "--query", "q2").output == "no flags on q2\n"


def test_no_flag_no_status_line(run_cli: Cli) -> None:
    _setup(run_cli)
    assert "flag" not in run_cli("status").output
    assert run_cli("flags").output == "no flags\n"
    bad = run_cli("flags", "--query", "nope", ok=False)
    assert bad.exit_code == 2 and "not in the golden set" in bad.output


@pytest.mark.parametrize("reason", ["", "   ", "a\x1b[2Jb", "x" * 301, "two\nlines"])
def test_a_reason_is_one_short_line(reason: str, run_cli: Cli) -> None:
    _setup(run_cli)
    with Store.open(run_cli.db) as store:
        with pytest.raises(UsageError, match="a reason is one line"):
            flags.raise_flag(store, "q1", None, "ann", reason)
        assert store.flags.listed() == []


def test_a_removed_query_takes_no_flag_and_lists_none(run_cli: Cli) -> None:
    _setup(run_cli)
    with Store.open(run_cli.db) as store:
        flags.raise_flag(store, "q2", None, "ann", "bad query")
    run_cli("queries", "remove", "q2", "--with-labels")
    with Store.open(run_cli.db) as store:
        with pytest.raises(NotInGoldenSet):
            flags.raise_flag(store, "q2", None, "ann", "still bad")
        assert store.flags.listed() == []
    assert "flag" not in run_cli("status").output


def test_flags_show_their_text_as_data(run_cli: Cli) -> None:
    _setup(run_cli)
    reason = "[bold]x[/bold] [/] abc\u202edcba"
    with Store.open(run_cli.db) as store:
        flags.raise_flag(store, "q1", None, "[bold]ann", reason)
    out = run_cli("flags").output
    assert "\u202e" not in out and "[bold]ann" in out
    assert "[bold]x[/bold]" in out and shown("abc\u202edcba") in out  # (the cell wraps the reason)
