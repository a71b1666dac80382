"""pydantic's complaints about a line, said in qrelkit's words: which field, what is wrong with it
and what it should be; never pydantic's own wording ("Input should be ...", "type=", links)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from ..models import TIMESTAMP_FORM

_ID_RULE = "a single word: no white space or control characters, not starting with '#'"
_TIME = TIMESTAMP_FORM

_KIND: dict[str, str] = {
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "dict_type": "must be a JSON object",
    "list_type": "must be a JSON array",
    "datetime_type": f"must be {_TIME}",
    "datetime_parsing": f"must be {_TIME}",
    "datetime_from_date_parsing": f"must be {_TIME}",
    "timezone_aware": f"must be {_TIME} (with its time zone)",
    "string_pattern_mismatch": _ID_RULE,
    "none_required": "must be null",
    "literal_error": "has a value this field does not take",
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _what(err: Any) -> str:
    kind: str = err["type"]
    ctx: dict[str, Any] = err.get("ctx") or {}
    if kind == "missing":
        return "is missing"
    if kind == "extra_forbidden":
        return "is unknown"
    if kind == "enum":
        return f"must be one of {ctx.get('expected', '')}".replace(" or ", ", ") + f" (found {_shown(err['input'])})"
    if kind == "string_too_short":
        return "must not be empty"
    if kind in ("string_too_long", "too_long"):
        return f"is too long (at most {ctx.get('max_length')})"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}
        bound = next(iter(ctx.values()), "")
        return f"must be {words[kind]} {bound} (found {_shown(err['input'])})"
    if kind == "string_pattern_mismatch":
        return f"is {_shown(err['input'])}, not {_ID_RULE}"
    if kind in ("value_error", "assertion_error"):
        return str(ctx.get("error", "is not valid"))
    found = f" (found {_shown(err['input'])})" if "input" in err and not isinstance(err["input"], dict) else ""
    return _KIND.get(kind, "has a value this field does not take") + found


def describe(exc: ValidationError) -> str:
    """The first problem, as `field 'x' must be ...` (or the model's own rule, for a rule over
    several fields)."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    what = _what(err)
    return f"field {loc!r} {what}" if loc else what


def fields_hint(model: type[BaseModel]) -> str:
    """The fields of a model, for the hint of an unknown field."""
    return "a line's fields are " + ", ".join(model.model_fields)
