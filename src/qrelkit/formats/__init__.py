"""Readers and writers for the files retrieval teams exchange: TREC qrels and runs, JSON Lines,
TSV queries, BEIR folders. Readers stream, accept a path or a `.gz`, and raise `InputError` naming
the file and line; writers go through `atomic_write`.

    trec           TREC qrels and run files, line by line
    jsonl          JSON Lines: queries, documents, judgments, labels, runs
    jsondict       JSON dict runs and qrels ({"q1": {"d1": 2}}), as pytrec_eval and ranx take them
    tsv            tab-separated queries
    beir           BEIR folders: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv
    hub            Hugging Face dataset folders (MTEB's layout): the files written and found, records read
    hub_yaml       a dataset card's YAML header: written, and its `configs:` read
    hub_card       the dataset card's Markdown body, generated from a version
    irds           ir_datasets records as queries, documents, qrels and grade levels
    label_studio   Label Studio JSON exports and tasks, its labeling config
    records        qrels and runs given from Python (`qrelkit.evaluate`), whatever their shape
    columns        the fast TREC parser: numpy columns from a file's bytes
    _arrow         pyarrow's CSV reader as that parser's tokeniser (the `fast` extra)
    fast_columns   that parser's id changes and plain decimal scores, without string operations
    exact_columns  the exact readers' rows as columns, in chunks
    runs           a run or qrels file read once: fast path, exact fallback and sha256 together
    qrels_rows     a bulk qrels import's blocks as plain rows for the store (numpy stays here)
    validation     pydantic's complaints about a line, in qrelkit's words
    reports        saved JSON documents read back (score reports, manifests)
    schemas        the JSON Schemas of qrelkit's files, generated from the models
    paths          how a file is named: a path, `-` for standard input, a name as text
    ids            the one id rule of every reader; a repeated (query, document) pair refused
    spool          standard input and pipes copied to a temporary file as they are read
    seen           the pair hashes seen so far, to find a repeat at the block that repeats it
    pair_hashes    a long qrels file's pair hashes on disk, sorted a bucket at a time for the repeat check
    hashing        reads that hash what they read; version files that must be regular files
    reading        lines, blocks and whole files, `.gz`, progress
    jsonsafe       JSON without a repeated key or a number too long to convert
    json_text      JSON text as pydantic writes it (`score --format json`), without pydantic
    writing        atomic writes, with the permissions the umask gives

`runs`, `columns`, `pair_hashes` and `exact_columns` load numpy on first use; none of the modules but `paths`, `ids`,
`spool`, `hashing`, `reading`, `writing` and `trec` is imported here, so importing `qrelkit.formats` stays light.
"""

from .paths import as_text
from .reading import read_lines
from .trec import QrelRecord, RunRecord
from .writing import atomic_write

__all__ = ["QrelRecord", "RunRecord", "as_text", "atomic_write", "read_lines"]
