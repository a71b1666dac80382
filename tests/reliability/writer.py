"""A judging process for the reliability tests: records judgments through the TUI's write path
(`JudgingSession.record`: one committed transaction each) and prints `ack SEQ QUERY DOC GRADE` after
each one has returned, i.e. after it is on disk.

    python tests/reliability/writer.py DB ASSESSOR COUNT [--queries N] [--docs N]
"""

from __future__ import annotations

import argparse
import sys

from qrelkit.models import Judgment, JudgmentState
from qrelkit.storage import Store
from qrelkit.workflows.judging import JudgingSession


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("db")
    parser.add_argument("assessor")
    parser.add_argument("count", type=int)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--docs", type=int, default=50)
    args = parser.parse_args()
    session = JudgingSession(Store.open(args.db), args.assessor)
    out = sys.stdout
    for i in range(args.count):
        q, d, grade = f"q{i % args.queries}", f"{args.assessor}-d{(i // args.queries) % args.docs}", i % 4
        event = Judgment(query_id=q, doc_id=d, state=JudgmentState.GRADED, grade=grade, assessor=args.assessor)
        seq = session.record(event)
        out.write(f"ack {seq} {q} {d} {grade}\n")
        out.flush()
    out.write("done\n")


if __name__ == "__main__":
    main()
