"""Opening the sessions the commands read (``report``, ``export``, ``agree``, ``merge``) through
:data:`SESSIONS`, the commands' session backend (the commands type against the session
interface, so another store is another backend here); for ``report`` and ``export`` an input
that is not a session (a dataset, a case) is told where its review session is, or how to make
one."""

from __future__ import annotations

import os
import shlex

from citeview.core.inputs import starts_as_sqlite
from citeview.session.errors import SessionError
from citeview.session.location import session_location
from citeview.session.protocol import ReviewStore, SessionBackend
from citeview.session.store import SQLITE

#: Where the commands' sessions live: files named on the command line.
SESSIONS: SessionBackend = SQLITE


def open_session(path: str) -> ReviewStore:
    """The session at ``path``, opened read-only."""
    return SESSIONS.open(path, readonly=True)


def open_readonly(path: str, command: str) -> ReviewStore:
    """:func:`open_session`; when ``path`` is another kind of input the one-line error names
    ``NAME.citeview`` (beside it, or in the user data folder)."""
    try:
        return open_session(path)
    except SessionError as err:
        hint = session_hint(path, command)
        if hint is None:
            raise
        raise SessionError(f"{err}; {hint}") from None


def session_hint(path: str, command: str) -> str | None:
    """Where the review session of the input at ``path`` is (``citeview COMMAND SESSION``), or
    how to make one; None when ``path`` is not a readable file of another kind."""
    if not (os.path.isfile(path) and os.access(path, os.R_OK)) or starts_as_sqlite(path):
        return None  # an SQLite file, a session or not: there is no input to point from
    where, _ = session_location(path)
    if os.path.exists(where):
        return f"its review session is {where}: citeview {command} {shlex.quote(where)}"
    return (f"it has no review session yet: review it (citeview {shlex.quote(path)}) and its "
            f"verdicts are kept in {where}")
