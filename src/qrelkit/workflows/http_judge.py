"""An LLM behind an OpenAI-compatible chat-completions endpoint as a machine assessor (`assess --endpoint`).

`HttpJudge` renders a pair's prompt from a template (ours, `TEMPLATE`, or the user's `--prompt
FILE`, with the named placeholders of `PLACEHOLDERS`), POSTs it to `{endpoint}/chat/completions`
(vLLM, Ollama, llama.cpp's server, OpenAI, OpenRouter all speak it), and parses the reply: one
line `Grade: N` with N on the scale is `ok`; a refusal is `refused`; anything else `unparsed`
(never a grade, never 0). A request that fails with 429, a 5xx, a timeout or a dropped connection
is tried again after an exponential backoff with jitter (at least the server's Retry-After); one
that still fails is an answer with status `error`.

Only the standard library speaks HTTP here (`http.client`): no proxy is used and no redirect is
followed (a redirect would carry the key elsewhere). The key is read from the environment
variable the user names and goes nowhere but the Authorization header: not into a row, an error
message or the output. Nothing is sent anywhere unless the user gives an endpoint.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import random
import re
import socket
import string
import time
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import JsonValue

from ..errors import UsageError
from ..models import Document, GradeScale, Query
from ..models.machine import LLM_PREFIX, ParseStatus, is_machine_assessor
from .assess import Reply

TEMPLATE = """You are a search quality assessor. Judge how relevant the document below is to the search query.

Query: $query

Guidelines for this query: $guidelines

Grades:
$grades

Document title: $title
Document text:
$text

Answer with the grade, from 0 to $max_grade, on a line of its own, in exactly this form:
Grade: N
"""
"""Our prompt for graded relevance on the golden set's scale (`--prompt FILE` replaces it)."""

PLACEHOLDERS = {
    "query": "the query's text",
    "guidelines": "the query's guidelines (its description), or `none given`",
    "title": "the document's title",
    "text": "the document's text",
    "grades": "the scale's grades, one a line: `N (name): definition`",
    "max_grade": "the scale's top grade",
}
"""A template's named placeholders (`$name` or `${name}`; `$$` is a dollar sign)."""

RETRIED = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses tried again (the others are an answer with status `error` at once)."""
MAX_WAIT = 300.0
"""The longest wait between two tries, whatever Retry-After says."""
PROMPT_OVERHEAD = 64
"""Tokens a chat template may add around the prompt (a bound for `worst_cost`)."""

_GRADE = re.compile(r"^[ \t]*grade[ \t]*:[ \t]*(\d{1,9})[ \t]*\.?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(I\s+(?:can ?not|can't|cannot|won't|will not|am unable to|'m unable to|am not able to)|I'm sorry|"
    r"I apologi[sz]e|as an AI)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Price:
    """What a model costs, per million tokens in and out."""

    tokens_in: float
    tokens_out: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.tokens_in + tokens_out * self.tokens_out) / 1e6


def read_prices(path: Path, model: str) -> Price | None:
    """`--prices FILE`: a JSON or TOML (`.toml`) table `model -> {in, out}` in money per 1M
    tokens; the price of `model`, None when the table has no entry for it."""
    try:
        raw = path.read_bytes()
        table: Any = tomllib.loads(raw.decode("utf-8")) if path.suffix == ".toml" else json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"--prices {path}: cannot read it ({exc})", 'write {"MODEL": {"in": 0.15, "out": 0.6}}'
        ) from exc
    if not isinstance(table, dict):
        raise UsageError(f"--prices {path}: not a table of models", 'write {"MODEL": {"in": 0.15, "out": 0.6}}')
    entry = table.get(model)
    if entry is None:
        return None
    ok = isinstance(entry, dict) and set(entry) == {"in", "out"}
    if not ok or not all(_price_number(entry[k]) for k in ("in", "out")):
        raise UsageError(
            f"--prices {path}: {model!r:.60} needs numbers 'in' and 'out' (0 or more), nothing else",
            'write {"MODEL": {"in": 0.15, "out": 0.6}}, per million tokens',
        )
    return Price(float(entry["in"]), float(entry["out"]))


def _price_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def read_template(path: Path) -> str:
    """`--prompt FILE`: a template whose placeholders are all in `PLACEHOLDERS`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--prompt {path}: cannot read it ({exc})", "give a UTF-8 text file") from exc
    check_template(text, f"--prompt {path}")
    return text


REQUIRED = {"query": "the query", "text": "the document"}
"""Placeholders every template uses: without them the model would grade a pair it never saw."""


def check_template(text: str, where: str) -> None:
    """A template's `$` that starts no placeholder, an unknown placeholder, or one of `REQUIRED`
    missing: a UsageError naming `where` (and the line)."""
    known = ", ".join(f"${name}" for name in PLACEHOLDERS)
    used: set[str] = set()
    for m in string.Template.pattern.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group("invalid") is not None:
            raise UsageError(f"{where} line {line}: a '$' that starts no placeholder", f"write $$ for '$'; {known}")
        name = m.group("named") or m.group("braced")
        if name is not None and name not in PLACEHOLDERS:
            raise UsageError(f"{where} line {line}: unknown placeholder ${name:.40}", f"placeholders: {known}")
        used.add(name or "")
    for name, what in REQUIRED.items():
        if name not in used:
            raise UsageError(
                f"{where} never uses ${name}: the model would not see {what}",
                f"placeholders are written $name or ${{name}}: {known}",
            )


def grade_lines(scale: GradeScale) -> str:
    """The scale's grades for a prompt, lowest first: `N (name): definition`."""
    lines = [f"{lv.grade} ({lv.name})" + (f": {lv.definition}" if lv.definition else "") for lv in scale.levels]
    if scale.top is not None:
        lines.append(f"{scale.levels[-1].grade + 1} to {scale.top}: higher grades, more relevant")
    return "\n".join(lines)


def parse_reply(body: str, scale: GradeScale) -> tuple[ParseStatus, int | None]:
    """A chat-completions body: exactly one line `Grade: N` (N on the scale; a reasoning model's
    `<think>` block left out) -> ok; a refusal (the `refusal` field, a content filter, or a
    refusal's words and no grade) -> refused; anything else -> unparsed."""
    try:
        choice = json.loads(body)["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        return "unparsed", None
    content = message.get("content") if isinstance(message, dict) else None
    refused = isinstance(message, dict) and bool(message.get("refusal"))
    if refused or choice.get("finish_reason") == "content_filter":
        return "refused", None
    if not isinstance(content, str):
        return "unparsed", None
    content = _THINK.sub("", content)
    found = _GRADE.findall(content)
    if len(found) == 1 and int(found[0]) <= scale.max_grade:
        return "ok", int(found[0])
    if not found and _REFUSAL.search(content):
        return "refused", None
    return "unparsed", None


def chat_url(endpoint: str) -> tuple[str, str]:
    """(the URL to POST to, the host to record) of `--endpoint`: `{endpoint}/chat/completions`,
    or the URL as given when its path ends so."""
    parts = urlsplit(endpoint.strip())
    hint = "give an http(s) URL, e.g. --endpoint http://localhost:11434/v1"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--endpoint {endpoint!r:.80} is not an http(s) URL", hint)
    if parts.username is not None or parts.password is not None:
        raise UsageError("--endpoint holds a user name or password", "give the key with --api-key-env VAR")
    try:
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"--endpoint {endpoint!r:.80} has a bad port", hint) from exc
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    url = f"{parts.scheme}://{parts.netloc}{path}" + (f"?{parts.query}" if parts.query else "")
    return url, parts.hostname + (f":{port}" if port is not None else "")


def api_key(variable: str | None) -> str | None:
    """The key in the environment variable `variable` names (None: no key is sent)."""
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise UsageError(f"--api-key-env {variable!r:.60}: that environment variable is not set", "export it first")
    return value


@dataclass(frozen=True)
class Retry:
    """How failed requests are tried again: `tries` in all, waits of base * 2^n seconds (times a
    random 0.5-1.5), never shorter than Retry-After, never longer than `MAX_WAIT`."""

    tries: int = 6
    base: float = 1.0

    def wait(self, attempt: int, retry_after: float | None) -> float:
        backoff = self.base * 2.0**attempt * random.uniform(0.5, 1.5)
        return min(MAX_WAIT, max(backoff, retry_after or 0.0))


def retry_after(value: str | None) -> float | None:
    """Retry-After's seconds (a number of seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = (when - datetime.now(UTC)).total_seconds() if when.tzinfo else 0.0
    return max(0.0, seconds) if math.isfinite(seconds) else None


class HttpJudge:
    """An LLM asked through an OpenAI-compatible chat-completions endpoint (`llm:MODEL`)."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        key: str | None = None,
        template: str = TEMPLATE,
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 60.0,
        retry: Retry = Retry(),
        price: Price | None = None,
    ) -> None:
        self.url, host = chat_url(endpoint)
        self.endpoint_host: str | None = host
        self.assessor = LLM_PREFIX + model
        if not is_machine_assessor(self.assessor):
            raise UsageError(f"--model {model!r:.60} is not a model name", "give a name without spaces")
        self.model: str | None = model
        self.template = template
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout
        self.retry, self.price = retry, price
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            self._headers["Authorization"] = f"Bearer {key}"

    def __repr__(self) -> str:  # never the key
        return f"HttpJudge({self.url!r}, {self.model!r})"

    def parameters(self, scale: GradeScale) -> dict[str, JsonValue]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "max_grade": scale.max_grade}

    def render(self, query: Query, doc: Document, scale: GradeScale) -> str:
        fields = {"query": query.text, "guidelines": query.description or "none given", "title": doc.title,
                  "text": doc.text, "grades": grade_lines(scale), "max_grade": str(scale.max_grade)}  # fmt: skip
        return string.Template(self.template).substitute(fields)

    def parse(self, reply: str, scale: GradeScale) -> tuple[ParseStatus, int | None]:
        return parse_reply(reply, scale)

    def worst_cost(self, prompt: str) -> float | None:
        """The most asking `prompt` can cost (a token holds at least a byte of the prompt, and the
        reply at most `max_tokens`); None without a price."""
        if self.price is None:
            return None
        return self.price.cost(len(prompt.encode("utf-8", "surrogatepass")) + PROMPT_OVERHEAD, self.max_tokens)

    def ask(self, prompt: str) -> Reply:
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt}],
                           "temperature": self.temperature, "max_tokens": self.max_tokens}).encode()  # fmt: skip
        started = time.monotonic()
        reason, after = "no try", None
        for attempt in range(self.retry.tries):
            if attempt:
                time.sleep(self.retry.wait(attempt - 1, after))
            try:
                status, after, data = self._post(body)
            except (OSError, http.client.HTTPException) as exc:
                reason, after = _transport(exc), None
                continue
            if status == 200:
                return self._reply(data, time.monotonic() - started)
            reason = f"HTTP {status}"
            if status not in RETRIED:
                return Reply(text=None, latency=time.monotonic() - started, error=reason)
        tries = f"{self.retry.tries} tries" if self.retry.tries > 1 else "1 try"
        return Reply(text=None, latency=time.monotonic() - started, error=f"{reason} ({tries})")

    def _post(self, body: bytes) -> tuple[int, float | None, bytes]:
        parts = urlsplit(self.url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = kind(parts.hostname or "", parts.port, timeout=self.timeout)
        try:
            conn.request("POST", parts.path + (f"?{parts.query}" if parts.query else ""), body, self._headers)
            response = conn.getresponse()
            return response.status, retry_after(response.getheader("Retry-After")), response.read()
        finally:
            conn.close()

    def _reply(self, data: bytes, latency: float) -> Reply:
        text = data.decode("utf-8", "replace")
        tokens_in, tokens_out = _usage(text)
        cost = None
        if self.price is not None and tokens_in is not None and tokens_out is not None:
            cost = self.price.cost(tokens_in, tokens_out)
        return Reply(text=text, latency=latency, tokens_in=tokens_in, tokens_out=tokens_out, cost=cost)


def _usage(body: str) -> tuple[int | None, int | None]:
    """(prompt tokens, completion tokens) of a chat-completions body's `usage`, when given."""
    try:
        usage = json.loads(body).get("usage") or {}
    except (ValueError, AttributeError):
        return None, None
    if not isinstance(usage, dict):
        return None, None
    found = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    tin, tout = (v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None for v in found)
    return tin, tout


def _transport(exc: BaseException) -> str:
    """Why a request got no HTTP answer, in a few words (never the request itself)."""
    if isinstance(exc, TimeoutError | socket.timeout):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, http.client.RemoteDisconnected | ConnectionResetError | BrokenPipeError):
        return "connection dropped"
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    return type(exc).__name__


@dataclass(frozen=True)
class HttpOptions:
    """`assess --endpoint` and the options that go with it, as given."""

    endpoint: str
    model: str | None
    api_key_env: str | None = None
    prompt: Path | None = None
    prices: Path | None = None
    max_cost: float | None = None
    temperature: float = 0.0
    max_tokens: int = 256
    timeout: float = 60.0
    retries: int = 5
    retry_base: float = 1.0


def http_judge(options: HttpOptions) -> HttpJudge:
    """The judge `options` describe, every option checked before anything is sent."""
    if options.model is None:
        raise UsageError("--endpoint needs --model", "name the model the endpoint serves, e.g. --model llama3.1")
    template = TEMPLATE if options.prompt is None else read_template(options.prompt)
    price = None if options.prices is None else read_prices(options.prices, options.model)
    if options.max_cost is not None and price is None:
        where = "give --prices FILE" if options.prices is None else f"add it to {options.prices}"
        raise UsageError(f"--max-cost needs the price of {options.model!r:.60}", f"{where}: {{MODEL: {{in, out}}}}")
    judge = HttpJudge(
        options.endpoint, options.model, key=api_key(options.api_key_env), template=template,
        temperature=options.temperature, max_tokens=options.max_tokens, timeout=options.timeout,
        retry=Retry(tries=options.retries + 1, base=options.retry_base), price=price,
    )  # fmt: skip
    return judge
