"""The modal screens: every key, a note, the next query, texts to read (guidelines, notes, grades), a confirmation."""
