"""The settle line of the judging screen (`judge --for A.run,B.run`, issue 27 item 2): per named
comparison whether it is settled, by `qrelkit settled`'s rule, against what the assessor sees;
judging the deciding document flips it to settled (and says so); stale verdicts are said to be;
blind pairs move nothing; hostile run names are plain text; no `--for`, no line."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from conftest import Cli
from hostile import ESCAPES, shown
from qrelkit.models import Document, Judgment, JudgmentState, PoolEntry, Query, QueueOrder
from qrelkit.storage import Store
from qrelkit.tui.app import JudgeApp
from qrelkit.tui.screens.judging import JudgingScreen
from qrelkit.tui.widgets.session_panel import SessionPanel
from qrelkit.tui.widgets.settle_line import SettleLine, settle_text
from qrelkit.workflows.judging import JudgingSession
from qrelkit.workflows.queue import Comparisons
from qrelkit.workflows.settle_watch import SettleWatch, Verdicts, named, verdicts

from .conftest import drawn, until

SIZES = [(80, 24), (120, 36)]
QUERIES = ("q1", "q2", "q3")


def settle_store(path: Path | None) -> Store:
    """Three queries; run A ranks a1..a3 first, run B b1..b3 (then z1..z3, both). bob graded
    every z 0, and q2, q3's a 0 and b 2: on P@1, B is ahead under every labeling; the t-test is
    settled once q1's a1 and b1 are (a1 0 and b1 2: significant), they alone are open."""
    store = Store.open(path) if path is not None else Store.memory()
    store.settings.configure(name="settle")
    store.imports.queries([(n, Query(id=q, text=f"topic {q}")) for n, q in enumerate(QUERIES, 1)], source="t")
    docs = [Document(id=f"{k}{n}", title=f"{k}{n}", text=f"text of {k}{n}") for k in "abz" for n in (1, 2, 3)]
    store.imports.documents(docs)
    store.imports.pool_entries(
        [PoolEntry(query_id=f"q{n}", doc_id=f"{k}{n}", best_rank=1) for n in (1, 2, 3) for k in "ab"]
    )
    grades = [(f"q{n}", f"z{n}", 0) for n in (1, 2, 3)]
    grades += [(f"q{n}", f"{k}{n}", g) for n in (2, 3) for k, g in (("a", 0), ("b", 2))]
    for q, d, g in grades:
        store.log.record(Judgment(query_id=q, doc_id=d, state=JudgmentState.GRADED, grade=g, assessor="bob"))
    return store


def write_runs(folder: Path, a: str = "A.run", b: str = "B.run") -> tuple[Path, Path]:
    paths = folder / a, folder / b
    for path, top in zip(paths, "ab", strict=True):
        path.write_text("".join(f"q{n} Q0 {top}{n} 1 3 X\nq{n} Q0 z{n} 2 2 X\n" for n in (1, 2, 3)))
    return paths


def app_for(store: Store, runs: tuple[Path, Path], order: QueueOrder = "settle", metric: str = "P@1") -> JudgeApp:
    session = JudgingSession(store, "ann", order=order)
    session.comparisons = Comparisons.parse([f"{runs[0]},{runs[1]}"], metric)
    return JudgeApp(session, query="q1")


def announced(app: JudgeApp, notes: list[str]) -> None:
    """Keep what the settle line announces in `notes` (the app says other things too: "every
    query is judged")."""

    def notify(message: str, **kwargs: Any) -> None:
        if kwargs.get("title") == "settled":
            notes.append(message)

    app.notify = notify  # type: ignore[method-assign]


def line_of(app: JudgeApp) -> str:
    text = str(app.screen.query_one("#settle", Static).render())
    assert not [e for e in ESCAPES if e in text]
    return text


def ready(app: JudgeApp) -> bool:
    """The verdicts of the latest commit are in, with their estimate when one is open."""
    watch = app.settle_watch
    assert watch is not None
    view = watch.view()
    got = view.verdicts
    return got is not None and not view.stale and (got.settled or got.estimated) and not watch._running


async def settled_screen(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, JudgeApp)
    await until(pilot, lambda: ready(app))
    await drawn(pilot, app)


async def judge_shown(pilot: Pilot[Any], app: JudgeApp, grades: dict[str, str]) -> str:
    screen = app.screen
    assert isinstance(screen, JudgingScreen)
    doc = screen.docs[screen.position].doc_id
    await pilot.press(grades[doc])
    return doc


async def test_judging_the_deciding_document_flips_the_line_to_settled(tmp_path: Path) -> None:
    store = settle_store(tmp_path / "s.db")
    app = app_for(store, write_runs(tmp_path))
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        announced(app, notes)
        await settled_screen(pilot)
        first = line_of(app)
        assert "A.run vs B.run P@1: not settled (B.run ahead, t-test open): ~" in first
        assert first.endswith(": ~1 judgment to go") and "checking" not in first
        watch = app.settle_watch
        assert watch is not None
        compute, gate = watch._compute, threading.Event()

        def slow(*, estimate: bool) -> Verdicts | None:  # a large store: the check takes a while
            gate.wait(30)
            return compute(estimate=estimate)

        watch._compute = slow  # type: ignore[method-assign]
        judged = [await judge_shown(pilot, app, {"a1": "0", "b1": "2"})]
        # the frame that shows the judgment saved says the verdicts shown are not of it yet
        assert line_of(app).startswith("checking... (as of ") and line_of(app).endswith(first)
        gate.set()
        await settled_screen(pilot)
        assert "~1 judgment to go" in line_of(app)
        assert "not settled" in line_of(app) and not notes  # one of the two: still open
        judged.append(await judge_shown(pilot, app, {"a1": "0", "b1": "2"}))
        await settled_screen(pilot)
        assert sorted(judged) == ["a1", "b1"]
        line = line_of(app)
        assert "every comparison is settled: you can stop judging" in line
        assert "A.run vs B.run P@1: settled (B.run ahead)" in line
        assert notes[0] == "this comparison is settled: A.run vs B.run P@1: B.run ahead"
        assert "you can stop" in notes[1] and len(notes) == 2
        # undone: open again, and no announcement
        await pilot.press("z")
        await settled_screen(pilot)
        assert "not settled" in line_of(app) and "you can stop" not in line_of(app) and len(notes) == 2
    store.close()


async def test_the_line_says_what_qrelkit_settled_says(tmp_path: Path, run_cli: Cli) -> None:
    """One rule, both edges: the screen's verdict and estimate are `qrelkit settled`'s."""
    store = settle_store(run_cli.db)
    runs = write_runs(tmp_path)
    session = JudgingSession(store, "ann")
    session.comparisons = Comparisons.parse([f"{runs[0]},{runs[1]}"], "P@1")
    assert session.comparisons is not None
    got = verdicts(store, named(session.comparisons), "ann", estimate=True)
    cli = run_cli("settled", *map(str, runs), "--metric", "P@1", "--format", "json")
    row = json.loads(cli.stdout)["rows"][0]
    (v,) = got.rows
    assert (v.sign, v.significance, v.to_settle) == (row["sign"], row["significance"], row["to_settle"])
    assert v.sign == "settled B>A" and v.significance == "open" and v.to_settle == 1
    store.close()


def test_blind_pairs_move_nothing(tmp_path: Path) -> None:
    """b1 and a1 assigned to ann and bob, and bob graded them: to ann (blind there) the line is
    the one it was before bob's votes; once ann graded them, her screen shows the pairs, and the
    verdict counts them."""
    store = settle_store(tmp_path / "s.db")
    runs = write_runs(tmp_path)
    given = named(Comparisons([runs], "P@1"))
    before = verdicts(store, given, "ann", estimate=True)
    store.log.assign([("q1", "a1", "ann"), ("q1", "a1", "bob"), ("q1", "b1", "ann"), ("q1", "b1", "bob")])
    for d, g in (("a1", 0), ("b1", 2)):
        store.log.record(Judgment(query_id="q1", doc_id=d, state=JudgmentState.GRADED, grade=g, assessor="bob"))
    assert verdicts(store, given, "cy", estimate=False).settled  # not blind to cy: bob's votes count
    blind = verdicts(store, given, "ann", estimate=True)
    assert blind.rows == before.rows and not blind.settled
    store.log.record(Judgment(query_id="q1", doc_id="a1", state=JudgmentState.SKIPPED, assessor="ann"))
    assert verdicts(store, given, "ann", estimate=True).rows == before.rows  # a skip lifts no blind
    for d, g in (("a1", 0), ("b1", 2)):
        store.log.record(Judgment(query_id="q1", doc_id=d, state=JudgmentState.GRADED, grade=g, assessor="ann"))
    assert verdicts(store, given, "ann", estimate=False).settled
    store.close()


@pytest.mark.parametrize("on_disk", [True, False], ids=["in-a-process", "in-memory-in-the-thread"])
def test_another_assessors_vote_is_checked_after_a_poll(tmp_path: Path, on_disk: bool) -> None:
    """bob settles it: after the next poll, the verdicts shown are said to be stale while they
    are read again (computed in a process of its own for a store on disk, in the thread for one
    in memory); nothing is read again when nothing changed."""
    store = settle_store(tmp_path / "s.db" if on_disk else None)
    session = JudgingSession(store, "ann", order="settle")
    session.comparisons = Comparisons([write_runs(tmp_path)], "P@1")
    watch = SettleWatch.of(session)
    assert watch is not None
    told: list[bool] = []
    watch.listener = lambda: told.append(watch.view().stale)
    try:
        assert watch.start()
        watch.run()
        first = watch.latest
        assert first is not None and first.estimated and not first.settled and told == [False, False]
        assert (watch._process._process is not None) == on_disk
        watch.polled()
        assert watch.step() is None and watch.latest is first  # nothing new: nothing computed
        for d, g in (("a1", 0), ("b1", 2)):
            store.log.record(Judgment(query_id="q1", doc_id=d, state=JudgmentState.GRADED, grade=g, assessor="bob"))
        watch.polled()
        assert watch.start()
        watch.run()
        assert told[2:] == [True, False] and not watch.view().stale  # stale while read again
        assert watch.latest is not None and watch.latest.settled and watch.latest.seq == store.log.size()
    finally:
        watch.close()
        store.close()


async def test_hostile_run_names_are_plain_text(tmp_path: Path) -> None:
    """On the line, and in what is announced once the comparison is settled."""
    a, b = "[bold]x\x1b[2J.run", "[@click=app.quit]q\x07\r.run"
    store = settle_store(tmp_path / "s.db")
    app = app_for(store, write_runs(tmp_path, a, b))
    notes: list[str] = []
    async with app.run_test(size=(200, 36)) as pilot:
        announced(app, notes)
        await settled_screen(pilot)
        assert f"{shown(a)} vs {shown(b)} P@1: not settled ({shown(b)} ahead, t-test open)" in line_of(app)
        for _ in range(2):
            await judge_shown(pilot, app, {"a1": "0", "b1": "2"})
            await settled_screen(pilot)
        assert f"{shown(a)} vs {shown(b)} P@1: settled ({shown(b)} ahead)" in line_of(app)
        assert notes[0] == f"this comparison is settled: {shown(a)} vs {shown(b)} P@1: {shown(b)} ahead"
        assert not [e for n in notes for e in ESCAPES if e in n]
    store.close()


def test_a_narrow_line_says_fewer_words_then_counts(tmp_path: Path) -> None:
    store = settle_store(tmp_path / "s.db")
    runs = write_runs(tmp_path, "a-rather-long-baseline-name.run", "b-rather-long-candidate-name.run")
    session = JudgingSession(store, "ann", order="settle")
    session.comparisons = Comparisons([runs, runs[::-1]], "P@1")
    watch = SettleWatch.of(session)
    assert watch is not None
    try:
        while watch.step() is not None:
            pass
        view = watch.view()
        wide = settle_text(view).plain
        assert wide.count("not settled") == 2 and wide.count("t-test open): ~1 judgment to go") == 2
        assert settle_text(view, 80).plain == "0/2 comparisons settled, ~1 to go"
        short = settle_text(view, 170).plain
        assert len(short) <= 170 and short.count(": open ~1") == 2, short
    finally:
        watch.close()
        store.close()


def test_a_check_that_cannot_be_made_says_why(tmp_path: Path) -> None:
    """A measure the stopping rule does not cover, a run file gone: said on the line, once."""
    store = settle_store(tmp_path / "s.db")
    runs = write_runs(tmp_path)
    session = JudgingSession(store, "ann")
    session.comparisons = Comparisons([runs], "ERR@10")
    watch = SettleWatch.of(session)
    assert watch is not None
    try:
        got = watch.step()
        assert got is not None and got.failed is not None and "ERR@10" in got.failed
        assert watch.step() is None  # nothing new: not tried again until something changes
        assert settle_text(watch.view()).plain == f"settle check failed: {got.failed}"
        runs[1].unlink()
        assert "no such file" in str(verdicts(store, named(Comparisons([runs], "P@1")), "ann", estimate=False).failed)
    finally:
        watch.close()
        store.close()


async def test_without_for_there_is_no_line(tmp_path: Path) -> None:
    store = settle_store(tmp_path / "s.db")
    app = JudgeApp(JudgingSession(store, "ann"), query="q1")
    async with app.run_test(size=(80, 24)) as pilot:
        await drawn(pilot, app)
        assert app.settle_watch is None and not app.screen.query(SettleLine)
    store.close()


def _snapshot_app(tmp_path: Path) -> JudgeApp:
    return app_for(settle_store(tmp_path / "s.db"), write_runs(tmp_path))


async def _snapshot_ready(pilot: Pilot[Any]) -> None:
    await settled_screen(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, JudgingScreen)
    start = screen.pace.document.last  # the time on the document: always 0s in a snapshot
    screen.pace.document.active = 0.0
    screen.pace.now = lambda: start
    screen.query_one(SessionPanel).tick()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_the_judging_screen_with_the_settle_line(snap_compare: Any, size: tuple[int, int], tmp_path: Path) -> None:
    assert snap_compare(_snapshot_app(tmp_path), terminal_size=size, run_before=_snapshot_ready)
