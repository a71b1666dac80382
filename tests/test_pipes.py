"""A closed pipe (`qrelkit export judgments | head`) ends the command quietly, not with an error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from qrelkit.models import Judgment, JudgmentState, Query
from qrelkit.storage import Store


def test_a_reader_that_stops_early_gets_no_error(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with Store.open(db) as store:
        store.imports.queries([(1, Query(id="q1", text="x", stratum="default"))], source="t")
        events = (
            (n, Judgment(query_id="q1", doc_id=f"d{n}", state=JudgmentState.GRADED, grade=1, assessor="a"))
            for n in range(1, 60_001)
        )
        store.imports.judgments(events, source="t")
    proc = subprocess.Popen(
        [sys.executable, "-m", "qrelkit", "--db", str(db), "export", "judgments"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # as `head -1` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0 and err == ""
