"""Build the bundled `pydocs` golden set: passages, two bm25 runs, and a frozen version.

    python scripts/build_pydocs.py chunk OUT.jsonl    # passages from this Python's pydoc_data
    python scripts/build_pydocs.py runs [DOCS.jsonl]  # runs/bm25.run and runs/bm25-title.run
    python scripts/build_pydocs.py variants [DOCS.jsonl]  # variants/*.run: other field weights
    python scripts/build_pydocs.py pool [QID ...]     # the pooled top 10 of both runs, to judge
    python scripts/build_pydocs.py freeze VERSION [DOCS.jsonl] [--note TEXT]

Sources live in scripts/pydocs/: golden.json (name, scale, strata, profiles), queries.jsonl and
grades.txt, the grades the project's authors gave after reading each query and passage (nothing
here assigns a grade). Passages come from the newest frozen version unless a DOCS.jsonl is named,
so the set does not change with the Python version. Pooled pairs not in grades.txt stay unlabeled.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

from qrelkit import versioning
from qrelkit.models import Document, GoldenSetInfo, Judgment, PoolEntry, Query
from qrelkit.storage import Store
from qrelkit.workflows import versions

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "scripts" / "pydocs"
GOLDEN = ROOT / "goldensets" / "pydocs"
DEPTH = 100
POOL_DEPTH = 10
TARGET_CHARS = 900
UNDERLINE = re.compile(r"^(\*+|=+|-+)$")


def _sections(topic: str, text: str) -> list[tuple[str, str]]:
    """Split a topic into (heading, body) sections using its underlined headings."""
    lines = text.splitlines()
    sections: list[tuple[str, list[str]]] = []
    heading, body = topic, []
    i = 0
    while i < len(lines):
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if lines[i].strip() and UNDERLINE.match(nxt) and len(nxt) >= len(lines[i].strip()) - 1:
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


def chunk(out: Path) -> None:
    from pydoc_data.topics import topics

    docs = []
    for topic in sorted(topics):
        n = 0
        for heading, body in _sections(topic, topics[topic]):
            paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", body) if p.strip()]
            buf: list[str] = []
            for para in [*paragraphs, None]:
                if para is None or (buf and sum(len(p) for p in buf) + len(para) > TARGET_CHARS):
                    if buf:
                        n += 1
                        docs.append({"id": f"{topic}-{n:02d}", "title": heading, "text": "\n\n".join(buf)})
                    buf = []
                if para is not None:
                    buf.append(para)
    out.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    print(f"{len(docs)} passages from {len(topics)} topics -> {out}")


def _documents(path: str | None) -> list[Document]:
    if path:
        return [Document.model_validate_json(line) for line in open(path, encoding="utf-8") if line.strip()]
    latest = versioning.latest_version(GOLDEN)
    if latest is None:
        raise SystemExit("no frozen version yet: name a DOCS.jsonl made by `chunk`")
    return versioning.read(GOLDEN / latest.version).documents


def _queries() -> list[Query]:
    return [Query.model_validate_json(line) for line in open(SRC / "queries.jsonl", encoding="utf-8") if line.strip()]


def _fts_query(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9_]+", text.lower())
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


RUNS = {"bm25": (1.0, 1.0), "bm25-title": (5.0, 1.0)}
"""The two runs the demo scores, pools and compares: BM25 over (title, text) with these weights."""
VARIANTS = {"bm25-title2": (2.0, 1.0), "bm25-title10": (10.0, 1.0), "title-only": (1.0, 0.0)}
"""More field weightings, for the leaderboard example (`variants/`; never pooled)."""


def runs(docs_path: str | None, weights: dict[str, tuple[float, float]] = RUNS, folder: str = "runs") -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE p USING fts5(id UNINDEXED, title, text)")
    db.executemany("INSERT INTO p VALUES (?, ?, ?)", [(d.id, d.title, d.text) for d in _documents(docs_path)])
    (GOLDEN / folder).mkdir(parents=True, exist_ok=True)
    for name, (w_title, w_text) in weights.items():
        with open(GOLDEN / folder / f"{name}.run", "w", encoding="utf-8") as fh:
            for q in _queries():
                rows = db.execute(
                    f"SELECT id, bm25(p, 0.0, {w_title}, {w_text}) AS s FROM p WHERE p MATCH ? ORDER BY s, id LIMIT ?",
                    (_fts_query(q.text), DEPTH),
                ).fetchall()
                fh.writelines(f"{q.id} Q0 {doc} {r} {-s:.6f} {name}\n" for r, (doc, s) in enumerate(rows, 1))
        print(f"{folder}/{name}.run written")


def _pooled() -> dict[str, dict[str, tuple[int, str]]]:
    """query -> doc -> (best rank, run) over both runs' top POOL_DEPTH, in the order every measure
    sees them (trec_eval's: score, then doc id descending), as `qrelkit pool` takes them. Version
    1.0 was pooled by the files' rank column, which orders tied scores by id ascending: at rank 10
    8 pairs differ."""
    from qrelkit.formats.trec import read_run
    from qrelkit.scoring.arrays import top_documents

    top: dict[str, dict[str, tuple[int, str]]] = {}
    for name in ("bm25", "bm25-title"):
        rows = ((r.query_id, r.doc_id, r.score) for r in read_run(GOLDEN / "runs" / f"{name}.run"))
        for qid, docs in top_documents(rows, POOL_DEPTH).items():
            for rank, doc_id in enumerate(docs, 1):
                best = top.setdefault(qid, {}).get(doc_id)
                if best is None or rank < best[0]:
                    top[qid][doc_id] = (rank, name)
    return top


def pool(only: list[str]) -> None:
    docs = {d.id: d for d in _documents(None)}
    for q in _queries():
        if only and q.id not in only:
            continue
        print(f"\n######## {q.id} [{q.stratum}] {q.text}\n  want: {q.description}")
        for doc_id in _pooled().get(q.id, {}):
            print(f"--- {doc_id} | {docs[doc_id].title}\n{docs[doc_id].text[:420]}")


def freeze(version: str, docs_path: str | None, note: str | None) -> None:
    docs = _documents(docs_path)
    doc_ids = {d.id for d in docs}
    events, judged = [], set()
    for n, line in enumerate((SRC / "grades.txt").read_text(encoding="utf-8").splitlines()):
        if not line.strip() or line.startswith("#"):
            continue
        qid, doc_id, grade = line.split()
        if doc_id not in doc_ids or (qid, doc_id) in judged:
            raise SystemExit(f"grades.txt: unknown document or repeated pair: {line!r}")
        judged.add((qid, doc_id))
        stamp = f"2026-11-29T12:{n // 60 % 60:02d}:{n % 60:02d}Z"
        state = {"state": "skipped"} if grade == "s" else {"state": "graded", "grade": int(grade)}
        events.append(
            Judgment.model_validate(
                {"query_id": qid, "doc_id": doc_id, "assessor": "qrelkit-authors", "timestamp": stamp, **state}
            )
        )
    unlabeled = [
        PoolEntry(query_id=qid, doc_id=doc_id, source=run, best_rank=rank)
        for qid, by_doc in sorted(_pooled().items())
        for doc_id, (rank, run) in sorted(by_doc.items(), key=lambda kv: kv[1][0])
        if (qid, doc_id) not in judged
    ]
    info = GoldenSetInfo.model_validate_json((SRC / "golden.json").read_text(encoding="utf-8"))
    store = Store.memory()
    store.settings.configure(name=info.name, scale=info.scale)
    for stratum in info.strata:
        store.settings.set_stratum(stratum)
    for profile in info.profiles:
        store.settings.set_profile(profile)
    store.imports.queries(enumerate(_queries(), 1), source="queries.jsonl")
    store.imports.documents(docs)
    store.imports.judgments(enumerate(events, 1), source="grades.txt")
    store.imports.pool_entries(unlabeled)
    manifest = versions.freeze(store, GOLDEN.parent, info.name, version, note=note)
    print(f"froze {GOLDEN / version}: {manifest.content_hash}; {len(events)} events, {len(unlabeled)} unlabeled")


if __name__ == "__main__":
    args = sys.argv[1:]
    note = None
    if "--note" in args:
        i = args.index("--note")
        note, args = args[i + 1], args[:i] + args[i + 2 :]
    command, rest = args[0], args[1:]
    if command == "chunk":
        chunk(Path(rest[0]))
    elif command == "runs":
        runs(rest[0] if rest else None)
    elif command == "variants":
        runs(rest[0] if rest else None, VARIANTS, "variants")
    elif command == "pool":
        pool(rest)
    elif command == "freeze":
        freeze(rest[0], rest[1] if len(rest) > 1 else None, note)
    else:
        raise SystemExit(__doc__)
