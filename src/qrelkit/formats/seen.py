"""The 64-bit pair keys seen so far, asked block by block which keys of a new block came before:
how a read finds a repeated (query, doc) pair at the block that repeats it, not at the end of the
file (standard input or a pipe may have no end: `yes 'q Q0 d 1 1 r' | qrelkit score -`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


class SeenKeys:
    """The keys as sorted runs, merged as a binary counter carries (a run is merged into the one
    before it once that one is no longer), so each key is copied about log2(blocks) times and a
    block is looked up in at most that many runs."""

    def __init__(self) -> None:
        self.runs: list[npt.NDArray[np.uint64]] = []

    def add(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
        """Keep `keys`; those of them seen before (in an earlier block, or twice in this one),
        sorted and each once (empty: none). An equal key is only a suspected repeat: pairs that
        hash alike are compared by the caller."""
        ordered = np.sort(keys)
        if not len(ordered):
            return ordered
        again = [ordered[1:][ordered[1:] == ordered[:-1]]]
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, ordered), len(run) - 1)
            again.append(ordered[run[at] == ordered])
        self.runs.append(ordered)
        while len(self.runs) > 1 and len(self.runs[-2]) <= len(self.runs[-1]):
            newer, older = self.runs.pop(), self.runs.pop()
            merged = np.concatenate((older, newer))
            merged.sort(kind="stable")  # timsort: two sorted runs merge in linear time
            self.runs.append(merged)
        return np.unique(np.concatenate(again))
