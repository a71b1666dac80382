"""Several processes judging one store at once: no lock error, no lost event."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from qrelkit.models import Query
from qrelkit.storage import Store
from qrelkit.workflows.pairs import documents

WRITER = r"""
import sys
from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
db, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Store.open(db)
for i in range(n):
    store.log.record(Judgment(query_id="q1", doc_id=f"{who}-{i % 50}", state=JudgmentState.GRADED, grade=i % 4,
                          assessor=who))
print("done", who)
"""


def test_processes_write_concurrently_without_loss(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = Store.open(db)
    store.imports.queries([(1, Query(id="q1", text="x"))], source="t")
    store.close()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), f"p{k}", "150"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    for w in writers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        assert "locked" not in err
    again = Store.open(db)
    assert again.reads.table_counts()["judgments"] == 450
    labels = {(x.doc_id): x.grade for x in again.reads.labels()}
    # each writer's last event per document decides its label: doc i%50 last written at i = 100 + i%50
    assert labels == {f"p{k}-{d}": (100 + d) % 4 for k in range(3) for d in range(50)}
    assert len(documents(again, "q1")) == 150  # every assessor sees the others' labels
    assert again.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
