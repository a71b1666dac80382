from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from qrelkit.cli import cli
from qrelkit.storage import Store

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"


def one_report(text: str) -> dict[str, Any]:
    """The one report of `score --format json` output (always `{"reports": [...]}`)."""
    data = json.loads(text)
    assert list(data) == ["reports"] and len(data["reports"]) == 1, list(data)
    report: dict[str, Any] = data["reports"][0]
    return report


@pytest.fixture(autouse=True, scope="session")
def _checked_versions_in_a_folder_of_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Scoring records checked version contents under $QRELKIT_CACHE: the tests' own folder."""
    import os

    before = os.environ.get("QRELKIT_CACHE")
    os.environ["QRELKIT_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        os.environ.pop("QRELKIT_CACHE", None)
    else:
        os.environ["QRELKIT_CACHE"] = before


@pytest.fixture(autouse=True, scope="session")
def _ir_datasets_home_in_a_folder_of_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """ir_datasets keeps its files (and makes a folder per dataset when imported) under
    $IR_DATASETS_HOME, read once at its import: a folder of the tests, never ~/.ir_datasets."""
    import os

    before = os.environ.get("IR_DATASETS_HOME")
    os.environ["IR_DATASETS_HOME"] = str(tmp_path_factory.mktemp("ir_datasets"))
    yield
    if before is None:
        os.environ.pop("IR_DATASETS_HOME", None)
    else:
        os.environ["IR_DATASETS_HOME"] = before


@pytest.fixture
def store() -> Iterator[Store]:
    s = Store.memory()
    yield s
    s.close()


class Cli:
    """Runs `qrelkit` in-process against a store in a temporary folder."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.db = tmp / "store.db"
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True) -> Result:
        result = self.runner.invoke(cli, ["--db", str(self.db), *args], catch_exceptions=False)
        if ok and result.exit_code != 0:
            raise AssertionError(f"qrelkit {' '.join(args)} -> {result.exit_code}\n{result.output}")
        return result

    def write(self, name: str, text: str) -> Path:
        path = self.tmp / name
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture
def run_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


SLOW = {
    # the slowest tests of `pytest --ignore=tests/browser --durations=40` (9 to 175 s each on a busy
    # 2-core machine, a minute together on an idle one): `make quick` (`-m "not slow"`) leaves them
    # out, `make test` runs them. By test name, all its parameters (or one, with its id), so that
    # they stay marked whichever file they move to.
    "test_outer_interval_contains_the_exact_one",
    "test_bounds_equal_brute_force",
    "test_large_grades_agree_with_trec_eval",
    "test_bounds_over_compacted_grades_cover_every_grade_in_between",
    "test_generated_cases_agree_with_trec_eval",
    "test_bounds_of_new_families_hold_every_completion",
    "test_corrections_match_statsmodels",
    "test_four_processes_write_ten_thousand_events",
    "test_sigkill_at_random_points_loses_no_acknowledged_judgment",
    "test_fuzzed_input_never_escapes_as_a_traceback",
    "test_malformed_input_is_one_line_exit_2_and_changes_nothing[qrels: 100 MB line]",
    "test_versions_frozen_while_someone_judges_import_cleanly",
    "test_ctrl_c_during_export_judgments_says_interrupted_and_exits_130",
    "test_demo_runs_as_a_subprocess_without_traceback",
    "test_bad_input_from_a_real_process_is_one_line_exit_2",
    "test_a_reader_that_stops_early_gets_no_error",
    "test_gzip_reports_compressed_bytes",
    "test_readers_report_bytes_up_to_the_file_size",
    "test_a_colour_terminal_gets_colours_but_no_escape_from_data",
    "test_on_5000_queries_a_search_typed_at_start_loses_no_key",
    "test_on_5000_queries_a_cursor_moved_while_rows_arrive_stays_where_it_was_put",
    "test_every_command_block_prints_what_the_page_shows",  # README.md's ~25 commands, 15-20 s
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.name in SLOW or getattr(item, "originalname", None) in SLOW:
            item.add_marker(pytest.mark.slow)
