"""Standard input reads as the same file named (issue 30): it is copied as the readers read it,
the fast parser looks for a repeated pair block by block there (the input may never end), and
`import qrels -` goes to the exact reader; none of that may change what is read. Every case is
read from a file and from standard input, with every threshold lowered (blocks of a line or two,
copies of 5 bytes at a time): the same rows, the same sha256, the same error at the same line."""

from __future__ import annotations

import contextlib
import gzip
import io
import random
import sys
from pathlib import Path

import pytest

from conftest import Cli
from qrelkit.cli import cli as qrelkit
from qrelkit.errors import InputError
from qrelkit.formats.runs import read_qrels_file, read_run_file
from thresholds import lowered

Outcome = tuple[object, ...]


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """A fresh standard input holding `data` (each one is copied once, as a process's is)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _read(path: Path, kind: str) -> Outcome:
    try:
        found = read_run_file(path) if kind == "run" else read_qrels_file(path)
    except InputError as exc:
        return ("refused", exc.line, exc.message, exc.hint)
    c = found.columns
    return ("read", c.query.tolist(), c.doc.tolist(), c.value.tolist(), found.sha256)


def _lines(rng: random.Random, kind: str) -> list[str]:
    pairs = list({(f"q{rng.randrange(6)}", f"d{rng.randrange(60)}") for _ in range(rng.randrange(1, 80))})
    if kind == "run":
        lines = [f"{q} Q0 {d} {r} {rng.randrange(-8, 8) / 4} t" for r, (q, d) in enumerate(pairs, 1)]
    else:
        lines = [f"{q} 0 {d} {rng.randrange(-1, 4)}" for q, d in pairs]
    damage = rng.randrange(4)
    if damage == 1:  # a repeated pair, later on
        at = rng.randrange(len(lines))
        lines.insert(rng.randrange(at, len(lines)) + 1, lines[at])
    elif damage == 2:  # a bad field
        lines.insert(rng.randrange(len(lines) + 1), "q1 Q0 d1 1 x t" if kind == "run" else "q1 0 d1 x")
    elif damage == 3:  # a comment: the fast parser gives up, the exact reader reads it
        lines.insert(rng.randrange(len(lines) + 1), "# a comment")
    return lines


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("seed", range(30))
def test_standard_input_reads_as_the_file_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, seed: int
) -> None:
    rng = random.Random(seed)
    text = "\n".join(_lines(rng, kind)) + "\n"
    path = tmp_path / "f.txt"
    path.write_text(text)
    data = gzip.compress(text.encode()) if seed % 5 == 4 else text.encode()
    for low, compiled in ((False, False), (True, False), (True, True)):
        with lowered(compiled=compiled) if low else contextlib.nullcontext():
            named = tuple(x.replace(str(path), "<stdin>") if isinstance(x, str) else x for x in _read(path, kind))
            _stdin(monkeypatch, data)
            assert _read(Path("-"), kind) == named, (low, compiled)


QUERIES = "q0\tzero\nq1\tone\nq2\ttwo\n"


@pytest.mark.parametrize("seed", range(12))
def test_import_qrels_from_standard_input_is_the_file_named(tmp_path: Path, seed: int) -> None:
    """The same counts and the same labels, or the same error, as the file named (which the
    columnar bulk import reads)."""
    rng = random.Random(seed)
    lines = [line.replace("q5", "q1").replace("q3", "q0").replace("q4", "q2") for line in _lines(rng, "qrels")]
    text = "\n".join(lines) + "\n"
    outcomes = []
    for source in ("file", "stdin"):
        cli = Cli(tmp_path / source)
        cli.tmp.mkdir()
        cli("init")
        cli("import", "queries", "--stratum", "default", str(cli.write("q.tsv", QUERIES)))
        path = cli.write("x.qrels", text)
        with lowered():
            if source == "file":
                done = cli("import", "qrels", str(path), ok=False)
            else:
                done = cli.runner.invoke(
                    qrelkit, ["--db", str(cli.db), "import", "qrels", "-"], input=text.encode(), catch_exceptions=False
                )
        labels = cli("export", "qrels").output
        outcomes.append((done.exit_code, done.output.replace(str(path), "<stdin>"), labels))
    assert outcomes[0] == outcomes[1]
