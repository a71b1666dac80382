"""JSON Lines: one object per line for queries, documents, judgments, labels and runs. A line
that is not one JSON object, repeats a key, or holds an integer over 4,300 digits is an
`InputError` naming the line."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, TypeVar

from ..errors import InputError
from .ids import check_id, refuse_repeat
from .jsonsafe import DuplicateKeyError, refuse_lone_surrogates, unique_keys
from .paths import PathLike, display
from .reading import read_lines
from .trec import GRADE_MAX, GRADE_MIN, RUN_REPEAT_HINT, QrelRecord, RunRecord

if TYPE_CHECKING:  # pydantic loads where a line is validated: a JSON Lines run needs none
    from pydantic import BaseModel, ValidationError

    from ..models import Document, Query

M = TypeVar("M", bound="BaseModel")


def describe_validation_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as `field 'x': message` (pydantic's message; the line
    readers say it in our words instead, through `validation.describe`)."""
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
        refuse_lone_surrogates(text, obj, path=name, line=lineno, nested_hint=FLAT_HINT)
        yield lineno, obj


FLAT_HINT = "each line must be one flat JSON object"


def read_models(path: PathLike, model: type[M], hint: str | None = None) -> Iterator[tuple[int, M]]:
    """Yield (line number, model) for each line, validated by pydantic (its complaint said in
    our words, naming the field; an unknown field's hint lists the fields the line takes)."""
    name = display(path)
    for lineno, obj in read_objects(path):
        yield lineno, validate(model, obj, hint, name, lineno)


def validate(model: type[M], obj: dict[str, Any], hint: str | None, name: str, lineno: int) -> M:
    """`model` from one line's object; an `InputError` naming the file, line and field if it does not fit."""
    from pydantic import ValidationError

    from . import validation

    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        unknown = exc.errors()[0]["type"] == "extra_forbidden"
        raise InputError(
            validation.describe(exc), validation.fields_hint(model) if unknown else hint, path=name, line=lineno
        ) from None


RUN_HINT = 'run lines are {"query_id": "...", "doc_id": "...", "score": 1.5}'


def _pair(obj: dict[str, Any], hint: str, name: str, lineno: int) -> tuple[str, str]:
    """The line's `query_id` and `doc_id`, under the one id rule (`check_id`)."""
    qid, docid = obj.get("query_id"), obj.get("doc_id")
    if not isinstance(qid, str) or not isinstance(docid, str) or not qid or not docid:
        raise InputError("query_id and doc_id must be non-empty strings", hint, path=name, line=lineno)
    return check_id(qid, "query", name, lineno), check_id(docid, "document", name, lineno)


def read_run(path: PathLike, *, check_repeats: bool = True) -> Iterator[RunRecord]:
    """A run as JSONL with `query_id`, `doc_id`, `score` (a `rank`, if given, is an integer and is
    otherwise ignored, as in a TREC run); duplicates are errors naming both lines
    unless `check_repeats=False` (`formats.exact_columns` finds them from hashes)."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, obj in read_objects(path):
        qid, docid = _pair(obj, RUN_HINT, name, lineno)
        score = obj.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise InputError(f"score {score!r:.40} is not a finite number", RUN_HINT, path=name, line=lineno)
        rank = obj.get("rank")
        if "rank" in obj and (isinstance(rank, bool) or not isinstance(rank, int)):
            raise InputError(
                f"rank {rank!r:.40} is not an integer",
                "a rank, if given, is an integer (the score ranks)",
                path=name,
                line=lineno,
            )
        if check_repeats:
            message = f"document {docid!r} appears twice for query {qid!r}"
            refuse_repeat(seen, (qid, docid), lineno, message, RUN_REPEAT_HINT, name)
        yield RunRecord(qid, docid, float(score), lineno)


QRELS_HINT = 'qrels lines are {"query_id": "...", "doc_id": "...", "grade": 2} (as export qrels writes them)'


def read_qrels(path: PathLike, *, check_repeats: bool = True) -> Iterator[QrelRecord]:
    """Qrels as JSON Lines, as `export qrels --format jsonl` writes them (`query_id`, `doc_id`,
    integer `grade`; other keys are ignored); a repeated pair is an error naming both lines
    unless `check_repeats=False` (the store's import checks on disk)."""
    name = display(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, obj in read_objects(path):
        qid, docid = _pair(obj, QRELS_HINT, name, lineno)
        grade = obj.get("grade")
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise InputError(f"grade {grade!r:.40} is not an integer", QRELS_HINT, path=name, line=lineno)
        if not GRADE_MIN <= grade <= GRADE_MAX:
            raise InputError(
                f"grade {grade!r:.40} is out of range", "grades fit a signed 32-bit int", path=name, line=lineno
            )
        if check_repeats:
            message = f"duplicate judgment for query {qid!r} doc {docid!r}"
            refuse_repeat(seen, (qid, docid), lineno, message, "keep one line per (query, doc) pair", name)
        yield QrelRecord(qid, docid, grade, lineno)


DOCS_HINT = 'lines are {"id": ..., "title": ..., "text": ...} ("_id" works too; other fields are kept as metadata)'
_DOC_FIELDS = ("id", "_id", "title", "text", "metadata")


def _with_id(obj: dict[str, Any], name: str, lineno: int) -> dict[str, Any]:
    """The object with `_id` (BEIR's spelling) read as `id`."""
    if "_id" not in obj:
        return obj
    if "id" in obj:
        raise InputError("the line gives both 'id' and '_id'", "give one of them", path=name, line=lineno)
    return {"id": obj["_id"], **{k: v for k, v in obj.items() if k != "_id"}}


def document_from(obj: dict[str, Any], name: str, lineno: int) -> Document:
    """A document from one JSON line: `id` (or `_id`), `title`, `text`; any other field (`url`,
    the members of a `metadata` object) goes to `metadata`."""
    obj = _with_id(obj, name, lineno)
    nested = obj.get("metadata")
    metadata: dict[str, Any] = dict(nested) if isinstance(nested, dict) else {}
    if nested is not None and not isinstance(nested, dict):
        metadata["metadata"] = nested
    for key, value in obj.items():
        if key not in _DOC_FIELDS:
            if key in metadata:
                raise InputError(
                    f"field {key!r} is given twice (on the line and in its metadata)", "give it once",
                    path=name, line=lineno,
                )  # fmt: skip
            metadata[key] = value
    known: dict[str, Any] = {k: obj[k] for k in ("id", "title", "text") if k in obj}
    from ..models import Document

    return validate(Document, {**known, "metadata": metadata or None}, DOCS_HINT, name, lineno)


def read_documents(path: PathLike) -> Iterator[tuple[int, Document]]:
    """(line number, document) for each line of a documents JSONL file (see `document_from`)."""
    name = display(path)
    for lineno, obj in read_objects(path):
        yield lineno, document_from(obj, name, lineno)


QUERIES_HINT = 'lines are {"id": ..., "text": ..., "stratum": ...} ("_id" works too)'


def read_queries(path: PathLike) -> Iterator[tuple[int, Query]]:
    """(line number, query) for each line of a queries JSONL file; `_id` reads as `id`."""
    from ..models import Query

    name = display(path)
    for lineno, obj in read_objects(path):
        yield lineno, validate(Query, _with_id(obj, name, lineno), QUERIES_HINT, name, lineno)


def write_models(models: Iterable[BaseModel], out: IO[str]) -> int:
    """Write one compact JSON object per line (None fields left out); returns the line count."""
    n = 0
    for m in models:
        out.write(m.model_dump_json(exclude_none=True))
        out.write("\n")
        n += 1
    return n
