"""The grade rubric (issue 25, item 6): each grade's definition is stored with the scale, set by
`init --level` or `policy --level`, and the bundled golden set has one."""

from __future__ import annotations

from conftest import ROOT, Cli
from qrelkit import versioning
from qrelkit.storage import Store
from qrelkit.workflows.demo import bundled_golden

PYDOCS = ROOT / "goldensets" / "pydocs"


def test_policy_sets_the_definitions_and_shows_the_rubric(run_cli: Cli) -> None:
    run_cli("init")
    out = run_cli("policy", "latest", "--level", "2=relevant: answers [b]the[/b] question").output
    assert out.splitlines() == [
        "label policy: latest",
        "0 irrelevant",
        "1 related",
        "2 relevant: answers [b]the[/b] question",  # data, as typed
        "3 perfect",
    ]
    with Store.open(run_cli.db) as store:
        assert store.settings.scale.levels[2].definition == "answers [b]the[/b] question"
        assert store.settings.label_policy == "latest"
    assert run_cli("policy").output == "label policy: latest\n"  # no --level: the policy alone


def test_a_bad_level_for_policy_is_one_line_and_changes_nothing(run_cli: Cli) -> None:
    run_cli("init")
    done = run_cli("policy", "latest", "--level", "7=seven", ok=False)
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1
    assert "the scale's grades are 0..3" in done.output
    with Store.open(run_cli.db) as store:
        assert store.settings.label_policy == "median"  # the policy given with it did not land either


def test_init_says_when_a_definition_changes(run_cli: Cli) -> None:
    run_cli("init")
    out = run_cli("init", "--level", "1=related: mentions the topic").output
    assert "level 1 definition: - -> mentions the topic" in out


def test_the_bundled_golden_set_has_a_definition_for_every_grade() -> None:
    """The newest bundled version (the demo's) defines each grade; it is 1.0 with the rubric
    added: the same labels, documents and pool, frozen by qrelkit itself (parent 1.0)."""
    newest = bundled_golden()
    manifest = versioning.read_manifest(newest)
    assert newest.name == "1.1" and manifest.parent_version == "1.0"
    assert versioning.verify(newest) == []
    assert all(level.definition for level in manifest.scale.levels)
    first = versioning.read_manifest(PYDOCS / "1.0")
    assert [lv.name for lv in manifest.scale.levels] == [lv.name for lv in first.scale.levels]
    for name in ("queries.jsonl", "documents.jsonl", "judgments.jsonl", "qrels.txt", "unlabeled.jsonl"):
        assert (newest / name).read_bytes() == (PYDOCS / "1.0" / name).read_bytes(), name


def test_the_demo_store_carries_the_rubric(run_cli: Cli) -> None:
    run_cli("demo", "--keep", str(run_cli.db))
    with Store.open(run_cli.db) as store:
        levels = store.settings.scale.levels
    assert levels[2].definition == "answers it in part, or among other things"
