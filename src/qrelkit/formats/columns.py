"""Fast columnar parsing of TREC text into numpy arrays.

`trec_columns(data, kind)` tokenises the bytes of a TREC run or qrels file (whole, or in blocks
of whole lines, which keeps temporaries small) with numpy and returns its columns, or None when
anything is irregular (a comment, a line with the wrong number
of fields, a value that does not parse, a duplicate pair): the caller then falls back to the
line-by-line readers of `qrelkit.formats.trec`, which name the offending line. So this path never
decides what is an error; it only makes the regular case fast.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from . import _arrow
from .fast_columns import digits as _digits
from .fast_columns import integer_tokens as _integer_tokens
from .fast_columns import plain_decimals
from .ids import MAX_ID_LENGTH
from .seen import SeenKeys
from .trec import (
    GRADE_MAX,
    GRADE_MIN,
    QRELS_LAYOUTS,
    RANK_FIELDS,
    RANK_MAX,
    RUN_LAYOUTS,
    RunFormat,
    layout_of,
    split_fields,
)

COMPILED_FROM = 64 << 20
"""Files this large (or of unknown size: a pipe, `.gz`) are tokenised by pyarrow when it is installed."""

WORKERS = 2
"""Blocks parsed at once by pyarrow (`_Layout.compiled`), which lets go of the GIL while it reads."""

NUMPY_WORKERS = 1
"""Blocks parsed at once by numpy's tokeniser: one, on a thread beside the caller's. Its many short
numpy calls hold the GIL between them, so a second parsing thread only contends for it: shared
medium (35 MB, 512 KiB blocks) took 543 ms with two and 521 ms with one, at 40 ms less CPU
(medians of 11, 2026-12-04)."""

CHUNK = 1 << 14
"""Rows gathered per step when cutting tokens out of the buffer (bounds temporary memory: ~50 bytes
a row while a word is gathered). 2^14, not 2^20 (a whole block in one step): a 2 MiB qrels block
peaked at 14.2 MiB of temporaries and took 18.9 ms, now 10.5 MiB and 15.5 ms (the steps stay in cache)."""

INT32_OFFSETS_BELOW = 2**31 - 1
"""Blocks shorter than this (bytes) keep their tokens' offsets as int32, longer ones as int64."""

_WORD_MIX = tuple(
    np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93)
)
"""Odd multipliers for the id hash's 8-byte words (cycled)."""
_PAIR_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Columns:
    """(query, doc, value) rows: value is a score (run) or a grade (qrels)."""

    query: npt.NDArray[np.bytes_]
    doc: npt.NDArray[np.bytes_]
    value: npt.NDArray[np.float64] | npt.NDArray[np.int64]

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[str, str, float]], *, integer: bool = False) -> Columns:
        query = np.array([r[0].encode("utf-8") for r in rows] or [b""], dtype=np.bytes_)[: len(rows)]
        doc = np.array([r[1].encode("utf-8") for r in rows] or [b""], dtype=np.bytes_)[: len(rows)]
        if integer:
            return cls(query=query, doc=doc, value=np.array([int(r[2]) for r in rows], dtype=np.int64))
        return cls(query=query, doc=doc, value=np.array([r[2] for r in rows], dtype=np.float64))


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
"""`_LOW_BYTES[k]` keeps the first k bytes (k = 0..8) of a little-endian 8-byte word."""


def _words(buf: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]:
    """The bytes as aligned little-endian 8-byte words, zero-padded by at least one whole word (so
    the word after a token's last byte is always there). One copy of the block: `_cut` gathers
    whole words from it, not bytes."""
    words = np.zeros(len(buf) // 8 + 2, dtype="<u8")
    words.view(np.uint8)[: len(buf)] = buf
    return words


def _cut(
    buf: npt.NDArray[np.uint8],
    starts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    *,
    hashed: bool,
    words: npt.NDArray[np.uint64] | None = None,
) -> tuple[npt.NDArray[np.bytes_], npt.NDArray[np.uint64] | None]:
    """Tokens as a fixed-width bytes array (the width rounded up to 8 bytes, zero-padded), and (if
    `hashed`) `id_hash` of each. Cut 8 bytes at a time: the j-th word of a token starting at byte s
    is the aligned words s // 8 + j and the next shifted together, masked to the bytes the token
    has left (`words`: `_words(buf)`, made here when not given)."""
    n = len(starts)
    lengths = ends - starts
    n_words = -(-max(int(lengths.max(initial=1)), 1) // 8)
    if words is None:
        words = _words(buf)
    out = np.empty((n, n_words), dtype="<u8")
    hashes = np.empty(n, dtype=np.uint64) if hashed else None
    for lo in range(0, n, CHUNK):
        hi = min(n, lo + CHUNK)
        first = starts[lo:hi]
        at = first >> 3
        low = ((first & 7) << 3).astype(np.uint64)  # bits of the first word before the token
        high = np.uint64(63) - low  # the next word moves up 64 - low bits (in two shifts: < 64 each)
        left = lengths[lo:hi]
        for j in range(n_words):
            word = words.take(at, mode="clip")
            word >>= low
            at += 1
            nxt = words.take(at, mode="clip")  # clipped only where the mask below keeps nothing
            nxt <<= np.uint64(1)
            nxt <<= high
            word |= nxt
            word &= _LOW_BYTES[np.clip(left - 8 * j, 0, 8)]
            out[lo:hi, j] = word
        if hashes is not None:
            hashes[lo:hi] = _word_hash(out[lo:hi].view(np.uint8))
    return out.view(f"S{8 * n_words}").ravel(), hashes


def _word_hash(chars: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]:
    """`id_hash` of zero-padded rows whose width is a multiple of 8. A word of padding (all zero:
    ids hold no NUL byte) adds nothing, so an id hashes the same in a column of any width."""
    words = chars.view("<u8")
    h = words[:, 0] * _WORD_MIX[0]
    for j in range(1, words.shape[1]):
        w = words[:, j]
        term = w * _WORD_MIX[j % 4]
        term += np.uint64(j)
        term *= w != 0  # a padding word: nothing (the id ended before it)
        h ^= term
    h ^= h >> np.uint64(31)
    return np.asarray(h, dtype=np.uint64)


@dataclass(frozen=True)
class Parsed:
    columns: Columns
    doc_hash: npt.NDArray[np.uint64]
    ranks: bool = False
    """The run's third column held ranks (MS MARCO): `columns.value` is -rank."""


def _offsets(n: int) -> type[np.signedinteger[Any]]:
    """The integer type for byte offsets into `n` bytes (int32 below `INT32_OFFSETS_BELOW`: half
    the memory of the separator positions and of every token's start and end)."""
    return np.int32 if n < INT32_OFFSETS_BELOW else np.int64


def _fields_simple(
    buf: npt.NDArray[np.uint8], space: npt.NDArray[np.bool_], nfields: int, wanted: tuple[int, ...]
) -> list[tuple[npt.NDArray[np.signedinteger[Any]], npt.NDArray[np.signedinteger[Any]]]] | None:
    """Offsets of the `wanted` fields in the common layout (one separator byte between fields,
    one line per record, no blank lines, LF endings): straight from the separator positions
    (a field's ends are a view of them). None otherwise."""
    if space[0] or (space[1:] & space[:-1]).any():
        return None
    closed = bool(space[-1])  # else the block's end ends its last line
    found = np.flatnonzero(space)
    if len(found) + (not closed) == 0 or (len(found) + (not closed)) % nfields:
        return None
    seps = np.empty(len(found) + (not closed), dtype=_offsets(len(buf)))
    seps[: len(found)] = found
    del found
    if not closed:
        seps[-1] = len(buf)
    newline = buf.take(seps, mode="clip") == 10
    if not closed:
        newline[-1] = True
    # every record's last separator ends a line, and no other one does
    if not newline[nfields - 1 :: nfields].all() or np.count_nonzero(newline) != len(seps) // nfields:
        return None
    del newline
    line_ends = seps[nfields - 1 :: nfields]
    out = []
    for j in wanted:
        starts = np.concatenate((np.zeros(1, seps.dtype), line_ends[:-1] + 1)) if j == 0 else seps[j - 1 :: nfields] + 1
        out.append((starts, seps[j::nfields]))
    return out


def _fields_general(
    buf: npt.NDArray[np.uint8], space: npt.NDArray[np.bool_], nfields: int, wanted: tuple[int, ...]
) -> list[tuple[npt.NDArray[np.signedinteger[Any]], npt.NDArray[np.signedinteger[Any]]]] | None:
    """Offsets of the `wanted` fields for any white-space layout (runs of spaces or tabs, CRLF,
    blank lines)."""
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        edges = np.concatenate(([0], edges))
    if not space[-1]:
        edges = np.concatenate((edges, [len(buf)]))
    starts, ends = edges[0::2], edges[1::2]
    if len(starts) == 0 or len(starts) % nfields:
        return None
    # one record per line: a newline (or the end) after each record's last token, none inside
    padded = np.append(buf, [np.uint8(10), np.uint8(10)])
    after = padded[ends]
    crlf = np.flatnonzero(after == 13)
    after[crlf] = padded[ends[crlf] + 1]  # CRLF ends a line too
    gaps = after.reshape(-1, nfields) == 10
    if not gaps[:, -1].all() or gaps[:, :-1].any():
        return None
    return [(starts[j::nfields], ends[j::nfields]) for j in wanted]


@dataclass(frozen=True)
class _Block:
    query: npt.NDArray[np.bytes_]
    doc: npt.NDArray[np.bytes_]
    doc_hash: npt.NDArray[np.uint64]
    query_hash: npt.NDArray[np.uint64]
    value: npt.NDArray[Any]
    digits: bool = False
    """Every value is ASCII digits (a 3-field run's: they may be ranks)."""


@dataclass(frozen=True)
class _Layout:
    nfields: int
    """Fields on every line (the first line's count: a run with 9 fields has 9 on each)."""
    doc_field: int
    value_field: int
    compiled: bool = False
    """Tokenise with pyarrow where it can (`_arrow`)."""
    rank_field: int | None = None
    """Where a run's rank is (an integer: `trec.RANK_FIELDS`)."""
    third: RunFormat | None = None
    """A 3-field run's format (`auto`, `scores` or `msmarco`): what its values may be."""

    @property
    def maybe_ranks(self) -> bool:
        return self.third in ("auto", "msmarco")


def _first_layout(head: bytes, kind: str, run_format: RunFormat = "auto") -> tuple[_Layout, int] | None:
    """The layout the first line sets and where the data starts (past a header row); None when the
    first line is blank, a comment or fits no layout (the exact reader decides)."""
    cut = head.find(b"\n")
    first = head[: cut if cut >= 0 else len(head)]
    if not first.strip() or first.lstrip().startswith(b"#") or max(first, default=0) > 126:
        return None
    fields = split_fields(first.decode("ascii"))
    found = layout_of(fields, kind, run_format)
    if found is None:
        return None
    layout, header = found
    _, doc_field, value_field = (RUN_LAYOUTS if kind == "run" else QRELS_LAYOUTS)[layout]
    start = (cut + 1 if cut >= 0 else len(head)) if header else 0
    rank_field = RANK_FIELDS.get(layout) if kind == "run" else None
    third = run_format if kind == "run" and layout == 3 else None
    return _Layout(len(fields), doc_field, value_field, rank_field=rank_field, third=third), start


Field = tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]
"""A token column: the bytes it lies in, and each token's start and end offsets there."""


def _numpy_tokens(buf: npt.NDArray[np.uint8], layout: _Layout) -> list[Field] | None:
    """Query, doc and value tokens (and a run's ranks) cut by numpy, for any white-space layout;
    None when a control character is in the text (no separator: the exact reader refuses the id)
    or a line does not have the layout's fields."""
    space = buf <= 32
    if (buf < 9).any() or ((buf - np.uint8(14)) < 18).any():  # a control character: 0-8 or 14-31
        return None
    wanted = (0, layout.doc_field, layout.value_field) + (() if layout.rank_field is None else (layout.rank_field,))
    nfields = layout.nfields
    fields = _fields_simple(buf, space, nfields, wanted) or _fields_general(buf, space, nfields, wanted)
    if fields is None:
        return None
    return [(buf, *span) for span in fields]


def _arrow_tokens(data: bytes, buf: npt.NDArray[np.uint8], kind: str, layout: _Layout) -> _arrow.Split | None:
    """The same tokens (a run's scores parsed, the queries as distinct values and an index)
    through pyarrow, for the plainest layout only (`_arrow.split`); None otherwise."""
    if not layout.compiled or np.count_nonzero(buf < 32) != np.count_nonzero(buf == 10):
        return None  # tabs, CR or control characters: the numpy tokeniser looks at them
    if kind == "run":
        split = _arrow.split(data, layout.nfields, (0, layout.doc_field), layout.value_field, layout.rank_field)
        if split is not None and layout.maybe_ranks and _integral(split.floats):
            return None  # maybe ranks: the numpy tokeniser looks at the digits themselves
        return split
    return _arrow.split(data, layout.nfields, (0, layout.doc_field, layout.value_field), None)


def _integral(floats: npt.NDArray[np.float64] | None) -> bool:
    """Every value a whole number of at least 0 (what ASCII digits parse to)."""
    return floats is not None and bool(((floats >= 0) & (floats == np.floor(floats))).all())


def _parse_block(data: bytes, kind: str, layout: _Layout) -> _Block | None:
    buf = np.frombuffer(data, dtype=np.uint8)
    if len(buf) == 0 or buf.max() > 126:
        return None  # non-ASCII or DEL: the exact reader checks the encoding and reports
    arrow = _arrow_tokens(data, buf, kind, layout)
    tokens = arrow.fields if arrow is not None else _numpy_tokens(buf, layout)
    if tokens is None:
        return None
    (q_buf, *q_span), (d_buf, *d_span) = tokens[0], tokens[1]
    if any(len(starts) and (buf_[starts] == ord("#")).any() for buf_, starts, _ in (tokens[0], tokens[1])):
        return None  # an id may not start with `#` (the exact reader says so)
    if any(int((ends - starts).max(initial=0)) > MAX_ID_LENGTH for starts, ends in (q_span, d_span)):
        return None  # the exact reader names the over-long id
    rank_tokens = None  # pyarrow checked the ranks as text (`_arrow.split`, int_field)
    if layout.rank_field is not None:
        rank_tokens = tokens[3] if arrow is None else tokens[2] if len(tokens) > 2 else None
    if rank_tokens is not None and not _integer_tokens(*rank_tokens):
        return None  # a rank that is no integer (or a long one): the exact reader decides
    words = _words(buf) if arrow is None else None  # the numpy path cuts every token from `buf`
    query, query_hash = _cut(q_buf, *q_span, hashed=True, words=words if q_buf is buf else None)
    if arrow is not None:  # distinct queries: one row per line
        query, query_hash = query[arrow.first_index], cast(npt.NDArray[np.uint64], query_hash)[arrow.first_index]
    doc, doc_hash = _cut(d_buf, *d_span, hashed=True, words=words if d_buf is buf else None)
    if layout.nfields == 4 and len(doc) and (doc == b"Q0").any():
        return None  # a TREC line that lost two fields: the exact reader refuses it
    digits = False
    value: npt.NDArray[Any] | None = None
    if arrow is not None and arrow.floats is not None:
        value = arrow.floats
    else:
        raw_value = _cut(*tokens[2], hashed=False, words=words if tokens[2][0] is buf else None)[0]
        del words, tokens, q_span, d_span, rank_tokens  # the block's words and offsets: freed before the values
        value, digits = _values(raw_value, kind), layout.maybe_ranks and _digits(raw_value, signed=False)
    if value is None or kind == "run" and not np.isfinite(value).all():
        return None
    if layout.third == "msmarco" and not digits:
        return None  # the exact reader names the value that is no rank
    if kind == "qrels" and len(value) and (value.min() < GRADE_MIN or value.max() > GRADE_MAX):
        return None
    return _Block(
        query, doc, cast(npt.NDArray[np.uint64], doc_hash), cast(npt.NDArray[np.uint64], query_hash), value, digits
    )


def _values(raw_value: npt.NDArray[np.bytes_], kind: str) -> npt.NDArray[Any] | None:
    """Scores (run) or grades (qrels) from their tokens; None when one does not parse."""
    if kind == "qrels" and not _digits(raw_value, signed=True):
        return None  # `+2`, `1_0`: int() takes them, trec_eval's grades are digits; the exact reader says so
    if kind == "run" and len(raw_value) >= DECIMALS_FROM:
        found = plain_decimals(raw_value)
        if found is not None:
            return found
    try:
        return raw_value.astype(np.float64) if kind == "run" else raw_value.astype(np.int64)
    except (ValueError, OverflowError):
        return None


DECIMALS_FROM = 1
"""Score columns of at least this many values try `fast_columns.plain_decimals` first (tests raise
it to compare)."""


def concat_ids(parts: list[npt.NDArray[np.bytes_]]) -> npt.NDArray[np.bytes_]:
    """The parts end to end, as wide as the widest (filled in place: no widened copy of each). The
    list is emptied as they are copied: a part no one else holds is freed as soon as it is copied."""
    out = np.empty(sum(len(p) for p in parts), dtype=f"S{max(p.dtype.itemsize for p in parts)}")
    at = 0
    parts.reverse()
    while parts:
        part = parts.pop()
        out[at : at + len(part)] = part
        at += len(part)
    return out


def trec_columns(
    data: bytes | Iterable[bytes],
    kind: str,
    *,
    large: bool = False,
    run_format: RunFormat = "auto",
    endless: bool = False,
) -> Parsed | None:
    """Columns of a TREC run (`kind="run"`: 6 or more fields, or 3 or 4, as `trec.read_run` reads
    them, `run_format` saying which) or qrels (`kind="qrels"`: 4 fields, or 3 after a header row),
    from the whole text or from blocks of whole lines (`formats.read_blocks`); None when anything
    is irregular (every line must have as many fields as the first). `large` (a file of
    `COMPILED_FROM` bytes or more, or of unknown size) tokenises with pyarrow where it is
    installed: the same arrays, faster. `endless` (standard input, a pipe: it may never end)
    looks for a repeated pair block by block, and gives up at the first block that has one."""
    blocks = iter([data] if isinstance(data, bytes) else data)
    head = next(blocks, b"")
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    first = _first_layout(head, kind, run_format)
    if first is None:
        return None
    layout, start = first
    if large and _arrow.available():  # pyarrow's import (0.06 s, 50 MiB) pays for itself on large files
        layout = dataclasses.replace(layout, compiled=True)
    return _gather(itertools.chain([head[start:]], blocks), kind, layout, SeenKeys() if endless else None)


def _gather(blocks: Iterable[bytes], kind: str, layout: _Layout, seen: SeenKeys | None) -> Parsed | None:
    """Parse the blocks (two at a time) and join them; None if any block gives up (or, with
    `seen`, holds a pair hash an earlier block or row has). Each block keeps its columns and its
    pair hashes (not its query hashes), and each column is joined dropping the blocks' parts as it
    goes: at most one joined column beside the parts, not all of them."""
    parts = _Parts()
    for part in _parsed(blocks, kind, layout):
        if not _fresh(part, seen):
            return None
        parts.add(cast(_Block, part), pairs=seen is None)
    if not parts.query:
        return None
    if seen is None and _repeats(_drain(parts.pair)):
        return None  # a duplicate (query, doc), or a hash collision: the exact reader decides
    columns = Columns(query=concat_ids(parts.query), doc=concat_ids(parts.doc), value=_drain(parts.value))
    doc_hash = _drain(parts.doc_hash)
    ranks = False
    if layout.maybe_ranks and parts.digits:
        found = _ranks(columns.query, cast(npt.NDArray[np.float64], columns.value), strict=layout.third == "msmarco")
        if found is None:
            return None  # queries not in one block each, or no ranks where they must be: the exact reader decides
        ranks = found
        if ranks:
            columns = dataclasses.replace(columns, value=-columns.value)
    return Parsed(columns, doc_hash, ranks)


@dataclass
class _Parts:
    """The parsed blocks' columns, kept until they are joined."""

    query: list[npt.NDArray[np.bytes_]] = dataclasses.field(default_factory=list)
    doc: list[npt.NDArray[np.bytes_]] = dataclasses.field(default_factory=list)
    value: list[npt.NDArray[Any]] = dataclasses.field(default_factory=list)
    doc_hash: list[npt.NDArray[np.uint64]] = dataclasses.field(default_factory=list)
    pair: list[npt.NDArray[np.uint64]] = dataclasses.field(default_factory=list)
    digits: bool = True
    """Every block's values are digits (`_Block.digits`)."""

    def add(self, part: _Block, *, pairs: bool) -> None:
        self.query.append(part.query)
        self.doc.append(part.doc)
        self.value.append(part.value)
        self.doc_hash.append(part.doc_hash)
        if pairs:
            self.pair.append(part.doc_hash + part.query_hash * _PAIR_MIX)
        self.digits = self.digits and part.digits


def _drain(parts: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The parts end to end; the list is emptied (the parts go as soon as the caller drops them)."""
    out = np.concatenate(parts)
    parts.clear()
    return out


def _fresh(part: _Block | None, seen: SeenKeys | None) -> bool:
    """A parsed block, none of whose pair hashes (with `seen`) an earlier block or row has."""
    return part is not None and (seen is None or not len(seen.add(part.doc_hash + part.query_hash * _PAIR_MIX)))


def pair_repeats(doc_hash: npt.NDArray[np.uint64], query_hash: list[npt.NDArray[np.uint64]]) -> bool:
    """Two rows with the same pair hash (a repeated pair, or very rarely a collision)."""
    pair = np.concatenate(query_hash)
    pair *= _PAIR_MIX
    pair += doc_hash
    return _repeats(pair)


def _repeats(pair: npt.NDArray[np.uint64]) -> bool:
    """Two equal pair hashes (sorted here, in place)."""
    pair.sort()
    return len(pair) > 1 and bool((pair[1:] == pair[:-1]).any())


def _ranks(query: npt.NDArray[np.bytes_], value: npt.NDArray[np.float64], *, strict: bool) -> bool | None:
    """Whether whole-number values are ranks as `trec.RankCheck` tells them: 1, 2, ..., n within
    each query, or (`strict`, MS MARCO said outright) rising, at most `RANK_MAX`; None when a
    query's lines are not all together (the exact reader looks at them) or `strict` ranks are not."""
    n = len(query)
    new = np.ones(n, dtype=bool)
    new[1:] = query[1:] != query[:-1]
    starts = np.flatnonzero(new)
    if len(np.unique(query[starts])) != len(starts):
        return None
    if strict:
        rising = (value[1:] > value[:-1]) | new[1:]
        return True if bool(rising.all()) and float(value.max(initial=0)) <= RANK_MAX else None
    first = np.repeat(starts, np.diff(np.append(starts, n)))
    return bool((value == np.arange(1, n + 1) - first).all())


def _parsed(blocks: Iterable[bytes], kind: str, layout: _Layout) -> Generator[_Block | None, None, None]:
    """Each block parsed (`_parse_block`) in order, in the background (`WORKERS` or `NUMPY_WORKERS`
    at a time); stops after the first None (an irregular block). A lone block (a small file) is parsed here: no thread
    pool to start, nor concurrent.futures and logging to import (~5 ms)."""
    source = iter(blocks)
    ahead = list(itertools.islice(source, 2))
    if len(ahead) == 1:
        if ahead[0] and not ahead[0].isspace():
            yield _parse_block(ahead[0], kind, layout)
        return
    from concurrent.futures import Future, ThreadPoolExecutor

    # numpy releases the GIL in most of the per-block work: two blocks at a time use two cores
    workers = WORKERS if layout.compiled else NUMPY_WORKERS
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[_Block | None]] = deque()
        for block in itertools.chain(ahead, source):
            if block and not block.isspace():  # (strip() would copy the block)
                pending.append(pool.submit(_parse_block, block, kind, layout))
            while len(pending) > workers or (pending and pending[0].done()):
                part = pending.popleft().result()
                yield part
                if part is None:
                    return
        while pending:
            part = pending.popleft().result()
            yield part
            if part is None:
                return


@dataclass(frozen=True)
class RunBlock:
    """The rows of one block of a TREC run file, in line order."""

    query: npt.NDArray[np.bytes_]
    doc: npt.NDArray[np.bytes_]
    score: npt.NDArray[np.float64]
    doc_hash: npt.NDArray[np.uint64]
    query_hash: npt.NDArray[np.uint64]


def run_blocks(
    blocks: Iterable[bytes], run_format: RunFormat = "auto", *, large: bool = False
) -> Generator[RunBlock | None, None, None]:
    """The rows of a TREC run file of scores (blocks of whole lines, `formats.read_blocks`) block
    by block, parsed as `trec_columns` parses them (`large`: by pyarrow where it can), the next
    blocks in the background. A None ends it: something is irregular, or the file may hold ranks
    (a 3-field run, told only from every line), so the caller reads it whole. Repeats are not
    looked for here."""
    source = iter(blocks)
    head = next(source, b"").removeprefix(b"\xef\xbb\xbf")
    first = _first_layout(head, "run", run_format)
    if first is None or first[0].maybe_ranks:
        yield None
        return
    layout, start = first
    if large and _arrow.available():
        layout = dataclasses.replace(layout, compiled=True)
    for part in _parsed(itertools.chain([head[start:]], source), "run", layout):
        yield None if part is None else RunBlock(part.query, part.doc, part.value, part.doc_hash, part.query_hash)
        if part is None:
            return


def hash_docs(doc: npt.NDArray[np.bytes_]) -> npt.NDArray[np.uint64]:
    """The id hash `trec_columns` computes (`_word_hash`), for columns built another way. It depends
    on the id's bytes only: the id's 8-byte words, little-endian and zero-padded, each times an odd
    constant, XORed together, then folded; ids of up to 8 bytes never collide. Ids hold no NUL byte
    (a control character), so padding is unambiguous; a collision only sends the caller to the
    exact path, which compares the ids themselves."""
    width = -(-max(doc.dtype.itemsize, 1) // 8) * 8
    chars = np.frombuffer(doc.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(len(doc), width)
    return _word_hash(chars)
