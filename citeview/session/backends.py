"""Where a session lives, by its name: a file path (the SQLite store) or a project on a server
(``postgresql://...?project=NAME``, ``pg:SERVICE/NAME``: :mod:`citeview.session.pg`).

:data:`SESSIONS` is the backend the entry points hand to the window and the commands, so that
everything that takes a session takes a project too. The server's store (and psycopg, the
``team`` extra) is imported only when an address is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.session.errors import SessionError
from citeview.session.pg.address import is_address
from citeview.session.protocol import ReviewStore, SessionBackend, SessionDataset
from citeview.session.store import SQLITE


def server_backend(path: str) -> SessionBackend:
    """The backend of projects on a server (one line when psycopg is not installed)."""
    try:
        from citeview.session.pg.store import PgBackend
    except ImportError:
        raise SessionError(f"{path}: a project on a PostgreSQL server needs psycopg (pip "
                           "install 'citeview[team]')") from None
    return PgBackend()


class AddressBackend:
    """Files through ``files`` (the SQLite store), project addresses through the server's
    backend (:class:`~citeview.session.protocol.SessionBackend`)."""

    def __init__(self, files: SessionBackend = SQLITE,
                 server: Callable[[str], SessionBackend] = server_backend) -> None:
        self.files = files
        self.server = server  # the window's: the server's store behind an outbox

    def backend(self, path: str) -> SessionBackend:
        return self.server(path) if is_address(path) else self.files

    def exists(self, path: str) -> bool:
        return self.backend(path).exists(path)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None, **options: Any) -> ReviewStore:
        return self.backend(path).create(path, cases, annotator=annotator, source=source,
                                         **options)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None, **options: Any) -> None:
        self.backend(path).create_file(path, cases, source=source, **options)

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> ReviewStore:
        return self.backend(path).open(path, annotator=annotator, readonly=readonly,
                                       force=force)


#: What the entry points pass: files and projects.
SESSIONS = AddressBackend()


def project_dataset(path: str, backend: SessionBackend = SESSIONS) -> SessionDataset:
    """The project at address ``path``, opened read-only, as a dataset (what ``load_input`` is
    for a session file)."""
    return SessionDataset(backend.open(path, readonly=True))


__all__ = ["SESSIONS", "AddressBackend", "is_address", "project_dataset", "server_backend"]
