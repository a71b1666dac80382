"""Widgets the screens share.

    document       a document: id, title and text, the query's terms highlighted
    query_header   the query bar: the query and its guidelines, cut to a few lines
    label_line     a document's resolved state as this assessor sees it
    evidence_line  the evidence passages marked on the document's votes (`m`)
    note_panel     the note box under the document: one's own note, written, edited, withdrawn
    session_panel  this session's judgments, pace, documents left, today, a grade being typed
    context_line   the pooled runs' ranks and scores of the document (`c`)
    duplicates_line  the document's duplicates in the query, with one's own vote on each (`D`)
    settle_line    whether each comparison `judge --for` names is settled yet, and the judgments to go
    scale_bar      the key bar, the scale's grades first
    tiles          the dashboard's two tiles
    title_header   the screens' header: Textual's, its title redrawn in the key's own frame, no layout

Text from the data reaches them as `rich.text.Text` (`render.styles.data`), never as markup.
"""
