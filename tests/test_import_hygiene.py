"""The core is reachable without the edges: layers below cli/tui load neither textual nor sqlite,
and the layering the import-linter contracts declare (pyproject.toml) holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("textual", "click")
SRC = Path(__file__).resolve().parents[1] / "src" / "qrelkit"


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("qrelkit", HEAVY + ("sqlite3",)),
        ("qrelkit.errors", HEAVY + ("numpy", "sqlite3")),
        ("qrelkit.models", HEAVY + ("numpy", "sqlite3")),
        ("qrelkit.formats", HEAVY + ("numpy", "sqlite3")),
        ("qrelkit.scoring", HEAVY + ("sqlite3", "rich")),
        ("qrelkit.versioning", HEAVY + ("numpy", "sqlite3")),
        ("qrelkit.render", ("textual", "click", "sqlite3", "numpy")),
        ("qrelkit.workflows", HEAVY + ("numpy", "sqlite3", "rich")),
        ("qrelkit.storage", HEAVY + ("numpy", "rich")),
    ],
)
def test_layer_does_not_load_edges(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}; bad = [m for m in {forbidden!r} if m in sys.modules]; print(','.join(bad))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} loaded {out.stdout.strip()}"


def test_scoring_a_run_loads_no_edge() -> None:
    """The scoring workflow, run from Python, never loads the terminal UI or the CLI."""
    code = (
        "import sys; from qrelkit.workflows import scoring, sources; "
        "print(','.join(m for m in ('textual', 'click', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_creating_a_store_loads_no_table_builder() -> None:
    """The schema is SQL written out (storage/schema.py): a new store loads no sqlite-utils."""
    code = (
        "import sys, tempfile, pathlib; from qrelkit.storage import Store; "
        "Store.open(pathlib.Path(tempfile.mkdtemp()) / 's.db'); "
        "print(','.join(m for m in ('sqlite_utils', 'click', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_only_storage_speaks_sql() -> None:
    """The store is the only sqlite user: no module above it reaches into a store's connection
    (`store.conn`) to run SQL of its own."""
    import ast

    users = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).parts[0] == "storage":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "conn":
                users.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert users == []


def _imported_modules(path: Path) -> set[str]:
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_import_contracts_hold() -> None:
    """`lint-imports` (import-linter) over the contracts in pyproject.toml: the layers, cli and tui
    independent, storage without scoring, the edges never reaching the store."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], capture_output=True, text=True, cwd=SRC.parents[1])
    assert out.returncode == 0, out.stdout + out.stderr


def test_no_module_over_600_lines() -> None:
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > 600}
    assert not long


LONG_FUNCTIONS = {
    "scoring/kernels.py:ndcg": "dense numerics: exact bounds over every multiset of grades, one ideal-DCG table",
}
"""Functions allowed over 60 lines, with the reason (also listed in README, "Architecture")."""


def _function_lengths() -> dict[str, int]:
    import ast

    lengths: dict[str, int] = {}
    for p in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                key = f"{p.relative_to(SRC)}:{node.name}"
                lengths[key] = max(lengths.get(key, 0), (node.end_lineno or node.lineno) - start + 1)
    return lengths


def test_no_function_over_60_lines() -> None:
    lengths = _function_lengths()
    long = {key: n for key, n in lengths.items() if n > 60 and key not in LONG_FUNCTIONS}
    assert not long, long
    # an exception no longer needed is an alert too: each one still exists and is still over 60 lines
    stale = {key: lengths.get(key) for key in LONG_FUNCTIONS if lengths.get(key, 0) <= 60}
    assert not stale, f"remove from LONG_FUNCTIONS (and the README): {stale}"


def test_every_import_contract_alerts_on_an_exception_no_longer_needed() -> None:
    """A contract's `ignore_imports` entry that matches no import fails `lint-imports` (the alerting
    is set on every contract, whichever default import-linter has)."""
    import tomllib

    contracts = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert contracts and all(c.get("unmatched_ignore_imports_alerting") == "error" for c in contracts), [
        c["name"] for c in contracts if c.get("unmatched_ignore_imports_alerting") != "error"
    ]
    assert any(c["type"] == "acyclic_siblings" and c["ancestors"] == ["qrelkit"] for c in contracts)


def test_no_module_imports_a_private_module_of_another_folder() -> None:
    """A module of qrelkit whose name starts with `_` belongs to its folder: others import the public
    ones. (Another package's private module is that package's business: `tui.widgets.title_header`
    builds on Textual's header parts, held by its tests to the installed Textual.)"""
    import ast

    found = []
    for p in SRC.rglob("*.py"):
        package = p.relative_to(SRC).parts[:-1]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and (node.level or node.module.startswith("qrelkit.")):
                base = package[: len(package) - node.level + 1] if node.level else ()
                parts = (*base, *node.module.split(".")) if node.level else tuple(node.module.split(".")[1:])
                for i, part in enumerate(parts):
                    if part.startswith("_") and not part.startswith("__") and parts[:i] != package:
                        found.append(f"{p.relative_to(SRC)}:{node.lineno} imports {'.'.join(parts)}")
    assert not found, found
