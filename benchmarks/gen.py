"""Synthetic TREC qrels and runs for benchmarks, deterministic from a seed.

Shaped like the data our acceptance checks use: per query, a qrels profile (sparse: one relevant
document and up to two judged non-relevant; moderate: 5-60 graded judgments; deep: 100-400
judgments, mostly grade 0; norel: only grade 0), about 1% of qrels queries absent from the run
and 1% of run queries absent from the qrels, runs mixing judged documents (retrieved with a
grade-dependent probability) with unjudged ones from a large numeric id space, scores quantised
so that ties are common (and 0.5% of queries with one score for every document), 2% short runs.

    python benchmarks/gen.py --size medium --out benchmarks/data
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

SIZES = {"small": (1_000, 100), "medium": (10_000, 100), "msmarco": (7_000, 1_000)}
DOC_SPACE = 8_800_000


def _qrels_for(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    profile = rng.choice(4, p=[0.35, 0.58, 0.05, 0.02])
    if profile == 0:  # sparse
        grades = np.concatenate(([rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2])], np.zeros(rng.integers(0, 3), int)))
    elif profile == 1:  # moderate
        n = int(np.clip(round(rng.lognormal(np.log(18), 0.7)), 5, 60))
        grades = rng.choice(4, size=n, p=[0.55, 0.25, 0.13, 0.07])
    elif profile == 2:  # deep
        grades = rng.choice(4, size=int(rng.integers(100, 401)), p=[0.72, 0.17, 0.07, 0.04])
    else:  # norel
        grades = np.zeros(int(rng.integers(1, 10)), int)
    docs = rng.choice(DOC_SPACE, size=len(grades), replace=False)
    return docs, grades


def generate(size: str, out: Path, seed: int = 20261129) -> tuple[Path, Path]:
    n_queries, depth = SIZES[size]
    rng = np.random.default_rng(seed)
    folder = out / size
    folder.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = folder / "qrels.trec", folder / "run.trec"
    retrieve_p = np.array([0.5, 0.55, 0.7, 0.8])
    with open(qrels_path, "w") as qf, open(run_path, "w") as rf:
        for i in range(n_queries):
            qid = str(1_000_000 + i * 7)
            docs, grades = _qrels_for(rng)
            role = rng.random()
            if role >= 0.01:  # 1% of qrels queries never reach the run
                kept = docs[rng.random(len(docs)) < retrieve_p[grades]]
                n = depth if rng.random() >= 0.02 else int(rng.integers(1, depth))
                fill = rng.choice(DOC_SPACE, size=n + len(kept), replace=False)
                ranked = np.unique(np.concatenate((kept[:n], fill)))[:n]
                rng.shuffle(ranked)
                step = rng.choice([1e-4, 0.01, 0.5], p=[0.7, 0.2, 0.1])
                scores = np.round(np.sort(rng.gamma(2.0, 2.0, size=n))[::-1] / step) * step
                if rng.random() < 0.005:
                    scores[:] = scores[0]
                ranked_scores = enumerate(zip(ranked, scores, strict=True), 1)
                rf.writelines(f"{qid} Q0 {d} {r} {s:.4f} synth\n" for r, (d, s) in ranked_scores)
            if role < 0.99 or role >= 0.995:  # ~0.5% of queries exist only in the run
                qf.writelines(f"{qid} 0 {d} {g}\n" for d, g in zip(docs, grades, strict=True))
    return qrels_path, run_path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", choices=sorted(SIZES), default="medium")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    args = parser.parse_args()
    print(*generate(args.size, args.out))
