"""pytrec_eval (pytrec-eval-terrier) scoring the six benchmark measures from TREC files.

pytrec_eval takes dicts, so the files are parsed as its documentation shows (a dict per query).
"""

import json
import sys

import pytrec_eval


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path) as fh:
        for line in fh:
            q, _, d, g = line.split()
            qrels.setdefault(q, {})[d] = int(g)
    return qrels


def read_run(path: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    with open(path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return run


qrels, run = read_qrels(sys.argv[1]), read_run(sys.argv[2])
measures = {"ndcg_cut.10", "recall.50", "recip_rank", "P.5", "map", "Rprec"}
per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = ["ndcg_cut_10", "recall_50", "recip_rank", "P_5", "map", "Rprec"]
n = len(per_query)
json.dump({m: sum(v[m] for v in per_query.values()) / n for m in names}, sys.stdout)
