"""Sessions as an input: :func:`session_loader` reads a ``.citeview`` file (an SQLite database)
as a read-only :class:`~citeview.session.protocol.SessionDataset`.

Nothing is registered on import: whether a ``.citeview`` file loads must not depend on what was
imported before. The entry points (the CLI's commands, the window) pass the loader to
:func:`citeview.core.inputs.load_input`: ``load_input(path, loaders=SESSION_LOADERS)``.
"""

from __future__ import annotations

from citeview.core.inputs import SQLITE_MAGIC, InputLoader
from citeview.session.protocol import SessionBackend, SessionDataset
from citeview.session.store import SQLITE


def session_loader(backend: SessionBackend = SQLITE) -> InputLoader:
    """The loader of session files, opened read-only through ``backend``."""
    def load(path: str) -> SessionDataset:
        return SessionDataset(backend.open(path, readonly=True))
    return InputLoader("citeview session", SQLITE_MAGIC, load)


def open_session_dataset(path: str) -> SessionDataset:
    """A session opened read-only to read its cases (what ``load_input`` returns for one)."""
    return SessionDataset(SQLITE.open(path, readonly=True))


SESSION_LOADER = InputLoader("citeview session", SQLITE_MAGIC, open_session_dataset)
#: The loaders of every binary input citeview reads (sessions): what the entry points pass.
SESSION_LOADERS: tuple[InputLoader, ...] = (SESSION_LOADER,)
