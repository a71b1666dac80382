"""Judging UI speed on a big store: keystroke-to-next-document latency and startup time.

    python benchmarks/bench_tui.py [--keys 300] [--load 2]
    python benchmarks/bench_tui.py --queries 500 --events 20000 --keys 40 --load 2   # a quick check

Builds (once, under benchmarks/data/) a store with 10,000 queries, 100,000 documents and
1,000,000 judgment events (plus a pool of 20 documents per query, and one query with 400
unlabeled documents to judge; other sizes with --queries/--events, in a file of their own), then
measures:

* keystroke latency: `qrelkit judge` in an 80x24 pseudo-terminal, from writing a grade key to
  reading the frame that shows it counted (`judged N`, drawn only after the event is committed
  with synchronous=FULL, in the frame that shows the next document); p50 and p99. Each key is
  written once the frame before it is complete (a key read before its document is drawn would be
  refused);
* startup: `qrelkit judge` in an 80x24 pseudo-terminal, from spawning the process to the first
  frame, to the query list filled with its counts, and to a usable list (its first row drawn:
  from then on a key acts on what the list shows); and `judge --query` to the judging screen.

`--load N` runs N CPU-bound processes (`python -c 'while 1: pass'`) beside it the whole time
(issue 25's target: p99 < 100 ms with two), killed at the end; the table says so.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.tui.pty import Terminal  # noqa: E402

sys.path.insert(0, str(HERE))
from _common import cpu_load  # noqa: E402

N_QUERIES, N_DOCS, N_EVENTS, POOL = 10_000, 100_000, 1_000_000, 20
BIG_QUERY = "q-open"


def build(path: Path, n_queries: int = N_QUERIES, n_events: int = N_EVENTS) -> None:
    from qrelkit.storage import Store

    rnd = random.Random(7)
    store = Store.open(path)
    with store.transaction():
        c = store.conn
        for s in ("nav", "howto", "concept"):
            c.execute("INSERT INTO strata VALUES (?, ?)", (s, 1.0))
        c.executemany(
            "INSERT INTO queries VALUES (?, ?, ?, ?)",
            [
                (f"q{i:05d}", f"query number {i} about topic {i % 97}", ("nav", "howto", "concept")[i % 3], None)
                for i in range(n_queries)
            ]
            + [(BIG_QUERY, "the open query", "nav", "judge me")],
        )
        text = " ".join(f"word{j}" for j in range(80))
        c.executemany(
            "INSERT INTO documents(id, title, text) VALUES (?, ?, ?)",
            [(f"d{i:06d}", f"document {i}", text) for i in range(N_DOCS)],
        )
        c.executemany(
            "INSERT INTO pool(query_id, doc_id, source, best_rank) VALUES (?, ?, 'bench', ?)",
            [(f"q{i:05d}", f"d{(i * 31 + r) % N_DOCS:06d}", r) for i in range(n_queries) for r in range(POOL)]
            + [(BIG_QUERY, f"d{r:06d}", r) for r in range(400)],
        )
        rows = []
        for n in range(n_events):
            q = rnd.randrange(n_queries)
            rows.append(
                (
                    f"q{q:05d}",
                    f"d{(q * 31 + rnd.randrange(60)) % N_DOCS:06d}",
                    "graded",
                    rnd.randrange(4),
                    f"a{n % 5}",
                    "2026-01-01T00:00:00+00:00",
                )
            )
        c.executemany(
            "INSERT INTO judgments(query_id, doc_id, state, grade, assessor, ts) VALUES (?, ?, ?, ?, ?, ?)", rows
        )
    store.close()


class Pty(Terminal):
    """The tests' pty terminal, waiting for a regular expression on the raw bytes drawn (escape
    sequences included) instead of for text on the screen."""

    def read_bytes_until(self, pattern: bytes, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.output):
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.1)):
                return bool(re.search(pattern, self.output))
        return True

    def kill(self) -> None:
        self.close()


def keystrokes(path: Path, n: int) -> list[float]:
    """In a real pseudo-terminal: from writing a grade key to the frame that shows it counted
    (the header's `judged N` is drawn only after the event is committed)."""
    env = {**os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "bench"}
    term = Pty([sys.executable, "-m", "qrelkit", "--db", str(path), "judge", "--query", BIG_QUERY], env)
    times = []
    try:
        if not term.read_bytes_until(rb"judged 0", timeout=60):
            raise RuntimeError("the judging screen never appeared")
        time.sleep(3.0)  # past startup (measured separately): Textual settles its terminal queries
        for i in range(1, n + 1):
            term.read_bytes_until(rb"$^", timeout=0.05)  # drain anything pending
            term.output = b""
            start = time.perf_counter()
            term.send(str(i % 4).encode())
            # the frame that shows the key counted (the header's and the session line's `judged
            # i`): a frame drawn for something else meanwhile (a timer) is neither timed nor taken
            # for it, so the next key never goes out before its document is drawn
            if not term.read_bytes_until(rb"judged (?:\x1b\[[0-9;]*m)*%d(?!\d)" % i, timeout=10):
                said = re.findall(rb"not applied[^\x1b]*|typed before[^\x1b]*|store busy[^\x1b]*", term.output)
                raise RuntimeError(f"key {i} was never shown counted ({said!r})")
            times.append(time.perf_counter() - start)
            term.read_bytes_until(rb"$^", timeout=0.03)  # let the frame finish
    finally:
        term.kill()
    conn = sqlite3.connect(path)
    saved = conn.execute("SELECT count(*) FROM judgments WHERE assessor = 'bench'").fetchone()[0]
    if saved < n:
        raise RuntimeError(f"only {saved} of {n} judgments were saved")
    return times


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile (0..1) of `values`, the nearest rank above."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def startup(path: Path, args: list[str], pattern: bytes) -> float:
    env = {**os.environ, "TERM": "xterm-256color", "QRELKIT_ASSESSOR": "bench"}
    start = time.perf_counter()
    term = Pty([sys.executable, "-m", "qrelkit", "--db", str(path), "judge", *args], env)
    found = term.read_bytes_until(pattern, timeout=60)
    elapsed = time.perf_counter() - start
    term.kill()
    if not found:
        raise RuntimeError(f"never saw {pattern!r}")
    return elapsed


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes beside it (issue 25: 2)")
    parser.add_argument("--queries", type=int, default=N_QUERIES)
    parser.add_argument("--events", type=int, default=N_EVENTS)
    parser.add_argument("--rounds", type=int, default=3, help="startups of each kind")
    parser.add_argument("--data", type=Path, default=HERE / "data")
    args = parser.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    reference = (args.queries, args.events) == (N_QUERIES, N_EVENTS)
    path = args.data / ("tui-bench.db" if reference else f"tui-bench-{args.queries}q-{args.events}e.db")
    if not path.exists():
        t = time.perf_counter()
        build(path, args.queries, args.events)
        print(f"built {path} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    work = args.data / "tui-bench-work.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(work) + suffix).unlink(missing_ok=True)
    work.write_bytes(path.read_bytes())
    with cpu_load(args.load):
        lat = keystrokes(work, args.keys)
        rounds = range(args.rounds)
        first = [startup(work, [], rb"enter.{0,40}judge") for _ in rounds]
        filled = [startup(work, [], rb"queries \xc2\xb7") for _ in rounds]
        usable = [startup(work, [], rb"q00000") for _ in rounds]
        direct = [startup(work, ["--query", BIG_QUERY], rb"q-open \xc2\xb7 doc") for _ in rounds]
    where = f"80x24 pty; {args.queries:,} queries, {args.events:,} events" + (
        f"; {args.load} CPU-bound processes beside it" if args.load else ""
    )
    text = "\n".join([
        f"| measure ({where}) | median (p50) | p99 / worst |",
        "|---|---:|---:|",
        f"| keystroke to next document ({len(lat)} keys) | {statistics.median(lat) * 1000:.1f} ms "
        f"| {percentile(lat, 0.99) * 1000:.1f} ms |",
        f"| startup to first frame (query list) | {statistics.median(first):.2f} s | {max(first):.2f} s |",
        f"| startup to query list with counts | {statistics.median(filled):.2f} s | {max(filled):.2f} s |",
        f"| startup to a usable list (first row drawn) | {statistics.median(usable):.2f} s | {max(usable):.2f} s |",
        f"| startup with --query to judging screen | {statistics.median(direct):.2f} s | {max(direct):.2f} s |",
    ]) + "\n"  # fmt: skip
    print(text)
    return text


if __name__ == "__main__":
    main()
