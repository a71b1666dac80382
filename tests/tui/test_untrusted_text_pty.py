"""The real `qrelkit judge` in an 80x24 pseudo-terminal, on a store whose query text, guidelines,
document and note are hostile (`tests/hostile.py`): the query list, the judging screen, one
judgment, the help, `q`. The bytes the app wrote to the terminal hold the data's text made
visible, and none of the data's escape sequences.

The app writes escape sequences of its own (alternate screen, its own clear screen, cursor
moves, colours, mouse modes): every sequence in the data is followed by a sentinel word, and the
checks look for the raw sequence *with* its sentinel, which only the data could have written.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from hostile import shown
from qrelkit.models import Document, Judgment, JudgmentState, PoolEntry, Query, Stratum
from qrelkit.storage import Store

from .pty import COLUMNS, ROWS, Terminal, screen_text

QUERY_ID = "q[/]1"
DOC_ID = "d[@click=app.quit]"
TITLE = "\x1b]0;pwned\x07"
"""The window title: a title the app never sets itself."""
LINK = "\x1b]8;;http://x\x1b\\linked\x1b]8;;\x1b\\"
WIPE = "\x1b[2Jwiped"
UP = "\x1b[1A\x1b[2Kerased"
C1 = "\x9b2Jc1wiped"
QUERY_TEXT = f"{TITLE} [bold]x {WIPE} [/]"
DESCRIPTION = f"{LINK} guide [@click=app.quit]q {UP}"
DOC_TEXT = f"{C1} body [link=file:///etc/passwd]x[/link] bell\x07 cr\rEVIL nul\x00 bs\x08"
NOTE = f"{WIPE} note [/x] {TITLE}"

RAW: list[str] = [
    "\x1b]0;pwned",
    "\x1b]8;;http://x",
    "\x1b[2Jwiped",
    "\x1b[1A\x1b[2Kerased",
    "\x9b2Jc1wiped",
    "\x07 cr",
    "\rEVIL",
    "nul\x00",
    "bs\x08",
]
"""The data's sequences, each with the text next to it: written by nothing but the data."""


def hostile_store(path: Path) -> None:
    store = Store.open(path)
    store.settings.configure(name="hostile[/]")
    store.settings.set_stratum(Stratum(name="nav", weight=1.0))
    store.imports.queries(
        [(1, Query(id=QUERY_ID, text=QUERY_TEXT, stratum="nav", description=DESCRIPTION))], source="t"
    )
    store.imports.documents(
        [
            Document(id=DOC_ID, title=f"title {TITLE}", text=DOC_TEXT),
            Document(id="d2", title="second", text="plain"),
        ]
    )
    store.imports.pool_entries(
        [PoolEntry(query_id=QUERY_ID, doc_id=d, best_rank=r) for r, d in enumerate([DOC_ID, "d2"], 1)]
    )
    store.log.record(
        Judgment(query_id=QUERY_ID, doc_id=DOC_ID, state=JudgmentState.GRADED, grade=2, assessor="bob[/]", note=NOTE)
    )
    store.close()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminal on this platform")
def test_judging_in_a_real_terminal_writes_no_escape_from_the_data(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    hostile_store(db)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env |= {"TERM": "xterm-256color", "QRELKIT_ASSESSOR": "ann[bold]", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
    term = Terminal([sys.executable, "-m", "qrelkit", "--db", str(db), "judge"], env)
    try:
        assert term.read_until("1 queries · all strata"), term.output[-3000:]  # the list, filled
        assert term.read_until(QUERY_ID), term.output[-3000:]
        term.send(b"\r")  # open the query
        assert term.read_until("doc 2/2"), term.output[-3000:]  # it opens on d2, the unlabeled one
        term.send(b"p")  # back to the hostile document, which bob graded
        assert term.read_until(shown(C1)), term.output[-3000:]
        term.send(b"1")  # judge it: saved, on to the next document
        assert term.read_until("judged 1 this session"), term.output[-3000:]
        term.send(b"?")
        assert term.read_until("Judging a query"), term.output[-3000:]
        mark = len(term.output)
        term.send(b"?")  # close the help: the judging screen is drawn again
        assert term.read_until("judged 1 this session", since=mark), term.output[mark:][-3000:]
        term.send(b"q")
        code = term.wait(timeout=60)
    finally:
        term.close()
    assert code == 0, term.output[-3000:]

    written = term.output.decode("utf-8", errors="replace")
    found = [raw for raw in RAW if raw in written]
    assert found == [], f"the data's escape sequences reached the terminal: {found}"
    assert "pwned\x07" not in written and "http://x\x1b" not in written
    assert "Traceback" not in written

    drawn = screen_text(term.output)
    for text in (TITLE, WIPE, C1, DOC_ID, QUERY_ID, "[bold]x", "[link=file:///etc/passwd]x[/link]"):
        assert shown(text) in drawn, (shown(text), drawn[-3000:])

    conn = sqlite3.connect(db)
    mine = conn.execute("SELECT query_id, doc_id, grade FROM judgments WHERE assessor = 'ann[bold]'").fetchall()
    conn.close()
    assert mine == [(QUERY_ID, DOC_ID, 1)]
