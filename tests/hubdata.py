"""What the `export hub` / `import hub` tests share: a golden set of hostile strings frozen as a
version, and `datasets.load_dataset` run offline in a process of its own (its cache, its home:
nothing written to ~, nothing fetched)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import Cli
from hostile import ALL_IN_ONE, IDS, LONG, STRATA, TEXT

HOSTILE_DEFINITION = "*mentions* [the](http://x) topic <script>alert(1)</script> | a & b `code` _x_ #1 www.x.org"
NAME = "g[bold]x"

QUERIES = {
    IDS["q_close"]: (TEXT["clear_screen"] + TEXT["nul"] + "\u2028\u2029\x85", STRATA["s_close"], HOSTILE_DEFINITION),
    IDS["q_bold"]: (LONG, STRATA["s_bold"], None),
    IDS["q_link"]: (ALL_IN_ONE, "how-to", "plain guidelines"),
    "q4": ("no labels at all", STRATA["s_click"], None),
}
DOCS = {
    IDS["d_click"]: ("[bold]title\x1b]0;pwned\x07", ALL_IN_ONE + "\u2028\r\n", None),
    IDS["d_close_named"]: (LONG, TEXT["carriage_return"], {"url": "javascript:x", "metadata": {"x": [1, 2.5, None]}}),
    IDS["d_plain"]: ("", "", {"k": "v\x00"}),
    "123": ("a number-like id", "0", None),
}  # fmt: skip
EVENTS = [
    (IDS["q_close"], IDS["d_click"], "graded", 2, "ann"),
    (IDS["q_close"], IDS["d_click"], "graded", 0, "bob"),  # a disagreement: median 0
    (IDS["q_close"], IDS["d_plain"], "skipped", None, "ann"),
    (IDS["q_bold"], IDS["d_close_named"], "graded", 1, "ann"),
    (IDS["q_bold"], IDS["d_close_named"], "adjudicated", 3, "cy[bold]"),
    (IDS["q_bold"], "123", "graded", 0, "ann"),
    (IDS["q_link"], "123", "graded", 2, "ann"),
    (IDS["q_link"], IDS["d_plain"], "graded", 1, "ann"),
    (IDS["q_link"], IDS["d_plain"], "cleared", None, "bob"),  # cleared: unlabeled, and pooled below
]


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def hostile_version(run_cli: Cli, *, name: str = NAME, version: str = "v1") -> Path:
    """A store of hostile ids and text (several assessors, a skip, an adjudication, a clear, pooled
    pairs, document metadata, a level definition in Markdown and HTML), frozen; its folder."""
    run_cli(
        "init",
        "--name",
        name,
        "--max-grade",
        "3",
        "--threshold",
        "2",
        "--level",
        f"1=re<b>la|ted: {HOSTILE_DEFINITION}",
    )
    for stratum, weight in [(STRATA["s_close"], "0.5"), (STRATA["s_bold"], "0.25"), ("how-to", "1e-3"),
                            (STRATA["s_click"], "0"), ("empty", "2")]:  # fmt: skip
        run_cli("strata", "set", stratum, weight)
    queries = [
        {"id": q, "text": t, "stratum": s, **({"description": d} if d else {})} for q, (t, s, d) in QUERIES.items()
    ]
    run_cli("import", "queries", str(run_cli.write("q.jsonl", jsonl(queries))))
    docs = [{"_id": d, "title": t, "text": x, **({"metadata": m} if m else {})} for d, (t, x, m) in DOCS.items()]
    run_cli("import", "docs", str(run_cli.write("d.jsonl", jsonl(docs))))
    events = [
        {"query_id": q, "doc_id": d, "state": s, "assessor": a, **({"grade": g} if g is not None else {}),
         "timestamp": f"2026-01-0{i % 9 + 1}T12:00:00Z"}
        for i, (q, d, s, g, a) in enumerate(EVENTS)
    ]  # fmt: skip
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", jsonl(events))))
    pooled = f"{IDS['q_link']} 0 {IDS['d_plain']} -1\n{IDS['q_bold']} 0 d-only-pooled -1\n"
    run_cli("import", "qrels", str(run_cli.write("p.qrels", pooled)))
    run_cli("freeze", name, version, "--out", str(run_cli.tmp / "sets"))
    return run_cli.tmp / "sets" / name / version


LOAD = """
import json, sys
import datasets
found = {}
for config in sys.argv[2:]:
    loaded = datasets.load_dataset(sys.argv[1], config)
    found[config] = {split: loaded[split].to_list() for split in loaded}
print("ROWS " + json.dumps(found), flush=True)
# Everything is read and printed. The interpreter's own teardown is skipped: datasets' pyarrow
# threads sometimes abort it ("terminate called without an active exception", seen once in the
# suite), a crash of the reference library at exit that says nothing about the files.
import os
os._exit(0)
"""


def load_with_datasets(folder: Path, tmp: Path, *configs: str) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """`datasets.load_dataset(str(folder), CONFIG)` for each config, offline, in a fresh process
    whose HF_HOME, cache and HOME are folders under `tmp` (HOME checked empty afterwards)."""
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp / "hf"),
        "HF_DATASETS_CACHE": str(tmp / "hf" / "datasets"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "HOME": str(home),
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    done = subprocess.run([sys.executable, "-c", LOAD, str(folder), *configs], capture_output=True, text=True,
                          env=env, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert list(home.iterdir()) == [], "datasets wrote into HOME"
    line = next(x for x in done.stdout.splitlines() if x.startswith("ROWS "))
    found: dict[str, dict[str, list[dict[str, Any]]]] = json.loads(line.removeprefix("ROWS "))
    return found
