"""The golden-set store: one SQLite file; the only package that touches SQLite.

Judgments are an append-only log (`judgments`); the current label of a pair is derived from it
(each assessor's latest event is a vote, see `qrelkit.resolution`) by the SQL in `resolved`, never
stored. Every write is one explicit transaction (`BEGIN IMMEDIATE` ... `COMMIT`), the journal is WAL
and `synchronous=FULL`, so a judgment that `store.log.record()` returned for is on disk. A failed
import rolls back and leaves the store as it was. The store knows no scoring and no version folders: the
workflows (`qrelkit.workflows`) compose it with them.

    store.py     Store: open, close, reader connections, checkpoints; the parts below
    base.py      the shared connection: transactions, the settings cache (PRAGMA data_version)
    schema.py    named migrations, the SQL written out
    resolved.py  the SQL twin of `qrelkit.resolution`
    settings.py  store.settings   name, scale, policy, strata, profiles
    imports.py   store.imports    queries, documents, qrels, judgment logs, pooled pairs
    log.py       store.log        the judgment log, assessors, assignments, votes, a query's pairs
    pool.py      store.pool       pooled runs and the unlabeled pool
    counts.py    store.counts     per-query progress, kept between reads
    reads.py     store.reads      labels, queries, documents, status
    reports.py   store.reports    saved reports
    leases.py    store.leases     which document each assessor has open
    removals.py  store.removals   removing strata, queries, documents, profiles (recorded)
    tokens.py    store.tokens     access tokens of `qrelkit serve` (hashed)
    flags.py     store.flags      assessors' flags on queries, for their owner
    machine.py   store.machine    machine assessors' labels and provenance (never in the log)
"""

from .imports import JudgmentsImported, UnknownQueries
from .leases import CLAIM_WINDOW
from .log import Claim, Pairs
from .pool import RankedLists
from .reads import LabelRow, OpenWork
from .removals import Footprint
from .store import BUSY_TIMEOUT_MS, Store

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CLAIM_WINDOW",
    "Claim",
    "Footprint",
    "JudgmentsImported",
    "LabelRow",
    "OpenWork",
    "Pairs",
    "RankedLists",
    "Store",
    "UnknownQueries",
]
