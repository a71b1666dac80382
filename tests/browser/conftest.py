"""Headless Chromium for the tests of this folder (`make browser-test`): one browser for the
session, and the folder the screenshots are kept in (tests/browser/artefacts/, git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .cdp import Browser, find_browser

ARTEFACTS = Path(__file__).resolve().parent / "artefacts"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = find_browser()
    if executable is None:
        pytest.fail("no chromium found: install it (`apt-get install -y chromium`, or run `make browser-test` as root)")
    b = Browser(executable)
    yield b
    b.close()


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(exist_ok=True)
    return ARTEFACTS
