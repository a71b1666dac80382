"""The modal screens: every key, a note, the next query."""
