"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages ended by NUL on file descriptors 3 and 4), so no WebSocket library is needed. The page is
laid out at an exact viewport (`Emulation.setDeviceMetricsOverride`: the window of `--headless`
is never narrower than 500 px), evaluated (`Runtime.evaluate`) and photographed
(`Page.captureScreenshot`)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    return next((p for b in BROWSERS if (p := shutil.which(b))), None)


class Browser:
    """One headless Chromium; `page()` opens a tab at a viewport size."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="qrelkit-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        to_chrome_r, from_chrome_w = _high(to_chrome_r), _high(from_chrome_w)  # never 3 or 4 themselves
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                 "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "about:blank"]  # fmt: skip
        # the browser reads commands on its fd 3 and writes replies on its fd 4: bash (dash takes no fd
        # over 9) puts the
        # pipe ends there
        shell = f'exec "$0" "$@" 3<&{to_chrome_r} 4>&{from_chrome_w} {to_chrome_r}<&- {from_chrome_w}>&-'
        self.proc = subprocess.Popen(
            ["bash", "-c", shell, executable, *flags], pass_fds=(to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method and ev.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read())
        raise TimeoutError(method)

    def pump(self, seconds: float) -> None:
        """Keep the events that arrive within `seconds`."""
        import select

        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if b"\0" not in self._buffer and not select.select([self._from_chrome], [], [], left)[0]:
                return
            self.events.append(self._read())

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def page(self, path: Path, width: int, height: int) -> Page:
        return self.open(path.resolve().as_uri(), width, height)

    def open(self, url: str, width: int, height: int, *, network: bool = False) -> Page:
        """A tab at `url`; `network`: its websocket frames are recorded as events too."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)  # fmt: skip
        self.send("Page.enable", {}, session)
        if network:
            self.send("Network.enable", {}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return Page(self, session, target)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)


def _high(fd: int) -> int:
    """`fd` moved to a number of 10 or more."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Page:
    def __init__(self, browser: Browser, session: str, target: str) -> None:
        self.browser, self.session, self.target = browser, session, target

    def evaluate(self, expression: str) -> Any:
        result = self.browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, self.session
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, out: Path) -> bytes:
        data = base64.b64decode(self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"])
        out.write_bytes(data)
        return data

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
