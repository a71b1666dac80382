"""`--resamples` is bounded by the memory its statistics take (issue 30): 100,000,000 resamples of
one comparison took 116 s and 11.8 GB; now refused at once, naming the most that fits."""

from __future__ import annotations

import pytest

from conftest import ROOT, Cli
from qrelkit.errors import UsageError
from qrelkit.workflows.compare import RESAMPLE_BYTES, refuse_resamples_past_memory

RUNS = ROOT / "goldensets" / "pydocs" / "runs"
GOLDEN = ROOT / "goldensets" / "pydocs" / "1.0"


@pytest.mark.parametrize("command", ["compare", "sensitivity"])
def test_too_many_resamples_are_refused_before_anything_is_drawn(run_cli: Cli, command: str) -> None:
    runs = sorted(str(p) for p in RUNS.glob("*.run"))[:2]
    refused = run_cli(command, *runs, "--golden", str(GOLDEN), "--resamples", "100000000", ok=False)
    assert refused.exit_code == 2 and "would take about" in refused.output, refused.output
    assert "at most --resamples" in refused.output and len(refused.output.strip().splitlines()) == 1
    assert run_cli(command, *runs, "--golden", str(GOLDEN), "--resamples", "2000").exit_code == 0


def test_the_bound_is_the_memory_over_metrics_and_pairs_of_runs() -> None:
    most = RESAMPLE_BYTES // (16 * 14)
    refuse_resamples_past_memory(most, 14, 2)  # fits exactly
    with pytest.raises(UsageError, match="would take about 2.0 GiB"):
        refuse_resamples_past_memory(most + 1, 14, 2)
    with pytest.raises(UsageError):
        refuse_resamples_past_memory(most, 14, 3)  # three runs: three pairs
