"""The assessor's terminal UI (Textual): a query list and a one-keystroke judging screen.

Every judgment is one committed transaction before the screen moves on. `qrelkit judge` is
registered from here (`command.py`, through the `qrelkit.commands` entry point), so that the CLI
and the TUI never import each other. The TUI reads and writes through a judging session
(`qrelkit.workflows.judging.JudgingSession`), never through the store itself.

    app.py          JudgeApp: the screens, the judging queue's worker, checkpoints
    command.py      `qrelkit judge`
    messages.py     what the screens and the app tell each other (QueueStale, QueueReady, HeldSaved)
    qrelkit.tcss    the rules every screen shares
    palette.py      the colours of the TUI's own text (as markup showed them)
    grade_entry.py  grade keys: one digit, or several on a scale above 9
    sight.py        keys typed before what they would act on was drawn are refused
    reading_aids.py  the session's highlighting toggle (`h`) and evidence passages (`m`)
    duplicate_key.py  `D`: the document's duplicates given one's grade on it, after asking
    screens/        query list, judging, adjudication, dashboard (each with its .tcss)
    modals/         keys, next query, reading (guidelines, notes, grades), confirm, evidence
    widgets/        a document, the query bar, the label line, the evidence line, the duplicates
                    line, the note box, the session panel, the key bar, the dashboard's tiles

Text that comes from data (ids, query and document text, guidelines, notes, assessor and run
names) reaches Textual as `rich.text.Text` built by `qrelkit.render.styles.data`, never inside a
markup string.
"""
