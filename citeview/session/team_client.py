"""A reviewer's (or a lead's) connection to a team project: the PostgreSQL store
(:mod:`citeview.session.pg`) behind the outbox (:mod:`citeview.session.outbox`), with the
server's announcements for a live feed (:mod:`citeview.session.live`).

:func:`open_team_project` is what the window and a reviewer's command open; :class:`TeamBackend`
is the same as a :class:`~citeview.session.protocol.SessionBackend` for the window. A project
whose server cannot be reached at start opens from the outbox's copy (the cases fetched before,
the edits waiting) and is sent to when the server is back.
"""

from __future__ import annotations

from collections.abc import Iterable

from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.session import errors
from citeview.session.outbox import Outbox, OutboxStore, outbox_path
from citeview.session.protocol import ReviewStore, SessionBackend
from citeview.session.routed import ROUTING, RoutedStore, routed, takes_handouts

AHEAD = 3  # cases handed out ahead, reviewable while the server cannot be reached


def offline_errors() -> tuple[type[BaseException], ...]:
    """What the PostgreSQL store raises when its server cannot be reached."""
    import psycopg

    return (errors.ServerUnreachable, psycopg.OperationalError)


def open_team_project(path: str, *, annotator: str = "", ahead: int = AHEAD,
                      force: bool = False) -> OutboxStore:
    """Open the project at ``path`` (an address, :mod:`citeview.session.pg.address`) for
    ``annotator`` (default: the role connected as) behind its outbox, with ``ahead`` cases
    handed out and fetched. :class:`~citeview.session.errors.SessionError` when there is
    neither a server to reach nor a copy in the outbox."""
    from citeview.session.pg import PgBackend, parse_address

    address = parse_address(path)
    unreachable = offline_errors()
    backend = PgBackend()
    first: ReviewStore | None
    try:
        first = backend.open(path, annotator=annotator, force=force)
    except unreachable as err:
        first, why = None, errors.one_line(err)
    # (the server's name for the reviewer wins: an annotator writes as their role)
    who = first.annotator if first is not None else annotator
    try:
        box = Outbox(outbox_path(path, who))
    except BaseException:
        if first is not None:
            first.close()
        raise
    if first is None and box.kept("meta") is None and not box.waiting():
        box.close()
        raise errors.ServerUnreachable(f"{path}: the server cannot be reached ({why}) and "
                                       "nothing of this project is kept here yet")

    def reconnect() -> ReviewStore:
        # The same reviewer again: its window row names a connection that is gone.
        return backend.open(path, annotator=who, force=True)

    # A routed project (N per case, or none) lists a reviewer only their own cases; whether
    # it is routed is kept for an offline start.
    if first is not None:
        try:
            box.keep(ROUTING, {"overlap": getattr(first, "overlap", None),
                               "privileged": bool(getattr(first, "privileged", False))})
        except BaseException:
            box.close()
            first.close()
            raise
    routing = box.kept(ROUTING) or {}
    kind = (RoutedStore if routed(routing.get("overlap"), bool(routing.get("privileged")))
            else OutboxStore)
    store = kind(first, box, path=path, annotator=who, reconnect=reconnect,
                 offline_errors=unreachable)
    store.live = (address.conninfo, address.project)
    if ahead and takes_handouts(store):
        store.next_cases(ahead)
    return store


def team_backend(path: str) -> SessionBackend:
    """:class:`TeamBackend` for ``path`` (one line when psycopg is not installed): what the
    window opens projects with (:class:`~citeview.session.backends.AddressBackend`)."""
    from citeview.session.backends import server_backend

    server_backend(path)  # psycopg is there, or the one-line message
    return TeamBackend()


class TeamBackend:
    """Team projects as a :class:`~citeview.session.protocol.SessionBackend`: made on the
    server (:class:`~citeview.session.pg.PgBackend`), opened behind the outbox."""

    def __init__(self, ahead: int = AHEAD) -> None:
        self.ahead = ahead

    def exists(self, path: str) -> bool:
        from citeview.session.pg import PgBackend

        return PgBackend().exists(path)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None) -> ReviewStore:
        self.create_file(path, cases, source=source)
        return self.open(path, annotator=annotator)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None) -> None:
        from citeview.session.pg import PgBackend

        PgBackend().create_file(path, cases, source=source)

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> ReviewStore:
        if readonly:
            from citeview.session.pg import PgBackend

            return PgBackend().open(path, annotator=annotator, readonly=True)
        return open_team_project(path, annotator=annotator, ahead=self.ahead, force=force)


__all__ = ["AHEAD", "TeamBackend", "offline_errors", "open_team_project", "team_backend"]
