"""JSON dict runs and qrels, as pytrec_eval and ranx take them: one JSON object mapping each query
id to an object of document id -> score (a run) or integer grade (qrels):

    {"q1": {"d1": 1.5, "d2": 0.7}, "q2": {"d3": 2.0}}

The file is read whole (one JSON document) and walked member by member, so a bad value, a
repeated key or broken JSON is an `InputError` naming the line it is on.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Callable, Iterator
from typing import cast

from ..errors import InputError
from .ids import check_id
from .paths import PathLike, display
from .reading import read_bytes
from .trec import GRADE_MAX, GRADE_MIN, QrelRecord, RunRecord

RUN_HINT = 'a JSON run is {"QUERY_ID": {"DOC_ID": SCORE, ...}, ...}'
QRELS_HINT = 'JSON qrels are {"QUERY_ID": {"DOC_ID": GRADE, ...}, ...} with integer grades'

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Walker:
    """Walks one JSON object of objects, naming the line of anything wrong."""

    def __init__(self, raw: bytes, name: str, hint: str) -> None:
        self.name = name
        self.hint = hint
        try:
            self.text = raw.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise InputError(
                "not valid UTF-8 text",
                "save the file as UTF-8",
                path=self.name,
                line=raw.count(b"\n", 0, exc.start) + 1,
            ) from None
        self.newlines = [m.start() for m in re.finditer("\n", self.text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def error(self, pos: int, message: str) -> InputError:
        return InputError(message, self.hint, path=self.name, line=self.line(pos))

    def ws(self, pos: int) -> int:
        found = _WS.match(self.text, pos)
        return found.end() if found else pos

    def expect(self, pos: int, char: str, what: str) -> int:
        pos = self.ws(pos)
        if self.text[pos : pos + 1] != char:
            found = self.text[pos : pos + 1] or "the end of the file"
            raise self.error(pos, f"expected {what}, found {found!r}")
        return pos + 1

    def members(self, pos: int, on_member: Callable[[str, int], int]) -> int:
        """Walk the object at `pos`: `on_member(key, value position)` returns where its value ends;
        returns where the object ends. A repeated key is an error."""
        pos = self.ws(self.expect(pos, "{", "a JSON object"))
        if self.text[pos : pos + 1] == "}":
            return pos + 1
        seen: set[str] = set()
        while True:
            pos = self.ws(pos)
            if self.text[pos : pos + 1] != '"':
                raise self.error(pos, "expected a quoted key")
            value, end = self.number(pos)
            key = cast(str, value)  # what JSON reads at a double quote
            try:
                key.encode("utf-8")
            except UnicodeEncodeError:
                raise self.error(
                    pos, "a key holds a lone surrogate escape (\\uD800-\\uDFFF without its pair)"
                ) from None
            if key in seen:
                raise self.error(pos, f"the key {key[:40]!r} appears twice in one object")
            seen.add(key)
            pos = self.ws(on_member(key, self.ws(self.expect(end, ":", "':'"))))
            char = self.text[pos : pos + 1]
            if char == "}":
                return pos + 1
            if char != ",":
                raise self.error(pos, f"expected ',' or '}}', found {char or 'the end of the file'!r}")
            pos += 1

    def number(self, pos: int) -> tuple[object, int]:
        """The JSON value at `pos` (a number; or a key's string) and where it ends."""
        try:
            return _DECODER.raw_decode(self.text, pos)
        except json.JSONDecodeError as exc:
            raise self.error(exc.pos, f"not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise self.error(pos, "JSON nested too deeply") from None
        except ValueError:  # an integer over 4,300 digits
            raise self.error(pos, "a number is too long (over 4,300 digits)") from None

    def walk(self, on_pair: Callable[[str, str, object, int], None]) -> None:
        """Call `on_pair(query, doc, value, line)` for each pair, in file order."""

        def query(qid: str, pos: int) -> int:
            line = self.line(pos)
            check_id(qid, "query", self.name, line)

            def doc(docid: str, at: int) -> int:
                value, end = self.number(at)
                on_pair(qid, docid, value, self.line(at))
                return end

            return self.members(pos, doc)

        end = self.ws(self.members(self.ws(0), query))
        if end < len(self.text):
            raise self.error(end, "text after the JSON object")


def read_run(path: PathLike) -> Iterator[RunRecord]:
    """A JSON dict run (query -> doc -> score); scores must be finite numbers."""
    return run_from_bytes(read_bytes(path), display(path))


def read_qrels(path: PathLike) -> Iterator[QrelRecord]:
    """JSON dict qrels (query -> doc -> integer grade; negative: pooled, not judged)."""
    return qrels_from_bytes(read_bytes(path), display(path))


def run_from_bytes(raw: bytes, name: str) -> Iterator[RunRecord]:
    """`read_run` of a file's bytes, already read (`name` for messages)."""
    walker = _Walker(raw, name, RUN_HINT)
    records: list[RunRecord] = []

    def pair(qid: str, docid: str, score: object, line: int) -> None:
        check_id(docid, "document", walker.name, line)
        if not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score):
            raise InputError(f"score {score!r:.40} is not a finite number", RUN_HINT, path=walker.name, line=line)
        records.append(RunRecord(qid, docid, float(score), line))

    walker.walk(pair)
    return iter(records)


def qrels_from_bytes(raw: bytes, name: str) -> Iterator[QrelRecord]:
    """`read_qrels` of a file's bytes, already read (`name` for messages)."""
    walker = _Walker(raw, name, QRELS_HINT)
    records: list[QrelRecord] = []

    def pair(qid: str, docid: str, grade: object, line: int) -> None:
        check_id(docid, "document", walker.name, line)
        if not isinstance(grade, int) or isinstance(grade, bool):
            raise InputError(f"grade {grade!r:.40} is not an integer", QRELS_HINT, path=walker.name, line=line)
        if not GRADE_MIN <= grade <= GRADE_MAX:
            raise InputError(
                f"grade {grade!r:.40} is out of range", "grades fit a signed 32-bit int", path=walker.name, line=line
            )
        records.append(QrelRecord(qid, docid, grade, line))

    walker.walk(pair)
    return iter(records)
