"""Widgets the screens share: a document, the query bar, the label line, the session panel, the key bar
with the scale, the dashboard tiles."""
