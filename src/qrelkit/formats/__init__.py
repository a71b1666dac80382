"""Readers and writers for the files retrieval teams exchange: TREC qrels and runs, JSON Lines,
TSV queries, BEIR folders. Readers stream, accept a path or a `.gz`, and raise `InputError` naming
the file and line; writers go through `atomic_write`.

`runs` reads a run or qrels file once for scoring (numpy, loaded on first use); `reports` reads
saved JSON documents (score reports, manifests); `schemas` renders the JSON Schemas of the files.
None of them is imported here, so importing `qrelkit.formats` stays light.
"""

from ._io import as_text, atomic_write, read_lines
from .trec import QrelRecord, RunRecord

__all__ = ["QrelRecord", "RunRecord", "as_text", "atomic_write", "read_lines"]
