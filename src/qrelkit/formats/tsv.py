"""Tab-separated queries: `ID<TAB>TEXT[<TAB>STRATUM]`, after an optional header row
(`id<TAB>text[<TAB>stratum]`)."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from ..errors import InputError
from ..models import Query
from .paths import PathLike, display
from .reading import read_lines
from .validation import describe

HINT = "query lines are 'ID<TAB>TEXT' or 'ID<TAB>TEXT<TAB>STRATUM'"


_ID_HEADERS = frozenset({"id", "_id", "qid", "query_id", "query-id", "queryid", "topic", "topic_id"})
_TEXT_HEADERS = frozenset({"text", "query", "title", "query_text", "question"})


def is_header(fields: list[str]) -> bool:
    """A first line that names its columns (`id<TAB>text[<TAB>stratum]`): skipped."""
    return (
        len(fields) in (2, 3)
        and fields[0].strip().lower() in _ID_HEADERS
        and fields[1].strip().lower() in _TEXT_HEADERS
        and (len(fields) == 2 or fields[2].strip().lower() == "stratum")
    )


def read_queries(path: PathLike) -> Iterator[tuple[int, Query]]:
    """(line number, query) for each line; a header row first (`id<TAB>text`) is skipped."""
    name = display(path)
    first = True
    for lineno, text in read_lines(path):
        if not text.strip():
            continue
        fields = text.split("\t")
        if first:
            first = False
            if is_header(fields):
                continue
        if len(fields) not in (2, 3):
            json_like = text.lstrip().startswith("{")
            raise InputError(
                f"expected 2 or 3 tab-separated fields, found {len(fields)}",
                "this line looks like JSON: pass --format jsonl" if json_like else HINT,
                path=name,
                line=lineno,
            )
        stratum = fields[2].strip() if len(fields) == 3 else ""
        try:  # a line without a stratum leaves it unset (`Query.model_fields_set`): the importer decides
            given = {"stratum": stratum} if stratum else {}
            yield lineno, Query(id=fields[0].strip(), text=fields[1].strip(), **given)
        except ValidationError as exc:
            raise InputError(describe(exc), HINT, path=name, line=lineno) from None
