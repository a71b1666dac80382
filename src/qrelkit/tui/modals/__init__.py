"""The modal screens, one a file, each with its .tcss beside it.

    help        every key, screen by screen
    next_query  the next query that still has unlabeled documents
    reading     texts to read at leisure: a query's guidelines, a pair's notes, the grades
    confirm     confirming an action that changes other assessors' work
    flag        why a query cannot be judged (a flag for its owner)
    decisions   this session's last five decisions, to go back to one
    evidence    the passage of a document marked as the evidence for the grade (`m`)

Each is a `ModalScreen` that a screen pushes and `escape` closes (answering no, or nothing).
"""
