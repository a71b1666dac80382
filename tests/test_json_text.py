"""`score --format json` writes plain reports without pydantic (`formats.json_text`, issue 31): the
bytes must be pydantic's `model_dump_json(indent=2)` of the same report, whatever the floats (every
layout boundary of serde_json's: subnormals, 1e-5 and below, 1e15 to 1e17, -0.0, NaN and the
infinities as null, integral floats near and past 2^53) and strings (quotes, backslashes, control
characters, U+2028, non-BMP; a lone surrogate refused by both), compared on generated values."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from qrelkit.formats.json_text import dumps, number, string
from qrelkit.models import (
    PlainFileFingerprint,
    PlainFingerprint,
    PlainGoldenFingerprint,
    PlainMetricReport,
    PlainQueryCounts,
    PlainQueryScore,
    PlainScoreReport,
    PlainSummary,
    ScoreReports,
    to_model,
)
from qrelkit.models.plain import json_data

EDGES = [
    0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1e-300,
    1e-7, 1.5e-7, 1e-6, 9.999999999999999e-7, 1.234e-6, 1e-5, 9.99999e-6, 1.234e-5, 0.0001, 0.00012, 0.1, 0.5,
    1.0, 123.456, 1e15, 999999999999999.9, 1e15 + 0.5, 9999999999999998.0, 9999999999999999.0, 1e16, 1.5e16,
    1e17, 1.2345678901234567e17, 2.0**53, 2.0**53 + 2, 2.0**63, 2.0**64, 1e21, 1e22, 1e100, 1.7976931348623157e308,
    0.30000000000000004, 1 / 3, math.nan, math.inf, -math.inf,
]  # fmt: skip
"""Floats at each boundary of the layout (positional from 1e-5 up to 1e16, exponent outside)."""

floats = st.one_of(
    st.sampled_from(EDGES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e-8, max_value=1e-4),
    st.floats(min_value=1e14, max_value=1e18),
    st.integers(min_value=0, max_value=2**64 - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0]),
    st.integers(min_value=2**53 - 8, max_value=2**53 + 8).map(float),
)
"""Any double: boundaries, every bit pattern (subnormals, NaN payloads), integral ones near 2^53."""

HOSTILE = ['"', "\\", '\\"', "\x00", "\x01", "\x08", "\t", "\n", "\x0b", "\x0c", "\r", "\x1f", "\x7f",
           "\x80", "\x9f", "\u2028", "\u2029", "\ufeff", "\u200e", "é", "\U0001f600", "\U0010ffff", "</script>",
           "'"]  # fmt: skip
texts = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12),
    st.lists(st.sampled_from(HOSTILE), max_size=6).map("".join),
)
"""Strings UTF-8 can hold (lone surrogates are tested apart: both writers refuse them)."""

ints = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.integers(2**53 - 3, 2**53 + 3))
"""Counts near 2^53 and past 2^64: JSON integers as they are, never floats."""


class _Float(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: float
    s: str = ""


@settings(max_examples=3000, deadline=None)
@given(floats)
def test_a_float_is_written_as_pydantic_writes_it(x: float) -> None:
    assert '{"x":' + number(x) + ',"s":""}' == _Float(x=x).model_dump_json()


@pytest.mark.parametrize("x", EDGES)
def test_every_boundary_float(x: float) -> None:
    assert '{"x":' + number(x) + ',"s":""}' == _Float(x=x).model_dump_json()


@settings(max_examples=1500, deadline=None)
@given(texts)
def test_a_string_is_escaped_as_pydantic_escapes_it(s: str) -> None:
    assert '{"x":0.0,"s":' + string(s) + "}" == _Float(x=0.0, s=s).model_dump_json()


@pytest.mark.parametrize("s", ["\ud800", "a\udfffb", "\udc80"])
def test_a_lone_surrogate_is_refused_by_both(s: str) -> None:
    from pydantic_core import PydanticSerializationError

    with pytest.raises(PydanticSerializationError):
        _Float(x=0.0, s=s).model_dump_json()
    with pytest.raises(UnicodeEncodeError):
        string(s)


def pairs(values: st.SearchStrategy[float]) -> st.SearchStrategy[tuple[float, float]]:
    return st.tuples(values, values)


def summaries(cls: type = PlainSummary, **more: st.SearchStrategy[object]) -> st.SearchStrategy[PlainSummary]:
    return st.builds(
        cls,
        n=ints,
        mean=floats,
        sd=floats,
        se=floats,
        ci95=pairs(floats),
        coverage=st.none() | floats,
        bounds=st.none() | pairs(floats),
        exact=st.booleans(),
        **more,
    )


fingerprints = st.builds(
    PlainFingerprint,
    golden=st.none()
    | st.builds(
        PlainGoldenFingerprint,
        name=texts,
        version=st.none() | texts,
        content_hash=texts,
        labels=st.sampled_from(["human", "machine", "human+machine"]),
        machine_assessor=st.none() | texts,
    ),
    qrels=st.none() | st.builds(PlainFileFingerprint, name=texts, sha256=texts),
    run=st.builds(PlainFileFingerprint, name=texts, sha256=texts),
    metrics=st.lists(texts, max_size=3),
    relevance_threshold=ints,
    max_grade=ints,
    tie_policy=texts,
    query_policy=texts,
    qrelkit_version=texts,
)

query_scores = st.builds(
    PlainQueryScore, value=floats, coverage=st.none() | floats, bounds=st.none() | pairs(floats), exact=st.booleans()
)

reports = st.builds(
    PlainScoreReport,
    fingerprint=fingerprints,
    aggregation=texts,
    queries=st.builds(
        PlainQueryCounts,
        evaluated=ints,
        missing_from_run=ints,
        run_only=ints,
        no_relevant=ints,
        outside_profile=ints,
        unlabeled=ints,
        unlabeled_kept=st.booleans(),
    ),
    strata_without_queries=st.lists(texts, max_size=3),
    metrics=st.dictionaries(
        texts,
        summaries(
            PlainMetricReport,
            weighted_mean=st.none() | floats,
            by_stratum=st.dictionaries(texts, summaries(), max_size=2),
        ),
        max_size=3,
    ),
    per_query=st.none() | st.dictionaries(texts, st.dictionaries(texts, query_scores, max_size=2), max_size=3),
    query_strata=st.none() | st.dictionaries(texts, texts, max_size=3),
    stratum_weights=st.dictionaries(texts, st.floats(min_value=0, allow_infinity=False) | st.integers(0, 2**60)),
    run_read_as=st.none() | texts,
    missing_from_run=st.none() | st.lists(texts, max_size=3),
    unlabeled_queries=st.none() | st.lists(texts, max_size=3),
)
"""Any plain score report the models accept (a weight is finite and at least 0, as `Weight` holds)."""


def pydantic_text(rs: list[PlainScoreReport]) -> str:
    return ScoreReports(reports=[to_model(r) for r in rs]).model_dump_json(indent=2)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(reports, max_size=2))
def test_a_report_is_written_byte_for_byte_as_pydantic_writes_it(rs: list[PlainScoreReport]) -> None:
    """What `render_reports(..., "json")` writes, against the models' own JSON of the same reports."""
    from qrelkit.render.score import render_reports

    assert render_reports(rs, "json") == pydantic_text(rs) + "\n"


def test_the_layout_of_empty_and_nested_values() -> None:
    value = {"a": [], "b": {}, "c": [1, [2.5, {"d": None}], True, False], "e": "x"}
    expected = '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    [\n      2.5,\n      {\n        "d": null\n'
    assert dumps(value) == expected + '      }\n    ],\n    true,\n    false\n  ],\n  "e": "x"\n}'


def test_an_int_in_a_float_field_is_written_as_a_float() -> None:
    """pydantic's lax mode makes an int given to a float field a float (`1.0`); the plain data keeps
    what it was given, and the writer says it as the model would."""
    s = PlainSummary(n=1, mean=1, sd=0, se=0, ci95=(0, 1), coverage=1, bounds=(0, 2**60), exact=True)
    assert json_data(s) == {"n": 1, "mean": 1.0, "sd": 0.0, "se": 0.0, "ci95": [0.0, 1.0], "coverage": 1.0,
                            "bounds": [0.0, 2.0**60], "exact": True}  # fmt: skip
    assert all(type(v) is float for v in json_data(s)["ci95"])
