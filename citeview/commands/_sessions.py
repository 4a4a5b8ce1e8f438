"""Opening the sessions the commands read (``report``, ``export``, ``agree``, ``merge``) through
:data:`SESSIONS`, the commands' session backend (the commands type against the session
interface, so another store is another backend here); for ``report`` and ``export`` an input
that is not a session (a dataset, a case) is told where its review session is, or how to make
one."""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable

from citeview.core.inputs import starts_as_sqlite
from citeview.session.backends import SESSIONS as ADDRESSED
from citeview.session.backends import server_backend
from citeview.session.errors import SessionError
from citeview.session.location import session_location
from citeview.session.pg.address import is_address, parse_address
from citeview.session.protocol import ReviewStore, SessionBackend

#: Where the commands' sessions live: files named on the command line, or projects on a server
#: named by address (``postgresql://...?project=NAME``, ``pg:SERVICE/NAME``).
SESSIONS: SessionBackend = ADDRESSED


def write_session(out: str, make: Callable[[str], ReviewStore], *,
                  overwrite: bool = False) -> None:
    """Run ``make`` (a command that writes a new session file at the path it is given) for
    ``out``: a file directly; a project through a file in a temporary folder, copied into the
    project whole (one transaction of rows) and removed."""
    if not is_address(out):
        make(out).close()
        return
    server_backend(out)  # psycopg present, before any work
    from citeview.session.pg.store import copy_session

    project = parse_address(out).project
    with tempfile.TemporaryDirectory(prefix="citeview-") as tmp, \
            make(os.path.join(tmp, project + ".citeview")) as made:
        copy_session(made, out, overwrite=overwrite)


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
    if is_address(path) or not (os.path.isfile(path) and os.access(path, os.R_OK)) \
            or starts_as_sqlite(path):
        return None  # an SQLite file, a session or not: there is no input to point from
    where, _ = session_location(path)
    if os.path.exists(where):
        return f"its review session is {where}: citeview {command} {shlex.quote(where)}"
    return (f"it has no review session yet: review it (citeview {shlex.quote(path)}) and its "
            f"verdicts are kept in {where}")
