"""The `qrelkit` command line: thin. Each command parses its options, calls one workflow
(`qrelkit.workflows`), renders what comes back (`qrelkit.render`) and sets the exit status. The
root group imports a command's module only when that command runs (`app.COMMANDS`); `judge` is
the terminal UI's, found through the `qrelkit.commands` entry point.

    app.py       the root group: --db, the command table, plug-ins, errors as one line (exit 2 or 3)
    _common.py   consoles, the store, progress, errors, outputs, shared options
    setup.py     init, policy, strata, profiles
    content.py   queries list / remove, docs remove, removals
    imports.py   import queries / docs / qrels / judgments / beir / version (and hub)
    irds.py      import ir-datasets (loaded only when it runs)
    label_studio.py  import / export label-studio
    status.py    status, agreement
    pooling.py   pool, queue, assign
    assess.py    assess: machine assessors' labels (kept apart from the human log)
    calibrate.py  calibrate: a machine assessor's labels against the humans'
    export.py    export qrels / judgments (and hub)
    hub.py       export hub, import hub: Hugging Face dataset folders (added to those two groups)
    score.py     score
    compare.py   compare (two runs or a leaderboard), sensitivity
    reports.py   reports list / show (kept with --save)
    versions.py  freeze, verify, diff, schemas
    demo.py      demo
    serve.py     serve, serve token add / list / revoke
    _server.py   serve's web server: textual-serve behind the access tokens
"""

from .app import cli, main

__all__ = ["cli", "main"]
