"""Write the generated qrels/run pairs of this folder (deterministic: seeded).

    python tests/data/trec_eval/make_generated.py
    for n in 1 2 3; do trec_eval -m all_trec -q -c gen$n.qrels gen$n.run > out.gen$n.aqc; done

Graded grades (0..3, and 0..4 in gen3), pooled-unjudged documents (grade -1), queries with no
relevant document, queries missing from the run and run-only ones, coarse scores (many ties,
broken by document id), scores that differ past float32 precision, and query and document ids of
mixed widths.
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).parent


def _id(rnd: random.Random, prefix: str, i: int) -> str:
    width = rnd.choice([1, 2, 3, 8, 17, 30])
    return f"{prefix}{i:0{width}d}" if rnd.random() < 0.7 else f"{prefix}-{i}-{'x' * rnd.randint(0, 24)}"


def generate(seed: int, top: int) -> tuple[str, str]:
    rnd = random.Random(seed)
    qrels, run = [], []
    n_queries = 25 + 5 * seed
    for qi in range(n_queries):
        q = _id(rnd, "q", qi)
        docs = list(dict.fromkeys(_id(rnd, "d", j) for j in range(rnd.randint(1, 60))))
        grades = [-1, 0, 0, 0, *range(1, top + 1)]
        labels = {d: rnd.choice(grades) for d in docs if rnd.random() < 0.55}
        labels.update({_id(rnd, "x", j): rnd.choice(grades) for j in range(rnd.randint(0, 6))})  # unretrieved
        if qi % 7 == 3:
            labels = {d: g for d, g in labels.items() if g <= 0}  # no relevant document
        if not labels:
            labels = {docs[0]: 0}
        qrels += [f"{q} 0 {d} {g}" for d, g in labels.items()]
        if qi % 11 == 4:
            continue  # missing from the run (trec_eval -c scores it 0)
        for rank, d in enumerate(docs, 1):
            kind = rnd.random()
            if kind < 0.5:
                score = f"{rnd.randint(0, 12) / 4:g}"  # coarse: ties
            elif kind < 0.8:
                score = repr(rnd.uniform(-5, 5))
            else:  # differ from a neighbour past float32 precision
                score = repr(1.0 + rnd.randint(0, 3) * 1e-12)
            run.append(f"{q} Q0 {d} {rank} {score} gen{seed}")
    for j in range(3):  # run-only queries: ignored
        run.append(f"zz{j} Q0 d1 1 1.0 gen{seed}")
    rnd.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


if __name__ == "__main__":
    for seed, top in ((1, 3), (2, 3), (3, 4)):
        qrels, run = generate(seed, top)
        (HERE / f"gen{seed}.qrels").write_text(qrels, encoding="utf-8")
        (HERE / f"gen{seed}.run").write_text(run, encoding="utf-8")
