"""Machine assessors label pairs (`qrelkit assess`): which pairs, the judge, the cache.

A judge is anything with the `Judge` shape: it renders a pair's prompt, asks (itself, or a model
behind an endpoint), and parses the reply into a grade or a parse status. Each answer is one
`MachineLabel` row in the store's `machine_labels` table, never an event of the human judgment log.

Nothing is asked twice: a pair's cache key (`cache_key`: the judge and model, its parameters,
the template's hash, the query text and the document text) that a row already holds is a cache
hit, counted and not asked (`refresh` asks again, and the new row is the one that counts); a row
with status `error` got no reply, and its question is asked again. Questions are asked
`concurrency` at a time in worker threads (the first one alone: when it fails, the run stops with
a UsageError and records nothing) and the answers written from the calling thread: every `FLUSH`
answers for a local judge, each as it arrives for a judge that sends requests, so a killed
`assess` loses at most the requests in flight and goes on from there when run again.

`LexicalJudge` is a term-overlap baseline that needs no network. It is a weak baseline on purpose
(it rewards shared words and knows nothing of meaning): a floor any model must clear, and a way to
run the whole flow anywhere. Nothing is sent anywhere by this module; `http_judge.HttpJudge` asks
an LLM behind an endpoint the user gives.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args, runtime_checkable

from pydantic import JsonValue

from ..errors import UsageError
from ..models import Document, GradeScale, Query, QueueOrder, utcnow
from ..models.machine import LEXICAL, MachineCount, MachineLabel, ParseStatus
from ..storage import Store

PairSet = Literal["pooled-unjudged", "human", "all"]
"""Which pairs to label: pooled pairs no human labeled or skipped, pairs humans labeled (for
calibration), or both and the skipped ones."""
PAIR_SETS: tuple[PairSet, ...] = get_args(PairSet)

FLUSH = 50
"""Answers written to the store per transaction (what a killed run can lose at most)."""


@dataclass(frozen=True)
class Reply:
    """What asking gave: the raw reply (None: no reply), and what it cost."""

    text: str | None
    latency: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    error: str | None = None
    """Why there is no reply (a timeout, a refused connection), when there is none."""


class Judge(Protocol):
    """A machine assessor: `assessor` (`lexical`, `llm:MODEL`) and its provenance, and the three
    steps of labeling one pair."""

    assessor: str
    model: str | None
    endpoint_host: str | None
    """None for a judge that sends nothing anywhere."""
    template: str

    def parameters(self, scale: GradeScale) -> dict[str, JsonValue]: ...

    def render(self, query: Query, doc: Document, scale: GradeScale) -> str: ...

    def ask(self, prompt: str) -> Reply: ...

    def parse(self, reply: str, scale: GradeScale) -> tuple[ParseStatus, int | None]: ...


_GRADE_LINE = re.compile(r"^\s*grade\s*:\s*(\d{1,9})\s*$", re.IGNORECASE | re.MULTILINE)


def parse_grade(reply: str, scale: GradeScale) -> tuple[ParseStatus, int | None]:
    """The fixed output form every judge is asked for: a line `Grade: N` (the last one counts),
    N on the scale. Anything else is `unparsed`: never a grade, never 0."""
    found = _GRADE_LINE.findall(reply)
    if not found:
        return "unparsed", None
    grade = int(found[-1])
    return ("ok", grade) if 0 <= grade <= scale.max_grade else ("unparsed", None)


_STOPWORDS = frozenset(
    "a an and are as at be by for from how i in is it of on or that the this to was what when where which who why "
    "with".split()
)
_WORD = re.compile(r"\w+")


def terms(text: str) -> set[str]:
    """The lexical judge's terms: casefolded words (Unicode `\\w+`) of 2+ characters, a few
    English stop words left out."""
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 1 and w not in _STOPWORDS}


LEXICAL_TEMPLATE = (
    "qrelkit lexical judge 1: terms = casefolded \\w+ words of 2+ characters minus a few English stop "
    "words; overlap = |query terms & (title + text) terms| / |query terms|; "
    "grade = floor(overlap * max_grade); a query with no terms: grade 0"
)
"""The lexical judge's rule, in words: its `template` (a change to the rule is a new template
hash, so a new cache key)."""


class LexicalJudge:
    """A term-overlap baseline, deterministic and local: the share of the query's terms that the
    document's title and text hold, cut into the scale's grades (`LEXICAL_TEMPLATE`). A weak
    baseline: synonyms, paraphrase, negation and topic drift are all lost on it."""

    assessor = LEXICAL
    model: str | None = LEXICAL
    endpoint_host: str | None = None
    template = LEXICAL_TEMPLATE

    def parameters(self, scale: GradeScale) -> dict[str, JsonValue]:
        return {"max_grade": scale.max_grade}

    def render(self, query: Query, doc: Document, scale: GradeScale) -> str:
        body = {"query": query.text, "title": doc.title, "text": doc.text, "max_grade": scale.max_grade}
        return json.dumps(body, ensure_ascii=False, sort_keys=True)

    def ask(self, prompt: str) -> Reply:
        started = time.perf_counter()
        asked = json.loads(prompt)
        wanted = terms(asked["query"])
        held = terms(f"{asked['title']} {asked['text']}")
        shared = len(wanted & held)
        overlap = shared / len(wanted) if wanted else 0.0
        grade = math.floor(overlap * asked["max_grade"] + 1e-9)
        text = f"overlap {shared}/{len(wanted)}\nGrade: {grade}"
        return Reply(text=text, latency=time.perf_counter() - started)

    def parse(self, reply: str, scale: GradeScale) -> tuple[ParseStatus, int | None]:
        return parse_grade(reply, scale)


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(
    judge: Judge, parameters: dict[str, JsonValue], query: Query, doc: Document, *, prompt: str | None = None
) -> str:
    """sha256 over (judge and model, parameters, template hash, query text, document text, and
    the rendered prompt's hash when given: a prompt that also holds guidelines or grade definitions
    asks a new question when they change)."""
    asked = [judge.assessor, judge.model, parameters, sha256_text(judge.template), query.text, doc.title, doc.text]
    if prompt is not None:
        asked.append(sha256_text(prompt))
    return sha256_text(json.dumps(asked, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


@dataclass
class AssessResult:
    """What one `assess` did."""

    assessor: str
    pairs: int = 0
    """Pairs chosen (`--pairs`, `--stratum`)."""
    asked: int = 0
    cached: int = 0
    """Pairs whose question a row already answered: not asked again."""
    no_text: int = 0
    """Pairs whose document the store has no text for (pooled by id): not asked."""
    capped: int = 0
    """Pairs left unasked by `--max-calls`."""
    capped_by_cost: int = 0
    """Pairs left unasked by `--max-cost`."""
    cost: float = 0.0
    """What this run's answers cost (answers without a price or without token counts: 0)."""
    first_error: str | None = None
    """Why the first answer with status `error` got no reply."""
    statuses: Counter[str] = field(default_factory=Counter)
    """Parse status -> answers of this run."""

    @property
    def hit_rate(self) -> float | None:
        """cached / (cached + asked); None when nothing was looked up."""
        looked = self.cached + self.asked
        return self.cached / looked if looked else None


def choose_pairs(
    store: Store, pairs: str, stratum: str | None, order: QueueOrder | None = None
) -> list[tuple[str, str]]:
    """The (query, doc) pairs of `pairs` (a `PairSet`), of one stratum's queries when given,
    sorted by (query, doc); with `order`, the judging queue's pairs first, in its order
    (`queue.ordered_queue`: `--max-calls` then asks the queue's first N), the rest after them."""
    if pairs not in PAIR_SETS:
        raise UsageError(f"--pairs {pairs!r:.40} is not a pair set", f"give one of {', '.join(PAIR_SETS)}")
    with store.read_transaction():
        queries = store.reads.queries()
        found: set[tuple[str, str]] = set()
        if pairs in ("pooled-unjudged", "all"):
            found.update((p.query_id, p.doc_id) for p in store.pool.unlabeled())
        if pairs in ("human", "all"):
            found.update((q, d) for q, d, _ in store.reads.label_rows())
        if pairs == "all":
            found.update(store.reads.skipped())
    if stratum is not None:
        names = {q.stratum for q in queries} | {s.name for s in store.settings.info().strata}
        if stratum not in names:
            raise UsageError(f"--stratum {stratum!r:.60} is not a stratum", f"strata: {', '.join(sorted(names))}")
        keep = {q.id for q in queries if q.stratum == stratum}
        found = {p for p in found if p[0] in keep}
    if order is None:
        return sorted(found)
    from .queue import ordered_queue

    rank = {(i.query_id, i.doc_id): n for n, i in enumerate(ordered_queue(store, order, stratum=stratum))}
    return sorted(found, key=lambda p: (rank.get(p, len(rank)), p))


def assess(
    store: Store,
    judge: Judge,
    *,
    pairs: str = "pooled-unjudged",
    stratum: str | None = None,
    max_calls: int | None = None,
    refresh: bool = False,
    on_answer: Callable[[int], None] | None = None,
    concurrency: int = 1,
    max_cost: float | None = None,
    progress: Callable[[AssessResult, int], None] | None = None,
    order: QueueOrder | None = None,
) -> AssessResult:
    """Label the chosen pairs with `judge`: a pair asked before (its cache key has a row that is
    not an `error`) is a cache hit unless `refresh`; at most `max_calls` questions, asked
    `concurrency` at a time, none that could take the cost past `max_cost` (`Priced`); answers
    written every `FLUSH` (a judge that sends requests: each as it arrives). `progress(result,
    questions)` after each answer."""
    if max_calls is not None and max_calls < 0:
        raise UsageError(f"--max-calls {max_calls} is below 0", "give a number of calls, 0 or more")
    if concurrency < 1:
        raise UsageError(f"--concurrency {concurrency} is below 1", "give 1 or more")
    chosen = choose_pairs(store, pairs, stratum, order)
    scale = store.settings.info().scale
    parameters = judge.parameters(scale)
    result = AssessResult(assessor=judge.assessor, pairs=len(chosen))
    questions = list(_questions(store, judge, parameters, scale, chosen, result))
    known = {} if refresh else _answered(store.machine.cached(key for key, _, _, _ in questions))
    copies: list[MachineLabel] = []
    todo: list[_Question] = []
    for question in questions:
        key, query, doc, _ = question
        if key not in known:
            todo.append(question)
            continue
        result.cached += 1
        if (copied := _reuse(known[key], query.id, doc.id)) is not None:
            copies.append(copied)
    if max_calls is not None and len(todo) > max_calls:
        result.capped, todo = len(todo) - max_calls, todo[:max_calls]
    store.machine.record(copies)
    asking = _Asking(store, judge, scale, parameters, result, max_cost)
    asking.run(todo, concurrency, on_answer, progress)
    return result


_Question = tuple[str, Query, Document, str]
"""(cache key, query, document, rendered prompt)."""


@runtime_checkable
class Priced(Protocol):
    """A judge whose questions cost money: the most asking a prompt can cost (None: no price)."""

    def worst_cost(self, prompt: str) -> float | None: ...


class _Asking:
    """Asks the questions of one run, at most `concurrency` at a time, and records the answers
    from the calling thread (the store's connection never leaves it)."""

    def __init__(
        self, store: Store, judge: Judge, scale: GradeScale, parameters: dict[str, JsonValue],
        result: AssessResult, max_cost: float | None,
    ) -> None:  # fmt: skip
        self.store, self.judge, self.scale, self.parameters = store, judge, scale, parameters
        self.result, self.max_cost = result, max_cost
        self.worst = judge.worst_cost if isinstance(judge, Priced) else None
        self.flush = FLUSH if judge.endpoint_host is None else 1
        self.spent = self.reserved = 0.0
        self.pending: list[MachineLabel] = []

    def run(
        self, todo: list[_Question], concurrency: int, on_answer: Callable[[int], None] | None,
        progress: Callable[[AssessResult, int], None] | None,
    ) -> None:  # fmt: skip
        waiting = iter(todo)
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="assess")
        flying: dict[Future[tuple[MachineLabel, str | None]], float] = {}
        try:
            while True:
                room = 1 if self.result.asked == 0 else concurrency  # the first question alone
                while len(flying) < room and (question := self._next(waiting)) is not None:
                    worst = self._worst(question[3])
                    self.reserved += worst
                    flying[pool.submit(self._answer, question)] = worst
                if not flying:
                    break
                done, _ = wait(flying, return_when=FIRST_COMPLETED)
                for future in done:
                    self._took(future.result(), flying.pop(future))
                    if on_answer is not None:
                        on_answer(self.result.asked)
                    if progress is not None:
                        progress(self.result, len(todo) - self.result.capped_by_cost)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            self.store.machine.record(self.pending)

    def _next(self, waiting: Iterator[_Question]) -> _Question | None:
        """The next question, unless asking it could take the cost past `max_cost` (then none is
        asked any more, and the rest are counted in `capped_by_cost`)."""
        for question in waiting:
            if self.max_cost is None or self.spent + self.reserved + self._worst(question[3]) <= self.max_cost:
                return question
            self.result.capped_by_cost = 1 + sum(1 for _ in waiting)
            return None
        return None

    def _worst(self, prompt: str) -> float:
        worst = None if self.worst is None else self.worst(prompt)
        return 0.0 if worst is None else worst

    def _answer(self, question: _Question) -> tuple[MachineLabel, str | None]:
        key, query, doc, prompt = question
        return _answer(self.judge, self.scale, self.parameters, key, query, doc, prompt)

    def _took(self, answer: tuple[MachineLabel, str | None], worst: float) -> None:
        """Record one answer; the first answer of a run being an error stops the run (the
        endpoint or its key is wrong): nothing is recorded for it."""
        row, error = answer
        self.reserved -= worst
        if error is not None and self.result.asked == 0:
            where = self.judge.endpoint_host or self.judge.assessor
            raise UsageError(f"{where:.80}: {error}", "check --endpoint, --api-key-env and that the server runs")
        self.spent += worst if row.cost is None else row.cost
        self.result.asked += 1
        self.result.cost += row.cost or 0.0
        self.result.statuses[row.status] += 1
        if error is not None and self.result.first_error is None:
            self.result.first_error = error
        self.pending.append(row)
        if len(self.pending) >= self.flush:
            self.store.machine.record(self.pending)
            self.pending = []


def _answered(found: dict[str, list[MachineLabel]]) -> dict[str, list[MachineLabel]]:
    """The cache keys some row answered: a row with status `error` got no reply, so its question
    is asked again."""
    kept = {key: [r for r in rows if r.status != "error"] for key, rows in found.items()}
    return {key: rows for key, rows in kept.items() if rows}


def _questions(
    store: Store,
    judge: Judge,
    parameters: dict[str, JsonValue],
    scale: GradeScale,
    chosen: Iterable[tuple[str, str]],
    result: AssessResult,
) -> Iterable[_Question]:
    queries = {q.id: q for q in store.reads.queries()}
    for query_id, doc_id in chosen:
        doc = store.reads.document(doc_id)
        if doc is None:
            result.no_text += 1
            continue
        query = queries[query_id]
        prompt = judge.render(query, doc, scale)
        yield cache_key(judge, parameters, query, doc, prompt=prompt), query, doc, prompt


def _reuse(rows: list[MachineLabel], query_id: str, doc_id: str) -> MachineLabel | None:
    """A cache hit: nothing when the pair holds the answer already; else the answer another pair
    with the same query and document text was given, as this pair's row (not asked: no latency,
    no tokens, cost 0)."""
    if any(r.query_id == query_id and r.doc_id == doc_id for r in rows):
        return None
    update = {"query_id": query_id, "doc_id": doc_id, "timestamp": utcnow(), "latency": None, "tokens_in": None,
              "tokens_out": None, "cost": 0.0}  # fmt: skip
    return rows[-1].model_copy(update=update)


def _answer(
    judge: Judge, scale: GradeScale, parameters: dict[str, JsonValue], key: str, query: Query, doc: Document,
    prompt: str,
) -> tuple[MachineLabel, str | None]:  # fmt: skip
    """Ask about one pair (in a worker thread): the row that records the answer (or that there
    is none), and why there is none."""
    reply = judge.ask(prompt)
    status, grade = ("error", None) if reply.text is None else judge.parse(reply.text, scale)
    error = (reply.error or "no reply") if reply.text is None else None
    row = MachineLabel(
        assessor=judge.assessor, query_id=query.id, doc_id=doc.id, status=status, grade=grade, model=judge.model,
        endpoint_host=judge.endpoint_host, parameters=parameters, template_sha256=sha256_text(judge.template),
        prompt_sha256=sha256_text(prompt), reply=reply.text,
        latency=reply.latency, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost=reply.cost, cache_key=key,
        error=error,
    )  # fmt: skip
    return row, error


JUDGES: dict[str, Callable[[], Judge]] = {LEXICAL: LexicalJudge}
"""`--judge NAME` -> its judge (an endpoint's judge comes with `--endpoint`: `http_judge`)."""


def judge_named(name: str) -> Judge:
    if name not in JUDGES:
        raise UsageError(f"--judge {name!r:.40} is not a judge", f"judges: {', '.join(JUDGES)}")
    return JUDGES[name]()


def machine_counts(store: Store) -> list[MachineCount]:
    """Machine labels per assessor and parse status (`qrelkit status`): rows, and pairs whose
    latest row has that status."""
    return store.machine.counts()


def result_json(result: AssessResult) -> str:
    """`assess --format json`: the counts, the hit rate, the answers by parse status."""
    body = {
        "assessor": result.assessor, "pairs": result.pairs, "asked": result.asked, "cached": result.cached,
        "hit_rate": result.hit_rate, "no_text": result.no_text, "capped": result.capped,
        "capped_by_cost": result.capped_by_cost, "cost": result.cost,
        "statuses": dict(sorted(result.statuses.items())),
    }  # fmt: skip
    return json.dumps(body, indent=2)
