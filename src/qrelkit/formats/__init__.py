"""Readers and writers for the files retrieval teams exchange: TREC qrels and runs, JSON Lines,
TSV queries, BEIR folders. Readers stream, accept a path or a `.gz`, and raise `InputError` naming
the file and line; writers go through `atomic_write`.

`runs` reads a run or qrels file once for scoring (numpy, loaded on first use); `reports` reads
saved JSON documents (score reports, manifests); `schemas` renders the JSON Schemas of the files.
None of them is imported here, so importing `qrelkit.formats` stays light.

The plumbing every reader and writer shares, by subject: `paths` (a path, `-` for standard input,
a name as text), `ids` (the one id rule, repeated pairs), `spool` (standard input and pipes read
once into a temporary copy), `hashing` (reads that hash what they read; version files that must be
regular), `reading` (lines, blocks and whole files, `.gz`, progress), `jsonsafe` (no repeated key,
no number too long) and `writing` (atomic writes, the umask's permissions).
"""

from .paths import as_text
from .reading import read_lines
from .trec import QrelRecord, RunRecord
from .writing import atomic_write

__all__ = ["QrelRecord", "RunRecord", "as_text", "atomic_write", "read_lines"]
