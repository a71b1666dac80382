"""A run read in query blocks scores exactly as the same run read whole.

Hypothesis writes qrels and runs with ids of every width class (up to 8, 9-16, 17-24 and more
bytes), some UTF-8, grades past the dense codes and negative ones, tied scores, run-only queries,
queries the run lacks, and a golden set with unlabeled queries; the run's lines grouped by query
(in any score order) or interleaved. Each case is scored with every size threshold lowered
(`thresholds.lowered`), with tiny query blocks and read blocks drawn per case (so blocks end inside
queries and between them), once through `stream_run_file` + `evaluate_stream` and once through
`read_run_file` + `evaluate_columns`: every per-query value, coverage, bound and exact flag is
equal, and so is the whole report. A grouped ASCII file is streamed; an interleaved or UTF-8 one
is refused by the stream (`NotStreamed`) and read whole. Pooling's `TopLists` gives the lists
the whole run gives, from blocks of any rows.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Cli, one_report
from qrelkit.formats.columns import Columns
from qrelkit.formats.runs import NotStreamed, read_qrels_file, read_run_file, stream_run_file
from qrelkit.models import FileFingerprint, Fingerprint
from qrelkit.scoring import evaluate_columns
from qrelkit.scoring.arrays import top_columns_scored
from qrelkit.scoring.evaluation import Evaluation
from qrelkit.scoring.streamed import TopLists, evaluate_stream
from qrelkit.workflows.pooling import _streamed_lists, _whole_lists
from thresholds import lowered

METRICS = "nDCG@3,nDCG,AP,P@2,RR,R@5,Rprec,Bpref,infAP,Judged@3,ERR(max_grade=70)@3,NumRet"


@st.composite
def _ident(draw: st.DrawFn, prefix: str) -> str:
    """An id of one of the width classes the parser and the kernels treat apart, maybe UTF-8."""
    width = draw(st.sampled_from([1, 5, 8, 9, 12, 16, 17, 24, 30]))
    body = draw(st.text("0123456789abcXYZ-_.:", min_size=width, max_size=width))
    return prefix + body + (draw(st.sampled_from(["", "", "", "é", "日"])))


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    queries = draw(st.lists(_ident("q"), min_size=1, max_size=7, unique=True))
    docs = draw(st.lists(_ident("d"), min_size=1, max_size=12, unique=True))
    utf8 = draw(st.booleans())
    if not utf8:
        queries = list(dict.fromkeys(q.encode("ascii", "ignore").decode() for q in queries))
        docs = list(dict.fromkeys(d.encode("ascii", "ignore").decode() for d in docs))
    top = draw(st.sampled_from([3, 3, 70]))
    grades = st.sampled_from([-1, 0, 1, 2, top])
    labeled = [draw(st.lists(st.sampled_from(docs), unique=True, min_size=int(i == 0))) for i in range(len(queries))]
    qrels = {q: {d: draw(grades) for d in labeled[i]} for i, q in enumerate(queries)}
    run_queries = [q for q in queries if draw(st.booleans())] or queries[:1]
    run_queries += draw(st.lists(_ident("r"), max_size=2, unique=True))  # run-only queries
    scores = st.sampled_from([0.5, 1.0, 1.0, 2.25, -3.0, 7.0 + 1e-12])
    run = {
        q: {d: draw(scores) for d in draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))}
        for q in run_queries
    }
    golden = None
    if draw(st.booleans()):
        golden = [q for q in queries if draw(st.booleans())] + draw(st.lists(_ident("g"), max_size=2))
    return {
        "qrels": qrels,
        "run": run,
        "interleaved": draw(st.booleans()),
        "seed": draw(st.integers(0, 1 << 16)),
        "golden": golden,
        "keep_unlabeled": draw(st.booleans()),
        "bounds": draw(st.booleans()),
        "block_rows": draw(st.sampled_from([1, 1, 2, 3, 7])),
        "block_bytes": draw(st.sampled_from([16, 48, 120, 1 << 16])),
        "utf8": utf8,
    }


def _write(case: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    rng = random.Random(case["seed"])
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in case["qrels"].items() for d, g in docs.items()))
    groups = [[f"{q} Q0 {d} 0 {s!r} t\n" for d, s in docs.items()] for q, docs in case["run"].items()]
    for group in groups:
        rng.shuffle(group)  # any score order inside a query
    lines = [line for group in groups for line in group]
    if case["interleaved"]:
        rng.shuffle(lines)
    run.write_text("".join(lines), encoding="utf-8")
    return qrels, run


def _grouped(path: Path) -> bool:
    """Every query's lines are together in the file."""
    heads = [line.split()[0] for line in path.read_text(encoding="utf-8").splitlines()]
    starts = [q for i, q in enumerate(heads) if i == 0 or heads[i - 1] != q]
    return len(starts) == len(set(starts))


def _same(a: Evaluation, b: Evaluation) -> None:
    assert a.query_ids == b.query_ids
    assert np.array_equal(a.ranked.grades, b.ranked.grades) and np.array_equal(a.ranked.n_ret, b.ranked.n_ret)
    for m in a.measures:
        x, y = a.scores[m.name], b.scores[m.name]
        for attr in ("value", "coverage", "low", "high", "exact"):
            assert np.array_equal(getattr(x, attr), getattr(y, attr), equal_nan=attr != "exact"), (m.name, attr)
    fingerprint = Fingerprint(
        run=FileFingerprint(name="r", sha256="sha256:0"),
        metrics=[m.name for m in a.measures],
        relevance_threshold=1,
        max_grade=a.ranked.top_grade,
        qrelkit_version="0",
    )
    first, second = a.report(fingerprint, per_query=True), b.report(fingerprint, per_query=True)
    assert first.model_dump_json() == second.model_dump_json()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_streamed_scores_equal_the_whole_file(tmp_path_factory: pytest.TempPathFactory, case: dict[str, Any]) -> None:
    qrels_path, run_path = _write(case, tmp_path_factory.mktemp("streamed"))
    with lowered():
        qrels = read_qrels_file(qrels_path)
        options: dict[str, Any] = {
            "queries": case["golden"],
            "keep_unlabeled": case["keep_unlabeled"],
            "bounds": case["bounds"],
            "qrels_hash": qrels.doc_hash,
        }
        whole_run = read_run_file(run_path)
        whole = evaluate_columns(
            qrels.columns, whole_run.columns, METRICS, run_hash=whole_run.doc_hash, run_unique=True, **options
        )
        stream = stream_run_file(run_path, block_rows=case["block_rows"], block_bytes=case["block_bytes"])
        assert stream is not None
        try:
            streamed = evaluate_stream(
                qrels.columns, stream.blocks(), METRICS, run_queries=lambda: stream.queries, **options
            )
        except NotStreamed:
            assert not run_path.read_bytes().isascii() or not _grouped(run_path)
            return
    assert streamed is not None
    assert run_path.read_bytes().isascii() and _grouped(run_path)  # what the stream takes, it takes whole
    assert stream.sha256() == whole_run.sha256
    assert stream.queries == set(case["run"])
    _same(streamed, whole)


def test_a_query_split_in_two_is_read_whole(run_cli: Cli) -> None:
    """A query whose lines come apart is ranked over all of them: the stream gives up on it and
    the whole-file path scores it, as trec_eval does."""
    qrels = run_cli.write("qrels.txt", "q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\n")
    run = run_cli.write("run.txt", "q1 Q0 d9 1 5 t\nq2 Q0 d1 1 4 t\nq1 Q0 d1 2 9 t\n")
    stream = stream_run_file(run, block_rows=1)
    assert stream is not None
    with pytest.raises(NotStreamed):
        list(stream.blocks())
    report = one_report(
        run_cli("score", str(run), "--qrels", str(qrels), "--metrics", "P@1", "--format", "json").output
    )
    assert report["metrics"]["P@1"]["mean"] == 1.0  # q1's d1 (score 9) ranks first


def test_a_repeated_pair_inside_a_query_block_is_named_by_the_exact_reader(run_cli: Cli) -> None:
    qrels = run_cli.write("qrels.txt", "q1 0 d1 1\n")
    run = run_cli.write("run.txt", "q1 Q0 d1 1 5 t\nq1 Q0 d2 2 4 t\nq1 Q0 d1 3 3 t\n")
    result = run_cli("score", str(run), "--qrels", str(qrels), "--metrics", "P@1", ok=False)
    assert result.exit_code == 2
    assert "run.txt:3: document 'd1' appears twice" in result.output and "Traceback" not in result.output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(1, 4))
def test_top_lists_equal_the_whole_run(
    tmp_path_factory: pytest.TempPathFactory, case: dict[str, Any], depth: int
) -> None:
    """Pooling's top lists: from blocks of any rows (a query coming back merges) and from the
    streamed file, the same lists and scores, queries in the same order, as from the run read whole."""
    _, run_path = _write(case, tmp_path_factory.mktemp("top"))
    with lowered():
        whole = read_run_file(run_path)
        ranked, scores = top_columns_scored(whole.columns, depth)
        top, c, step = TopLists(depth), whole.columns, case["block_rows"]
        for lo in range(0, len(c.query), step):
            top.add(Columns(c.query[lo : lo + step], c.doc[lo : lo + step], c.value[lo : lo + step]))
        streamed = _streamed_lists(run_path, "r", depth, "auto")
        read = _whole_lists(run_path, "r", depth, "auto")
    assert list(top.ranked.items()) == list(ranked.items()) and list(top.scores.items()) == list(scores.items())
    assert list(read.ranked.items()) == list(ranked.items())
    if streamed is not None:  # a grouped ASCII file
        assert list(streamed.ranked.items()) == list(ranked.items())
        assert streamed.scores is not None and list(streamed.scores.items()) == list(scores.items())
    else:
        assert not run_path.read_bytes().isascii() or not _grouped(run_path)


def test_a_streamed_runs_read_block_follows_its_tokeniser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's tokeniser (a file under `columns.COMPILED_FROM`) reads the smaller block, pyarrow's
    (at or past it, or `.gz`) the larger; the block changes no number (the property test above
    draws block sizes)."""
    from qrelkit.formats import columns, runs

    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.5 t\n" * 10)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(b"")
    assert runs.stream_block(run) == runs.SMALL_STREAM_BLOCK < runs.STREAM_BLOCK
    assert runs.stream_block(packed) == runs.STREAM_BLOCK
    monkeypatch.setattr(columns, "COMPILED_FROM", run.stat().st_size)
    assert runs.stream_block(run) == runs.STREAM_BLOCK
    stream = stream_run_file(run)
    assert stream is not None and stream.block_bytes == runs.STREAM_BLOCK
