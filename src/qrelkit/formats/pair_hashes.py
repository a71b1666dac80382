"""The pair hashes of a long qrels file kept on disk while it is read, for the repeat check."""

from __future__ import annotations

from typing import IO

import numpy as np
import numpy.typing as npt


class PairHashes:
    """The pair hashes (`qrels_rows.QrelsBlock.pair_hash`) of a long file, waiting on disk (8 bytes a row) in
    `BUCKETS` files by their top bits: `repeated` sorts one file at a time, so memory holds a
    sixteenth of them (10 million rows: 5 MiB, not 80). A temporary disk too full to hold them
    makes `repeated` answer True: the caller's exact check decides then."""

    BUCKETS = 16

    def __init__(self) -> None:
        self.files: list[IO[bytes]] = []
        self.failed = False

    def __enter__(self) -> PairHashes:
        import tempfile  # loaded when a long file needs it, not by every `score`

        try:
            for _ in range(self.BUCKETS):
                self.files.append(tempfile.TemporaryFile(prefix="qrelkit-pairs-"))
        except OSError:
            self.failed = True
        return self

    def __exit__(self, *exc: object) -> None:
        for fh in self.files:
            fh.close()

    def add(self, hashes: npt.NDArray[np.uint64]) -> None:
        if self.failed:
            return
        bucket = hashes >> np.uint64(60)
        try:
            for b, fh in enumerate(self.files):
                hashes[bucket == b].tofile(fh)
        except OSError:
            self.failed = True

    def repeated(self) -> bool:
        """Whether two rows share a pair hash (a repeated pair, or very rarely a collision)."""
        try:
            for fh in [] if self.failed else self.files:
                fh.flush()
                fh.seek(0)
                every = np.fromfile(fh, dtype=np.uint64)
                every.sort()
                if len(every) > 1 and (every[1:] == every[:-1]).any():
                    return True
        except OSError:
            return True
        return self.failed
