"""The app's screens, one a file, each with its .tcss beside it."""
