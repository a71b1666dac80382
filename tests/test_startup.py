"""What a command imports (issue 31): `--version` and `--help` load neither click, pydantic, rich,
numpy nor sqlite3 (`cli.entry` prints them, from its own tables, byte for byte what click prints:
compared here at every width); scoring a
run against a qrels file loads no store, no version code, no terminal UI and no pyarrow for a small
file, and as JSON no rich either, within a module budget. Asserted as the modules a fresh process
holds, not as a wall time (benchmarks/bench_startup.py times them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import hostile
import qrelkit
from qrelkit.cli import _common, app

HEAVY = ("pydantic", "rich", "numpy", "sqlite3", "textual", "pyarrow", "importlib.metadata")


def _modules(*args: str, cwd: Path | None = None) -> list[str]:
    """The modules a fresh `qrelkit ARGS` process holds when it ends."""
    code = (
        "import json, sys\nsys.argv = ['qrelkit', *sys.argv[1:]]\nfrom qrelkit.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\nprint('MODULES', json.dumps(sorted(sys.modules)))"
    )
    # the qrelkit this test imported, wherever `cwd` is (a relative PYTHONPATH=src would miss it there)
    env = {**os.environ, "PYTHONPATH": str(Path(qrelkit.__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("MODULES "))
    return list(json.loads(line.removeprefix("MODULES ")))


def _loaded(modules: list[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("-h",)])
def test_version_and_help_load_not_even_click(args: tuple[str, ...]) -> None:
    modules = _modules(*args)
    assert [h for h in (*HEAVY, "click", "typing") if _loaded(modules, h)] == []
    ours = sorted(m for m in modules if m.startswith("qrelkit"))
    assert ours == ["qrelkit", "qrelkit.cli", "qrelkit.cli.entry", "qrelkit.errors"]
    assert len(modules) <= FAST_MODULES


FAST_MODULES = 66
"""The most modules a fresh `qrelkit --help` may hold, counted by `_modules` (whose own json and
sys bring 56): 63 with Python 3.11 (textwrap and qrelkit's four on top); 123 while click answered
it (114 for `--version`, now 62)."""


def test_no_command_is_clicks_and_loads_nothing_heavy() -> None:
    """`qrelkit` alone is click's (its help, on standard error, exit 2): still no command module."""
    modules = _modules()
    assert [h for h in HEAVY if _loaded(modules, h)] == []
    ours = sorted(m for m in modules if m.startswith("qrelkit"))
    assert ours == ["qrelkit", "qrelkit.cli", "qrelkit.cli.app", "qrelkit.cli.entry", "qrelkit.errors"]


def _run(main: str, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """`qrelkit ARGS` run by `main` (`qrelkit.cli`'s, the console script's, or click's own,
    `qrelkit.cli.app`'s) in a fresh process, its output as bytes."""
    code = f"import sys\nfrom {main} import main\nsys.argv[0] = 'qrelkit'\nmain()"
    where = str(Path(qrelkit.__file__).resolve().parents[1])
    kept = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "QRELKIT_DB", "_QRELKIT_COMPLETE")}
    full = {**kept, "PYTHONPATH": where, **env}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=full, timeout=60)


@pytest.mark.parametrize("columns", ["40", "60", "80", "200", "0", "wide"])
@pytest.mark.parametrize("db", [None, "elsewhere/golden.db"], ids=["no QRELKIT_DB", "QRELKIT_DB"])
def test_version_and_help_print_what_click_prints(columns: str, db: str | None) -> None:
    """The fast answers equal click's, bytes and exit status, at any terminal width (click wraps to
    COLUMNS, at most 80; a bad COLUMNS is ignored) and with QRELKIT_DB set (`--db` shows its env var
    and its default either way)."""
    env = {"COLUMNS": columns, **({"QRELKIT_DB": db} if db else {})}
    for args, says in ((["--help"], b"  --db FILE "), (["-h"], b"QRELKIT_DB"), (["--version"], b"qrelkit, version ")):
        fast, slow = _run("qrelkit.cli", *args, **env), _run("qrelkit.cli.app", *args, **env)
        assert slow.returncode == 0 and slow.stderr == b"" and says in slow.stdout, slow
        assert (fast.stdout, fast.stderr, fast.returncode) == (slow.stdout, slow.stderr, slow.returncode), args


def test_the_help_is_clicks_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """`entry.root_help(width)` against click's own help of the root group at every width click
    can pick (50 to 78), and `entry.help_width` against click's pick for a range of COLUMNS."""
    from qrelkit.cli import entry

    for width in range(50, 79):
        ctx = click.Context(app.cli, info_name="qrelkit", terminal_width=width, **app.cli.context_settings)
        assert entry.root_help(width) == app.cli.get_help(ctx), width
    for columns in ["1", "40", "51", "52", "60", "79", "80", "81", "200", "0", "-3", "x", ""]:
        monkeypatch.setenv("COLUMNS", columns)
        assert entry.help_width() == click.HelpFormatter().width, columns
    monkeypatch.delenv("COLUMNS")
    assert entry.help_width() == click.HelpFormatter().width
    assert entry.root_help(78).isascii()  # so standard output's encoding cannot make the two differ


def test_scoring_a_small_qrels_file_loads_no_store_version_or_ui(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(10)))
    (tmp_path / "r.txt").write_text("".join(f"q{i} Q0 d{i} 1 1.0 r\n" for i in range(10)))
    modules = _modules("score", "r.txt", "--qrels", "q.txt", cwd=tmp_path)
    assert _loaded(modules, "qrelkit.scoring")  # it did score
    for name in ("sqlite3", "textual", "pyarrow", "qrelkit.storage", "qrelkit.versioning", "qrelkit.tui"):
        assert not _loaded(modules, name), name


SCORE_MODULES = 280
"""The most modules a fresh `score --format json` of a small file may hold: 274 with Python 3.11 and
this project's pins (387 while the report was pydantic's: pydantic, pydantic_core, annotated_types,
typing_extensions and importlib.metadata; 398 before gzip, concurrent.futures with logging,
ctypes.util with subprocess were left to the inputs that need them; 442 before rich, numpy.ma and
the version and leaderboard models were; rich alone is about 50)."""


def test_scoring_a_small_run_as_json_imports_only_what_it_uses(tmp_path: Path) -> None:
    """Issue 31's budget for `score`: JSON needs no rich (its tables), numpy.ma (plain np.unique),
    the version or leaderboard models, the store or the HTML pages; a plain file of one block no
    gzip and no thread pool (its blocks, joins and measures are worked in one thread), and
    glibc's mallopt is found without ldconfig; and the module count holds."""
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d{i} {i % 4}\n" for i in range(10)))
    (tmp_path / "r.txt").write_text("".join(f"q{i % 5} Q0 d{i} {i // 5 + 1} {10 - i} r\n" for i in range(10)))
    modules = _modules(
        "score", "r.txt", "--qrels", "q.txt", "--format", "json", "--metrics", "nDCG@10,AP", cwd=tmp_path
    )
    assert _loaded(modules, "qrelkit.scoring.kernels")  # it did score
    unused = ("rich", "numpy.ma", "qrelkit.models.versions", "qrelkit.models.leaderboard", "qrelkit.render.html",
              "gzip", "concurrent.futures", "logging", "ctypes.util", "subprocess", "pydantic", "pydantic_core",
              "qrelkit.models.domain", "qrelkit.models.reports", "importlib.metadata")  # fmt: skip
    assert [name for name in unused if _loaded(modules, name)] == []
    assert len(modules) <= SCORE_MODULES


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "trec", "trec_eval"])
def test_scoring_against_a_qrels_file_imports_no_pydantic_in_any_format(tmp_path: Path, fmt: str) -> None:
    """Issue 31: the report of `score RUN... --qrels FILE` is plain data until it is written
    (`models.plain`; the JSON is pydantic's bytes, `formats.json_text`), so no format, with or without
    `--per-query` and `--out`, imports pydantic (its import, its model classes and its plugin
    loader's `importlib.metadata` were 85 of a small score's ~190 ms), sqlite3 or textual; only a
    table imports rich. `--save` and the store or a frozen version as the source may (they
    validate, and open sqlite anyway)."""
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d{i} {i % 4}\n" for i in range(10)))
    (tmp_path / "r.txt").write_text("".join(f"q{i % 5} Q0 d{i} {i // 5 + 1} {10 - i} r\n" for i in range(10)))
    (tmp_path / "ranks.txt").write_text("".join(f"q{i % 5}\td{i}\t{i // 5 + 1}\n" for i in range(10)))
    heavy = ("pydantic", "pydantic_core", "importlib.metadata", "sqlite3", "textual", "qrelkit.models.domain",
             "qrelkit.models.reports", "qrelkit.storage", "qrelkit.versioning")  # fmt: skip
    for more in ([], ["--per-query", "--out", "out.txt", "--names", "trec_eval", "--min-coverage", "0.1"]):
        modules = _modules("score", "r.txt", "ranks.txt", "--qrels", "q.txt", "--format", fmt, *more, cwd=tmp_path)
        assert _loaded(modules, "qrelkit.scoring.kernels")  # it did score
        assert [name for name in heavy if _loaded(modules, name)] == [], (fmt, more)
        assert _loaded(modules, "rich") == (fmt == "table"), (fmt, more)
    assert (tmp_path / "out.txt").stat().st_size > 0


def test_every_command_has_its_summary_and_the_list_is_what_click_would_print() -> None:
    """`SUMMARIES` holds one line per command (and becomes its short help), so `qrelkit --help`
    prints exactly what click prints after importing every command."""
    names = app.cli.list_commands(click_context())
    assert set(app.SUMMARIES) == set(names) == {*app.COMMANDS, *app.PLUGINS}
    for name in names:
        command = app.cli.get_command(click_context(), name)
        assert command is not None and command.get_short_help_str(200) == app.SUMMARIES[name], name
    fast = CliRunner().invoke(app.cli, ["--help"], terminal_width=100).output
    rows = fast.split("Commands:")[1].splitlines()
    listed = [line.split()[0] for line in rows if line.startswith("  ") and not line.startswith("   ")]
    assert listed == names


def click_context() -> click.Context:
    return click.Context(app.cli)


def test_every_name_of_the_models_package_is_its_modules_own() -> None:
    """`qrelkit.models` imports a module at the first use of one of its names (`_HOMES`): the table
    lists every exported name once, and each resolves to the object its module defines."""
    import importlib

    from qrelkit import models

    homes = models._HOMES  # noqa: SLF001
    listed = [name for names in homes.values() for name in names]
    assert sorted(listed) == sorted(set(models.__all__))
    for module, names in homes.items():
        own = importlib.import_module(f"qrelkit.models.{module}")
        assert [n for n in names if getattr(models, n) is not getattr(own, n)] == [], module


def test_the_judging_app_loads_the_list_before_the_other_screens() -> None:
    """The query list's first row waits for no other screen: importing the app (what `judge` does
    before its first frame) loads the list screen, not the judging, adjudication or dashboard
    screens nor the note panel's text area (issue 25: a usable list under 1 s)."""
    code = "import json, sys\nimport qrelkit.tui.app\nprint('MODULES', json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(Path(qrelkit.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    modules = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("MODULES ")).removeprefix("MODULES "))
    assert "qrelkit.tui.screens.query_list" in modules
    later = ["qrelkit.tui.screens.judging", "qrelkit.tui.screens.adjudication", "qrelkit.tui.screens.dashboard",
             "qrelkit.tui.widgets.note_panel", "textual.widgets._text_area"]  # fmt: skip
    assert [m for m in later if m in modules] == []


def test_pyarrows_tokeniser_imports_no_pandas() -> None:
    """A large run read through pyarrow's tokeniser takes its scores from the column's buffer:
    `to_numpy()` imported pandas when it was installed (0.46 s of CPU and 50 MiB per `score`)."""
    pytest.importorskip("pyarrow")
    code = (
        "import sys\nfrom qrelkit.formats.columns import trec_columns\n"
        "parsed = trec_columns(b'q1 Q0 d1 1 2.5 r\\nq1 Q0 d2 2 -1e3 r\\n', 'run', large=True)\n"
        "from qrelkit.formats import _arrow\n"
        "print('RESULT', parsed.columns.value.tolist(), _arrow.available(), 'pandas' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(qrelkit.__file__).resolve().parents[1])}
    env.pop("QRELKIT_NUMPY_TOKENISER", None)  # _arrow.DISABLE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    assert line == "RESULT [2.5, -1000.0] True False"


_texts = st.one_of(st.sampled_from(sorted(hostile.TEXT.values())), st.text(max_size=20), st.just(hostile.ALL_IN_ONE))
_parts = st.lists(
    st.one_of(
        _texts,
        st.tuples(_texts, st.sampled_from(["bold", "bold red", "dim"])),
        st.builds(_common.Data, _texts, st.sampled_from(["", "dim", "bold"])),
    ),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(_parts)
def test_a_line_said_without_rich_is_what_rich_prints_to_a_file(parts: list[_common.Part]) -> None:
    """`say` to a stream that is not a terminal writes `plain_line` without importing rich (`score
    --out`'s `wrote PATH`, `--min-coverage`'s line): byte for byte what rich's console prints there,
    hostile text (markup, escapes, control characters) included; a tab or newline is left to rich."""
    import io

    from rich.console import Console
    from rich.text import Text

    console = Console(file=io.StringIO(), highlight=False, soft_wrap=True)
    console.print(Text.assemble(*(_common._own(p) for p in parts)))  # noqa: SLF001
    line = _common.plain_line(tuple(parts))
    if line is not None:
        assert line + "\n" == console.file.getvalue()  # type: ignore[attr-defined]
    else:  # only a tab or a newline leaves the line to rich
        raw = [p if isinstance(p, str) else p[0] if isinstance(p, tuple) else str(p.text) for p in parts]  # type: ignore[union-attr]
        assert any("\t" in r or "\n" in r for r in raw)
