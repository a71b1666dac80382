"""A golden set as a folder of files: `golden.json` (name, grade scale, strata, profiles),
`queries.jsonl`, `documents.jsonl`, `judgments.jsonl` (the event log) and `unlabeled.jsonl`
(pooled pairs nobody has labeled yet). Missing optional files read as empty."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from ..errors import InputError
from ..models import Document, GoldenSetInfo, Judgment, PoolEntry, Query
from ._io import PathLike, display, read_text
from .jsonl import describe_validation_error, read_models

FILES = {
    "info": "golden.json",
    "queries": "queries.jsonl",
    "documents": "documents.jsonl",
    "judgments": "judgments.jsonl",
    "unlabeled": "unlabeled.jsonl",
}


def path_of(folder: PathLike, part: str) -> str:
    return display(Path(folder) / FILES[part])


def read_info(folder: PathLike) -> GoldenSetInfo:
    path = Path(folder) / FILES["info"]
    if not Path(folder).is_dir():
        raise InputError(
            "no such golden-set folder", "name a folder holding golden.json", path=display(folder)
        )
    try:
        return GoldenSetInfo.model_validate(json.loads(read_text(path)))
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path=display(path), line=exc.lineno) from None
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc), path=display(path)) from None


def _optional(folder: PathLike, part: str) -> Path | None:
    path = Path(folder) / FILES[part]
    return path if path.exists() else None


def read_queries(folder: PathLike) -> Iterator[tuple[int, Query]]:
    path = _optional(folder, "queries")
    return read_models(path, Query) if path else iter(())


def read_documents(folder: PathLike) -> Iterator[Document]:
    path = _optional(folder, "documents")
    return (d for _, d in read_models(path, Document)) if path else iter(())


def read_judgments(folder: PathLike) -> Iterator[tuple[int, Judgment]]:
    path = _optional(folder, "judgments")
    return read_models(path, Judgment) if path else iter(())


def read_unlabeled(folder: PathLike) -> Iterator[PoolEntry]:
    path = _optional(folder, "unlabeled")
    return (p for _, p in read_models(path, PoolEntry)) if path else iter(())
