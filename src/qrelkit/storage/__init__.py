"""The golden-set store: one SQLite file; the only package that touches SQLite.

Judgments are an append-only log (`judgments`); the current label of a pair is derived from it
(each assessor's latest event is a vote, see `qrelkit.resolution`) by the SQL in `resolved`, never
stored. Every write is one explicit transaction (`BEGIN IMMEDIATE` ... `COMMIT`), the journal is WAL
and `synchronous=FULL`, so a judgment that `record()` returned for is on disk. A failed import rolls
back and leaves the store as it was. The store knows no scoring and no version folders: the
workflows (`qrelkit.workflows`) compose it with them.

    store.py     Store: open, close, reader connections, checkpoints
    base.py      the shared connection: transactions, settings the SQL needs
    schema.py    named migrations, the SQL written out
    resolved.py  the SQL twin of `qrelkit.resolution`
    settings.py  name, scale, policy, strata, profiles
    imports.py   queries, documents, qrels, judgment logs, pooled pairs
    log.py       the judgment log, assessors, assignments, votes
    pool.py      pooled runs and the unlabeled pool
    reads.py     labels, queries, documents, progress, status
    counts.py    per-query judging counts, kept between reads
    reports.py   saved reports
    leases.py    which document each assessor has open
    removals.py  removing strata, queries, documents, profiles (recorded)
    tokens.py    access tokens of `qrelkit serve` (hashed)
"""

from .pool import RankedLists
from .reads import LabelRow, OpenWork
from .removals import Footprint
from .store import BUSY_TIMEOUT_MS, Store

__all__ = ["BUSY_TIMEOUT_MS", "Footprint", "LabelRow", "OpenWork", "RankedLists", "Store"]
