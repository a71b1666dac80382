"""The `qrelkit` command line: thin. Each command parses its options, calls one workflow
(`qrelkit.workflows`), renders what comes back (`qrelkit.render`) and sets the exit status.

    app.py       the root group, error handling, plug-in commands
    _common.py   consoles, the store, output, shared options
    setup.py     init, policy, strata, profiles
    imports.py   import queries / docs / qrels / judgments / beir / version
    status.py    status, agreement
    pooling.py   pool, queue, assign
    export.py    export qrels / judgments
    score.py     score
    compare.py   compare
    versions.py  freeze, verify, diff, schemas
    demo.py      demo
"""

from .app import cli, main

__all__ = ["cli", "main"]
