"""Hugging Face dataset folders (MTEB's retrieval layout): the files of `export hub` written, and
any such folder's files found and read for `import hub`.

A folder holds the configs `corpus` (`_id`, `title`, `text`), `queries` (`_id`, `text`) and
`default` (qrels: `query-id`, `corpus-id`, `score`), declared by the README's YAML header
(`hub_yaml`) or, without one, laid out as BEIR does (`corpus.jsonl`, `queries.jsonl`,
`qrels/<split>.tsv|jsonl`, or the same names in `.parquet`). A folder qrelkit wrote also holds a
`labels` config (`models.HubLabel`) and `qrelkit.json` (`models.HubInfo`).

Records are JSON Lines (`.jsonl`, `.json`, `.ndjson`, `.gz`) or Parquet (pyarrow, the `fast`
extra); a bad one is an `InputError` naming the file and its line, or for Parquet its row
(`corpus.parquet: row 7: ...`), and the field.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError
from ..models import HubInfo, HubLabel
from .hub_yaml import DEFAULT_CONFIG, DataFiles, read_configs
from .jsonl import read_objects, validate
from .paths import display
from .reports import read_json_model

README, INFO = "README.md", "qrelkit.json"
MACHINE = "machine_labels.jsonl"
"""The machine labels of a machine-label version, with their provenance (`models.MachineLabel`)."""
Kind = Literal["jsonl", "parquet", "tsv"]
PARQUET_HINT = "pip install 'qrelkit[fast]' (pyarrow) to read and write Parquet"
ROWS_PER_GROUP = 10_000
"""Rows a Parquet row group (and a batch read back) holds."""

COLUMNS: dict[str, dict[str, str]] = {
    "corpus": {"_id": "string", "title": "string", "text": "string", "metadata": "string"},
    "queries": {"_id": "string", "text": "string", "stratum": "string", "description": "string"},
    "qrels": {"query-id": "string", "corpus-id": "string", "score": "int64"},
    "labels": {
        "query-id": "string",
        "corpus-id": "string",
        "state": "string",
        "grade": "int64",
        "stratum": "string",
        "weight": "float64",
        "assessor_kind": "string",
        "assessors": "int64",
        "pooled_by": "string",
        "best_rank": "int64",
        "machine_assessor": "string",
    },
}
"""Each file's columns and their Parquet types (a JSON line holds the same keys)."""


# -- writing -----------------------------------------------------------------------------------


def write_rows(path: Path, rows: Iterable[dict[str, Any]], columns: list[str], kind: str, fmt: str) -> int:
    """Write `rows` (each holding exactly `columns`) as JSON Lines or Parquet; the row count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        return _write_parquet(path, rows, columns, COLUMNS[kind])
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n")
            n += 1
    return n


def pyarrow_parquet() -> Any:
    """`pyarrow.parquet`, or an `InputError` saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("Parquet needs pyarrow, which is not installed", PARQUET_HINT) from None
    return pq


def _write_parquet(path: Path, rows: Iterable[dict[str, Any]], columns: list[str], types: dict[str, str]) -> int:
    pq = pyarrow_parquet()
    import pyarrow as pa

    schema = pa.schema([(c, pa.string() if types[c] == "string" else getattr(pa, types[c])()) for c in columns])
    n = 0
    with pq.ParquetWriter(str(path), schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == ROWS_PER_GROUP:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                n, batch = n + len(batch), []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            n += len(batch)
    return n


# -- finding the files of a folder ------------------------------------------------------------------


@dataclass(frozen=True)
class DataFile:
    path: Path
    kind: Kind

    @property
    def name(self) -> str:
        return display(self.path)


@dataclass(frozen=True)
class Layout:
    """Where a folder's records are: each config's files (for the split read)."""

    corpus: list[DataFile]
    queries: list[DataFile]
    qrels: list[DataFile]
    labels: list[DataFile]
    """Empty: the folder has no `labels` config (not one qrelkit wrote)."""
    split: str


LAYOUT_HINT = (
    "a Hugging Face retrieval folder declares configs corpus, queries and default (qrels) in its README.md, "
    "or holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv (or .jsonl, .parquet)"
)


def find_layout(folder: Path, split: str) -> Layout:
    """The files of `folder`'s configs: the README's `configs:` when it declares them, else the
    BEIR layout. The qrels are the `default` config's (or `qrels`'s) split `split`; the corpus and
    queries their config's split `split` if it has one, else its only split (MTEB's rule)."""
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "no such folder"
        raise InputError(what, LAYOUT_HINT, path=display(folder))
    readme = folder / README
    configs = read_configs(readme) if readme.is_file() else None
    if configs:
        return _declared(folder, configs, split, display(readme))
    return Layout(
        corpus=[_beir_file(folder, "corpus")],
        queries=[_beir_file(folder, "queries")],
        qrels=[_beir_file(folder / "qrels", split, tsv=True)],
        labels=[DataFile(p, _kind(p)) for p in _present(folder, "labels", [".jsonl", ".jsonl.gz", ".parquet"])],
        split=split,
    )


def _present(folder: Path, stem: str, suffixes: list[str]) -> list[Path]:
    """The first of `stem` + each suffix that is a file in `folder` (none: [])."""
    return [p for s in suffixes if (p := folder / f"{stem}{s}").is_file()][:1]


def _beir_file(folder: Path, stem: str, *, tsv: bool = False) -> DataFile:
    suffixes = [".tsv", ".tsv.gz"] * tsv + [".jsonl", ".jsonl.gz", ".parquet"]
    for path in _present(folder, stem, suffixes):
        return DataFile(path, _kind(path))
    names = ", ".join(f"{stem}{s}" for s in suffixes if not s.endswith(".gz"))
    raise InputError(f"no {names} here", LAYOUT_HINT, path=display(folder))


def _kind(path: Path) -> Kind:
    name = path.name.removesuffix(".gz")
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".tsv"):
        return "tsv"
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    raise InputError(
        "is not JSON Lines, Parquet or TSV", "give the files a .jsonl, .parquet or .tsv name", path=display(path)
    )


def _declared(folder: Path, configs: dict[str, list[DataFiles]], split: str, readme: str) -> Layout:
    def files(config: str, *, qrels: bool = False, required: bool = True) -> list[DataFile]:
        splits = {s.split: s for s in configs.get(config, [])}
        if not splits:
            if required:
                raise InputError(f"the YAML header declares no {config!r} config", LAYOUT_HINT, path=readme)
            return []
        chosen = splits.get(split) or (next(iter(splits.values())) if len(splits) == 1 and not qrels else None)
        if chosen is None:
            raise InputError(
                f"config {config!r} has no split {split!r} (it has {', '.join(sorted(splits))})",
                "choose one with --split",
                path=readme,
            )
        return [DataFile(p, _kind(p)) for pattern in chosen.paths for p in _matches(folder, pattern, readme)]

    qrels_config = DEFAULT_CONFIG if DEFAULT_CONFIG in configs else "qrels"
    return Layout(
        corpus=files("corpus"),
        queries=files("query" if "query" in configs else "queries"),
        qrels=files(qrels_config, qrels=True),
        labels=files("labels", required=False) if "labels" in configs else [],
        split=split,
    )


def _matches(folder: Path, pattern: str, readme: str) -> list[Path]:
    """The files `pattern` (a path or glob inside the folder) names, sorted."""
    parts = Path(pattern).parts
    if not pattern or Path(pattern).is_absolute() or ".." in parts or "://" in pattern or "\\" in pattern:
        raise InputError(f"data file {pattern!r} is not a path inside the folder", LAYOUT_HINT, path=readme)
    found = (
        sorted(p for p in folder.glob(pattern) if p.is_file())
        if re.search(r"[*?\[]", pattern)
        else ([folder / pattern] if (folder / pattern).is_file() else [])
    )
    if not found:
        raise InputError(f"no file matches data file {pattern!r}", "check the README's configs", path=readme)
    return found


def read_info(folder: Path) -> HubInfo | None:
    """The folder's `qrelkit.json`, if it has one (a folder `export hub` wrote)."""
    path = folder / INFO
    return read_json_model(path, HubInfo) if path.is_file() else None


# -- reading records --------------------------------------------------------------------------------


def records(file: DataFile) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or row number, record) of a JSON Lines or Parquet file."""
    if file.kind == "jsonl":
        yield from read_objects(file.path)
        return
    pq = pyarrow_parquet()
    try:
        reader = pq.ParquetFile(str(file.path))
        n = 0
        for batch in reader.iter_batches(batch_size=ROWS_PER_GROUP):
            for row in batch.to_pylist():
                n += 1
                yield n, row
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise InputError(
            f"cannot read as Parquet ({str(exc)[:120]})", "is it a Parquet file?", path=file.name
        ) from None


@contextlib.contextmanager
def rows_named(files: Iterable[DataFile]) -> Iterator[None]:
    """An `InputError` about a Parquet file's record `N` (raised as `FILE:N: ...` by the readers
    and the store) said as `FILE: row N: ...`: a Parquet file has rows, not lines."""
    parquet = {f.name for f in files if f.kind == "parquet"}
    try:
        yield
    except InputError as exc:
        if exc.path not in parquet or exc.line is None:
            raise
        message = exc.message.removeprefix(f"{exc.path}:{exc.line}: ").replace(" line ", " row ")
        raise InputError(message, exc.hint, path=f"{exc.path}: row {exc.line}") from None


def json_object(text: Any, name: str, lineno: int, field: str) -> dict[str, Any] | None:
    """A record's `field` holding a JSON object as text (the corpus's `metadata` qrelkit writes:
    a column of mixed objects would not load as one Arrow type), decoded; None stays None."""
    if text is None:
        return None
    try:
        obj = json.loads(text) if isinstance(text, str) else None
        if isinstance(obj, dict):
            json.dumps(obj, ensure_ascii=False).encode("utf-8")  # no lone surrogate
            return obj
    except (ValueError, RecursionError, UnicodeEncodeError):
        pass
    raise InputError(f"field {field!r} must be a JSON object written as text", path=name, line=lineno)


LABEL_HINT = (
    'labels records are {"query-id": ..., "corpus-id": ..., "state": "graded", "grade": 2, "stratum": ...} '
    "(state graded, skipped or unlabeled)"
)


def read_labels(files: list[DataFile]) -> Iterator[tuple[DataFile, int, HubLabel]]:
    """(file, record number, row) of the `labels` config; a pair given twice is refused, naming both."""
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for file in files:
        for n, obj in records(file):
            row = validate(HubLabel, obj, LABEL_HINT, file.name, n)
            first = seen.setdefault((row.query_id, row.doc_id), (file.name, n))
            if first != (file.name, n):
                where = f"line {first[1]}" if first[0] == file.name else f"{first[0]}:{first[1]}"
                raise InputError(
                    f"query {row.query_id!r} doc {row.doc_id!r} is given twice (first on {where})",
                    "keep one record per (query, doc) pair",
                    path=file.name,
                    line=n,
                )
            yield file, n, row
