"""Sessions as an input: :data:`SESSION_LOADER` reads a ``.citeview`` file (an SQLite database)
as a read-only :class:`~citeview.session.store.SessionDataset`.

Importing :mod:`citeview.session` registers it in
:data:`citeview.core.inputs.DEFAULT_LOADERS`, so ``load_input("x.citeview")`` opens a session
once the session package is loaded. The core never imports this package; code that wants no
process-wide registry passes ``load_input(path, loaders=[SESSION_LOADER])``.
"""

from __future__ import annotations

from citeview.core.inputs import SQLITE_MAGIC, InputLoader
from citeview.session.store import Session, SessionDataset


def open_session_dataset(path: str) -> SessionDataset:
    """A session opened read-only to read its cases (what ``load_input`` returns for one)."""
    return SessionDataset(Session.open(path, readonly=True))


SESSION_LOADER = InputLoader("citeview session", SQLITE_MAGIC, open_session_dataset)
