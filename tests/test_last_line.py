"""`reading.last_line` (a run's tag for `--format trec_eval`, read from the file's end) against its
exact twin, the last such line of a forward read, on irregular files and every block size."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.errors import InputError
from qrelkit.formats import reading

LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n\r"), max_size=40)


def _kept(text: str) -> bool:
    return bool(text.strip()) and not text.lstrip().startswith("#")


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.one_of(LINE, st.just(""), st.just("# a comment"), st.just("  ")), max_size=30),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    block=st.integers(1, 80),
)
def test_the_last_line_from_the_end_is_the_last_line_read_through(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], crlf: bool, bom: bool, final_newline: bool, block: int
) -> None:
    folder = tmp_path_factory.mktemp("last")
    end = "\r\n" if crlf else "\n"
    data = (b"\xef\xbb\xbf" if bom else b"") + (end.join(lines) + (end if final_newline and lines else "")).encode()
    plain, gz = folder / "run.txt", folder / "run.txt.gz"
    plain.write_bytes(data)
    gz.write_bytes(gzip.compress(data))
    expected = None
    for _, text in reading.read_lines(plain):
        if _kept(text):
            expected = text
    assert reading.last_line(plain, _kept, block=block) == expected
    assert reading.last_line(gz, _kept, block=block) == expected


def test_a_file_that_is_not_utf8_near_its_end_is_read_through_and_named(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 1.0 tag\n\xff\xfe broken\n")
    with pytest.raises(InputError, match=f"{path}:2: not valid UTF-8"):  # named, as every reader does
        reading.last_line(path, _kept, block=4)
