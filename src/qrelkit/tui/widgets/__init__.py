"""Widgets the screens share: a document, the label line, the key bar with the scale, the dashboard tiles."""
