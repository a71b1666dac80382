"""The settle line on the judging screen (`judge --for A.run,B.run`): per named comparison whether
it is settled for the metric (`workflows.settle_watch`, by the rule of `qrelkit settled`), and
the estimated judgments to go while it is not: `bm25.run vs bm25-title.run nDCG@10: settled
(bm25-title.run ahead)`. Until the verdicts of the latest judgment are read, the line says
`checking...` and the time the ones shown were read. The judgment that settles a comparison is
announced ("this comparison is settled"), and once every comparison a settle queue is for is
settled, the line says the assessor can stop. One line, cut to the width: shorter words, then a
count instead of the names. Without `--for` there is no line (`NoSettle`: nothing to call).

It says run names (the assessor named them), a sign and a count: never a grade, never a rank."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ...render.styles import data, visible
from ...workflows.settle_watch import Estimate, SettleView, SettleWatch, Verdict, Verdicts, longest_to_go
from ..palette import css

SEP = " · "


def clock(at: float) -> str:
    """`14:02:11`, local time."""
    return time.strftime("%H:%M:%S", time.localtime(at))


def _ahead(v: Verdict) -> str:
    return "a tie" if v.ahead is None else f"{v.ahead} ahead"


def verdict_text(v: Verdict, estimate: Estimate | None, seq: int, *, short: bool = False) -> Text:
    """`settled (B ahead)`, `not settled (B ahead, t-test open): ~12 judgments to go` (an older
    estimate: `as of 14:02:11`), `not settled (estimating...)`; `short`: fewer words."""
    if v.settled:
        return Text.assemble(("settled", css("bold green")), " (", data(_ahead(v)), ")")
    line = Text("not settled" if not short else "open", css("bold yellow"))
    if v.sign != "open" and not short:
        line.append_text(Text.assemble(" (", data(_ahead(v)), ", t-test open)"))
    if estimate is None:
        line.append(" (estimating...)" if not short else "", "dim")
    elif estimate.to_settle is not None:
        n = estimate.to_settle
        line.append(f": ~{n} judgment{'s' if n != 1 else ''} to go" if not short else f" ~{n}")
        if estimate.seq != seq:
            line.append(f" as of {clock(estimate.at)}", "dim")
    return line


def row_text(v: Verdict, estimate: Estimate | None, seq: int, *, short: bool = False) -> Text:
    """One comparison: `A vs B nDCG@10: ` and its verdict."""
    names = Text.assemble(data(v.baseline, "bold"), " vs ", data(v.candidate, "bold"), " ", data(v.metric), ": ")
    return Text.assemble(names, verdict_text(v, estimate, seq, short=short))


def summary_text(rows: Sequence[Verdict], view: SettleView) -> Text:
    """No names: `1/2 comparisons settled, ~12 to go`."""
    done = sum(r.settled for r in rows)
    line = Text(f"{done}/{len(rows)} comparisons settled", css("bold green") if done == len(rows) else "")
    most = longest_to_go(rows, view.estimates)
    if done < len(rows) and most is not None:
        line.append(f", ~{most} to go")
    return line


def settle_text(view: SettleView, width: int | None = None) -> Text:
    """The line for `view`, cut to `width` cells (None: whole): the rows in full, else in fewer
    words, else counted; after `checking... as of HH:MM:SS` while stale, and `every comparison
    is settled: you can stop` (a settle queue) once they all are."""
    got = view.verdicts
    if got is None:
        return Text("settled? checking the named comparisons...", "dim")
    if got.failed is not None:
        return Text.assemble(("settle check failed: ", css("bold red")), data(got.failed))
    head = Text()
    if view.stale:
        head = Text(f"checking... (as of {clock(got.at)}){SEP}", css("yellow"))
    elif got.settled and view.can_stop:
        head = Text(f"every comparison is settled: you can stop judging (q quits){SEP}", css("bold green"))
    rows = got.rows
    forms = [
        Text(SEP, "dim").join(row_text(r, view.estimate(r), got.seq, short=short) for r in rows)
        for short in (False, True)
    ]
    forms.append(summary_text(rows, view))
    for body in forms:
        line = Text.assemble(head, body)
        if width is None or line.cell_len <= width:
            return line
    return Text.assemble(head, forms[-1])


class Checked(Message):
    """The watch read new verdicts (posted from its worker thread)."""


class SettleLine(Static):
    """`settle_text` of the session's watch, redrawn as the verdicts arrive; `committed` (on every
    redraw of the screen: no read when nothing was committed) and `polled` start the worker."""

    def __init__(self, watch: SettleWatch, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.checks = watch
        self.announced: set[tuple[str, str, str]] | None = None
        """The comparisons settled in the verdicts last drawn (None: none drawn yet)."""

    def widgets(self) -> list[Widget]:
        return [self]

    def on_mount(self) -> None:
        self.announced = _settled(self.checks.latest)  # what an earlier screen knew is no news
        self.checks.listener = self._told  # a worker still running for an earlier screen tells this one
        self.draw()
        self.polled()

    def on_unmount(self) -> None:
        if self.checks.listener == self._told:
            self.checks.listener = None

    def _told(self) -> None:
        self.post_message(Checked())  # from the worker thread (`post_message` is thread-safe)

    def committed(self) -> None:
        """The screen redraws: if the session committed an event, what is shown is stale now."""
        if self.checks.committed():
            self.draw()
            self._start()

    def polled(self) -> None:
        self.checks.polled()
        self._start()

    def _start(self) -> None:
        if self.checks.start():
            self.run_worker(self.checks.run, thread=True, group="settle", exit_on_error=False)

    @on(Checked)
    def checked(self, message: Checked) -> None:
        self.draw()
        self.announce()

    def on_resize(self) -> None:
        self.draw()  # another width may take other words

    def draw(self) -> None:
        self.update(settle_text(self.checks.view(), self.content_size.width or None), layout=False)

    def announce(self) -> None:
        """Say each comparison that became settled, and, on a settle queue, that all are."""
        view = self.checks.view()
        now = _settled(view.verdicts)
        if now is None or view.stale:
            return
        before, self.announced = self.announced, now
        if before is None:
            return
        for v in view.verdicts.rows if view.verdicts else ():
            if v.key in now - before:
                said = f"{visible(v.baseline)} vs {visible(v.candidate)} {visible(v.metric)}: {visible(_ahead(v))}"
                self.app.notify(f"this comparison is settled: {said}", title="settled", markup=False, timeout=12)
        if view.can_stop and view.verdicts is not None and view.verdicts.settled and now != before:
            self.app.notify(
                "every comparison named is settled: you can stop judging (q quits)", title="settled", timeout=30
            )


def _settled(got: Verdicts | None) -> set[tuple[str, str, str]] | None:
    if got is None or got.failed is not None:
        return None
    return {r.key for r in got.rows if r.settled}


class NoSettle:
    """No comparison named: no line, and nothing to do when the screen redraws or polls."""

    def widgets(self) -> list[Widget]:
        return []

    def committed(self) -> None:
        pass

    def polled(self) -> None:
        pass


def settle_line(app: App[Any]) -> SettleLine | NoSettle:
    """The judging screen's settle line: on the app's watch (`JudgeApp.settle_watch`), if any."""
    watch = getattr(app, "settle_watch", None)
    return SettleLine(watch, id="settle", classes="bar") if isinstance(watch, SettleWatch) else NoSettle()
