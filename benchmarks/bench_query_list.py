"""The query list on a big store, right after start: how long keys take while its rows, counts and
the judging queue still load (5,000 queries, 200,000 pooled pairs, in memory).

    python benchmarks/bench_query_list.py [--repeat 5]

Prints, as medians over the repeats: the time from the first key of a search typed at start
(`/421`) until the search box holds it and until its rows are shown, and the median and worst
latency of `down` presses sent while the rows are still arriving (keys go in through the
driver, as a terminal sends them).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from textual import events  # noqa: E402
from textual.widgets import DataTable, Input  # noqa: E402

from qrelkit.models import PoolEntry, Query, Stratum  # noqa: E402
from qrelkit.storage import Store  # noqa: E402
from qrelkit.tui.app import JudgeApp  # noqa: E402
from qrelkit.workflows.judging import JudgingSession  # noqa: E402


def big_store() -> Store:
    store = Store.memory()
    store.settings.set_stratum(Stratum(name="nav", weight=1.0))
    store.imports.queries(
        ((n, Query(id=f"q{n:04d}", text=f"query {n} about topic {n % 97}", stratum="nav")) for n in range(5000)),
        source="bench",
    )
    store.imports.pool_entries(
        PoolEntry(query_id=f"q{n:04d}", doc_id=f"d{(n * 31 + r) % 100_000:06d}", best_rank=r + 1)
        for n in range(5000)
        for r in range(40)
    )
    return store


def send(app: JudgeApp, key: str, character: str | None = None) -> None:
    event = events.Key(key, character)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def until(check: object, limit: float = 30.0) -> float:
    start = time.perf_counter()
    while not check():  # type: ignore[operator]
        if time.perf_counter() - start > limit:
            raise TimeoutError
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


async def search_at_start() -> tuple[float, float]:
    """Seconds from the first key of `/421` to the box holding it, and to its rows shown."""
    app = JudgeApp(JudgingSession(big_store(), "bench"))
    async with app.run_test(size=(80, 24)):
        screen = app.screen
        table, search = screen.query_one(DataTable), screen.query_one("#search", Input)
        for key, char in (("slash", "/"), ("4", "4"), ("2", "2"), ("1", "1")):
            send(app, key, char)
        typed = await until(lambda: search.value == "421")
        shown = await until(lambda: table.row_count > 0 and first_row(table) == "q0421")
        return typed, typed + shown


def first_row(table: DataTable[object]) -> str:
    return str(table.coordinate_to_cell_key((0, 0)).row_key.value)


async def downs_while_loading(n: int = 20) -> list[float]:
    """Seconds each `down` takes to move the cursor while the rows still arrive."""
    app = JudgeApp(JudgingSession(big_store(), "bench"))
    async with app.run_test(size=(80, 24)):
        table = app.screen.query_one(DataTable)
        await until(lambda: table.row_count > 0)
        took = []
        for _ in range(n):
            before = table.cursor_row
            start = time.perf_counter()
            send(app, "down")
            await until(lambda b=before: table.cursor_row == b + 1)  # type: ignore[misc]
            took.append(time.perf_counter() - start)
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    typed, found, downs = [], [], []
    for _ in range(args.repeat):
        t, f = asyncio.run(search_at_start())
        typed.append(t)
        found.append(f)
        downs.extend(asyncio.run(downs_while_loading()))
    print(
        f"search typed at start: in the box after {statistics.median(typed):.3f} s, rows shown after "
        f"{statistics.median(found):.3f} s (median of {args.repeat})"
    )
    print(
        f"down while rows load: median {statistics.median(downs) * 1000:.1f} ms, worst {max(downs) * 1000:.1f} ms "
        f"({len(downs)} keys)"
    )


if __name__ == "__main__":
    main()
