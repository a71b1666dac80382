"""JSON Lines: one object per line for queries, documents, judgments, labels and runs. A line
that is not one JSON object, repeats a key, or holds an integer over 4,300 digits is an
`InputError` naming the line."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ._io import DuplicateKeyError, PathLike, check_id, display, read_lines, refuse_repeat, unique_keys
from .trec import RUN_REPEAT_HINT, RunRecord

M = TypeVar("M", bound=BaseModel)


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as `field 'x': message`."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    return f"field {loc!r}: {err['msg']}" if loc else str(err["msg"])


def read_objects(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, JSON object) for each non-blank line."""
    name = display(path)
    for lineno, text in read_lines(path):
        if not text.strip():
            continue
        try:
            obj = json.loads(text, object_pairs_hook=unique_keys)
        except RecursionError:
            raise InputError(
                "JSON nested too deeply", "each line must be one flat JSON object", path=name, line=lineno
            ) from None
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not valid JSON ({exc.msg} at column {exc.colno})",
                "each line must be one JSON object",
                path=name,
                line=lineno,
            ) from None
        except DuplicateKeyError as exc:
            raise InputError(str(exc), "give each key once", path=name, line=lineno) from None
        except ValueError:  # an integer over 4,300 digits ("Exceeds the limit")
            raise InputError("a number is too long (over 4,300 digits)", path=name, line=lineno) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, found {type(obj).__name__}",
                "each line must be one JSON object",
                path=name,
                line=lineno,
            )
        yield lineno, obj


def read_models(path: PathLike, model: type[M], hint: str | None = None) -> Iterator[tuple[int, M]]:
    """Yield (line number, model) for each line, validated by pydantic."""
    name = display(path)
    for lineno, obj in read_objects(path):
        try:
            yield lineno, model.model_validate(obj)
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc), hint, path=name, line=lineno) from None


RUN_HINT = 'run lines are {"query_id": "...", "doc_id": "...", "score": 1.5}'


def read_run(path: PathLike) -> Iterator[RunRecord]:
    """A run as JSONL with `query_id`, `doc_id`, `score`; duplicates are errors naming both lines."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, obj in read_objects(path):
        qid, docid, score = obj.get("query_id"), obj.get("doc_id"), obj.get("score")
        if not isinstance(qid, str) or not isinstance(docid, str) or not qid or not docid:
            raise InputError("query_id and doc_id must be non-empty strings", RUN_HINT, path=name, line=lineno)
        check_id(qid, "query", name, lineno)
        check_id(docid, "document", name, lineno)
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise InputError(f"score {score!r} is not a finite number", RUN_HINT, path=name, line=lineno)
        refuse_repeat(
            seen, (qid, docid), lineno, f"document {docid!r} appears twice for query {qid!r}", RUN_REPEAT_HINT, name
        )
        yield RunRecord(qid, docid, float(score), lineno)


def write_models(models: Iterable[BaseModel], out: IO[str]) -> int:
    """Write one compact JSON object per line (None fields left out); returns the line count."""
    n = 0
    for m in models:
        out.write(m.model_dump_json(exclude_none=True))
        out.write("\n")
        n += 1
    return n
