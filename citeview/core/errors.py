"""Errors with a one-line message meant for the user (the CLI prints it and exits 2)."""


class InputError(ValueError):
    """Bad input: a file that cannot be read, parsed or understood. ``str(err)`` is one line."""
