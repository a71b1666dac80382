"""Saved JSON documents read back: score reports (`score --format json`), and any one-document
file a model checks (a version's manifest). Every problem is an `InputError` naming the file:
nested too deeply, not JSON (with the line), a key repeated in one object (JSON would read it
last-wins), an integer too long to convert (with the line), or not what the model expects (with
the field)."""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ..models import ScoreReport
from .jsonl import describe_validation_error
from .jsonsafe import DuplicateKeyError, long_number_line, unique_keys
from .paths import PathLike, display
from .reading import read_text

M = TypeVar("M", bound=BaseModel)

REPORT_HINT = "give a report from `score --format json`"


def _load(path: PathLike, hint: str | None) -> Any:
    name = display(path)
    text = read_text(path)
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except RecursionError:
        raise InputError("JSON nested too deeply", hint, path=name) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", hint, path=name, line=exc.lineno) from None
    except DuplicateKeyError as exc:
        raise InputError(str(exc), "give each key once", path=name) from None
    except ValueError:  # an integer over 4,300 digits ("Exceeds the limit")
        raise InputError(
            "a number is too long (over 4,300 digits)", hint, path=name, line=long_number_line(text)
        ) from None


def _validate(model: type[M], obj: Any, hint: str | None, path: PathLike, where: str = "") -> M:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise InputError(where + describe_validation_error(exc), hint, path=display(path)) from None


def read_json_model(path: PathLike, model: type[M], hint: str | None = None) -> M:
    """The file's one JSON document, validated by `model`; `hint` goes with any error. A file of
    score reports given for another kind is said to be one (not named by a missing field)."""
    data = _load(path, hint)
    if model is not ScoreReport and isinstance(data, dict) and set(data) == {"reports"}:
        raise InputError(
            f"the file holds score reports (`qrelkit score --format json`), not a {model.__name__.lower()}",
            hint,
            path=display(path),
        )
    return _validate(model, data, hint, path)


def read_reports(path: PathLike) -> list[ScoreReport]:
    """The score reports a file holds: what `score --format json` writes (`{"reports": [...]}`,
    one or several runs), or, as earlier versions wrote them, one report object or an array."""
    data = _load(path, REPORT_HINT)
    if isinstance(data, dict) and set(data) == {"reports"}:
        data = data["reports"]
    if not isinstance(data, list):
        return [_finite(_validate(ScoreReport, data, REPORT_HINT, path), path, "")]
    if not data:
        raise InputError("no reports in the file (an empty JSON array)", REPORT_HINT, path=display(path))
    return [
        _finite(_validate(ScoreReport, item, REPORT_HINT, path, f"report {i}: "), path, f"report {i}: ")
        for i, item in enumerate(data, 1)
    ]


def _finite(report: ScoreReport, path: PathLike, where: str) -> ScoreReport:
    """A report whose numbers are all finite (a NaN or an infinity cannot be compared or drawn)."""
    bad = [f"{m} mean" for m, s in report.metrics.items() if not math.isfinite(s.mean)]
    for q, ms in (report.per_query or {}).items():
        bad += [f"{m} of query {q!r}" for m, qs in ms.items() if not math.isfinite(qs.value)]
    if bad:
        raise InputError(
            f"{where}{bad[0]} is not a finite number" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""),
            REPORT_HINT,
            path=display(path),
        )
    return report
