"""Frozen golden-set versions: content identity, freeze, verify, diff, comparability.

`snapshot` holds a version in memory and hashes its content, `folders` writes and reads version
folders, `diff` compares two versions or two score reports. This face re-exports their public
names.
"""

from .diff import comparability, diff
from .folders import CONTENT_MISMATCH, FILES, MANIFEST, freeze, latest_version, read, read_manifest, verify
from .labels import VersionLabels, read_labels
from .snapshot import Snapshot, content_hash, documents_hash

__all__ = [
    "VersionLabels",
    "read_labels",
    "CONTENT_MISMATCH",
    "FILES",
    "MANIFEST",
    "Snapshot",
    "comparability",
    "content_hash",
    "diff",
    "documents_hash",
    "freeze",
    "latest_version",
    "read",
    "read_manifest",
    "verify",
]
