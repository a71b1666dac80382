"""What scoring needs from a version: its settings, queries and labels (as columns). With `check`,
the version passes the one check `verify` and `import version` make (`check.check`: every file,
the manifest, the data rules) before a label is used; without it, the files are read as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import VersionError
from ..models import GoldenSetInfo, Manifest, Query
from .check import HINT, check_labels
from .folders import read_as_is, read_manifest

if TYPE_CHECKING:  # numpy loads only when a version is scored
    import numpy as np
    import numpy.typing as npt

    from ..formats.columns import Columns


@dataclass(frozen=True)
class VersionLabels:
    info: GoldenSetInfo
    queries: list[Query]
    labels: Columns
    """(query, doc, grade) columns, sorted by query and doc."""
    labels_hash: npt.NDArray[np.uint64] | None
    """The fast parser's document hashes of `labels`, when it read them."""
    content_hash: str
    manifest: Manifest


def read_labels(folder: Path, *, check: bool = True, memo: Path | None = None) -> VersionLabels:
    """A version's labels for scoring. With `check`, a version that fails `check.check` is a
    `VersionError` naming what was found (`memo`: see `check.check_labels`); without it, the
    files are read as they are."""
    from ..formats.columns import Columns

    if not check:
        manifest = read_manifest(folder)
        snap = read_as_is(folder)
        as_read = sorted((x.query_id, x.doc_id, x.grade) for x in snap.labels)
        columns = Columns.from_rows(as_read, integer=True)
        return VersionLabels(snap.info, snap.queries, columns, None, snap.content_hash(), manifest)
    c = check_labels(folder, memo)
    if c.problems or c.labels is None:
        raise VersionError(f"{folder} was altered: {'; '.join(c.problems)}", HINT)
    return VersionLabels(c.info, c.queries, c.labels, c.labels_hash, c.manifest.content_hash, c.manifest)
