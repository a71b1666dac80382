"""JSON Schemas of qrelkit's files, generated from the pydantic models (never edited by hand).

`qrelkit schemas write` regenerates `schemas/`; `qrelkit schemas check` (and a test) fail when the
committed files drift from the models.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from ..models import (
    Comparison,
    Document,
    HubInfo,
    HubLabel,
    Judgment,
    Label,
    Leaderboard,
    Manifest,
    PoolEntry,
    Query,
    QueueItem,
    RunCoverage,
    ScoreReport,
    ScoreReports,
    SensitivityReport,
)
from ..models.calibration import CalibrationReport

SCHEMAS: dict[str, type[BaseModel]] = {
    "manifest.schema.json": Manifest,
    "query.schema.json": Query,
    "document.schema.json": Document,
    "pool-entry.schema.json": PoolEntry,
    "judgment.schema.json": Judgment,
    "label.schema.json": Label,
    "score-report.schema.json": ScoreReport,
    "score-reports.schema.json": ScoreReports,
    "queue-item.schema.json": QueueItem,
    "run-coverage.schema.json": RunCoverage,
    "comparison.schema.json": Comparison,
    "leaderboard.schema.json": Leaderboard,
    "sensitivity.schema.json": SensitivityReport,
    "hub-info.schema.json": HubInfo,
    "hub-label.schema.json": HubLabel,
    "calibration.schema.json": CalibrationReport,
}
"""File name -> model; line schemas validate one JSONL line."""

FIX = "qrelkit schemas write"
"""What to run when the committed schemas and the models disagree."""


def render(model: type[BaseModel]) -> str:
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def drift(folder: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    return [
        name
        for name, model in SCHEMAS.items()
        if not (folder / name).exists() or (folder / name).read_text(encoding="utf-8") != render(model)
    ]
