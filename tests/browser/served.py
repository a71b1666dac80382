"""`qrelkit serve` as a process on a free port, and a browser tab on the judging UI it serves:
the terminal's output is read from the websocket frames the tab receives (the screen is drawn on a
canvas), keys are typed into the terminal as a person types them."""

from __future__ import annotations

import base64
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from .cdp import Browser, Page

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78]")
KEYS = {
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, None),
    " ": (" ", "Space", 32, " "),
    "ctrl+s": ("s", "KeyS", 83, None),
}
CTRL = 2
"""The modifiers bit of the control key (DevTools `Input.dispatchKeyEvent`)."""


def qrelkit(db: Path, *args: str) -> str:
    """Run `qrelkit --db DB ARGS...`, its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "qrelkit", "--db", str(db), *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(url: str, cookie: str | None = None) -> int:
    """The HTTP status of a GET (redirects not followed; 0: nothing listens)."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.build_opener(Stay).open(request, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except urllib.error.URLError:
        return 0  # not listening (yet)


class Served:
    """`qrelkit serve` on a free port of 127.0.0.1."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db, self.port = db, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "qrelkit", "--db", str(db), "serve", "--port", str(self.port)],
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        try:
            while status(self.url + "/static/js/textual.js") != 200:
                assert self.proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        except BaseException:
            self.kill()
            raise

    def link(self, name: str, role: str = "assessor") -> str:
        added = qrelkit(self.db, "serve", "--port", str(self.port), "token", "add", name, "--role", role)
        line = next(x for x in added.splitlines() if x.startswith("link: "))
        return line.removeprefix("link: ")

    def kill(self) -> None:
        """SIGKILL, the server only (its app processes lose their input and end by themselves)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._log.close()

    def app_processes(self) -> list[int]:
        """The `qrelkit judge` processes running on this store."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"judge" in argv and str(self.db.resolve()).encode() in argv:
                found.append(int(pid))
        return found


class Tab:
    """A browser tab on the judging UI: what its terminal was sent, keys typed into it."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser = browser
        self.page: Page = browser.open(url, 1100, 700, network=True)
        self.output = ""
        self.closed = False

    def _drain(self) -> None:
        keep = []
        for ev in self.browser.events:
            method = ev.get("method", "")
            if ev.get("sessionId") != self.page.session or not method.startswith("Network.webSocket"):
                keep.append(ev)
            elif method == "Network.webSocketFrameReceived":
                r = ev["params"]["response"]
                raw = base64.b64decode(r["payloadData"]).decode("utf-8", "replace") if r["opcode"] == 2 else ""
                self.output += ANSI.sub("", raw)
            elif method == "Network.webSocketClosed":
                self.closed = True
        self.browser.events[:] = keep

    def wait(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """The first match of `pattern` in what the terminal was sent since `mark()`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.browser.pump(0.05)
            self._drain()
            if found := re.search(pattern, self.output):
                return found
        raise AssertionError(f"{pattern!r} never shown; the terminal was sent:\n{self.output[-3000:]}")

    def wait_closed(self, timeout: float = 15.0) -> float:
        """Seconds until the page's websocket closed."""
        start = time.monotonic()
        while not self.closed:
            assert time.monotonic() - start < timeout, "the session was never ended"
            self.browser.pump(0.05)
            self._drain()
        return time.monotonic() - start

    def mark(self) -> None:
        self.browser.pump(0.2)
        self._drain()
        self.output = ""

    def press(self, key: str) -> None:
        self.page.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        if key in KEYS:
            name, code, vk, text = KEYS[key]
        else:
            name, code, vk, text = key, f"Digit{key}" if key.isdigit() else f"Key{key.upper()}", ord(key.upper()), key
        modifiers = CTRL if key.startswith("ctrl+") else 0
        down: dict[str, object] = {"type": "keyDown", "key": name, "code": code, "windowsVirtualKeyCode": vk}
        down["modifiers"] = modifiers
        if text is not None:
            down["text"] = text
        self.browser.send("Input.dispatchKeyEvent", down, self.page.session)
        up = {"type": "keyUp", "key": name, "code": code, "windowsVirtualKeyCode": vk, "modifiers": modifiers}
        self.browser.send("Input.dispatchKeyEvent", up, self.page.session)

    def type(self, *keys: str) -> None:
        """`press` each key in turn, as fast as the browser takes them (a person typing fast)."""
        for key in keys:
            self.press(key)

    def body_class(self) -> str:
        return str(self.page.evaluate("document.body.className"))
