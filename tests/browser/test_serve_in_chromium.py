"""`qrelkit serve` judged through headless Chromium: two assessors' links open at once, keys
typed into each page judge a document and bring up the next, and the store holds each judgment
under the assessor of the token (committed before the screen moved on); no token, a bad one or a
revoked one gets 401; revoking a token ends its open session; SIGKILL of the server loses
nothing and its app processes end."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

from .cdp import Browser
from .served import ROOT, Served, Tab, qrelkit, status

NEXT = r"has no unlabeled document left|· doc \d+/\d+ · \d+/\d+ labeled · judged 1"


def votes(db: Path, assessor: str) -> list[tuple[str, str, str, int | None]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        sql = "SELECT query_id, doc_id, state, grade FROM judgments WHERE assessor = ? ORDER BY seq"
        return [tuple(r) for r in conn.execute(sql, [assessor])]


def committed(db: Path, assessor: str, timeout: float = 10.0) -> float:
    """Seconds until the store holds a judgment by `assessor`."""
    start = time.monotonic()
    while not votes(db, assessor):
        assert time.monotonic() - start < timeout, f"no judgment by {assessor} in the store"
        time.sleep(0.005)
    return time.monotonic() - start


def judge_first(tab: Tab, db: Path, assessor: str, grade: str) -> tuple[str, float, float]:
    """Open the first query of the list, press `grade`: the query, seconds until the judgment was
    in the store, and until the screen showed what comes next."""
    tab.wait(rf"{assessor} — judged 0 this session")
    tab.mark()
    tab.press("enter")
    query = tab.wait(r"(\S+) · doc \d+/\d+ · \d+/\d+ labeled · judged 0").group(1)
    tab.mark()
    start = time.monotonic()
    tab.press(grade)
    stored = committed(db, assessor)
    tab.wait(NEXT)
    return query, stored, time.monotonic() - start


def test_two_assessors_judge_through_chromium(browser: Browser, tmp_path: Path, artefacts: Path) -> None:
    db = tmp_path / "team.db"
    qrelkit(db, "import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    server = Served(db, artefacts / "serve.log")
    try:
        ann_link, bob_link = server.link("ann"), server.link("bob")
        assert status(server.url + "/") == 401
        assert status(server.url + "/?token=" + "A" * 43) == 401
        assert status(server.url + "/", cookie="qrelkit_token=forged") == 401
        assert status(server.url + "/ws") == 401
        assert status(ann_link) == 303  # the token goes to a cookie, the address loses it

        ann, bob = Tab(browser, ann_link), Tab(browser, bob_link)  # two sessions at once
        assert "token=" not in ann.page.evaluate("location.href")
        query, stored, shown = judge_first(ann, db, "ann", "2")
        first = votes(db, "ann")
        assert first and first[0][0] == query and first[0][2:] == ("graded", 2)
        assert stored <= shown + 0.05, "the screen moved on before the judgment was committed"
        if "no unlabeled document left" in ann.output:  # the query is done: the next one is offered
            ann.mark()
            ann.press("enter")
            ann.wait(rf"(?<![\w-])(?!{re.escape(query)} )[\w-]+ · doc \d+/\d+ · \d+/\d+ labeled")
        ann.page.screenshot(artefacts / "serve-judging.png")
        print(f"ann: committed {stored * 1000:.0f} ms after the key, next shown after {shown * 1000:.0f} ms")

        judge_first(bob, db, "bob", "1")
        assert votes(db, "bob")[0][2:] == ("graded", 1)
        assert votes(db, "ann") == first  # bob's session judged as bob only

        qrelkit(db, "serve", "token", "revoke", "bob")
        ended = bob.wait_closed()
        print(f"bob's session ended {ended:.2f} s after the revocation")
        assert ended < 5
        assert status(bob_link) == 401
        assert not ann.closed  # the other assessor's session goes on
        ann.page.close()
        bob.page.close()

        listed = qrelkit(db, "serve", "token", "list")
        assert "ann" in listed and "bob" in listed and ann_link.split("token=")[1] not in listed
    finally:
        server.kill()
    deadline = time.monotonic() + 15
    while server.app_processes():
        assert time.monotonic() < deadline, f"app processes left running: {server.app_processes()}"
        time.sleep(0.1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert votes(db, "ann") == first and len(votes(db, "bob")) == 1


def test_killing_the_server_ends_its_sessions_and_loses_nothing(
    browser: Browser, tmp_path: Path, artefacts: Path
) -> None:
    db = tmp_path / "kill.db"
    qrelkit(db, "import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    server = Served(db, artefacts / "serve-kill.log")
    try:
        tab = Tab(browser, server.link("cy"))
        judge_first(tab, db, "cy", "3")
        shown = votes(db, "cy")
        assert server.app_processes()
    finally:
        server.kill()  # while the session is open
    deadline = time.monotonic() + 15
    while server.app_processes():
        assert time.monotonic() < deadline, "the app process outlived its server"
        time.sleep(0.1)
    tab.wait_closed()
    tab.page.close()
    assert votes(db, "cy") == shown and shown[0][2:] == ("graded", 3)


def notes(db: Path, assessor: str) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        sql = "SELECT note FROM judgments WHERE assessor = ? AND state = 'noted' ORDER BY seq"
        return [r[0] for r in conn.execute(sql, [assessor])]


def test_a_note_saved_right_after_typing_keeps_its_tail_and_only_an_adjudicator_adjudicates(
    browser: Browser, tmp_path: Path, artefacts: Path
) -> None:
    """Issue 25: `ctrl+s` right after typing a note cut its tail in 3 of 3 tries (the save read
    the text while the last keys still waited to be typed into it); an assessor's token opens no
    adjudication, an adjudicator's does (`A` on the query list)."""
    db = tmp_path / "notes.db"
    qrelkit(db, "import", "version", str(ROOT / "goldensets" / "pydocs" / "1.0"))
    server = Served(db, artefacts / "serve-notes.log")
    try:
        ann = Tab(browser, server.link("ann"))
        ann.wait(r"ann — judged 0 this session")
        ann.mark()
        ann.press("A")  # an assessor's: refused, and said so
        ann.wait(r"adjudication is an adjudicator's")
        ann.press("enter")
        ann.wait(r"· doc \d+/\d+ · \d+/\d+ labeled · judged 0")
        for attempt in range(1, 4):  # three documents, a new note on each
            said = f"try {attempt}: the tail of this note is kept"
            ann.type("e", *said, "ctrl+s")  # no pause before ctrl+s
            deadline = time.monotonic() + 10
            while len(notes(db, "ann")) < attempt:  # the store, not the screen, says what was saved
                assert time.monotonic() < deadline, f"try {attempt}: no note saved: {ann.output[-2000:]}"
                ann.browser.pump(0.02)
            assert notes(db, "ann")[-1] == said, f"try {attempt}: {notes(db, 'ann')}"
            ann.mark()
            ann.press("n")
            ann.wait(r"· doc \d+/\d+ · ")  # the next document is on screen
        ann.page.screenshot(artefacts / "serve-note.png")
        ann.page.close()

        lead = Tab(browser, server.link("lead", "adjudicator"))
        lead.wait(r"lead — judged 0 this session")
        lead.mark()
        lead.press("A")
        lead.wait(r"adjudication · ")
        lead.page.close()
    finally:
        server.kill()
