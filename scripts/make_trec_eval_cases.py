"""Write the generated trec_eval cases of tests/data/trec_eval_generated/ (inputs only).

Deterministic (seeded): graded qrels (grades 0-3 and a sparse 7), -1 grades (pooled, not judged),
tied scores, document and query ids of mixed widths (1 to 30 bytes), documents outside the qrels,
queries missing from the run, queries without relevant documents, runs shorter than the cutoffs
and runs exactly as long as the positive ideal list (and one longer), where trec_eval's Rndcg
changes its averaging points. Scores are multiples of 1/16, exact in float32, so pytrec_eval ranks
them as trec_eval 10 does.

The expected outputs were made once from these inputs by trec_eval 10.0 (see the README there);
this script only makes the inputs again: `python scripts/make_trec_eval_cases.py`.
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "trec_eval_generated"
GRADES = (0, 0, 0, 1, 1, 2, 3)


def _doc(rng: random.Random, i: int) -> str:
    width = rng.choice((1, 3, 8, 9, 16, 17, 30))
    stem = f"d{i}"
    return (stem + "x" * width)[: max(width, len(stem))]


def case(seed: int) -> tuple[str, str]:
    """(qrels, run) text of one case."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(12):
        qid = ("q" + str(q) + "_" * rng.choice((0, 2, 12)))[: 3 + q]
        docs = [_doc(rng, i) for i in range(rng.randint(3, 60))]
        docs = list(dict.fromkeys(docs))
        labeled = rng.sample(docs, k=rng.randint(1, len(docs)))
        for d in labeled:
            grade = rng.choice(GRADES) if rng.random() > 0.08 else rng.choice((-1, 7))
            if q == 3 and grade > 0:  # a query with no relevant document
                grade = 0
            qrels.append(f"{qid} 0 {d} {grade}")
        if q == 5:  # missing from the run (trec_eval -c scores it)
            continue
        retrieved = docs if q == 7 else rng.sample(docs, k=rng.randint(1, len(docs)))
        if q in (8, 9):  # as long as the positive ideal list, then one longer
            positive = [d for d in labeled if any(f"{qid} 0 {d} {g}" in qrels for g in (1, 2, 3, 7))]
            others = [d for d in docs if d not in positive]
            retrieved = positive + others[: q - 8]
        for d in retrieved:
            run.append(f"{qid} Q0 {d} 0 {rng.randint(0, 40) / 16} gen{seed}")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for seed in (1, 2, 3):
        qrels, run = case(seed)
        (OUT / f"qrels.{seed}").write_text(qrels, encoding="utf-8")
        (OUT / f"run.{seed}").write_text(run, encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
