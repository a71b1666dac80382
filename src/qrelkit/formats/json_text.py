"""JSON text as pydantic's `model_dump_json(indent=2)` writes it, without pydantic: so that `score
--format json` writes the same bytes from plain data (`models.plain`) as from the report models.

What differs from `json.dumps(indent=2)` is the floats: pydantic writes the shortest digits that
read back as the same float (what `repr` finds) laid out as serde_json does, in positional
notation from 1e-5 up to below 1e16 (`0.00001234`, `1000000000000000.0`) and otherwise with an
exponent (`1e-7`, `1e+16`, `1.5e+300`); NaN and the infinities are null. Strings are escaped as
`json.dumps(ensure_ascii=False)` escapes them, which is serde_json's escaping (quote, backslash
and the control characters; everything else as it is, U+2028 too); a lone surrogate, which UTF-8
cannot hold, is refused (`UnicodeEncodeError`) as pydantic refuses it.
`tests/test_json_text.py` compares the two on generated values."""

from __future__ import annotations

import json
import math
from typing import Any

_STRING = json.encoder.encode_basestring
"""The C escaper of `json.dumps(ensure_ascii=False)`."""


def dumps(value: Any, indent: int = 2) -> str:
    """`value` (dicts with string keys, lists, tuples, strings, ints, floats, bools, None) as JSON
    text laid out with `indent` spaces, byte for byte pydantic's."""
    out: list[str] = []
    _write(value, out, "\n", " " * indent)
    return "".join(out)


def _write(value: Any, out: list[str], at: str, step: str) -> None:
    if isinstance(value, str):
        out.append(string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(number(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = at + step
        sep = "{" + inner
        for k, v in value.items():
            out.append(sep)
            out.append(string(k))
            out.append(": ")
            _write(v, out, inner, step)
            sep = "," + inner
        out.append(at + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = at + step
        sep = "[" + inner
        for v in value:
            out.append(sep)
            _write(v, out, inner, step)
            sep = "," + inner
        out.append(at + "]")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON data")


def string(text: str) -> str:
    """A JSON string as pydantic writes it; a lone surrogate raises `UnicodeEncodeError`."""
    out: str = _STRING(text)
    if not text.isascii():
        text.encode("utf-8")  # refuses a lone surrogate, as pydantic does
    return out


def number(x: float) -> str:
    """A float as pydantic writes it (see the module's doc): `repr`'s digits, serde_json's layout."""
    if not math.isfinite(x):
        return "null"
    r = float.__repr__(x)
    sign = ""
    if r[0] == "-":
        sign, r = "-", r[1:]
    mantissa, _, exp = r.partition("e")
    whole, _, frac = mantissa.partition(".")
    frac = frac.rstrip("0")
    digits = (whole + frac).lstrip("0")
    if not digits:
        return sign + "0.0"
    # value = 0.DIGITS x 10^point
    point = len(whole) + (int(exp) if exp else 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0")
    n = len(digits)
    if n <= point <= 16:
        return f"{sign}{digits}{'0' * (point - n)}.0"
    if 0 < point <= 16:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -5 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    e = point - 1
    body = digits if n == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{sign}{body}e{'+' if e > 0 else ''}{e}"
