"""The app's screens, one a file, each with its .tcss beside it.

    query_list    every query with its progress; enter opens it for judging
    judging       one query's documents one at a time, one keystroke per judgment
    adjudication  the pairs whose assessors disagree, most urgent first
    dashboard     the two tiles of the latest saved comparison or score report

Each talks to the judging session (`workflows.judging.JudgingSession`) only, never to the store.
"""
