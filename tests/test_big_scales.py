"""Scales of any size, and levels named (issue 30): a qrels grade of 2^31 - 1 is scored without one
object per grade (the scale keeps its named levels and its `top`), in bounded memory; a store's
scale ends at 100 (a version beyond it is scored as it is, never loaded); `init --level` names a
level and gives its definition (the rubric shown on the judging screen's `G`)."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from conftest import ROOT, Cli
from qrelkit import versioning
from qrelkit.models import GradeLevel, GradeScale
from qrelkit.storage import Store

TOP = 2**31 - 1
PYDOCS = ROOT / "goldensets" / "pydocs" / "1.0"
RUN = ROOT / "goldensets" / "pydocs" / "runs" / "bm25.run"


def test_the_largest_scale_holds_no_object_per_grade() -> None:
    tracemalloc.start()
    scale = GradeScale.from_max(TOP, 5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20 and len(scale.levels) == 1
    names = (scale.name_of(0), scale.name_of(7), scale.name_of(TOP))
    assert scale.max_grade == TOP and names == ("irrelevant", "grade 7", "grade 2147483647")
    assert GradeScale.model_validate_json(scale.model_dump_json()) == scale
    with pytest.raises(ValueError, match="too many grades"):
        scale.every_level()


def test_scales_a_store_held_before_serialise_as_they_did() -> None:
    """Content hashes of frozen versions cover the scale's JSON: `top` and `definition` are left out
    when not given, so every version frozen before them keeps its hash."""
    assert GradeScale().model_dump(mode="json") == {
        "levels": [{"grade": g, "name": n} for g, n in enumerate(["irrelevant", "related", "relevant", "perfect"])],
        "relevance_threshold": 1,
    }
    assert "top" not in GradeScale.from_max(100).model_dump() and len(GradeScale.from_max(100).levels) == 101
    assert versioning.read(PYDOCS).content_hash() == versioning.read_manifest(PYDOCS).content_hash


def _rss_kib(*args: str, cwd: Path) -> tuple[int, str]:
    """Peak RSS (KiB) of a whole `qrelkit` process, and its output: Linux's VmHWM, which starts
    afresh at exec (ru_maxrss would carry this test process's own peak into the child)."""
    code = (
        "import resource, sys\nfrom qrelkit.cli.app import main\nsys.argv = ['qrelkit', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
        "try:\n    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1]\n"
        "except OSError:\n    hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print('RSS', hwm, code)"
    )
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[0] == "RSS" and last[2] == "0", done.stdout + done.stderr
    return int(last[1]), done.stdout + done.stderr


def test_a_qrels_grade_of_2_to_the_31_minus_1_scores_in_bounded_memory(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text(f"q1 0 d1 {TOP}\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d9 {TOP - 1}\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 dx 3 1 r\nq2 Q0 d9 1 1 r\n")
    rss, out = _rss_kib("score", "r.txt", "--qrels", "q.txt", "--metrics", "nDCG@10,P@5,AP", cwd=tmp_path)
    assert rss < 100 * 1024, rss
    assert "2 queries" in out and "Traceback" not in out
    top, _ = _rss_kib("score", "r.txt", "--qrels", "q.txt", "--relevance-level", str(TOP), cwd=tmp_path)
    assert top < 100 * 1024


def _big_version(out: Path) -> Path:
    snap = versioning.read(PYDOCS)
    scale = GradeScale.from_max(TOP)
    snap.info = snap.info.model_copy(update={"scale": scale})
    versioning.freeze(snap, out, "wide", "1")
    return out / "wide" / "1"


def test_a_version_beyond_a_stores_scale_is_scored_never_loaded(run_cli: Cli) -> None:
    folder = _big_version(run_cli.tmp / "sets")
    assert json.loads((folder / "manifest.json").read_text())["scale"]["top"] == TOP
    assert run_cli("verify", str(folder)).exit_code == 0
    assert "nDCG@10" in run_cli("score", str(RUN), "--golden", str(folder)).output
    refused = run_cli("import", "version", str(folder), ok=False)
    assert refused.exit_code == 2 and "a store's scale ends at 100" in refused.output
    assert "--golden" in refused.output and "Traceback" not in refused.output
    with Store.open(run_cli.db) as store:
        assert store.reads.table_counts()["queries"] == 0


def test_init_names_levels_and_gives_their_definitions(run_cli: Cli) -> None:
    run_cli("init", "--max-grade", "5", "--level", "1=marginal: mentions the topic", "--level", "5=perfect")
    with Store.open(run_cli.db) as store:
        levels = store.settings.scale.levels
    assert [level.name for level in levels] == ["irrelevant", "marginal", "grade 2", "grade 3", "grade 4", "perfect"]
    assert levels[1].definition == "mentions the topic" and levels[5].definition is None
    status = run_cli("status").output
    assert "1 marginal" in status and "5 perfect" in status
    again = run_cli("init", "--threshold", "2").output  # a new threshold keeps the names
    assert "relevant at: >= 1 -> >= 2" in again
    with Store.open(run_cli.db) as store:
        assert store.settings.scale.levels[1] == GradeLevel(grade=1, name="marginal", definition="mentions the topic")
    renamed = run_cli("init", "--level", "5=[bold]top[/]").output
    assert "level 5: perfect -> [bold]top[/]" in renamed  # a name is data, shown as typed


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("x", "does not start with a grade"),
        ("-1=x", "does not start with a grade"),
        ("2=", "a name has 1 to 40 characters"),
        ("2=a\x1b[31m", "neither a control character"),
        ("2=" + "n" * 41, "a name has 1 to 40 characters"),
        ("9=nine", "the scale's grades are 0..5"),
    ],
)
def test_a_bad_level_is_one_line_and_changes_nothing(run_cli: Cli, value: str, says: str) -> None:
    run_cli("init", "--max-grade", "3")
    done = run_cli("init", "--max-grade", "5", "--level", value, ok=False)
    assert done.exit_code == 2 and says in done.output and "Traceback" not in done.output
    assert len(done.output.strip().splitlines()) == 1 and "\x1b" not in done.output
    with Store.open(run_cli.db) as store:
        assert store.settings.scale == GradeScale()  # the --max-grade given with it did not land either


def test_the_grades_screen_shows_each_definition_as_data() -> None:
    from qrelkit.tui.modals.reading import grades

    scale = GradeScale(
        levels=[
            GradeLevel(grade=0, name="irrelevant", definition="off topic"),
            GradeLevel(grade=1, name="[b]x[/b]", definition="answers [link=http://e]it[/link]"),
        ]
    )
    body = grades(scale).body.plain
    assert "off topic" in body and "answers [link=http://e]it[/link]" in body and "[b]x[/b]" in body
