"""ranx scoring the six benchmark measures from TREC files (its own readers)."""

import json
import sys

from ranx import Qrels, Run, evaluate

qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
metrics = ["ndcg@10", "recall@50", "mrr", "precision@5", "map", "r-precision"]
json.dump(evaluate(qrels, run, metrics, make_comparable=True), sys.stdout)
