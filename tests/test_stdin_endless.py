"""Standard input and named pipes are validated as they are read (issue 30): an endless input
(`yes 'q 0 d 1' | qrelkit import qrels -`) stops at its first bad line, with exit status 2 and no
copy left behind, instead of being copied until the disk is nearly full; a signal that ends the
process (SIGHUP, SIGTERM) removes the copy too; and a good input piped in reads exactly as the
same file named."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import pytest

from conftest import ROOT, one_report

RUN = ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run"
QRELS = ROOT / "goldensets" / "pydocs" / "1.0" / "qrels.txt"
QUERIES = ROOT / "goldensets" / "pydocs" / "1.0" / "queries.jsonl"
LIMIT = 60.0
"""Seconds a command may take to stop (a few on an idle machine; the 2 cores are shared)."""

GENERATOR = """
import sys
head, line, numbered = sys.argv[1].encode(), sys.argv[2], sys.argv[3] == "1"
out = sys.stdout.buffer
out.write(head)
n = 0
try:
    while True:
        out.write("".join(line.replace("{n}", str(n + k)) for k in range(1000)).encode())
        n += 1000
except (BrokenPipeError, OSError):
    pass
"""
"""Writes `head`, then `line` (with `{n}` numbered) forever, until its reader goes away."""


def _env(tmp: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT / "src"), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": str(tmp)}


def _copies(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.glob("qrelkit-input-*"))


def _store(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    env = _env(tmp_path)
    for args in (["init"], ["import", "queries", "--create-strata", str(QUERIES)]):
        subprocess.run([sys.executable, "-m", "qrelkit", "--db", str(db), *args], env=env, check=True, timeout=120)
    return db


def _endless(head: str, line: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", GENERATOR, head, line, "1"], stdout=subprocess.PIPE)


def _qrelkit(args: list[str], stdin: int | IO[bytes] | None, tmp: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "qrelkit", *args], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_env(tmp), cwd=tmp,
    )  # fmt: skip


def _stops(args: list[str], head: str, line: str, tmp_path: Path) -> str:
    """Run `qrelkit ARGS` on `head` and then `line` forever; its error, once it has stopped by itself."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    gen = _endless(head, line)
    assert gen.stdout is not None
    proc = _qrelkit(args, gen.stdout, tmp)
    gen.stdout.close()  # the qrelkit process holds the read end
    try:
        _, err = proc.communicate(timeout=LIMIT)
    finally:
        proc.kill()
        gen.kill()
        gen.wait()
    assert proc.returncode == 2, err
    assert _copies(tmp) == []
    text = err.decode()
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in text, text
    return text


Q1 = json.loads(QUERIES.read_text().splitlines()[0])["id"]
QREL = f"{Q1} 0 d1 1\n"
RUN_LINE = f"{Q1} Q0 d1 1 1.5 r\n"
JUDGMENT = json.dumps({"query_id": Q1, "doc_id": "d{n}", "state": "graded", "grade": 1, "assessor": "a"}) + "\n"


@pytest.mark.parametrize(
    ("args", "head", "line", "found"),
    [
        (["import", "qrels", "-"], "", QREL, "<stdin>:2: duplicate judgment"),  # yes 'q 0 d 1'
        (["import", "qrels", "-"], f"{QREL}{Q1} 0 d2 x\n", f"{Q1} 0 x{{n}} 1\n", "<stdin>:2: "),
        (["import", "judgments", "-"], JUDGMENT + '{"query_id": 1}\n', JUDGMENT, "<stdin>:2: "),
        (["import", "judgments", "-"], JUDGMENT, JUDGMENT.replace('"grade": 1', '"grade": "x"'), "<stdin>:2: "),
        (["import", "queries", "-"], "", "q1\tx\tdefault\n", "<stdin>:2: query 'q1' repeats line 1"),
        (["import", "queries", "-"], "", json.dumps({"id": Q1, "text": "x"}) + "\n", f"<stdin>:2: query '{Q1}'"),
        (["score", "-", "--qrels", str(QRELS)], "", RUN_LINE, "<stdin>:2: document 'd1' appears twice"),
        (["score", "-", "--qrels", str(QRELS)], RUN_LINE + "x\n", f"{Q1} Q0 d{{n}} 1 1.5 r\n", "<stdin>:2: "),
        (["score", str(RUN), "--qrels", "-"], "", QREL, "<stdin>:2: duplicate judgment"),
        (["pool", "-", "-k", "5"], "", RUN_LINE, "<stdin>:2: document 'd1' appears twice"),
    ],
    ids=[
        "qrels-repeat",
        "qrels-field",
        "judgments-line1",
        "judgments-field",
        "queries-repeat",
        "queries-jsonl",
        "score-repeat",
        "score-field",
        "score-qrels-repeat",
        "pool-repeat",
    ],  # fmt: skip
)
def test_endless_standard_input_stops_at_its_first_bad_line(
    tmp_path: Path, args: list[str], head: str, line: str, found: str
) -> None:
    db = _store(tmp_path)
    started = time.monotonic()
    err = _stops(["--db", str(db), *args], head, line, tmp_path)
    assert found in err, err
    assert "-:" not in err
    assert time.monotonic() - started < LIMIT


def test_an_endless_named_pipe_stops_at_its_first_bad_line(tmp_path: Path) -> None:
    """`qrelkit score <(yes ...)`: a named pipe is read as it is copied, as standard input is."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    stop = threading.Event()

    def feed() -> None:
        try:
            with open(fifo, "wb") as fh:
                while not stop.is_set():
                    fh.write(RUN_LINE.encode() * 1000)
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    proc = _qrelkit(["score", str(fifo), "--qrels", str(QRELS)], subprocess.DEVNULL, tmp)
    try:
        _, err = proc.communicate(timeout=LIMIT)
    finally:
        proc.kill()
        stop.set()
    assert proc.returncode == 2 and f"{fifo}:2: document 'd1' appears twice" in err.decode(), err
    assert _copies(tmp) == []


READER = "from qrelkit.formats.reading import read_lines\nfor _ in read_lines('-'):\n    pass\n"
"""Python reading standard input through qrelkit's readers, with no handler of its own."""


def _default_signals() -> None:
    """The child starts with SIGHUP and SIGTERM at their default action: a test run under `nohup`
    hands its children SIGHUP ignored, and a process that ignores SIGHUP rightly lives on."""
    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize(
    ("program", "signum", "status"),
    [
        (["-m", "qrelkit", "score", "-", "--qrels", str(QRELS)], signal.SIGHUP, -signal.SIGHUP),
        (["-m", "qrelkit", "score", "-", "--qrels", str(QRELS)], signal.SIGTERM, 130),  # the CLI's Ctrl-C
        (["-c", READER], signal.SIGHUP, -signal.SIGHUP),
        (["-c", READER], signal.SIGTERM, -signal.SIGTERM),
    ],
    ids=["cli-hup", "cli-term", "reader-hup", "reader-term"],
)
def test_a_signal_removes_the_copy_of_standard_input(
    tmp_path: Path, program: list[str], signum: int, status: int
) -> None:
    """atexit does not run on a signal's default action: the copy is removed by a handler, and the
    process still ends as the signal ends it (the CLI takes SIGTERM for Ctrl-C: exit 130)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    gen = _endless("", f"{Q1} Q0 d{{n}} 1 1.5 r\n")  # never a bad line: it reads on until stopped
    assert gen.stdout is not None
    proc = subprocess.Popen(
        [sys.executable, *program], stdin=gen.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_env(tmp), cwd=tmp, preexec_fn=_default_signals,
    )  # fmt: skip
    gen.stdout.close()
    try:
        deadline = time.monotonic() + LIMIT
        while not _copies(tmp) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert _copies(tmp), "no copy of standard input was made"
        time.sleep(0.3)  # well into the reading
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=LIMIT)
    finally:  # a failure above leaves no process, nor a pipe, for the next test to trip on
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        gen.kill()
        gen.wait()
    assert proc.returncode == status, err
    assert _copies(tmp) == []


def _score(args: list[str], tmp: Path, data: bytes | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", *args, "--format", "json", "--per-query"],
        input=data, capture_output=True, env=_env(tmp), cwd=tmp, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _copies(tmp) == []
    return one_report(done.stdout.decode())


def _same(piped: dict[str, object], named: dict[str, object]) -> None:
    for key in ("per_query", "metrics", "queries"):
        assert piped[key] == named[key], key
    fp, fn = piped["fingerprint"], named["fingerprint"]
    assert isinstance(fp, dict) and isinstance(fn, dict)
    assert fp["run"]["sha256"] == fn["run"]["sha256"]
    assert fp["qrels"]["sha256"] == fn["qrels"]["sha256"]


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_good_input_piped_reads_as_the_same_file_named(tmp_path: Path, compress: bool) -> None:
    """Several blocks of the fast parser (the run is repeated under new query ids to pass one)."""
    lines = RUN.read_text().splitlines(keepends=True)
    big = "".join(line.replace(" ", f"_{k} ", 1) for k in range(40) for line in lines)
    qrels = "".join(line.replace(" ", f"_{k} ", 1) for k in range(40) for line in QRELS.read_text().splitlines(True))
    run, qrels_file = tmp_path / "big.run", tmp_path / "big.qrels"
    run.write_text(big)
    qrels_file.write_text(qrels)
    assert run.stat().st_size > 4 << 20  # more than one block
    data = gzip.compress(big.encode()) if compress else big.encode()
    named = _score([str(run), "--qrels", str(qrels_file)], tmp_path)
    _same(_score(["-", "--qrels", str(qrels_file)], tmp_path, data), named)
    _same(_score([str(run), "--qrels", "-"], tmp_path, qrels.encode()), named)
    repeat = big + big.splitlines(keepends=True)[-1]  # a repeated pair on the last line only
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "score", "-", "--qrels", str(qrels_file)],
        input=repeat.encode(), capture_output=True, env=_env(tmp_path), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    last = len(repeat.splitlines())
    assert done.returncode == 2 and f"<stdin>:{last}: document" in done.stderr.decode(), done.stderr
