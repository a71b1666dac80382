"""glibc's allocator settings `score` makes (workflows.scoring.map_large_allocations)."""

from __future__ import annotations

import os
import sys

import pytest

from qrelkit.workflows import scoring


def _glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, OSError, ValueError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc(), reason="glibc only")
def test_mallopt_is_found_in_the_process_and_accepts_both_settings() -> None:
    mallopt = scoring._mallopt()
    assert mallopt is not None
    assert mallopt(-3, scoring.MMAP_FROM) == 1  # mallopt returns 1 on success
    assert mallopt(-1, scoring.TRIM_AT) == 1
    scoring.map_large_allocations(keep_heap=True)


def test_without_glibc_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    scoring._mallopt.cache_clear()
    monkeypatch.setattr(os, "confstr", lambda name: "musl")
    try:
        assert scoring._mallopt() is None
        scoring.map_large_allocations(keep_heap=True)  # does nothing, raises nothing
    finally:
        scoring._mallopt.cache_clear()
