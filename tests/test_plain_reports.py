"""The plain score report (`models.plain`, what scoring builds and `score` writes without pydantic)
is the twin of the report models (the published schema, the validator of every report read): the
same fields in the same order, the same defaults, the same fields left out of the JSON at the same
values; `to_model` and `to_plain` carry every field both ways. And scoring a qrels file holds no
model at all (`ScoringSource.from_qrels`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from conftest import Cli
from qrelkit.models import plain, reports
from qrelkit.models.reports import TWINS, to_model, to_plain
from test_json_text import reports as plain_reports

PAIRS = sorted(TWINS.items(), key=lambda kv: kv[0].__name__)


def test_every_class_of_the_report_has_a_twin_named_for_it() -> None:
    assert {twin for _, twin in PAIRS} == set(plain.PLAIN_CLASSES)
    assert all(twin.__name__ == "Plain" + model.__name__ for model, twin in PAIRS)
    # every model a report field holds is itself twinned (a new nested model cannot be left out)
    for model, _ in PAIRS:
        for f in model.model_fields.values():
            nested = [a for a in _args(f.annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
            assert all(n in TWINS for n in nested), (model.__name__, nested)


def _args(annotation: object) -> list[object]:
    from typing import get_args

    found, todo = [], [annotation]
    while todo:
        a = todo.pop()
        found.append(a)
        todo += list(get_args(a))
    return found


@pytest.mark.parametrize(("model", "twin"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_the_twins_fields_names_order_and_defaults_are_the_models(model: type[BaseModel], twin: type) -> None:
    fields = dataclasses.fields(twin)
    assert [f.name for f in fields] == list(model.model_fields)
    for f in fields:
        info = model.model_fields[f.name]
        if info.default_factory is not None:
            assert f.default_factory is not dataclasses.MISSING, f.name
            assert f.default_factory() == info.default_factory(), f.name  # type: ignore[call-arg]
        elif info.default is PydanticUndefined:
            assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, f.name
        else:
            assert f.default == info.default and type(f.default) is type(info.default), f.name


@pytest.mark.parametrize(("model", "twin"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_the_twin_leaves_out_of_the_json_what_the_model_leaves_out(model: type[BaseModel], twin: type) -> None:
    """`exclude_if` of the model against `NOT_WRITTEN` of the twin: the same fields, each left out
    at its listed value and kept at others."""
    excluded = {name: info.exclude_if for name, info in model.model_fields.items() if info.exclude_if is not None}
    listed = plain.NOT_WRITTEN.get(twin.__name__, {})
    assert set(excluded) == set(listed)
    for name, rule in excluded.items():
        assert rule(listed[name]) is True, name
        for other in ("machine", "human+machine", "lexical", "", 0):
            assert rule(other) == (other == listed[name]), (name, other)
    for exclude in (info.exclude for info in model.model_fields.values()):
        assert not exclude  # no field is always left out (the twin has no rule for that)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(plain_reports)
def test_the_conversion_carries_every_field_both_ways(report: plain.PlainScoreReport) -> None:
    model = to_model(report)
    back = to_plain(model)
    assert _same(back, report)
    assert to_model(back) == model or _has_nan(report)  # NaN is not equal to itself
    assert to_plain(model.fingerprint) == report.fingerprint


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN, an int equal to the float pydantic made of it."""
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    if isinstance(a, float) and isinstance(b, int) and not isinstance(b, bool):
        return a == float(b)  # what pydantic made of an int in a float field
    return a == b and (isinstance(a, bool) == isinstance(b, bool))


def _has_nan(value: object) -> bool:
    import json

    return "NaN" in json.dumps(dataclasses.asdict(value))  # type: ignore[call-overload]


def test_a_qrels_file_is_scored_with_no_model(tmp_path: Path) -> None:
    """`ScoringSource.from_qrels` holds no golden-set info and plain fingerprints: its scale is the
    file's (or --max-grade's), checked as `GradeScale` checks one."""
    from qrelkit.errors import UsageError
    from qrelkit.workflows.sources import ScoringSource, SourceScale

    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 0\n")
    source = ScoringSource.from_qrels(qrels)
    assert source.info is None and source.golden is None
    assert source.scale == SourceScale(max_grade=2, relevance_threshold=1)
    assert isinstance(source.qrels, plain.PlainFileFingerprint)
    assert not [v for v in vars(source).values() if isinstance(v, BaseModel)]
    assert ScoringSource.from_qrels(qrels, max_grade=7, relevance_level=3).scale == SourceScale(7, 3)
    assert ScoringSource.from_qrels(qrels, relevance_level=3).scale == SourceScale(3, 3)  # as trec_eval -l 3
    for bad in ({"max_grade": 2, "relevance_level": 3}, {"max_grade": 2**31}):
        with pytest.raises(UsageError):
            ScoringSource.from_qrels(qrels, **bad)


def test_a_golden_sets_scale_follows_max_grade_and_relevance_level() -> None:
    """The store's and a version's sources keep their info (profiles, strata, named grades) and
    their scale beside it; `with_scale` replaces both, as one."""
    from conftest import ROOT
    from qrelkit.workflows.sources import ScoringSource, SourceScale

    source = ScoringSource.from_version(ROOT / "goldensets" / "pydocs" / "1.0")
    assert source.info is not None
    top = source.info.scale.max_grade
    assert source.scale == SourceScale(top, source.info.scale.relevance_threshold)
    raised = source.with_scale(relevance_level=2)
    assert raised.scale == SourceScale(top, 2) and raised.info is not None
    assert raised.info.scale.relevance_threshold == 2 and raised.info.scale.levels == source.info.scale.levels
    wider = source.with_scale(max_grade=top + 2)
    assert wider.scale.max_grade == top + 2 and wider.info is not None and wider.info.scale.max_grade == top + 2


def test_to_plain_is_what_render_takes_for_a_report_read_back(tmp_path: Path) -> None:
    """A saved (read) report renders, through `to_plain`, exactly as the report scoring built."""
    from conftest import ROOT
    from qrelkit.render.score import render_reports
    from qrelkit.workflows import scoring, sources

    golden = ROOT / "goldensets" / "pydocs"
    source = sources.ScoringSource.from_version(golden / "1.0")
    report = scoring.score_run(source, golden / "runs" / "bm25.run", sources.plan(source), per_query=True)
    read = reports.ScoreReport.model_validate_json(to_model(report).model_dump_json())
    for fmt in ("json", "table", "csv", "trec", "trec_eval"):
        fresh = render_reports([report], fmt, per_query=True)
        assert render_reports([to_plain(read)], fmt, per_query=True) == fresh, fmt
    assert to_plain(read) == report


def test_a_max_grade_above_the_top_grade_is_one_line_exit_2(run_cli: Cli) -> None:
    """`--max-grade 2147483648` was a pydantic traceback (`GradeScale`'s check); now said plainly,
    for a qrels file as for a golden set."""
    qrels = run_cli.write("q.txt", "q1 0 d1 1\n")
    run = run_cli.write("r.txt", "q1 Q0 d1 1 1.0 r\n")
    result = run_cli("score", str(run), "--qrels", str(qrels), "--max-grade", str(2**31), ok=False)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [
        "error: --max-grade 2147483648 is above the highest grade, 2147483647 (hint: give at most 2147483647)"
    ]
