"""Frozen golden-set versions: content identity, freeze, verify, diff, comparability.

    snapshot  a version in memory, its counts and its content hash
    folders   version folders: freeze, read as they are, find the latest
    check     the one check of a version (verify, import version, score --golden), streaming
    doc_hash  the documents hash in bounded memory (the twin of snapshot.documents_hash)
    labels    what scoring needs from a version (settings, queries, labels), checked
    diff      what changed between two versions; whether two score reports compare

This face re-exports their public names.
"""

from .check import read, verify
from .diff import comparability, diff, labels_of, mixed_labels
from .folders import CONTENT_MISMATCH, FILES, MACHINE_FILE, MANIFEST, files_of, freeze, latest_version, read_manifest
from .labels import VersionLabels, read_labels
from .snapshot import Snapshot, content_hash, documents_hash, machine_labels_hash

__all__ = [
    "VersionLabels",
    "read_labels",
    "CONTENT_MISMATCH",
    "FILES",
    "MACHINE_FILE",
    "files_of",
    "machine_labels_hash",
    "MANIFEST",
    "Snapshot",
    "comparability",
    "labels_of",
    "mixed_labels",
    "content_hash",
    "diff",
    "documents_hash",
    "freeze",
    "latest_version",
    "read",
    "read_manifest",
    "verify",
]
