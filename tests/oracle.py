"""pytrec-eval-terrier as the reference, run in a child process.

pytrec_eval can hang after many evaluators were created in one process (state kept across
instances), so each call runs in a fresh interpreter, with all cases batched into one evaluator.
"""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, sys, pytrec_eval
job = json.load(sys.stdin)
ev = pytrec_eval.RelevanceEvaluator(job["qrels"], set(job["measures"]), relevance_level=job["level"])
json.dump(ev.evaluate(job["run"]), sys.stdout)
"""


def trec_eval(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    measures: list[str],
    level: int = 1,
) -> dict[str, dict[str, float]]:
    """Per-query values from trec_eval (9.0.8 semantics, via pytrec_eval); queries whose
    relevance dict is empty are left out, as pytrec_eval cannot take them."""
    job = {"qrels": {q: d for q, d in qrels.items() if d}, "run": run, "measures": measures, "level": level}
    if not job["qrels"]:
        return {}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], input=json.dumps(job), capture_output=True, text=True, timeout=120
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    result: dict[str, dict[str, float]] = json.loads(out.stdout)
    return result
