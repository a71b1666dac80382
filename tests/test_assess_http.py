"""`qrelkit assess --endpoint`: an LLM judge over the chat-completions protocol, against a real
server on 127.0.0.1 (`chat_server`): grades and their provenance, parse statuses kept apart,
retries, concurrency, caps, the cache, resuming after SIGKILL, the key kept out of everything,
and bad input as one line with exit status 2. Nothing here reaches outside the machine."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_server import TOKENS_OUT, ChatServer, serving
from conftest import ROOT, Cli
from qrelkit.models import GradeScale
from qrelkit.storage import Store
from qrelkit.workflows.http_judge import TEMPLATE

KEY = "sk-test-0123456789-secret"
FAST = ("--retry-base", "0.01")


def _sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _store(run_cli: Cli, n: int) -> dict[str, int]:
    """A store of one query and `n` pooled documents; their hidden grades."""
    run_cli("init")
    line = json.dumps({"id": "q1", "text": "python sort", "description": "explains sorting"})
    run_cli("import", "queries", str(run_cli.write("q.jsonl", line)), "--stratum", "s", "--create-strata")
    ids = [f"d{i:02d}" for i in range(n)]
    rows = "\n".join(json.dumps({"id": d, "title": f"T {d}", "text": f"DOC:{d} about sorting"}) for d in ids)
    run_cli("import", "docs", str(run_cli.write("d.jsonl", rows)))
    run = "".join(f"q1 Q0 {d} {i} {100 - i} r\n" for i, d in enumerate(ids, 1))
    run_cli("pool", str(run_cli.write("r.run", run)), "--depth", "1000")
    return {d: i % 4 for i, d in enumerate(ids)}


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("QK_TEST_KEY", KEY)
    yield "QK_TEST_KEY"


def _assess(run_cli: Cli, server: ChatServer, *args: str, ok: bool = True) -> dict[str, object]:
    res = run_cli("assess", "--endpoint", server.url, "--model", "m", *FAST, *args, "--format", "json", ok=ok)
    assert KEY not in res.output
    body, _ = json.JSONDecoder().raw_decode(res.output[res.output.index("{") :])
    assert isinstance(body, dict)
    return body


def _rows(run_cli: Cli) -> list:  # type: ignore[type-arg]
    with Store.open(run_cli.db) as store:
        return list(store.machine.rows())


def test_grades_are_stored_with_their_provenance(run_cli: Cli, key_env: str) -> None:
    grades = _store(run_cli, 6)
    prices = run_cli.write("prices.json", json.dumps({"m": {"in": 0.5, "out": 2.0}}))
    with serving(ChatServer(grades)) as server:
        out = _assess(run_cli, server, "--api-key-env", key_env, "--prices", str(prices))
    assert out["asked"] == 6 and out["statuses"] == {"ok": 6}
    assert server.auth == {f"Bearer {KEY}"} and server.paths == {"/v1/chat/completions"}
    rows = _rows(run_cli)
    assert {r.doc_id: r.grade for r in rows} == grades
    port = server.url.split(":")[2].split("/")[0]
    scale = GradeScale()
    for r in rows:
        prompt, body = server.prompts[r.doc_id][0], server.bodies[r.doc_id][0]
        assert (r.assessor, r.model, r.endpoint_host) == ("llm:m", "m", f"127.0.0.1:{port}")
        assert r.parameters == {"temperature": 0.0, "max_tokens": 256, "max_grade": scale.max_grade}
        assert r.template_sha256 == _sha(TEMPLATE) and r.prompt_sha256 == _sha(prompt) and r.reply == body
        assert r.tokens_in == len(prompt.split()) and r.tokens_out == TOKENS_OUT and r.latency > 0
        assert r.cost == pytest.approx((r.tokens_in * 0.5 + TOKENS_OUT * 2.0) / 1e6)
        assert "python sort" in prompt and "explains sorting" in prompt and f"T {r.doc_id}" in prompt
        assert "3 (perfect)" in prompt and "Grade: N" in prompt
    assert out["cost"] == pytest.approx(sum(r.cost for r in rows))
    assert KEY.encode() not in run_cli.db.read_bytes()


def test_parse_statuses_are_kept_apart_and_never_a_grade(run_cli: Cli) -> None:
    grades = _store(run_cli, 9)
    kinds = ["ok", "prose", "two", "off-scale", "sorry", "refusal", "filtered", "not-json", "ok"]
    scripts = {f"d{i:02d}": [k] for i, k in enumerate(kinds)}
    with serving(ChatServer(grades, scripts=scripts)) as server:
        out = _assess(run_cli, server)
    assert out["statuses"] == {"ok": 2, "refused": 3, "unparsed": 4}
    by_doc = {r.doc_id: r for r in _rows(run_cli)}
    for i, kind in enumerate(kinds):
        row = by_doc[f"d{i:02d}"]
        expected = {"ok": "ok", "sorry": "refused", "refusal": "refused", "filtered": "refused"}.get(kind, "unparsed")
        assert row.status == expected, kind
        assert (row.grade is not None) == (expected == "ok") and row.reply is not None
    with Store.open(run_cli.db) as store:
        assert sorted(d for _, d, _ in store.machine.grades("llm:m")) == ["d00", "d08"]
    table = run_cli("status").output
    assert "llm:m" in table


def test_429_500_timeouts_and_dropped_connections_are_tried_again(run_cli: Cli) -> None:
    grades = _store(run_cli, 6)
    scripts = {"d01": ["429", "ok"], "d02": ["500", "500", "ok"], "d03": ["drop", "ok"], "d04": ["500"] * 9,
               "d05": ["slow", "ok"]}  # fmt: skip
    with serving(ChatServer(grades, scripts=scripts, retry_after="1")) as server:
        out = _assess(run_cli, server, "--retries", "2", "--timeout", "0.3")
    assert server.requests == {"d00": 1, "d01": 2, "d02": 3, "d03": 2, "d04": 3, "d05": 2}
    first, second = server.times["d01"]
    assert second - first >= 1.0  # Retry-After: 1, above a backoff of 0.01 s
    assert out["statuses"] == {"ok": 5, "error": 1}
    row = next(r for r in _rows(run_cli) if r.doc_id == "d04")
    assert row.status == "error" and row.grade is None and row.reply is None
    assert row.error is not None and "500" in row.error  # why, kept with the row
    assert all(r.error is None for r in _rows(run_cli) if r.status != "error")
    with serving(ChatServer(grades)) as again:  # an error got no reply: asked again, the rest cached
        out = _assess(run_cli, again)
    assert again.requests == {"d04": 1} and out["cached"] == 5 and out["statuses"] == {"ok": 1}


def test_requests_run_concurrently_within_the_bound(run_cli: Cli) -> None:
    grades = _store(run_cli, 12)
    with serving(ChatServer(grades, latency=0.15)) as server:
        out = _assess(run_cli, server, "--concurrency", "3")
    assert out["asked"] == 12 and 2 <= server.most_at_once <= 3
    assert {r.doc_id: r.grade for r in _rows(run_cli)} == grades


def test_noise_gives_other_grades_and_each_is_on_the_scale(run_cli: Cli) -> None:
    grades = _store(run_cli, 20)
    with serving(ChatServer(grades, noise=0.5)) as server:
        _assess(run_cli, server)
    got = {r.doc_id: r.grade for r in _rows(run_cli)}
    assert got != grades and all(g is not None and abs(g - grades[d]) <= 1 for d, g in got.items())


def test_max_calls_and_max_cost_stop_before_the_cap(run_cli: Cli) -> None:
    grades = _store(run_cli, 10)
    # out: 1000 per 1M tokens; 7 tokens out = 0.007 an answer, at most 10 tokens = 0.01
    prices = run_cli.write("p.toml", "[m]\nin = 0\nout = 1000\n")
    with serving(ChatServer(grades)) as server:
        out = _assess(run_cli, server, "--max-calls", "3", "--max-tokens", "10")
        assert server.total() == 3 and out["capped"] == 7
        cost = ("--prices", str(prices), "--max-tokens", "10", "--max-cost", "0.035")
        out = _assess(run_cli, server, *cost)
        assert server.total() == 3 + 4 and out["asked"] == 4 and out["capped_by_cost"] == 3
        assert out["cost"] == pytest.approx(0.028)  # a fifth could cost 0.038 > 0.035
        out = _assess(run_cli, server, *cost, "--concurrency", "3")
        assert out["asked"] == 3 and float(str(out["cost"])) <= 0.035
    assert sorted(server.requests.values()) == [1] * 10


def test_the_cache_asks_nothing_twice_and_refresh_asks_again(run_cli: Cli) -> None:
    grades = _store(run_cli, 4)
    with serving(ChatServer(grades)) as server:
        _assess(run_cli, server)
        again = run_cli("assess", "--endpoint", server.url, "--model", "m").output
        assert server.total() == 4 and "0 asked, 4 cached (hit rate 100.0%)" in again
        out = _assess(run_cli, server, "--refresh")
        assert out["asked"] == 4 and server.total() == 8
        out = _assess(run_cli, server, "--temperature", "0.5")  # other parameters: another question
        assert out["asked"] == 4 and out["cached"] == 0


def test_a_prompt_file_replaces_the_template(run_cli: Cli) -> None:
    grades = _store(run_cli, 2)
    template = "Q=$query G=${guidelines} D=$title|$text\n$grades\nmax $max_grade, costs $$1. Grade: N"
    path = run_cli.write("prompt.txt", template)
    with serving(ChatServer(grades)) as server:
        _assess(run_cli, server, "--prompt", str(path))
        assert server.prompts["d01"] == ["Q=python sort G=explains sorting D=T d01|DOC:d01 about sorting\n"
                                         "0 (irrelevant)\n1 (related)\n2 (relevant)\n3 (perfect)\n"
                                         "max 3, costs $1. Grade: N"]  # fmt: skip
        assert {r.template_sha256 for r in _rows(run_cli)} == {_sha(template)}
        assert _assess(run_cli, server)["asked"] == 2  # our template: another question


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--endpoint", "ftp://127.0.0.1/v1", "--model", "m"), "--endpoint 'ftp://127.0.0.1/v1' is not an http"),
        (("--endpoint", "no url", "--model", "m"), "is not an http(s) URL"),
        (("--endpoint", "http://u:pw@127.0.0.1/v1", "--model", "m"), "user name or password"),
        (("--endpoint", "http://127.0.0.1:{free}/v1", "--model", "m", "--retries", "1"), "connection refused"),
        (("--endpoint", "http://127.0.0.1:{free}/v1"), "--endpoint needs --model"),
        (("--endpoint", "http://127.0.0.1:{free}/v1", "--model", "m", "--api-key-env", "QK_NOT_SET"), "QK_NOT_SET"),
        (("--endpoint", "http://127.0.0.1:{free}/v1", "--model", "m", "--max-cost", "1"), "--max-cost needs"),
        (("--endpoint", "http://127.0.0.1:{free}/v1", "--model", "bad name"), "--model"),
        (("--endpoint", "http://127.0.0.1:{free}/v1", "--model", "m", "--judge", "lexical"), "two judges"),
        (("--model", "m"), "--model needs --endpoint"),
        (("--prompt", "p.txt"), "--prompt needs --endpoint"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Cli, args: tuple[str, ...], says: str) -> None:
    _store(run_cli, 2)
    args = tuple(a.replace("{free}", str(_free_port())) for a in args)
    bad = run_cli("assess", *args, ok=False)
    assert bad.exit_code == 2 and says in bad.output, bad.output
    assert len(bad.output.strip().splitlines()) == 1 and "Traceback" not in bad.output
    assert _rows(run_cli) == []


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("Q=$query\nD=$document", "line 2: unknown placeholder $document"),
        ("Q=$query costs $ 5", "line 1: a '$'"),
        ("Q: {query}\nD: {text}", "never uses $query: the model would not see the query"),
        ("Q: $query\nT: ${title}", "never uses $text: the model would not see the document"),
    ],
)
def test_a_bad_template_names_the_file_and_line(run_cli: Cli, template: str, says: str) -> None:
    _store(run_cli, 1)
    path = run_cli.write("prompt.txt", template)
    bad = run_cli("assess", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", str(path), ok=False)
    assert bad.exit_code == 2 and f"--prompt {path} {says}" in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_a_refused_key_stops_the_run_and_is_never_shown(run_cli: Cli, key_env: str) -> None:
    grades = _store(run_cli, 3)
    with serving(ChatServer(grades, scripts={"d00": ["401"]})) as server:
        bad = run_cli("assess", "--endpoint", server.url, "--model", "m", "--api-key-env", key_env, ok=False)
    assert bad.exit_code == 2 and "HTTP 401" in bad.output and KEY not in bad.output
    assert len(bad.output.strip().splitlines()) == 1 and server.total() == 1 and _rows(run_cli) == []


def test_a_killed_run_goes_on_without_asking_a_stored_pair_again(run_cli: Cli, tmp_path: Path) -> None:
    grades = _store(run_cli, 40)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "QK_TEST_KEY": KEY}
    with serving(ChatServer(grades, latency=0.05)) as server:
        cmd = [sys.executable, "-m", "qrelkit", "--db", str(run_cli.db), "assess", "--endpoint", server.url,
               "--model", "m", "--concurrency", "2", "--api-key-env", "QK_TEST_KEY", *FAST]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while server.total() < 15 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        output, _ = proc.communicate()
        assert proc.returncode == -signal.SIGKILL and KEY.encode() not in output
        stored = {r.doc_id for r in _rows(run_cli)}
        assert 13 <= len(stored) < 40 and len(stored) == len(_rows(run_cli))  # at most 2 in flight lost
        out = _assess(run_cli, server, "--concurrency", "2")
    rows = _rows(run_cli)
    assert sorted(r.doc_id for r in rows) == sorted(grades)  # every pair labeled, once
    assert {r.doc_id: r.grade for r in rows} == grades and out["cached"] == len(stored)
    assert all(server.requests[d] == 1 for d in stored)  # nothing stored was asked again
    twice = [d for d, n in server.requests.items() if n > 1]
    assert len(twice) <= 2 and not set(twice) & stored and max(server.requests.values()) <= 2
