"""A line longer than the limit is refused by the block reader (the fast paths' source) as by the
line reader (the exact one), naming the same line, before a parser holds it (issue 30: a 200 MB
rank field took 41.6 s and 1.27 GB before the exact reader refused it; now 3.6 s, 179 MB)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.formats import reading


def _outcome(read: object) -> tuple[str, int | None]:
    try:
        for _ in read:  # type: ignore[attr-defined]
            pass
    except InputError as exc:
        return ("refused", exc.line)
    return ("read", None)


@settings(max_examples=300, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 40), min_size=1, max_size=12),
    last_newline=st.booleans(),
    limit=st.sampled_from([8, 9, 16]),
    block=st.sampled_from([1, 3, 7, 16, 64, 1 << 20]),
)
def test_the_block_reader_refuses_the_line_the_line_reader_refuses(
    tmp_path_factory: pytest.TempPathFactory, lengths: list[int], last_newline: bool, limit: int, block: int
) -> None:
    body = b"\n".join(b"x" * n for n in lengths) + (b"\n" if last_newline else b"")
    path = Path(tmp_path_factory.mktemp("lines")) / "f.txt"
    path.write_bytes(body)
    mp = pytest.MonkeyPatch()
    mp.setattr(reading, "MAX_LINE_BYTES", limit)
    try:
        exact = _outcome(reading.read_lines(path))
        blocks = _outcome(reading.read_blocks(path, block))
    finally:
        mp.undo()
    assert blocks == exact, (lengths, last_newline, limit, block)


def test_a_200_mb_line_is_refused_without_reading_it_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "long.run"
    path.write_bytes(b"q Q0 d 1 1.5 r\n" * 3 + b"q d " + b"1" * (3 << 20) + b" 1.5\n")
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 1 << 20)
    seen = []
    with pytest.raises(InputError, match="longer than 1 MiB") as refused:
        for chunk in reading.read_blocks(path, 1 << 16):
            seen.append(len(chunk))
    assert refused.value.line == 4 and sum(seen) < (2 << 20)
