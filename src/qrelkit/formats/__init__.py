"""Readers and writers for the files retrieval teams exchange: TREC qrels and runs, JSON Lines,
TSV queries, BEIR folders. Readers stream, accept a path or a `.gz`, and raise `InputError` naming
the file and line; writers go through `atomic_write`."""

from ._io import atomic_write, read_lines
from .trec import QrelRecord, RunRecord

__all__ = ["QrelRecord", "RunRecord", "atomic_write", "read_lines"]
