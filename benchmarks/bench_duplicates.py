"""Duplicate detection on one query's pooled documents (`workflows.duplicates`), as the judging
screen runs it once when a query is opened.

    python benchmarks/bench_duplicates.py [--docs 1000] [--repeat 7]

Generates `--docs` documents of 150-450 words (a Zipf-like vocabulary of 20,000 words, seeded),
a twentieth of them the same text as another (case and spacing changed) and a twentieth near
duplicates (1-2% of their words changed), pools them for one query in a store on disk, then times
`find_duplicates` on the texts, and `JudgingSession.duplicates` (the texts read from the store, then
the same detection) in the same process. Medians over --repeat.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from qrelkit.models import Document, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.workflows.duplicates import find_duplicates
from qrelkit.workflows.judging import JudgingSession

VOCABULARY = 20_000


def documents(n: int, seed: int = 25) -> dict[str, str]:
    """`n` documents: id -> text (see the module)."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(VOCABULARY)]
    weights = [1 / (i + 1) for i in range(VOCABULARY)]
    texts: dict[str, str] = {}
    for i in range(n):
        kind = i % 20
        if kind == 0 and texts:  # the same text as an earlier one, case and spacing changed
            texts[f"doc-{i}"] = "  ".join(rng.choice(list(texts.values())).upper().split(" "))
        elif kind == 1 and texts:  # a near duplicate: a few words changed
            near = rng.choice(list(texts.values())).split()
            for _ in range(max(1, len(near) // 80)):
                near[rng.randrange(len(near))] = rng.choice(words)
            texts[f"doc-{i}"] = " ".join(near)
        else:
            texts[f"doc-{i}"] = " ".join(rng.choices(words, weights, k=rng.randrange(150, 450)))
    return texts


def timed(run: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    texts = documents(args.docs)
    words = statistics.median(len(t.split()) for t in texts.values())
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "dupes.db")
        store.imports.queries([(1, Query(id="q1", text="a query"))], source="bench")
        store.imports.documents([Document(id=d, text=t) for d, t in texts.items()])
        store.imports.pool_entries([PoolEntry(query_id="q1", doc_id=d, best_rank=r) for r, d in enumerate(texts, 1)])
        session = JudgingSession(store, "ann")
        ids = list(texts)
        pure = timed(lambda: find_duplicates(texts), args.repeat)
        whole = timed(lambda: session.duplicates(ids), args.repeat)
        pairs = session.duplicates(ids).pairs()
        store.close()
    load = os.getloadavg()[0]
    text = (
        f"| what ({args.docs:,} pooled documents, median {words:.0f} words, {pairs} duplicate pairs) | median |\n"
        "|---|---:|\n"
        f"| `find_duplicates` (texts in memory) | {pure:.2f} s |\n"
        f"| `JudgingSession.duplicates` (texts read from the store, then found) | {whole:.2f} s |\n\n"
        f"Medians of {args.repeat} rounds in one process; load average {load:.1f} when it ended.\n"
    )
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
