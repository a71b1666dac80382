"""`qrelkit calibrate` on a store: the agreement figures over the pairs both graded (the resolved
human label, the machine's latest parsed row), overall and per stratum, against independent
references; skips, unparsed replies and one-sided pairs counted apart; the flip rate over the
latest --samples rows; with --runs, the rankings under both label sets against scipy (tau, the
exact paired permutation test) and numpy (inflation); the table; bad input as one line, exit 2."""

from __future__ import annotations

import json
import math
import random
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, permutation_test

from conftest import Cli
from qrelkit.models.machine import MachineLabel
from qrelkit.storage import Store

QUERIES = [f"q{i}" for i in range(1, 9)]
DOCS = [f"d{j}" for j in range(1, 7)]
STRATUM = {q: "head" if i < 4 else "tail" for i, q in enumerate(QUERIES)}


def _brute_kappa(pairs: list[tuple[int, int]], power: int) -> float:
    n = len(pairs)
    observed = sum(abs(h - m) ** power for h, m in pairs) / n
    expected = sum(abs(h - m) ** power for h, _ in pairs for _, m in pairs) / (n * n)
    return float(1 - observed / expected)


def _row(q: str, d: str, status: str, grade: int | None, k: int) -> MachineLabel:
    return MachineLabel.model_validate(
        {"assessor": "llm:test", "query_id": q, "doc_id": d, "status": status, "grade": grade,
         "reply": f"Grade: {grade}" if grade is not None else "no idea", "template_sha256": "sha256:t",
         "prompt_sha256": "sha256:p", "cache_key": f"{q}-{d}-{k}"}
    )  # fmt: skip


def _store(run_cli: Cli) -> dict[str, object]:
    """Humans graded every pair but (q1, d6) (skipped) and (q8, d6) (left unlabeled); the machine
    answered each pair once or several times. What the test knows of it, to compute the figures."""
    rng = random.Random(26)
    run_cli("init")
    queries = "\n".join(json.dumps({"id": q, "text": f"topic {q}", "stratum": STRATUM[q]}) for q in QUERIES)
    run_cli("import", "queries", str(run_cli.write("q.jsonl", queries)), "--create-strata")
    human = {(q, d): rng.randint(0, 3) for q in QUERIES for d in DOCS if (q, d) not in {("q1", "d6"), ("q8", "d6")}}
    events = [
        {"query_id": q, "doc_id": d, "state": "graded", "grade": g, "assessor": "ann"} for (q, d), g in human.items()
    ]
    events.append({"query_id": "q1", "doc_id": "d6", "state": "skipped", "assessor": "ann"})
    lines = "\n".join(json.dumps({**e, "timestamp": "2026-01-01T00:00:00Z"}) for e in events)
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", lines)))
    rows: list[MachineLabel] = []
    for k, (q, d) in enumerate(sorted(human)):
        if (q, d) == ("q2", "d1"):
            continue  # a human label the machine never answered
        for _ in range(1 + (k % 3 == 0) + (k % 5 == 0)):  # some pairs asked 2 or 3 times
            rows.append(_row(q, d, "ok", min(3, max(0, human[q, d] + rng.choice([-1, 0, 0, 1, 2]))), len(rows)))
    rows.append(_row("q3", "d2", "unparsed", None, len(rows)))  # the latest row counts: not a grade
    rows.append(_row("q1", "d6", "ok", 2, len(rows)))  # on a human skip: apart
    rows.append(_row("q8", "d6", "ok", 1, len(rows)))  # no human label: apart
    with Store.open(run_cli.db) as store:
        store.machine.record(rows)
    return {"human": human, "rows": rows}


def _runs(run_cli: Cli, human: dict[tuple[str, str], int]) -> list[str]:
    """Four runs: the humans' order, the reverse, and two shuffles."""
    rng = random.Random(5)
    paths = []
    for name in ("ideal", "reverse", "mixed1", "mixed2"):
        lines = []
        for q in QUERIES:
            docs = sorted(DOCS, key=lambda d: -human.get((q, d), 0))
            docs = docs[::-1] if name == "reverse" else docs if name == "ideal" else rng.sample(docs, len(docs))
            lines += [f"{q} Q0 {d} {i} {10 - i} {name}" for i, d in enumerate(docs, 1)]
        paths.append(str(run_cli.write(f"{name}.run", "\n".join(lines) + "\n")))
    return paths


def _latest(rows: list[MachineLabel]) -> dict[tuple[str, str], MachineLabel]:
    return {(r.query_id, r.doc_id): r for r in rows}  # written oldest first: the last one wins


def test_agreement_figures_and_the_pairs_counted_apart(run_cli: Cli) -> None:
    known = _store(run_cli)
    human: dict[tuple[str, str], int] = known["human"]  # type: ignore[assignment]
    rows: list[MachineLabel] = known["rows"]  # type: ignore[assignment]
    report = json.loads(run_cli("calibrate", "--format", "json", "--samples", "3").output)
    assert report["machine_assessor"] == "llm:test" and report["ranking"] is None
    latest = _latest(rows)
    for name, queries in (("all", set(QUERIES)), ("head", set(QUERIES[:4])), ("tail", set(QUERIES[4:]))):
        got = report["overall"] if name == "all" else report["by_stratum"][name]
        pairs = [(g, latest[p].grade) for p, g in sorted(human.items()) if p[0] in queries and p in latest
                 if latest[p].status == "ok" and latest[p].grade is not None]  # fmt: skip
        assert got["pairs"] == len(pairs)
        assert got["kappa_linear"] == pytest.approx(_brute_kappa(pairs, 1), abs=1e-9)  # type: ignore[arg-type]
        assert got["kappa_quadratic"] == pytest.approx(_brute_kappa(pairs, 2), abs=1e-9)  # type: ignore[arg-type]
        data = np.array([[h for h, _ in pairs], [m for _, m in pairs]], dtype=float)
        assert got["alpha_ordinal"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="ordinal"))
        assert got["confusion"] == [[sum(p == (h, m) for p in pairs) for m in range(4)] for h in range(4)]
        assert got["over_rate"] == pytest.approx(sum(m > h for h, m in pairs) / len(pairs))  # type: ignore[operator]
        assert got["under_rate"] == pytest.approx(sum(m < h for h, m in pairs) / len(pairs))  # type: ignore[operator]
    overall, head, tail = report["overall"], report["by_stratum"]["head"], report["by_stratum"]["tail"]
    assert (overall["human_skipped"], head["human_skipped"], tail["human_skipped"]) == (1, 1, 0)
    assert overall["machine_not_ok"] == head["machine_not_ok"] == {"unparsed": 1} and tail["machine_not_ok"] == {}
    assert overall["machine_missing"] == head["machine_missing"] == 1
    assert overall["machine_only"] == tail["machine_only"] == 1
    assert overall["pairs"] == len(human) - 2  # the unanswered and the unparsed ones
    # self-consistency over the latest 3 parsed rows
    by_pair: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        if r.status == "ok" and r.grade is not None:
            by_pair.setdefault((r.query_id, r.doc_id), []).append(r.grade)
    asked = [g[-3:] for g in by_pair.values() if len(g) >= 2]
    c = report["consistency"]
    assert c["pairs"] == len(asked) > 0 and c["flipped"] == sum(len(set(g)) > 1 for g in asked)
    assert c["flip_rate"] == pytest.approx(c["flipped"] / c["pairs"]) and not c["deterministic"]


def _per_query(run_cli: Cli, runs: list[str], *labels: str) -> dict[str, dict[str, float]]:
    out = json.loads(run_cli("score", *runs, "--metrics", "nDCG@10", "--per-query", "--format", "json", *labels).output)
    return {
        r["fingerprint"]["run"]["name"]: {q: v["nDCG@10"]["value"] for q, v in r["per_query"].items()}
        for r in out["reports"]
    }


def _exact_p(a: np.ndarray, b: np.ndarray) -> float:
    test = permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples", n_resamples=math.inf,
        vectorized=True,
    )  # fmt: skip
    return float(test.pvalue)


def test_rankings_under_both_label_sets_against_scipy(run_cli: Cli) -> None:
    known = _store(run_cli)
    runs = _runs(run_cli, known["human"])  # type: ignore[arg-type]
    report = json.loads(run_cli("calibrate", "--runs", *runs, "--top", "3", "--format", "json").output)["ranking"]
    human, machine = _per_query(run_cli, runs), _per_query(run_cli, runs, "--labels", "machine")
    queries = sorted(set.intersection(*(set(v) for v in [*human.values(), *machine.values()])))
    names = list(human)
    h = np.array([[human[n][q] for n in names] for q in queries])
    m = np.array([[machine[n][q] for n in names] for q in queries])
    assert report["queries"] == len(queries) and report["metric"] == "nDCG@10"
    assert report["tau"] == pytest.approx(kendalltau(h.mean(axis=0), m.mean(axis=0)).statistic)
    top = np.argsort(-h.mean(axis=0), kind="stable")[:3]
    assert report["tau_top"] == pytest.approx(kendalltau(h.mean(axis=0)[top], m.mean(axis=0)[top]).statistic)
    sig_h = {(i, j) for i, j in combinations(range(4), 2) if _exact_p(h[:, i], h[:, j]) < 0.05}
    sig_m = {(i, j) for i, j in combinations(range(4), 2) if _exact_p(m[:, i], m[:, j]) < 0.05}
    same_way = {(i, j) for i, j in sig_h & sig_m if (h[:, i] - h[:, j]).mean() * (m[:, i] - m[:, j]).mean() > 0}
    assert report["significant_pairs"] == len(sig_h) > 0 and report["stayed"] == len(same_way)
    assert report["reversed"] == len((sig_h & sig_m) - same_way) and report["machine_only_significant"] == len(
        sig_m - sig_h
    )
    assert report["stay_share"] == pytest.approx(len(same_way) / len(sig_h))
    rel = (m - h) - (m - h).mean(axis=1, keepdims=True)
    for row in report["runs"]:
        k = names.index(row["run"])
        assert row["human"] == pytest.approx(h[:, k].mean()) and row["machine"] == pytest.approx(m[:, k].mean())
        assert row["inflation"] == pytest.approx(m[:, k].mean() - h[:, k].mean())
        se = rel[:, k].std(ddof=1) / math.sqrt(len(queries))
        assert row["relative"] == pytest.approx(rel[:, k].mean()) and row["relative_se"] == pytest.approx(se)
        assert row["favoured"] == (rel[:, k].mean() > 2 * se)
    assert [r["human"] for r in report["runs"]] == sorted((r["human"] for r in report["runs"]), reverse=True)
    table = run_cli("calibrate", "--runs", *runs, "--top", "3").output
    assert "Kendall's tau" in table and "ideal" in table and "confusion matrix" in table


def test_the_lexical_judge_says_its_flip_rate_is_0_by_construction(run_cli: Cli) -> None:
    run_cli("init")
    run_cli(
        "import",
        "queries",
        str(run_cli.write("q.jsonl", json.dumps({"id": "q1", "text": "sort list"}))),
        "--stratum",
        "s",
        "--create-strata",
    )
    docs = [{"id": "a", "text": "sort a list"}, {"id": "b", "text": "other"}]
    run_cli("import", "docs", str(run_cli.write("d.jsonl", "\n".join(json.dumps(d) for d in docs))))
    events = [{"query_id": "q1", "doc_id": d, "state": "graded", "grade": g, "assessor": "ann",
               "timestamp": "2026-01-01T00:00:00Z"} for d, g in (("a", 3), ("b", 1))]  # fmt: skip
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", "\n".join(json.dumps(e) for e in events))))
    run_cli("assess", "--judge", "lexical", "--pairs", "human")
    run_cli("assess", "--judge", "lexical", "--pairs", "human", "--refresh")
    report = json.loads(run_cli("calibrate", "--format", "json").output)
    assert report["consistency"] == {"samples": 5, "pairs": 2, "flipped": 0, "flip_rate": 0.0, "deterministic": True}
    assert report["overall"]["pairs"] == 2
    assert "deterministic: its flip rate is 0 by construction" in run_cli("calibrate").output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "no machine labels"),
        (("--machine-assessor", "llm:other"), "no labels of it"),
        (("--runs",), "--runs needs one or more run files"),
        (("x.run",), "without --runs"),
        (("--samples", "1"), "--samples"),
        (("--runs", "RUN", "--metric", "P@5,nDCG@10"), "give one measure"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Cli, args: tuple[str, ...], says: str) -> None:
    if says != "no machine labels":
        _store(run_cli)
    else:
        run_cli("init")
    run = str(_runs(run_cli, {})[0]) if "RUN" in args else ""
    bad = run_cli("calibrate", *[run if a == "RUN" else a for a in args], ok=False)
    assert bad.exit_code == 2 and says in bad.output
    assert len(bad.output.strip().splitlines()) == 1 and "Traceback" not in bad.output


def test_no_pair_graded_by_both_says_how_to_get_one(run_cli: Cli) -> None:
    """Machine grades only on pairs no human labeled: the tables are empty, and the report says
    how to ask the machine about the pairs people labeled."""
    run_cli("init")
    run_cli("import", "queries", str(run_cli.write("q.jsonl", json.dumps({"id": "q1", "text": "sort list"}))),
            "--stratum", "s", "--create-strata")  # fmt: skip
    docs = [{"id": "a", "text": "sort a list"}, {"id": "b", "text": "other"}]
    run_cli("import", "docs", str(run_cli.write("d.jsonl", "\n".join(json.dumps(d) for d in docs))))
    event = {"query_id": "q1", "doc_id": "a", "state": "graded", "grade": 3, "assessor": "ann",
             "timestamp": "2026-01-01T00:00:00Z"}  # fmt: skip
    run_cli("import", "judgments", str(run_cli.write("j.jsonl", json.dumps(event))))
    with Store.open(run_cli.db) as store:
        store.machine.record([_row("q1", "b", "ok", 2, 0)])
    out = run_cli("calibrate").output
    assert "nothing to calibrate yet" in out and "qrelkit assess --pairs human" in out
    with Store.open(run_cli.db) as store:
        store.machine.record([_row("q1", "a", "ok", 2, 1)])
    assert "nothing to calibrate yet" not in run_cli("calibrate").output
