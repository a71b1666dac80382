"""One version check (issue 30): `verify`, `import version` and `score --golden` find the same
problems, including the data rules an import enforces in a version whose every hash and count
was recomputed; hard-linked data files are refused; the documents hash streams in bounded memory
(its twin, `snapshot.documents_hash`, gives the same digest across the spill threshold)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, Cli
from forged import FOUND, forged
from qrelkit import versioning
from qrelkit.models import Document, Query
from qrelkit.versioning import check as version_check
from qrelkit.versioning.doc_hash import SortedLinesHash
from qrelkit.versioning.snapshot import Snapshot

PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUN = ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run"


@pytest.mark.parametrize("change", sorted(FOUND))
def test_verify_import_and_score_refuse_the_same_forged_version(run_cli: Cli, change: str) -> None:
    folder = forged(run_cli.tmp / "sets", change)
    verified = run_cli("verify", str(folder), ok=False)
    assert verified.exit_code == 1 and FOUND[change] in verified.output, verified.output
    imported = run_cli("import", "version", str(folder), ok=False)
    assert imported.exit_code == 2 and FOUND[change] in imported.output, imported.output
    scored = run_cli("score", str(RUN), "--golden", str(folder), ok=False)
    assert scored.exit_code == 2 and FOUND[change] in scored.output, scored.output
    assert "Traceback" not in verified.output + imported.output + scored.output


def test_a_data_file_with_another_hard_link_is_refused(run_cli: Cli) -> None:
    """Two versions sharing a file by a hard link: editing one would edit the other."""
    run_cli("import", "version", str(PYDOCS))
    sets = run_cli.tmp / "sets"
    run_cli("freeze", "p", "1", "--out", str(sets))
    run_cli("freeze", "p", "2", "--out", str(sets))
    linked = sets / "p" / "2" / "qrels.txt"
    linked.unlink()
    os.link(sets / "p" / "1" / "qrels.txt", linked)  # the same bytes, so every hash still matches
    for command in (["verify"], ["import", "version"]):
        refused = run_cli(*command, str(sets / "p" / "2"), ok=False)
        assert refused.exit_code != 0 and "has 2 hard links: refused" in refused.output, refused.output
    scored = run_cli("score", str(RUN), "--golden", str(sets / "p" / "2"), ok=False)
    assert scored.exit_code == 2 and "hard links" in scored.output


def test_scoring_checks_each_content_once_and_an_edit_again(
    run_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole check runs the first time a version's bytes are scored; later runs hash the files
    (and check queries and labels) and find the record of those bytes; an edit means new bytes."""
    monkeypatch.setenv("QRELKIT_CACHE", str(tmp_path / "cache"))
    deep: list[Path] = []
    whole = version_check.check

    def counted(folder: Path, **kw: object) -> version_check.Checked:
        if kw.get("files", version_check.DEEP) == version_check.DEEP:
            deep.append(folder)
        return whole(folder, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(version_check, "check", counted)
    run_cli("import", "version", str(PYDOCS))
    run_cli("freeze", "p", "1", "--out", str(tmp_path / "sets"))
    folder = tmp_path / "sets" / "p" / "1"
    deep.clear()
    for _ in range(3):
        run_cli("score", str(RUN), "--golden", str(folder))
    assert deep == [folder]
    events = folder / "judgments.jsonl"
    events.write_text(events.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # one more byte
    refused = run_cli("score", str(RUN), "--golden", str(folder), ok=False)
    assert refused.exit_code == 2 and "judgments.jsonl: changed" in refused.output
    events.write_bytes(events.read_bytes()[:-1])  # the bytes that passed, but the manifest edited:
    manifest = folder / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"median"', '"latest"'), encoding="utf-8")
    deep.clear()
    run_cli("score", str(RUN), "--golden", str(folder), ok=False)
    assert deep == [folder]  # a new manifest is new content: checked whole again
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"latest"', '"median"'), encoding="utf-8")
    events.write_text(events.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    monkeypatch.setenv("QRELKIT_CACHE", "off")
    deep.clear()
    events.write_bytes(events.read_bytes()[:-1])
    run_cli("score", str(RUN), "--golden", str(folder))
    run_cli("score", str(RUN), "--golden", str(folder))
    assert deep == [folder, folder]  # off: every run checks everything


def test_a_store_frozen_and_checked_finds_nothing() -> None:
    c = version_check.check(PYDOCS)
    assert c.problems == [] and len(c.queries) == 42 and c.labels is not None and not c.documents
    kept = version_check.check(PYDOCS, keep=True, spill_bytes=1_000)  # the documents spill, many times
    assert kept.problems == [] and len(kept.documents) > 0 and len(kept.events) > 0


ids = st.text(st.characters(codec="utf-8"), min_size=1, max_size=6)
docs = st.lists(st.tuples(ids, st.text(max_size=30)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(rows=docs, limit=st.sampled_from([1, 64, 300, 5_000, 1 << 20]))
def test_the_streamed_documents_hash_is_its_twins_across_the_spill_threshold(
    rows: list[tuple[str, str]], limit: int
) -> None:
    made = [Document.model_construct(id=i, title=None, text=t, metadata=None) for i, t in rows]
    hashed = SortedLinesHash(limit)
    for d in made:
        hashed.add(d)
    digest, repeated = hashed.finish()
    assert digest == versioning.documents_hash(made)
    ids_seen = [i for i, _ in rows]
    twice = {i for i in ids_seen if ids_seen.count(i) > 1}
    assert (repeated is None) == (not twice) and (repeated is None or repeated in twice)


def test_a_snapshot_of_queries_is_unchanged_by_the_move() -> None:
    """`read` gives the snapshot `freeze` takes: freezing it again gives the same content."""
    snap = versioning.read(PYDOCS)
    assert isinstance(snap, Snapshot) and all(isinstance(q, Query) for q in snap.queries)
    assert snap.content_hash() == versioning.read_manifest(PYDOCS).content_hash
