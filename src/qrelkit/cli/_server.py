"""The web server of `qrelkit serve`: textual-serve's `Server` (aiohttp; one `qrelkit judge`
process per browser connection, driven over a websocket), with access tokens in front of it.

- a request for the page, the websocket or a download without a live token gets 401 and no app;
- `/?token=T` sets T in an HttpOnly, SameSite=Strict cookie and redirects to `/` (the token leaves
  the address bar and the history); the page's own requests carry the cookie. Only when opened
  directly (`serving.opened_directly`): a link from another site gets 403 and no cookie;
- a token opens at most `Limits.per_token` sessions at once and the server `Limits.total` (each
  one a process): the page over a cap gets 429, says which, and tries again every `RETRY_SECONDS`;
  a websocket over a cap waits `grace_seconds` for a place (a reloaded page's old session may be
  ending still), then gets 429; nothing starts;
- the terminal the browser asks for (when it connects, and when it resizes) is at most
  `Limits.columns` x `Limits.rows`; a message that is not what the page sends ends the session,
  with one log line (textual-serve logged a traceback);
- the app process is started as `qrelkit --db DB judge --served --assessor NAME --role ROLE`,
  NAME and ROLE from the store's record of the token: the browser names no one, and only an
  `adjudicator` token's session can open the adjudication screen;
- `/static/` serves the page's files, and no folder's listing (404);
- every `POLL_SECONDS` the live tokens are read again, and the sessions of a revoked one end (the
  app quits, its websocket closes).

The store is read and written on one thread of its own, off the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import shlex
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ..workflows import serving, setup
from ._http import Runner

if TYPE_CHECKING:
    from ..storage import Store

COOKIE = "qrelkit_token"
RETRY_SECONDS = 3
"""How often the page over a session cap asks again (a reloaded page at the cap frees its place)."""
POLL_SECONDS = 1.5
"""How often the server reads which tokens are live (a revoked token's sessions end within this)."""
LOCK_WAIT_MS = 500
"""How long recording a token's use waits for another process's write lock (then it is skipped)."""
NOT_DIRECT = (
    "403: this link signs you in only when you open the link directly: paste it into the address bar "
    "(a link followed from another page could sign you in under someone else's name)\n"
)
UNAUTHORIZED = "401: this page needs the link of an access token (`qrelkit serve token add NAME` prints it)\n"

_access: ContextVar[serving.Access] = ContextVar("qrelkit_served_access")
T = TypeVar("T")
log = logging.getLogger("qrelkit.serve")


class StoreWorker:
    """The server's store, opened on and only ever used from one thread."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qrelkit-store")
        self._store: Store | None = None

    def _open(self) -> Store:
        if self._store is None:
            self._store = setup.open_store(self.db, lock_wait_ms=LOCK_WAIT_MS)
        return self._store

    async def call(self, fn: Callable[[Store], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(self._open()))

    def open(self) -> None:
        """Open the store now (a path that holds none is refused before the server listens). The
        server process opens it once only: a second `Store.open` reads the file's header, and
        closing that file drops the SQLite locks of every connection of the process (POSIX)."""
        self._pool.submit(self._open).result()

    def close(self) -> None:
        def shut() -> None:
            if self._store is not None:
                setup.close_store(self._store)
                self._store = None

        self._pool.submit(shut).result()
        self._pool.shutdown()


OUTSIDE_FONT = re.compile(rb"<link[^>]*fonts\.googleapis\.com[^>]*>\s*")
"""textual-serve's page asks Google Fonts for Roboto Mono: offline (or where the network drops
it) the page waited 5.6 s for it. The terminal's font stack falls back to the system's monospace."""
SAME_ORIGIN_ONLY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'"
)
"""The page's Content-Security-Policy: nothing is fetched from another origin."""


def self_contained(response: web.StreamResponse) -> web.StreamResponse:
    """The judging page with no request to another site (the web font link dropped) and a policy
    that forbids any (`SAME_ORIGIN_ONLY`)."""
    if isinstance(response, web.Response) and isinstance(response.body, bytes):
        response.body = OUTSIDE_FONT.sub(b"", response.body)
    response.headers["Content-Security-Policy"] = SAME_ORIGIN_ONLY
    return response


class JudgingServer(Server):
    """textual-serve's server with per-assessor access tokens in front of every app."""

    def __init__(
        self, db: Path, *, host: str, port: int, public_url: str, limits: serving.Limits | None = None
    ) -> None:
        self.db = db
        self.limits = limits or serving.Limits()
        self.store = StoreWorker(db)
        self.sessions: dict[int, set[asyncio.Task[Any]]] = {}
        """Token id -> the tasks serving its open websockets (each drives one app process)."""
        self.grace_seconds = 3.0
        """How long a websocket over a cap waits for a session to end."""
        self._ended = asyncio.Condition()
        self._poller: asyncio.Task[None] | None = None
        super().__init__("qrelkit judge", host=host, port=port, title="qrelkit judge", public_url=public_url)

    # -- the app process: the assessor comes from the token, per connection -------------------

    @property
    def command(self) -> str:
        """The shell command textual-serve starts for the connection being served now."""
        return "exec " + shlex.join(self.argv(_access.get()))  # exec: the app's parent is this server

    @command.setter
    def command(self, value: str) -> None:  # textual-serve's __init__ sets it; ours is per connection
        pass

    def argv(self, access: serving.Access) -> list[str]:
        """`qrelkit judge` for one session of the token `access`: its assessor, in its role."""
        db = str(self.db.resolve())
        who = ["--assessor", access.assessor, "--role", access.role]
        return [sys.executable, "-m", "qrelkit", "--db", db, "judge", "--served", *who]

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.no_folder_listing)
        return app

    @web.middleware
    async def no_folder_listing(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """textual-serve lists the folders of `/static/`: a folder is not found instead."""
        info = request.match_info
        if isinstance(info.route.resource, web.StaticResource) and (self.statics_path / info["filename"]).is_dir():
            raise web.HTTPNotFound()
        return await handler(request)

    # -- who is asking -------------------------------------------------------------------------

    async def access(self, token: str | None) -> serving.Access | None:
        return await self.store.call(lambda s: serving.authenticate(s, token))

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        given = request.query.get("token")
        if given is not None:
            if not serving.opened_directly(
                self.public_url, request.headers.get("Sec-Fetch-Site"), request.headers.get("Referer")
            ):
                return web.Response(status=403, text=NOT_DIRECT, headers={"Cache-Control": "no-store"})
            if await self.access(given) is None:
                return unauthorized()
            query = {k: v for k, v in request.query.items() if k != "token"}
            target = request.rel_url.with_query(query).path_qs
            response: web.StreamResponse = web.Response(status=303, headers={"Location": target})
            response.set_cookie(
                COOKIE,
                given,
                httponly=True,
                samesite="Strict",
                secure=self.public_url.startswith("https:"),
                path="/",
            )
        elif (found := await self.access(request.cookies.get(COOKIE))) is None:
            return unauthorized()
        elif (why := self.refusal(found)) is not None:
            text = f"429: {why}; this page tries again every {RETRY_SECONDS} seconds\n"
            again = {"Cache-Control": "no-store", "Refresh": str(RETRY_SECONDS)}
            return web.Response(status=429, text=text, headers=again)
        else:
            response = self_contained(await super().handle_index(request))
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        if await self.access(request.cookies.get(COOKIE)) is None:
            return unauthorized()
        return await super().handle_download(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        found = await self.access(request.cookies.get(COOKIE))
        if found is None or not self.same_origin(request):
            raise web.HTTPUnauthorized(text=UNAUTHORIZED)
        task = asyncio.current_task()
        assert task is not None
        if (why := await self.take_place(found, task)) is not None:
            log.info("refused a session for %s: %s", found.assessor, why)
            raise web.HTTPTooManyRequests(text=f"429: {why}; reload the page to try again\n")
        held = _access.set(found)
        log.info("session opened for %s", found.assessor)
        asked = (to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24))
        width, height = serving.terminal_size(self.limits, *asked)
        sized = request.clone(rel_url=request.rel_url.update_query(width=width, height=height))
        try:
            return await super().handle_websocket(sized)
        finally:
            self.sessions.get(found.token_id, set()).discard(task)
            _access.reset(held)
            log.info("session closed for %s", found.assessor)
            async with self._ended:
                self._ended.notify_all()

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual-serve's loop over the page's messages, read strictly: a size is clamped to the
        limits, and a message that is not what the page sends ends the session (one log line)."""
        async for message in websocket:
            if message.type == WSMsgType.TEXT and not await self.obey(message.data, websocket, app_service):
                log.info("ended a session of %s: it sent a malformed message", _access.get().assessor)
                await websocket.close(code=WSCloseCode.UNSUPPORTED_DATA)
                return

    async def obey(self, data: str, websocket: web.WebSocketResponse, app: AppService) -> bool:
        """Do what one message of the page says (`["stdin", keys]`, `["resize", {"width": w,
        "height": h}]`, `["ping", s]`, `["blur"]`, `["focus"]`; another kind is left alone); False:
        the message is malformed."""
        try:
            envelope = json.loads(data)
        except (ValueError, RecursionError):
            return False
        if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
            return False
        kind, body = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(body, str):
            try:
                keys = body.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate
                return False
            await app.send_bytes(keys)
        elif kind == "resize" and (size := cells(body)) is not None:
            await app.set_terminal_size(*serving.terminal_size(self.limits, *size))
        elif kind == "ping" and isinstance(body, str):
            await websocket.send_json(["pong", body])
        elif kind in ("stdin", "resize", "ping"):
            return False
        elif kind == "blur":
            await app.blur()
        elif kind == "focus":
            await app.focus()
        return True

    async def take_place(self, found: serving.Access, task: asyncio.Task[Any]) -> str | None:
        """Count `task` among the sessions of `found`'s token, waiting up to `grace_seconds` for a
        place under the caps; None: taken, else why not (the caps still full)."""
        async with self._ended:
            try:
                await asyncio.wait_for(self._ended.wait_for(lambda: self.refusal(found) is None), self.grace_seconds)
            except TimeoutError:
                if (why := self.refusal(found)) is not None:
                    return why
            self.sessions.setdefault(found.token_id, set()).add(task)  # under the lock: checked and taken at once
        return None

    def refusal(self, found: serving.Access) -> str | None:
        """Why `found` may not open one more session now (a cap), or None."""
        in_all = sum(len(tasks) for tasks in self.sessions.values())
        return serving.refusal(self.limits, len(self.sessions.get(found.token_id, ())), in_all)

    def same_origin(self, request: web.Request) -> bool:
        """A websocket opened by the page itself: from the public address's origin, or with no
        Origin at all (not a browser). A cross-site page cannot drive a session with the cookie."""
        origin = request.headers.get("Origin")
        return origin is None or serving.same_origin(origin, self.public_url)

    # -- revoked tokens end their sessions -----------------------------------------------------

    async def end_revoked(self) -> int:
        """End the open sessions of every token revoked since; how many."""
        live = await self.store.call(serving.live_tokens)
        ended = 0
        for token_id, tasks in list(self.sessions.items()):
            if token_id not in live:
                for task in tasks:
                    task.cancel()  # textual-serve then stops the app and closes the websocket
                    ended += 1
                del self.sessions[token_id]
        return ended

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                if ended := await self.end_revoked():
                    log.info("ended %d session(s) of revoked tokens", ended)
            except Exception as exc:  # a store that is busy or gone for a moment: try again next time
                log.warning("could not read the tokens: %s", exc)

    async def on_startup(self, app: web.Application) -> None:
        self._poller = asyncio.create_task(self._poll())

    async def on_shutdown(self, app: web.Application) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        for tasks in self.sessions.values():
            for task in tasks:
                task.cancel()

    def initialize_logging(self) -> None:
        """Plain log lines on stderr. Not textual-serve's: its tracebacks show local variables (a
        token among them)."""
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")

    def serve(self, debug: bool = False) -> None:
        """Serve until SIGINT or SIGTERM: textual-serve's `serve`, on the connections of `Runner`, and
        saying where only once it listens there."""
        self.initialize_logging()
        asyncio.run(self._run())

    async def _run(self) -> None:
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, stop.set)
        runner = Runner(await self._make_app())
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()  # OSError: cannot listen
            said = f"qrelkit judge served on {self.public_url} (Ctrl+C to stop)"
            self.console.print(said, markup=False, highlight=False)
            await stop.wait()
        finally:
            await runner.cleanup()


def cells(body: object) -> tuple[int, int] | None:
    """The width and height of a resize message (whole numbers), or None."""
    if not isinstance(body, dict):
        return None
    width, height = body.get("width"), body.get("height")
    if type(width) is not int or type(height) is not int:  # bool is an int, and no size
        return None
    return width, height


def unauthorized() -> web.Response:
    return web.Response(status=401, text=UNAUTHORIZED, headers={"Cache-Control": "no-store"})
