"""`qrelkit serve`: the token store (only a sha256 kept, one live token per assessor, revoked ones
refused), the auth check in front of textual-serve (401 and no app without a live token, the
token moved from the link to an HttpOnly cookie, the app started under the token's assessor
whatever the browser sends, a revoked token's open session ended), and the commands' bad input
(one line, exit 2). What a browser or client may not take (issue 30): more sessions than the caps,
a terminal over 500 x 200, a token in the log through a malformed request or message, a cookie
through a link from another site, a folder's listing; and "served on" said only once listening."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from conftest import Cli
from qrelkit.cli._http import Runner
from qrelkit.errors import UsageError
from qrelkit.models import Role
from qrelkit.storage import Store
from qrelkit.workflows import serving


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "serve.db"
    Store.open(path).close()
    yield path


def test_a_token_is_kept_as_its_sha256_only(db: Path) -> None:
    with Store.open(db) as store:
        token = serving.add_token(store, "ann")
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token)  # 32 random bytes, urlsafe
        rows = store.conn.execute("SELECT * FROM tokens").fetchall()
        assert [r[2] for r in rows] == [hashlib.sha256(token.encode()).hexdigest()]
        assert token not in repr(rows)
        assert serving.add_token(store, "bob") != token


def test_the_assessor_comes_from_the_token(db: Path) -> None:
    with Store.open(db) as store:
        ann, bob = serving.add_token(store, "ann"), serving.add_token(store, "bob")
        found = serving.authenticate(store, ann)
        assert found is not None and found.assessor == "ann"
        other = serving.authenticate(store, bob)
        assert other is not None and other.assessor == "bob" and other.token_id != found.token_id
        for bad in (None, "", ann[:-1], ann + "x", "A" * 43, "x" * 10_000):
            assert serving.authenticate(store, bad) is None
        assert serving.list_tokens(store)[0].last_used is not None


def test_a_revoked_token_lets_no_one_in(db: Path) -> None:
    with Store.open(db) as store:
        token = serving.add_token(store, "ann")
        with pytest.raises(UsageError, match="already has a token"):
            serving.add_token(store, "ann")
        assert serving.revoke_token(store, "ann") == 1
        assert serving.authenticate(store, token) is None
        assert serving.live_tokens(store) == set()
        with pytest.raises(UsageError, match="no token to revoke"):
            serving.revoke_token(store, "ann")
        again = serving.add_token(store, "ann")  # a new token after the revocation
        assert serving.authenticate(store, again) is not None and serving.authenticate(store, token) is None
        entries = serving.list_tokens(store)
        assert [(e.name, e.revoked is not None) for e in entries] == [("ann", True), ("ann", False)]


def test_a_token_carries_its_role(db: Path) -> None:
    """An assessor's token (the default) judges; only an adjudicator's opens adjudication (issue 25)."""
    with Store.open(db) as store:
        ann, lead = serving.add_token(store, "ann"), serving.add_token(store, "lead", "adjudicator")
        found, other = serving.authenticate(store, ann), serving.authenticate(store, lead)
        assert found is not None and found.role == "assessor"
        assert other is not None and other.role == "adjudicator"
        assert [(e.name, e.role) for e in serving.list_tokens(store)] == [("ann", "assessor"), ("lead", "adjudicator")]
        with pytest.raises(UsageError, match="not a role"):
            serving.add_token(store, "cy", "admin")  # type: ignore[arg-type]
        assert serving.list_tokens(store)[-1].name == "lead"  # nothing added


def test_tokens_made_before_roles_judge_only(tmp_path: Path) -> None:
    import sqlite3

    from qrelkit.storage import schema

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    before = schema.MIGRATIONS.index(schema.token_roles)
    for migration in schema.MIGRATIONS[:before]:
        migration(conn)
    conn.execute(f"PRAGMA user_version={before}")
    digest = hashlib.sha256(b"old-token").hexdigest()
    conn.execute("INSERT INTO tokens(name, digest, created) VALUES ('ann', ?, '2026-01-01T00:00:00+00:00')", [digest])
    conn.close()
    with Store.open(path) as store:
        found = serving.authenticate(store, "old-token", touch=False)
        assert found is not None and (found.assessor, found.role) == ("ann", "assessor")


@pytest.mark.parametrize("name", ["", " ann", "ann bob", "-rf", "a" * 65, "ann\x1b[2J", "ann\n"])
def test_names_that_are_not_assessor_names_are_refused(db: Path, name: str) -> None:
    with Store.open(db) as store, pytest.raises(UsageError, match="not an assessor name"):
        serving.add_token(store, name)


def test_token_commands(run_cli: Cli) -> None:
    run_cli("init")
    added = run_cli("serve", "--public-url", "https://judge.example.org/", "token", "add", "ann").output
    token = added.splitlines()[1]
    assert f"link: https://judge.example.org/?token={token}" in added
    listed = run_cli("serve", "token", "list").output
    assert "ann" in listed and token not in listed and hashlib.sha256(token.encode()).hexdigest() not in listed
    assert re.search(r"ann +│ assessor ", listed)
    added = run_cli("serve", "token", "add", "lead", "--role", "adjudicator").output
    assert added.startswith("adjudicator token for lead")
    assert re.search(r"lead +│ adjudicator ", run_cli("serve", "token", "list").output)
    assert "revoked" in run_cli("serve", "token", "revoke", "ann").output
    listed = run_cli("serve", "token", "list").output
    assert re.search(r"ann .* \d\d:\d\d .* \d\d:\d\d\n", listed)  # created ... revoked, on one line


@pytest.mark.parametrize(
    "args, says",
    [
        (["serve", "token", "add", "b ad"], "is not an assessor name"),
        (["serve", "token", "revoke", "nobody"], "has no token to revoke"),
        (["serve", "--public-url", "ftp://x", "token", "list"], "not an http(s) address"),
        (["serve", "--port", "0"], "--port"),
        (["serve", "--max-sessions", "0"], "--max-sessions"),
        (["serve", "--max-sessions-per-token", "x"], "--max-sessions-per-token"),
        (["serve", "token", "add"], "Missing argument"),
        (["serve", "token", "add", "cy", "--role", "admin"], "--role"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Cli, args: list[str], says: str) -> None:
    run_cli("init")
    result = run_cli(*args, ok=False)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in result.output


def test_the_session_caps_are_options(run_cli: Cli) -> None:
    shown = " ".join(run_cli("serve", "--help").output.split())
    assert "--max-sessions-per-token INTEGER RANGE Sessions open at once on one token" in shown
    assert "[default: 3; x>=1]" in shown and "[default: 32; x>=1]" in shown


def test_serving_a_path_without_a_store_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "--db", str(tmp_path / "none.db"), "serve"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no store at" in done.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_taken_port_is_one_error_line_and_never_served_on(tmp_path: Path) -> None:
    """It printed "served on http://..." and then "cannot listen" (and a bind error in two words)."""
    db = tmp_path / "taken.db"
    Store.open(db).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "qrelkit", "--db", str(db), "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    said = f"error: cannot listen on 127.0.0.1:{port}: Address already in use (hint: pick another --port)\n"
    assert done.stderr == said


def test_served_on_is_said_once_listening_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    Store.open(db).close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "qrelkit", "--db", str(db), "serve", "--port", str(port)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        said = proc.stdout.readline()
        assert said == f"qrelkit judge served on http://127.0.0.1:{port} (Ctrl+C to stop)\n"
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # listening already
        proc.send_signal(signal.SIGINT)
        _, errors = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in errors


# -- the auth check in front of textual-serve -------------------------------------------------


async def _until(check: Callable[[], object], limit: float = 30.0) -> None:
    """Wait until `check()` holds (the server running meanwhile), failing after `limit` seconds."""
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"still not so after {limit} s"
        await asyncio.sleep(0.01)


class FakeAppService:
    """Stands for textual-serve's AppService: records the command it would start and the terminal
    sizes it would be told, starts nothing."""

    started: list[str] = []
    sizes: list[tuple[int, int]] = []
    stopped = 0

    def __init__(self, command: str, **kwargs: Any) -> None:
        self.command = command

    async def start(self, width: int, height: int) -> None:
        FakeAppService.started.append(self.command)
        FakeAppService.sizes.append((width, height))

    async def set_terminal_size(self, width: int, height: int) -> None:
        FakeAppService.sizes.append((width, height))

    async def send_bytes(self, data: bytes) -> bool:
        return True

    async def stop(self) -> None:
        FakeAppService.stopped += 1


class Served(TestServer):
    """The test server on the connections `qrelkit serve` runs (`Runner`), not aiohttp's plain ones."""

    async def _make_runner(self, **kwargs: Any) -> Runner:
        return Runner(self.app, **kwargs)


@pytest.fixture
async def served(db: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Any, TestClient[Any, Any]]]:
    import textual_serve.server

    from qrelkit.cli._server import JudgingServer

    monkeypatch.setattr(textual_serve.server, "AppService", FakeAppService)
    FakeAppService.started, FakeAppService.sizes, FakeAppService.stopped = [], [], 0
    server = JudgingServer(db, host="127.0.0.1", port=8080, public_url="http://judge.test")
    server.store.open()
    client = TestClient(Served(await server._make_app()))
    await client.start_server()
    yield server, client
    await client.close()
    server.store.close()


async def add(server: Any, name: str) -> str:
    token: str = await server.store.call(lambda s: serving.add_token(s, name))
    return token


async def test_no_token_no_page_and_no_app(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    token = await add(server, "ann")
    for path in ("/", "/?token=", "/?token=" + "A" * 43, "/ws", "/download/k", "/?token=" + token[:-1]):
        reply = await client.get(path, allow_redirects=False)
        assert reply.status == 401, path
        assert "token add NAME" in await reply.text()
    client.session.cookie_jar.update_cookies({"qrelkit_token": "forged"})
    assert (await client.get("/")).status == 401
    assert FakeAppService.started == []
    assert (await client.get("/static/js/textual.js")).status == 200  # the page's script is public


async def test_static_lists_no_folder(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    for path in ("/static/", "/static", "/static/js", "/static/js/", "/static/css/./", "/static/%2e/"):
        reply = await client.get(path, allow_redirects=False)
        assert reply.status == 404 and "Index of" not in await reply.text(), path
    assert (await client.get("/static/css/xterm.css")).status == 200


async def test_the_link_sets_an_httponly_cookie_and_drops_the_token(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    token = await add(server, "ann")
    reply = await client.get(f"/?fontsize=14&token={token}", allow_redirects=False)
    assert reply.status == 303 and reply.headers["Location"] == "/?fontsize=14"
    cookie = reply.headers["Set-Cookie"]
    assert f"qrelkit_token={token}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    page = await client.get("/?fontsize=14")  # the cookie now
    assert page.status == 200 and "ws://judge.test/ws" in await page.text()
    assert token not in await page.text()
    # nothing from another site: the web font link is gone and the policy forbids any (issue 25)
    assert "googleapis" not in await page.text() and "https://" not in await page.text()
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


@pytest.mark.parametrize(
    "headers, signs_in",
    [
        ({}, True),  # not a browser, or an old one
        ({"Sec-Fetch-Site": "none"}, True),  # pasted into the address bar, a bookmark
        ({"Sec-Fetch-Site": "same-origin", "Referer": "http://judge.test/?fontsize=14"}, True),
        ({"Sec-Fetch-Site": "cross-site"}, False),  # a link on another site, or in a web mail
        ({"Sec-Fetch-Site": "same-site"}, False),
        ({"Sec-Fetch-Site": "bogus"}, False),
        ({"Referer": "https://evil.example/page"}, False),
        ({"Sec-Fetch-Site": "none", "Referer": "http://judge.test.evil.example/"}, False),
        ({"Referer": "http://judge.test:8081/"}, False),  # another port is another origin
        ({"Referer": "null"}, False),
    ],
)
async def test_a_token_link_signs_in_only_when_opened_directly(
    served: tuple[Any, TestClient[Any, Any]], headers: dict[str, str], signs_in: bool
) -> None:
    """Session fixation: any site could link to `/?token=MINE` and the victim's browser got my
    cookie, so the victim judged under my name."""
    server, client = served
    token = await add(server, "mallory")
    reply = await client.get(f"/?token={token}", headers=headers, allow_redirects=False)
    if signs_in:
        assert reply.status == 303 and f"qrelkit_token={token}" in reply.headers["Set-Cookie"]
        return
    text = await reply.text()
    assert reply.status == 403 and "Set-Cookie" not in reply.headers and token not in text
    assert "open the link directly: paste it into the address bar" in text
    [entry] = await server.store.call(serving.list_tokens)
    assert entry.last_used is None  # nor was the token's use recorded
    assert (await client.get("/")).status == 401


async def test_the_app_runs_as_the_tokens_assessor(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    await add(server, "bob")
    token = await add(server, "ann")
    client.session.cookie_jar.update_cookies({"qrelkit_token": token})
    ws = await client.ws_connect("/ws?assessor=bob", headers={"Origin": "http://judge.test", "X-Assessor": "bob"})
    await ws.close()
    await _until(lambda: FakeAppService.started)
    [command] = FakeAppService.started
    argv = command.removeprefix("exec ").split()
    assert argv[argv.index("--assessor") + 1] == "ann" and "bob" not in command
    assert argv[argv.index("judge") + 1] == "--served"
    assert argv[argv.index("--role") + 1] == "assessor"


async def test_the_app_runs_in_the_tokens_role(served: tuple[Any, TestClient[Any, Any]]) -> None:
    """An adjudicator token's session is started as one; an assessor's never, whatever it asks."""
    server, client = served
    roles: list[tuple[str, Role]] = [("lead", "adjudicator"), ("ann", "assessor")]
    for n, (name, role) in enumerate(roles, 1):
        token: str = await server.store.call(partial(serving.add_token, name=name, role=role))
        client.session.cookie_jar.update_cookies({"qrelkit_token": token})
        query = "/ws?role=adjudicator&adjudicate=1"  # what a browser asks for changes nothing
        ws = await client.ws_connect(query, headers={"Origin": "http://judge.test", "X-Role": "adjudicator"})
        await ws.close()
        await _until(partial(lambda k: len(FakeAppService.started) == k, n))
    lead, ann = (c.removeprefix("exec ").split() for c in FakeAppService.started)
    assert lead[lead.index("--role") + 1] == "adjudicator" and lead[lead.index("--assessor") + 1] == "lead"
    assert ann[ann.index("--role") + 1] == "assessor" and "--adjudicate" not in ann + lead


async def test_a_cross_site_websocket_is_refused(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    reply = await client.get("/ws", headers={"Origin": "https://evil.example", "Upgrade": "websocket",
                                             "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                                             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})  # fmt: skip
    assert reply.status == 401 and FakeAppService.started == []


async def test_revoking_a_token_ends_its_open_session(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    ws = await client.ws_connect("/ws", headers={"Origin": "http://judge.test"})
    await _until(lambda: FakeAppService.started and any(server.sessions.values()))  # the session is open
    assert await server.end_revoked() == 0  # still live
    await server.store.call(lambda s: serving.revoke_token(s, "ann"))
    assert await server.end_revoked() == 1
    message = await asyncio.wait_for(ws.receive(), 5)
    assert ws.closed, message
    assert FakeAppService.stopped >= 1  # the app process was told to quit
    assert (await client.get("/")).status == 401


async def test_one_token_opens_at_most_three_sessions(served: tuple[Any, TestClient[Any, Any]]) -> None:
    """Each session is a `qrelkit judge` process (about 70 MB): 20 websockets on one token were 20."""
    server, client = served
    server.grace_seconds = 0.1
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    replies = [await client.get("/ws", headers=UPGRADE) for _ in range(5)]
    await _until(lambda: len(FakeAppService.started) == 3)
    assert [r.status for r in replies] == [101, 101, 101, 429, 429]
    assert "3 sessions are open under this token" in await replies[3].text()
    page = await client.get("/")  # the page says so too, before it opens a websocket, and tries again
    assert page.status == 429 and "close one of them; this page tries again" in await page.text()
    assert page.headers["Refresh"] == "3"
    await asyncio.sleep(0.1)
    assert len(FakeAppService.started) == 3


async def test_a_reloaded_page_at_the_cap_gets_its_session(served: tuple[Any, TestClient[Any, Any]]) -> None:
    """A reloaded page's new websocket can come while its old session is still ending: it waits
    for that place (a few seconds at most) instead of being refused."""
    server, client = served
    server.limits = serving.Limits(per_token=1)
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    old = await client.ws_connect("/ws", headers={"Origin": "http://judge.test"})
    await _until(lambda: FakeAppService.started)
    assert "1 session is open under this token already" in await (await client.get("/")).text()
    new = asyncio.create_task(client.get("/ws", headers=UPGRADE))
    await asyncio.sleep(0.3)
    await old.close()
    assert (await asyncio.wait_for(new, 5)).status == 101
    await _until(lambda: len(FakeAppService.started) == 2)


async def test_the_server_opens_at_most_its_total_of_sessions(served: tuple[Any, TestClient[Any, Any]]) -> None:
    server, client = served
    server.limits, server.grace_seconds = serving.Limits(per_token=3, total=4), 0.1
    ann, bob = await add(server, "ann"), await add(server, "bob")
    annes = [await client.get("/ws", headers=UPGRADE | {"Cookie": f"qrelkit_token={ann}"}) for _ in range(3)]
    bobs = [await client.get("/ws", headers=UPGRADE | {"Cookie": f"qrelkit_token={bob}"}) for _ in range(2)]
    assert [r.status for r in annes + bobs] == [101, 101, 101, 101, 429]
    assert "4 sessions are open on this server" in await bobs[1].text()
    await _until(lambda: len(FakeAppService.started) == 4)
    annes[0].close()  # one ends: its place is free again
    await _until(lambda: sum(map(len, server.sessions.values())) == 3)
    again = await client.get("/ws", headers=UPGRADE | {"Cookie": f"qrelkit_token={bob}"})
    assert again.status == 101
    await _until(lambda: len(FakeAppService.started) == 5)


async def test_the_terminal_is_at_most_500_by_200(served: tuple[Any, TestClient[Any, Any]]) -> None:
    """The browser names the size: 20000 x 20000 took 2.6 GB in the app and sent 1.2 GB in 25 s."""
    server, client = served
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    ws = await client.ws_connect("/ws?width=20000&height=20000", headers={"Origin": "http://judge.test"})
    for width, height in [(99999, 120), (120, 10**30), (-5, 0), (132, 43)]:
        await ws.send_json(["resize", {"width": width, "height": height}])
    await _until(lambda: len(FakeAppService.sizes) == 5)
    assert FakeAppService.sizes == [(500, 200), (500, 120), (120, 200), (1, 1), (132, 43)]
    await ws.close()
    for query, size in [("width=" + "9" * 5000 + "&height=x", (80, 24)), ("width=0&height=-3", (1, 1))]:
        FakeAppService.sizes = []
        ws = await client.ws_connect(f"/ws?{query}", headers={"Origin": "http://judge.test"})
        await _until(lambda: FakeAppService.sizes)
        assert FakeAppService.sizes == [size], query
        await ws.close()


MALFORMED = ["not json", "[]", "{}", "[1]", '["resize", 3]', '["resize", {"width": "x", "height": 1}]',
             '["resize", {"width": 1e999, "height": 1}]', '["resize", {"width": true, "height": 1}]', '["stdin", 5]',
             '["ping", {}]', '["stdin", "\\ud800"]', "[" * 100_000]  # fmt: skip


@pytest.mark.parametrize("frame", MALFORMED, ids=range(len(MALFORMED)))
async def test_a_malformed_message_ends_its_session_in_one_log_line(
    served: tuple[Any, TestClient[Any, Any]], caplog: pytest.LogCaptureFixture, frame: str
) -> None:
    """textual-serve logged a traceback for each (JSONDecodeError, TypeError, ...)."""
    server, client = served
    caplog.set_level(logging.DEBUG)
    client.session.cookie_jar.update_cookies({"qrelkit_token": await add(server, "ann")})
    ws = await client.ws_connect("/ws", headers={"Origin": "http://judge.test"})
    await ws.send_bytes(b"binary frames are not read")
    await ws.send_json(["unknown", 1])  # a message of a type the server does not know is left alone
    await ws.send_json(["ping", "1"])
    assert (await asyncio.wait_for(ws.receive_json(), 5)) == ["pong", "1"]
    await ws.send_str(frame)
    message = await asyncio.wait_for(ws.receive(), 5)
    assert message.type == WSMsgType.CLOSE and ws.closed
    await _until(lambda: not any(server.sessions.values()) and FakeAppService.stopped)
    said = [r for r in caplog.records if not r.getMessage().startswith("session ")]
    assert [r.getMessage() for r in said] == ["ended a session of ann: it sent a malformed message"]
    assert all(r.exc_info is None for r in caplog.records) and "Traceback" not in caplog.text


@pytest.mark.parametrize(
    "frame",
    [b"\x83\x00", b"\x81\x02\xff\xfe", b"\x82\x7f" + (2**62).to_bytes(8, "big")]
    + [b"\x09\x00", b"\x00\x01x", b"\xc1\x00"],
    ids=["reserved opcode", "text not UTF-8", "2**62 bytes", "fragmented ping", "continuation first", "RSV bits"],
)
async def test_a_frame_that_breaks_the_protocol_ends_the_session_quietly(
    served: tuple[Any, TestClient[Any, Any]], caplog: pytest.LogCaptureFixture, frame: bytes
) -> None:
    server, client = served
    caplog.set_level(logging.DEBUG)
    token = await add(server, "ann")
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(f"GET /ws HTTP/1.1\r\nHost: judge.test\r\nCookie: qrelkit_token={token}\r\n".encode()
                 + "".join(f"{k}: {v}\r\n" for k, v in UPGRADE.items()).encode() + b"\r\n")  # fmt: skip
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    writer.write(frame)  # unmasked: aiohttp reads a client's frames either way
    closing = await asyncio.wait_for(reader.read(4), 5)
    writer.close()
    assert closing[0] == 0x88 and int.from_bytes(closing[2:4], "big") in (1002, 1007, 1009)  # the server closed it
    await _until(lambda: not any(server.sessions.values()) and FakeAppService.stopped)
    assert [r.getMessage() for r in caplog.records] == ["session opened for ann", "session closed for ann"]


async def test_a_malformed_request_gets_one_log_line_that_quotes_none_of_it(
    served: tuple[Any, TestClient[Any, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    """A request line over 8,190 bytes got an aiohttp traceback in the log, and a 400 whose body
    quoted the start of the line (the token of the link): each kind of malformed request here."""
    server, client = served
    caplog.set_level(logging.DEBUG)
    token = await add(server, "ann")
    query = f"token={token}&x=" + "secret" * 1500
    head = f"GET /?{query[:60]}"
    malformed = [
        f"GET /?{query} HTTP/1.1\r\nHost: x\r\n\r\n",  # the request line over 8,190 bytes
        f"{head} HTTP/1.1\r\nX: {query}\r\n\r\n",  # a header over 8,190 bytes
        f"{head} HTTP/1.1\r\nno colon {query[:60]}\r\n\r\n",
        f"G\x01T /?{query[:60]} HTTP/1.1\r\n\r\n",
        f"{head}\x00 HTTP/1.1\r\n\r\n",
        f"{head} HTTP/9.9\r\n\r\n",
    ]
    for raw in malformed:
        caplog.clear()
        reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
        writer.write(raw.encode("latin-1"))
        reply = (await asyncio.wait_for(reader.read(), 5)).decode("latin-1")
        writer.close()
        status, _, body = reply.partition("\r\n\r\n")
        assert status.split()[1] == "400", reply[:200]
        assert body == "400: malformed request: a request line or header over 8,190 bytes, or not HTTP\n"
        [said] = caplog.records
        assert re.fullmatch(r"refused a malformed request from 127\.0\.0\.1 \(\w+\)", said.getMessage())
        assert said.exc_info is None and "secret" not in caplog.text and token[:8] not in caplog.text, raw[:40]
    caplog.clear()
    assert (await client.get(f"/?{query[:60]}", allow_redirects=False)).status == 303  # and nothing broke
    assert caplog.records == []  # no access log: it would write each `/?token=...`


UPGRADE = {"Origin": "http://judge.test", "Upgrade": "websocket", "Connection": "Upgrade",
           "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip


def test_a_reader_connection_keeps_the_wal_of_its_process(tmp_path: Path) -> None:
    """A judging session opens readers beside its store; another process closing the store then
    must not take itself for the last connection and delete the WAL (the session's commits lost)."""
    db = tmp_path / "wal.db"
    main = Store.open(db)
    reader = main.reader()
    other = f"from qrelkit.storage import Store; Store.open({str(db)!r}).close()"
    subprocess.run([sys.executable, "-c", other], check=True)
    assert Path(f"{db}-wal").exists()
    main.settings.configure(name="kept")
    seen = subprocess.run(
        [sys.executable, "-c", f"from qrelkit.storage import Store; print(Store.open({str(db)!r}).settings.name)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    reader.close()
    main.close()
    assert seen == "kept"
