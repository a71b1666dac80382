"""A child process on a pseudo-terminal, and the text it drew: for the tests that drive the real
`qrelkit judge` as a terminal does."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time

ROWS, COLUMNS = 24, 80


class Terminal:
    """A child process on an 80x24 pty, with everything it wrote collected."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.output = b""

    def read_until(self, text: str, timeout: float = 60.0, since: int = 0) -> bool:
        """Read until the app has drawn `text` (between its own escape sequences), in what it
        wrote from byte `since` of its output on (a mark taken with `len(term.output)`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in screen_text(self.output[since:]):
                return True
            if not self._read(0.1):
                break
        return text in screen_text(self.output[since:])

    def _read(self, wait: float) -> bool:
        """Read what is there (waiting up to `wait` s); False once the child closed the pty."""
        ready, _, _ = select.select([self.master], [], [], wait)
        if ready:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the child is gone
                return False
            if not chunk:
                return False
            self.output += chunk
        return True

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def wait(self, timeout: float) -> int | None:
        """The exit status, reading the output to the end meanwhile; None if still running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = self._read(0.05)
            code = self.proc.poll()
            if code is not None:
                while self._read(0.05):  # what is left in the pty
                    pass
                return code
            if not alive:
                time.sleep(0.05)
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        os.close(self.master)


def screen_text(output: bytes) -> str:
    """The text the app drew: its output decoded, every escape sequence of its own removed
    (CSI, OSC, and the two-byte ones), so that text split by a colour change reads whole."""
    text = output.decode("utf-8", errors="replace")
    text = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", text)
    text = re.sub(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", "", text)
    return re.sub(r"\x1b[@-Z\\-_]", "", text)
