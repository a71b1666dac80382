"""A chat-completions server on 127.0.0.1 for the HTTP judge's tests (`ChatServer`).

It answers from hidden grades: a document's text holds `DOC:<id>`, and the grade of that id is
the reply (`Grade: N`), moved by one with probability `noise`. A document's script says what its
successive requests get instead: `429` (with Retry-After), `500`, `drop` (the connection closed
with no answer), `401`, `slow` (0.6 s more), or a reply of another kind (`prose`, `two`, `off-scale`, `sorry`,
`refusal`, `filtered`, `not-json`). It counts the requests per document, records each prompt,
reply body and Authorization header, and the most requests it ever held at once.
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_DOC = re.compile(r"DOC:(\w+)")
TOKENS_OUT = 7


def content(kind: str, grade: int) -> dict[str, Any]:
    """The message and finish reason of a reply of `kind`."""
    texts = {
        "ok": f"The document answers the query.\nGrade: {grade}",
        "prose": "It is fairly relevant, I would say.",
        "two": "Grade: 1\nGrade: 2",
        "off-scale": "Grade: 7",
        "sorry": "I'm sorry, but I can't help with that.",
    }
    if kind == "refusal":
        return {"message": {"role": "assistant", "content": None, "refusal": "I can't judge this."},
                "finish_reason": "stop"}  # fmt: skip
    if kind == "filtered":
        return {"message": {"role": "assistant", "content": ""}, "finish_reason": "content_filter"}
    return {"message": {"role": "assistant", "content": texts.get(kind, texts["ok"])}, "finish_reason": "stop"}


@dataclass
class ChatServer:
    grades: dict[str, int]
    noise: float = 0.0
    latency: float = 0.0
    retry_after: str = "0"
    scripts: dict[str, list[str]] = field(default_factory=dict)
    seed: int = 7
    requests: Counter[str] = field(default_factory=Counter)
    prompts: dict[str, list[str]] = field(default_factory=dict)
    bodies: dict[str, list[str]] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    auth: set[str | None] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    errors: list[BaseException | None] = field(default_factory=list)
    most_at_once: int = 0
    _at_once: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def total(self) -> int:
        with self._lock:
            return sum(self.requests.values())

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        doc = m.group(1) if (m := _DOC.search(prompt)) else "?"
        with self._lock:
            n = self.requests[doc]
            self.requests[doc] += 1
            self.prompts.setdefault(doc, []).append(prompt)
            self.times.setdefault(doc, []).append(time.monotonic())
            self.auth.add(handler.headers.get("Authorization"))
            self.paths.add(handler.path)
            self._at_once += 1
            self.most_at_once = max(self.most_at_once, self._at_once)
            rng = random.Random(f"{self.seed}:{doc}:{n}")
        try:
            time.sleep(self.latency)
            script = self.scripts.get(doc, [])
            self._answer(handler, body, doc, script[n] if n < len(script) else "ok", rng)
        finally:
            with self._lock:
                self._at_once -= 1

    def _answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], doc: str, kind: str,
                rng: random.Random) -> None:  # fmt: skip
        if kind == "slow":  # past the client's --timeout, then an answer nobody reads
            time.sleep(0.6)
        if kind == "drop":
            handler.close_connection = True
            return
        if kind in ("429", "500", "401"):
            handler.send_response(int(kind))
            if kind == "429":
                handler.send_header("Retry-After", self.retry_after)
            handler.send_header("Content-Length", "2")
            handler.end_headers()
            handler.wfile.write(b"{}")
            return
        grade = self.grades.get(doc, 0)
        if rng.random() < self.noise:
            grade = max(0, min(3, grade + rng.choice((-1, 1))))
        prompt_tokens = len(body["messages"][0]["content"].split())
        reply = {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                 "choices": [{"index": 0, **content(kind, grade)}],
                 "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": TOKENS_OUT}}  # fmt: skip
        data = b"{not json" if kind == "not-json" else json.dumps(reply).encode()
        with self._lock:
            self.bodies.setdefault(doc, []).append(data.decode())
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


@contextmanager
def serving(server: ChatServer) -> Iterator[ChatServer]:
    """`server` listening on 127.0.0.1 (a free port) in a thread, `server.url` its /v1."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            server.handle(self)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's name)
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            server.errors.append(sys.exc_info()[1])  # a killed client's broken pipe: kept, not printed

    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
