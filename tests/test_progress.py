"""Progress reports: readers report bytes, scoring reports measures; the CLI draws a bar from them."""

from __future__ import annotations

import gzip
from pathlib import Path

from qrelkit import progress
from qrelkit.formats import trec
from qrelkit.formats.reading import read_blocks
from qrelkit.scoring import evaluate


def _collect() -> tuple[list[tuple[str, int, int]], progress.Callback]:
    seen: list[tuple[str, int, int]] = []
    return seen, lambda task, done, total: seen.append((task, done, total))


def test_readers_report_bytes_up_to_the_file_size(tmp_path: Path) -> None:
    path = tmp_path / "big.qrels"
    path.write_text("".join(f"q{i % 100} 0 d{i} {i % 4}\n" for i in range(300_000)))
    seen, callback = _collect()
    with progress.reporting(callback):
        assert sum(1 for _ in trec.read_qrels(path, check_repeats=False)) == 300_000
    done = [d for _, d, _ in seen]
    assert len(seen) > 3 and done == sorted(done)
    assert seen[-1] == ("reading big.qrels", path.stat().st_size, path.stat().st_size)
    seen.clear()
    with progress.reporting(callback):
        assert sum(len(b) for b in read_blocks(path, size=1 << 20)) == path.stat().st_size
    assert seen[-1][1] == path.stat().st_size


def test_gzip_reports_compressed_bytes(tmp_path: Path) -> None:
    path = tmp_path / "big.qrels.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("".join(f"q{i % 100} 0 d{i} 1\n" for i in range(200_000)))
    seen, callback = _collect()
    with progress.reporting(callback):
        list(trec.read_qrels(path, check_repeats=False))
    assert seen[-1][1] == seen[-1][2] == path.stat().st_size


def test_nothing_is_reported_without_a_callback(tmp_path: Path) -> None:
    path = tmp_path / "x.qrels"
    path.write_text("q 0 d 1\n")
    assert not progress.active()
    assert list(trec.read_qrels(path))[0].doc_id == "d"


def test_scoring_reports_measures() -> None:
    seen, callback = _collect()
    with progress.reporting(callback):
        evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "P@1,RR,nDCG@10")
    assert [(t, d, n) for t, d, n in seen if t == "computing measures"][-1] == ("computing measures", 3, 3)


def test_the_cli_draws_a_bar_on_a_terminal_after_the_delay(monkeypatch: object) -> None:
    import io

    from rich.console import Console

    from qrelkit.cli import _common

    console = Console(file=io.StringIO(), force_terminal=True, width=80)
    monkeypatch.setattr(_common, "err", _common.LazyConsole(stderr=True, console=console))  # type: ignore[attr-defined]
    with _common.progress_bar(delay=0.0):
        progress.report("reading x.run", 50, 100)
        progress.report("reading x.run", 100, 100)
    assert "reading x.run" in console.file.getvalue()  # type: ignore[attr-defined]
