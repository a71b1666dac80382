"""Tab-separated queries: `ID<TAB>TEXT[<TAB>STRATUM]`."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from ..errors import InputError
from ..models import Query
from ._io import PathLike, display, read_lines
from .jsonl import describe_validation_error

HINT = "query lines are 'ID<TAB>TEXT' or 'ID<TAB>TEXT<TAB>STRATUM'"


def read_queries(path: PathLike) -> Iterator[tuple[int, Query]]:
    name = display(path)
    for lineno, text in read_lines(path):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) not in (2, 3):
            raise InputError(
                f"expected 2 or 3 tab-separated fields, found {len(fields)}",
                HINT,
                path=name,
                line=lineno,
            )
        stratum = fields[2].strip() if len(fields) == 3 else ""
        try:  # a line without a stratum leaves it unset (`Query.model_fields_set`): the importer decides
            given = {"stratum": stratum} if stratum else {}
            yield lineno, Query(id=fields[0].strip(), text=fields[1].strip(), **given)
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc), HINT, path=name, line=lineno) from None
