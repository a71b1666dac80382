"""No output path may be the store or an input; a gate fails closed on a value it cannot compare."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import ROOT, Cli, one_report
from qrelkit.models import Comparison
from qrelkit.workflows.compare import gate_pair, worse_than

DEMO = ROOT / "goldensets" / "pydocs"
RUN = DEMO / "runs" / "bm25.run"


@pytest.mark.parametrize("command", [["export", "qrels"], ["export", "judgments"], ["score", str(RUN)]])
def test_out_may_not_be_the_store_however_it_is_spelled(run_cli: Cli, command: list[str]) -> None:
    run_cli("import", "version", str(DEMO / "1.0"))
    before = run_cli.db.read_bytes()
    link = run_cli.tmp / "link.db"
    link.symlink_to(run_cli.db)
    for target in (run_cli.db, link, run_cli.tmp / "." / run_cli.db.name, Path(str(run_cli.db) + "-wal")):
        refused = run_cli(*command, "--out", str(target), ok=False)
        assert refused.exit_code == 2 and "is the store" in refused.output, refused.output
        assert len(refused.output.strip().splitlines()) == 1
    assert run_cli.db.read_bytes() == before
    assert "pydocs" in run_cli("status").output


def test_out_may_not_be_an_input_nor_inside_a_version(run_cli: Cli, tmp_path: Path) -> None:
    run = tmp_path / "mine.run"
    run.write_bytes(RUN.read_bytes())
    golden = str(DEMO / "1.0")
    refused = run_cli("score", str(run), "--golden", golden, "--out", str(run), ok=False)
    assert refused.exit_code == 2 and "is an input" in refused.output and run.read_bytes() == RUN.read_bytes()
    inside = run_cli("score", str(run), "--golden", golden, "--out", str(DEMO / "1.0" / "report.txt"), ok=False)
    assert inside.exit_code == 2 and "inside the input folder" in inside.output
    assert not (DEMO / "1.0" / "report.txt").exists()
    other = tmp_path / "other.run"
    other.write_bytes(RUN.read_bytes())
    cmp = run_cli("compare", str(run), str(other), "--golden", golden, "--out", str(other), ok=False)
    assert cmp.exit_code == 2 and "is an input" in cmp.output
    assert run_cli("score", str(run), "--golden", golden, "--out", str(tmp_path / "ok.txt")).exit_code == 0


def test_nothing_writes_into_a_frozen_version_that_is_not_an_input(run_cli: Cli, tmp_path: Path) -> None:
    """`--out` (or `freeze --out`, `schemas write --dir`) into any frozen version folder broke
    that version for good; refused, whichever version and however the path is spelled."""
    run_cli("import", "version", str(DEMO / "1.0"))
    sets = tmp_path / "sets"
    run_cli("freeze", "g", "1", "--out", str(sets))
    version = sets / "g" / "1"
    before = {p.name: p.read_bytes() for p in version.iterdir()}
    attempts = [
        ("export", "qrels", "--out", str(version / "qrels.txt")),
        ("export", "judgments", "--out", str(version / "new.jsonl")),
        ("score", str(RUN), "--out", str(version / "sub" / ".." / "qrels.txt")),
        ("freeze", "h", "1", "--out", str(version)),
        ("schemas", "write", "--dir", str(version / "schemas")),
    ]
    for command in attempts:
        refused = run_cli(*command, ok=False)
        assert refused.exit_code == 2 and "inside the frozen version" in refused.output, (command, refused.output)
        assert len(refused.output.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in version.iterdir()} == before
    assert run_cli("verify", str(version)).exit_code == 0
    assert run_cli("export", "qrels", "--out", str(sets / "g" / "qrels.txt")).exit_code == 0  # beside it is fine


def test_a_gate_fails_closed_on_a_value_it_cannot_compare(run_cli: Cli) -> None:
    golden = str(DEMO / "1.0")
    paths = []
    for name in ("bm25", "bm25-title"):
        target = run_cli.tmp / f"{name}.json"
        run_cli("score", str(DEMO / "runs" / f"{name}.run"), "--golden", golden, "--per-query", "--format", "json",
                "--out", str(target))  # fmt: skip
        paths.append(target)
    c = Comparison.model_validate_json(run_cli("compare", *map(str, paths), "--format", "json").output)
    m = c.metrics["nDCG@10"]
    broken = c.model_copy(update={"metrics": {**c.metrics, "nDCG@10": m.model_copy(update={"ci95": (math.nan, 0.1)})}})
    assert worse_than(broken, "nDCG@10", 0.0) is not None and "fails closed" in str(worse_than(broken, "nDCG@10", 0.0))
    nan_delta = m.model_copy(update={"delta": math.nan})
    broken = c.model_copy(update={"metrics": {**c.metrics, "nDCG@10": nan_delta}})
    assert gate_pair(broken, "nDCG@10", "R@50") is not None
    # a saved report holding NaN: the CLI gate fails (exit 1), never "stable" and exit 0
    data = one_report(paths[1].read_text())
    for q in data["per_query"]:
        data["per_query"][q]["nDCG@10"]["value"] = float("nan")
    paths[1].write_text(json.dumps({"reports": [data]}))
    gated = run_cli("compare", *map(str, paths), "--fail-if-worse", "nDCG@10:0.5", ok=False)
    assert gated.exit_code != 0, gated.output


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _rows(text: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text, newline="")))


def _runs_named(tmp: Path, *names: str) -> list[Path]:
    paths = []
    for name, source in zip(names, ["bm25-title", "bm25", "bm25", "bm25"], strict=False):
        path = tmp / name
        path.write_bytes((DEMO / "runs" / f"{source}.run").read_bytes())
        paths.append(path)
    return paths


def test_csv_text_cells_that_a_spreadsheet_would_run_as_formulas_are_written_as_text(run_cli: Cli) -> None:
    """OWASP's rule against CSV injection: a text cell (run, query, metric, stratum) starting with
    `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`; numbers stay numbers, the
    negative ones too."""
    golden = str(DEMO / "1.0")
    runs = _runs_named(run_cli.tmp, "=1+1.run", "+SUM(A1).run", "-2+3.run", "@cmd.run")
    tabbed = _runs_named(run_cli.tmp, "\t=x.run")[0]
    cells: list[str] = []
    for args in (
        ["score", str(runs[0]), str(tabbed), "--format", "csv"],
        ["score", str(runs[0]), "--format", "csv", "--per-query"],
        ["compare", *map(str, runs), "--format", "csv"],
        ["sensitivity", *map(str, runs), "--format", "csv"],
    ):
        rows = _rows(run_cli(*args, "--golden", golden).output)
        cells += [c for row in rows[1:] for c in row]
    names = {c for c in cells if c.lstrip("'").endswith(".run")}
    assert names == {"'=1+1.run", "'+SUM(A1).run", "'-2+3.run", "'@cmd.run", "'\t=x.run"}, names
    # query ids and the computed numbers: a negative delta is a number, not text
    board = _rows(run_cli("compare", *map(str, runs), "--format", "csv", "--golden", golden).output)
    deltas = [row[board[0].index("delta")] for row in board[1:] if row[board[0].index("delta")]]
    assert any(d.startswith("-") for d in deltas) and all(_number(d) for d in deltas), deltas
    qrels = run_cli.write("q.qrels", "=q 0 a 1\n-q 0 a 1\n@q 0 a 1\n+q 0 b 1\nok 0 a 1\n")
    run = run_cli.write("r.run", "".join(f"{q} Q0 c 1 1.0 r\n" for q in ("=q", "-q", "@q", "+q", "ok")))
    per_query = _rows(
        run_cli(
            "score", str(run), "--qrels", str(qrels), "--metrics", "Utility", "--format", "csv", "--per-query"
        ).output
    )
    assert sorted(r[1] for r in per_query[1:]) == ["'+q", "'-q", "'=q", "'@q", "ok"]
    assert {r[3] for r in per_query[1:]} == {"-1.0"}  # Utility: a negative number, written as one
    assert not any(c.startswith(FORMULA_STARTS) and not _number(c) for c in cells)


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_latex_writes_newlines_and_tabs_in_names_visibly(run_cli: Cli) -> None:
    """A run named `a<LF><LF>b.run` ended the tabular's row (a blank line is a paragraph break,
    which LaTeX refuses inside a tabular): newlines, tabs and every other control character in
    data are written as the terminal shows them (`\\x0a`), besides the escaped special characters."""
    runs = _runs_named(run_cli.tmp, "a\n\nb.run", "t\tab&.run", "cr\r%.run")
    latex = run_cli("compare", *map(str, runs), "--format", "latex", "--golden", str(DEMO / "1.0")).output
    lines = latex.splitlines()
    assert "" not in lines
    rows = [line for line in lines if line.endswith("\\\\") and not line.startswith("Run & ")]
    assert [r.split(" & ")[0] for r in rows] == [
        "a\\textbackslash{}x0a\\textbackslash{}x0ab.run",
        "t\\textbackslash{}x09ab\\&.run",
        "cr\\textbackslash{}x0d\\%.run",
    ]
    caption = next(line for line in lines if line.startswith("\\caption{"))
    assert caption.startswith("\\caption{Baseline a\\textbackslash{}x0a\\textbackslash{}x0ab.run first.")
    assert "\t" not in latex and "\r" not in latex
