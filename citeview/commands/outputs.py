"""The one check every command's output passes before the command runs: an output never
replaces an input of the same command, nor (unless the command makes sessions) a session.

The CLI runs every subcommand through :func:`guarded`, so no command can forget it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator

from citeview.core.errors import InputError
from citeview.core.files import STDIN
from citeview.core.inputs import SESSION_SUFFIX, starts_as_sqlite

#: The ``args`` attributes that name a file a command writes (``-o``/``--output``, ``--out``).
OUTPUT_DESTS = ("output", "out")


def guarded(run: Callable[[argparse.Namespace], int],
            writes_session: bool = False) -> Callable[[argparse.Namespace], int]:
    """``run`` behind :func:`check_outputs`."""
    def checked(args: argparse.Namespace) -> int:
        check_outputs(args, writes_session)
        return run(args)
    return checked


def _input_paths(args: argparse.Namespace) -> Iterator[str]:
    """Every argument value that may name a file the command reads: any string (or string in a
    list), and the PATH of ``ID=PATH`` values."""
    for name, value in vars(args).items():
        if name in OUTPUT_DESTS or name.startswith("_"):
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, str) and item and item != STDIN:
                yield item
                if "=" in item:
                    yield item.split("=", 1)[1]


def _same_file(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` both exist and are one file (through symbolic and hard links)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def is_session_file(path: str) -> bool:
    """A ``.citeview`` name, or an existing file that starts as an SQLite database does (how the
    session loader tells a session)."""
    return path.lower().endswith(SESSION_SUFFIX) or starts_as_sqlite(path)


def check_outputs(args: argparse.Namespace, writes_session: bool = False) -> None:
    """One-line :class:`InputError` (exit 2, nothing written) when an output names an input of
    the same command (the same file after links), an input session's ``-wal``/``-shm``/
    ``-journal``, or, for a command that does not write sessions, any session."""
    inputs = list(_input_paths(args))
    for dest in OUTPUT_DESTS:
        out = getattr(args, dest, None)
        if not isinstance(out, str) or out in ("", STDIN):
            continue
        # Only an existing output can be an input (or its -wal/-shm/-journal): a new file,
        # the usual case, costs one stat, not four per argument.
        for path in inputs if os.path.exists(out) else ():
            if _same_file(out, path):
                raise InputError(f"{out}: is an input of this command ({path}); an output "
                                 "never replaces an input, it must be a new file or another "
                                 "one: nothing was written")
            if any(_same_file(out, path + s) for s in ("-wal", "-shm", "-journal")):
                raise InputError(f"{out}: belongs to the session {path}: nothing was written")
        if not writes_session and is_session_file(out):
            raise InputError(f"{out}: is a citeview session; this command never writes over "
                             "one: nothing was written")


__all__ = ["OUTPUT_DESTS", "check_outputs", "guarded", "is_session_file"]
