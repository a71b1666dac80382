"""Every benchmark at the reference sizes, with the tables of `benchmarks/README.md` rewritten.

    python benchmarks/bench_all.py           # `make bench`: reference sizes (30-40 minutes on 2 cores)
    python benchmarks/bench_all.py --quick   # `make bench-quick`: small sizes, prints the tables only
    python benchmarks/bench_all.py --only score streaming

Each benchmark is one of the scripts beside this one, run with the arguments below; its table goes
between the markers `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in the README's section
"Current figures", under a line saying when and on what it was measured. `--quick` runs the same
scripts on small data (a check that they work and a rough figure, in under two minutes) and leaves
the README alone. Every figure comes from whole processes (wall time, and peak RSS from os.wait4).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# name -> (script module, arguments at the reference sizes, arguments for --quick; None: skipped)
BENCHMARKS: dict[str, tuple[str, list[str], list[str] | None]] = {
    "score": ("bench_score", [], ["--sizes", "small", "--repeat", "2", "--no-ranx"]),
    "sources": ("bench_sources", [], ["--size", "small", "--repeat", "1"]),
    "streaming": ("bench_streaming", [], ["--queries", "500", "--repeat", "1"]),
    "memory": ("bench_memory", [], ["--lines", "200000", "--repeat", "1"]),
    "import": ("bench_import", [], ["--lines", "300000", "--repeat", "1"]),
    "counts": ("bench_counts", [], ["--queries", "1000", "--repeat", "2"]),
    "startup": ("bench_startup", [], ["--repeat", "5"]),
    "tui": ("bench_tui", [], ["--queries", "300", "--events", "5000", "--keys", "30", "--rounds", "1"]),
    "tui-load": (
        "bench_tui",
        ["--load", "2"],
        ["--queries", "300", "--events", "5000", "--keys", "30", "--rounds", "1", "--load", "2"],
    ),
    "duplicates": ("bench_duplicates", [], ["--docs", "300", "--repeat", "2"]),
}


def machine() -> str:
    cores = os.cpu_count() or 0
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import numpy

    return (
        f"{cores} cores, {mem:.0f} GiB, Python {platform.python_version()}, numpy {numpy.__version__}, "
        f"{platform.system()} {platform.machine()}"
    )


def replace_section(readme: str, name: str, table: str, stamp: str) -> str:
    """The README with the text between `name`'s markers replaced (the markers must be there)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(readme):
        raise SystemExit(f"benchmarks/README.md has no {start} ... {end} markers: add them where the table goes")
    return pattern.sub(lambda _: f"{start}\n{stamp}\n\n{table.strip()}\n{end}", readme)


def run_script(module: str, argv: list[str]) -> str:
    """Run one benchmark script in a process of its own (so no benchmark measures in a process that
    an earlier one made large) and return the table it printed last."""
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import {module}; print(BEGIN); {module}.main({argv!r})"
    out = subprocess.run([sys.executable, "-c", code.replace("BEGIN", repr(MARK))], check=True,
                         stdout=subprocess.PIPE, text=True).stdout  # fmt: skip
    table = out.split(MARK, 1)[-1].strip()
    print(table, flush=True)
    return table


MARK = "<<bench output>>"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes; print the tables, leave the README alone")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these")
    parser.add_argument("--readme", type=Path, default=HERE / "README.md")
    args = parser.parse_args()
    started = time.perf_counter()
    for name in args.only or list(BENCHMARKS):
        module, full, quick = BENCHMARKS[name]
        argv = quick if args.quick else full
        if argv is None:
            print(f"## {name}: skipped by --quick (reference size only)\n")
            continue
        print(f"## {name}: python benchmarks/{module}.py {' '.join(argv)}", flush=True)
        t = time.perf_counter()
        table = run_script(module, argv)
        print(f"({time.perf_counter() - t:.0f} s)\n", flush=True)
        if not args.quick:
            stamp = f"_`make bench`, {datetime.date.today().isoformat()}; {machine()}._"
            args.readme.write_text(replace_section(args.readme.read_text(), name, table, stamp))
    print(f"all done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
