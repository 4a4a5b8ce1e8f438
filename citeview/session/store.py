"""The session store: one SQLite file (``NAME.citeview``) that never loses a reviewer's work.

- WAL journal, ``synchronous=FULL`` and foreign keys on; ``PRAGMA user_version`` plus ordered
  migrations (:mod:`citeview.session.migrations`); a session from a newer citeview opens
  read-only with a message.
- Cases are copied in (the session survives the dataset moving) and parsed when asked for.
- Every change is its own transaction, committed at once: there is no unsaved state, so no Save
  prompt. Save As copies with the SQLite backup API.
- A process that opens a session for writing records itself in the ``lock`` row (pid, host); a
  second process finds it alive and is told (:class:`SessionInUse`). A row left by a process
  that died is taken over. How a session file is checked, connected to and replaced, and whether
  a process lives, is :mod:`citeview.session.files`; its rows are :mod:`citeview.session.records`.
- Views learn of changes through plain callbacks (:meth:`Session.subscribe`); edits the user can
  undo are :mod:`citeview.session.edits` commands.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.session.errors import (
    DamagedSession,
    ReadOnlySession,
    SessionError,
    SessionInUse,
    SessionWriteError,
)
from citeview.session.events import Change, Listener
from citeview.session.protocol import (
    ReviewStore,
    RowChange,
    SessionBackend,
    SessionDataset,
)
from citeview.session.records import insert_annotation, insert_review
from citeview.session.settings import DOCUMENT_EXTRA
from citeview.session.store_annotations import SessionAnnotations
from citeview.session.store_file import KNOWN_META


class Session(SessionAnnotations):
    """An open session. Use :meth:`create`, :meth:`open` or :func:`open_for_input`. Its jobs,
    one module each: the file, its lock, settings and transactions (:mod:`.store_file`); the
    cases (:mod:`.store_cases`); analyses and item counts (:mod:`.store_stats`); annotations
    and reviews (:mod:`.store_annotations`)."""

    def dataset(self) -> SessionDataset:
        return SessionDataset(self)


class SqliteBackend:
    """Sessions as SQLite files beside their inputs (the default
    :class:`~citeview.session.protocol.SessionBackend`)."""

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None) -> Session:
        return Session.create(path, cases, annotator=annotator, source=source)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None) -> None:
        Session.create_file(path, cases, source=source)

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> Session:
        return Session.open(path, annotator=annotator, readonly=readonly, force=force)


#: The SQLite sessions.
SQLITE = SqliteBackend()


def _typed(session: Session, backend: SqliteBackend) -> tuple[ReviewStore, SessionBackend]:
    return session, backend  # mypy checks that they implement the protocols


# The exceptions and the row writers are defined in errors.py and records.py; importing them from
# here keeps working.
__all__ = [
    "DOCUMENT_EXTRA", "KNOWN_META", "Change", "DamagedSession", "Listener", "ReadOnlySession",
    "SQLITE", "RowChange", "Session", "SessionDataset", "SessionError", "SessionInUse",
    "SessionWriteError", "SqliteBackend",
    "insert_annotation", "insert_review",
]
