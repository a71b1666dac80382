"""The assessor's terminal UI (Textual): a query list and a one-keystroke judging screen.

Every judgment is one committed transaction before the screen moves on. `qrelkit judge` is
registered from here (`command.py`, through the `qrelkit.commands` entry point), so that the CLI
and the TUI never import each other.
"""
