"""The faces and the README's layout agree with the folders, read as they are (not from a list).

- Each package's `__init__` docstring lists its public children (modules not starting with `_`,
  and packages) in an indented table, one `    NAME[.py|/]  what it holds` line each, and
  lists nothing that is not there (a private module or another file may be listed if it exists).
  `ruff format` dedents a docstring whose lines after the first are all indented: a line of
  prose after the table keeps it indented.
- A lazy face (a package whose `__init__` defines `MODULES`, loaded by its `__getattr__`) names
  every public module, and each is an attribute in a fresh interpreter, before anything imported it.
- README.md's "folder | holds" table names every folder and top-level module of `src/qrelkit/`,
  and in each folder's row every public child, and no module that is not in that folder (but for
  a top-level module, `resolution.py`, which a row may point to); the layer
  diagram above it names every folder and top-level module too.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "qrelkit"
LISTED = re.compile(r"^ {4}(?P<name>[A-Za-z_][\w.-]*/?) {2,}\S", re.M)
MODULE_NAME = re.compile(r"^_?[a-z][a-z0-9_]*(\.py|/)?$")


def packages() -> list[Path]:
    return sorted(p.parent for p in SRC.rglob("__init__.py") if "__pycache__" not in p.parts)


def children(package: Path) -> set[str]:
    """The modules (without .py) and packages (with /) directly in a package, private ones included."""
    found = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    return found | {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}


def public(names: set[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def init_tree(package: Path) -> ast.Module:
    return ast.parse((package / "__init__.py").read_text(encoding="utf-8"))


def listed(package: Path) -> list[str]:
    return [m["name"] for m in LISTED.finditer(ast.get_docstring(init_tree(package), clean=False) or "")]


def as_child(name: str) -> str:
    return name.removesuffix(".py")


def lazy_modules(package: Path) -> list[str] | None:
    """The `MODULES` a face loads on first use, if it is such a face."""
    for node in init_tree(package).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MODULES" for t in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, (tuple, list)), package
            return [str(v) for v in value]
    return None


def test_every_face_lists_its_folder() -> None:
    problems = []
    for package in packages():
        where = package.relative_to(SRC.parent)
        names = listed(package)
        have = children(package)
        for missing in sorted(public(have) - {as_child(n) for n in names}):
            problems.append(f"{where}/__init__.py: lists no {missing}")
        for name in names:
            if as_child(name) not in have and not (package / name).is_file():
                problems.append(f"{where}/__init__.py: lists {name}, which is not in the folder")
    assert not problems, "\n".join(problems)


def test_lazy_faces_load_every_module_as_an_attribute() -> None:
    faces = {p: m for p in packages() if (m := lazy_modules(p)) is not None}
    assert faces, "no lazy face found (workflows/ is one)"
    for package, modules in faces.items():
        have = {n for n in public(children(package)) if not n.endswith("/")}
        assert sorted(modules) == sorted(have), f"{package.relative_to(SRC.parent)}: MODULES != the folder's modules"
        name = ".".join(package.relative_to(SRC.parent).parts)
        code = (  # nothing loaded by the import, then each module by its attribute
            f"import sys, {name} as face\n"
            f"modules = {modules!r}\n"
            f"assert not [m for m in modules if '{name}.' + m in sys.modules]\n"
            f"assert all(getattr(face, m) is sys.modules['{name}.' + m] for m in modules)\n"
            "print(sorted(face.__all__))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr
        assert set(modules) <= set(ast.literal_eval(out.stdout)), f"{name}.__all__ lacks some of MODULES"


def layout_table() -> list[tuple[list[str], list[str]]]:
    """(first cell's backticked names, holds cell's backticked names) of every row of the table."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| folder | holds | may import |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        rows.append((re.findall(r"`([^`]+)`", cells[0]), re.findall(r"`([^`]+)`", cells[1])))
    return rows


def top_level() -> set[str]:
    """What the layout names: every package (with /) and public module (.py) of src/qrelkit/."""
    return {f"{n}.py" if not n.endswith("/") else n for n in public(children(SRC)) if n != "__main__"}


def test_readme_layout_table_matches_the_folders() -> None:
    problems = []
    rows = layout_table()
    named = {name for first, _ in rows for name in first}
    problems += [f"README's layout table has no row for {n}" for n in sorted(top_level() - named)]
    problems += [f"README's layout table names {n}, which is not in src/qrelkit/" for n in sorted(named - top_level())]
    for first, holds in rows:
        folders = [SRC / n for n in first if n.endswith("/") and (SRC / n).is_dir()]
        if not folders:
            continue
        have = set().union(*(children(f) for f in folders))
        mentioned = {as_child(h) for h in holds if MODULE_NAME.match(h) and h not in top_level()}
        for missing in sorted(public(have) - mentioned):
            problems.append(f"README's row {', '.join(first)}: names no {missing}")
        for name in sorted(mentioned - have):
            problems.append(f"README's row {', '.join(first)}: names {name}, which is not there")
    assert not problems, "\n".join(problems)


def test_readme_layer_diagram_names_every_folder() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    diagram = text[text.index("## Architecture") :].split("```text\n", 1)[1].split("```", 1)[0]
    named = set(re.findall(r"\b([a-z_]+/|[a-z_]+\.py)(?=\s)", diagram))
    assert named == top_level(), f"the diagram: missing {top_level() - named}, extra {named - top_level()}"
