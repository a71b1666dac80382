"""The core is reachable without the edges: layers below cli/tui load neither textual nor sqlite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("textual", "sqlite_utils", "click")


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("qrelkit", HEAVY),
        ("qrelkit.errors", HEAVY + ("numpy",)),
        ("qrelkit.models", HEAVY + ("numpy",)),
        ("qrelkit.formats", HEAVY + ("numpy",)),
        ("qrelkit.scoring", HEAVY),
        ("qrelkit.storage", ("textual",)),  # sqlite_utils itself loads click
    ],
)
def test_layer_does_not_load_edges(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}; bad = [m for m in {forbidden!r} if m in sys.modules]; print(','.join(bad))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} loaded {out.stdout.strip()}"


def test_only_storage_imports_sqlite_utils() -> None:
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "qrelkit"
    users = sorted(
        str(p.relative_to(src)) for p in src.rglob("*.py") if any("sqlite_utils" in m for m in _imported_modules(p))
    )
    assert users == ["storage.py"]


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


def test_cli_and_tui_do_not_import_each_other() -> None:
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "qrelkit"
    assert not {m for m in _imported_modules(src / "cli.py") if "tui" in m}
    for path in (src / "tui").rglob("*.py"):
        assert not {m for m in _imported_modules(path) if m.endswith("cli") or ".cli." in m}
