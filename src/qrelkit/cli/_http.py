"""aiohttp's HTTP server as `qrelkit serve` runs it (`Runner`, for the server and its tests alike):

- a malformed request (a request line or a header over 8,190 bytes, bytes that are not HTTP) gets
  `400: malformed request` and one log line that quotes none of it: aiohttp's own answer and log
  line (a traceback) quote the start of the request line, and with it the token of a link;
- no access log: it would write every `/?token=...` it serves."""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web, web_protocol, web_server
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_request import BaseRequest

log = logging.getLogger("qrelkit.serve")
MALFORMED = "malformed request: a request line or header over 8,190 bytes, or not HTTP"


class _Connection(web_protocol.RequestHandler):
    """One connection's request handler, answering a request it cannot parse in its own words."""

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if not isinstance(exc, HttpProcessingError):  # the server's own fault: aiohttp's 500 and traceback
            return super().handle_error(request, status, exc, message)
        log.info("refused a malformed request from %s (%s)", request.remote, type(exc).__name__)
        reply = web.Response(status=status, text=f"{status}: {MALFORMED}\n", headers={"Cache-Control": "no-store"})
        reply.force_close()
        return reply


class _Server(web_server.Server):
    def __call__(self) -> web_protocol.RequestHandler:
        return _Connection(self, loop=self._loop, **self._kwargs)


class Runner(web.AppRunner):
    """An `AppRunner` whose connections are `_Connection`s, with no access log."""

    def __init__(self, app: web.Application, **kwargs: Any) -> None:
        super().__init__(app, access_log=None, **kwargs)

    async def _make_server(self) -> web_server.Server:
        made = await super()._make_server()
        return _Server(
            made.request_handler,
            request_factory=made.request_factory,
            handler_cancellation=made.handler_cancellation,
            loop=made._loop,
            **made._kwargs,
        )
