"""Build the bundled `pydocs` golden set's data: passages and two bm25 runs.

    python scripts/build_pydocs.py chunk   # (re)writes documents.jsonl from this Python's pydoc_data
    python scripts/build_pydocs.py runs    # writes runs/bm25.run and runs/bm25-title.run
    python scripts/build_pydocs.py pool    # prints the pooled top 10 of both runs, for judging
    python scripts/build_pydocs.py judgments  # pydocs_grades.txt -> judgments.jsonl, unlabeled.jsonl

Passages are committed, so the set does not change with the Python version; `runs` reads the
committed passages and queries. Judgments are made by people reading each query and passage
(`judgments.jsonl`); nothing here assigns a grade.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "goldensets" / "pydocs"
DEPTH = 100
TARGET_CHARS = 900
UNDERLINE = re.compile(r"^(\*+|=+|-+)$")


def _sections(topic: str, text: str) -> list[tuple[str, str]]:
    """Split a topic into (heading, body) sections using its underlined headings."""
    lines = text.splitlines()
    sections: list[tuple[str, list[str]]] = []
    heading = topic
    body: list[str] = []
    i = 0
    while i < len(lines):
        if (
            i + 1 < len(lines)
            and lines[i].strip()
            and UNDERLINE.match(lines[i + 1].strip())
            and len(lines[i + 1].strip()) >= len(lines[i].strip()) - 1
        ):
            if any(b.strip() for b in body):
                sections.append((heading, body))
            heading, body = lines[i].strip(), []
            i += 2
            continue
        body.append(lines[i])
        i += 1
    if any(b.strip() for b in body):
        sections.append((heading, body))
    return [(h, "\n".join(b).strip()) for h, b in sections]


def chunk() -> None:
    from pydoc_data.topics import topics

    out = []
    for topic in sorted(topics):
        n = 0
        for heading, body in _sections(topic, topics[topic]):
            paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", body) if p.strip()]
            buf: list[str] = []
            for para in paragraphs + [None]:
                size = sum(len(p) for p in buf)
                if para is None or (buf and size + len(para) > TARGET_CHARS):
                    if buf:
                        n += 1
                        out.append({"id": f"{topic}-{n:02d}", "title": heading, "text": "\n\n".join(buf)})
                    buf = []
                if para is not None:
                    buf.append(para)
    ROOT.mkdir(parents=True, exist_ok=True)
    with open(ROOT / "documents.jsonl", "w", encoding="utf-8") as fh:
        for doc in out:
            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(f"{len(out)} passages from {len(topics)} topics")


def _load(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in open(ROOT / name, encoding="utf-8") if line.strip()]


def _fts_query(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9_]+", text.lower())
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


def runs() -> None:
    docs = _load("documents.jsonl")
    queries = _load("queries.jsonl")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, title, text)")
    db.executemany("INSERT INTO p VALUES (?, ?, ?)", [(d["id"], d["title"], d["text"]) for d in docs])
    configs = {"bm25": (1.0, 1.0), "bm25-title": (5.0, 1.0)}
    (ROOT / "runs").mkdir(exist_ok=True)
    for name, (w_title, w_text) in configs.items():
        with open(ROOT / "runs" / f"{name}.run", "w", encoding="utf-8") as fh:
            for q in queries:
                rows = db.execute(
                    f"SELECT id, bm25(p, 0.0, {w_title}, {w_text}) AS s FROM p WHERE p MATCH ? "
                    "ORDER BY s, id LIMIT ?",
                    (_fts_query(q["text"]), DEPTH),
                ).fetchall()
                for rank, (doc_id, s) in enumerate(rows, start=1):
                    fh.write(f"{q['id']} Q0 {doc_id} {rank} {-s:.6f} {name}\n")
        print(f"runs/{name}.run written")


def _pooled(depth: int = 10) -> dict[str, dict[str, tuple[int, str]]]:
    """query -> doc -> (best rank, first run that reached it), over both runs' top `depth`."""
    top: dict[str, dict[str, tuple[int, str]]] = {}
    for name in ("bm25", "bm25-title"):
        for line in open(ROOT / "runs" / f"{name}.run", encoding="utf-8"):
            qid, _, doc_id, rank, _, _ = line.split()
            if int(rank) <= depth:
                best = top.setdefault(qid, {}).get(doc_id)
                if best is None or int(rank) < best[0]:
                    top[qid][doc_id] = (int(rank), name)
    return top


def judgments() -> None:
    docs = {d["id"] for d in _load("documents.jsonl")}
    top = _pooled()
    seen: set[tuple[str, str]] = set()
    with open(ROOT / "judgments.jsonl", "w", encoding="utf-8") as fh:
        grades = Path(__file__).with_name("pydocs_grades.txt").read_text(encoding="utf-8")
        for n, line in enumerate(grades.splitlines()):
            if not line.strip() or line.startswith("#"):
                continue
            qid, doc_id, grade = line.split()
            if doc_id not in docs or (qid, doc_id) in seen:
                raise SystemExit(f"pydocs_grades.txt: bad or repeated line {line!r}")
            seen.add((qid, doc_id))
            event = {
                "query_id": qid,
                "doc_id": doc_id,
                "assessor": "qrelkit-authors",
                "timestamp": f"2026-11-29T12:{n // 60 % 60:02d}:{n % 60:02d}Z",
            }
            event.update({"state": "skipped"} if grade == "s" else {"state": "graded", "grade": int(grade)})
            fh.write(json.dumps(event) + "\n")
    n_unlabeled = 0
    with open(ROOT / "unlabeled.jsonl", "w", encoding="utf-8") as fh:
        for qid in sorted(top):
            for doc_id, (rank, run) in sorted(top[qid].items(), key=lambda kv: kv[1][0]):
                if (qid, doc_id) not in seen:
                    fh.write(
                        json.dumps({"query_id": qid, "doc_id": doc_id, "source": run, "best_rank": rank})
                        + "\n"
                    )
                    n_unlabeled += 1
    print(f"{len(seen)} judgment events, {n_unlabeled} pooled pairs left unlabeled")


def pool() -> None:
    docs = {d["id"]: d for d in _load("documents.jsonl")}
    queries = _load("queries.jsonl")
    top = _pooled()
    only = set(sys.argv[2:])
    for q in queries:
        if only and q["id"] not in only:
            continue
        print(f"\n######## {q['id']} [{q['stratum']}] {q['text']}\n  want: {q.get('description', '')}")
        for doc_id in top.get(q["id"], {}):
            d = docs[doc_id]
            print(f"--- {doc_id} | {d['title']}\n{d['text'][:200]}")


if __name__ == "__main__":
    {"chunk": chunk, "runs": runs, "pool": pool, "judgments": judgments}[sys.argv[1]]()
