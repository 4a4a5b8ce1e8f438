"""Routing: which reviewer reviews which case, decided by the server.

A project's ``overlap`` is how many reviewers a case gets: NULL every reviewer (full overlap),
1 none, N exactly N. ``citeview.next_cases`` (:mod:`.schema`) hands a reviewer the next case in
input order they never had whose count of holders and finishers is under N, under the case
row's lock taken ``FOR UPDATE SKIP LOCKED`` (two reviewers never wait on each other, and the
count is re-checked on the row another hand-out just changed). A hand-out is a lease: renewed by
every call and by :func:`renew_leases` while the window is open; one not renewed in time (a dead
client) expires and the case returns to the queue. A verdict written on an expired lease is kept
and flagged ``late``; it does not count toward N.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import errors as pgerrors

from citeview.session.errors import SessionError
from citeview.session.pg.connection import server_error

_RETRIES = 5  # a deadlock between two expiries is retried (the server picks a victim)


def next_cases(conn: psycopg.Connection[Any], where: str, project: str, reviewer: str,
               ahead: int = 1) -> list[str]:
    """The case ids ``reviewer`` holds, topped up to ``ahead``, in input order."""
    if ahead < 1:
        raise SessionError(f"{where}: ask for at least one case")
    for attempt in range(_RETRIES):
        try:
            with conn.transaction():
                rows = conn.execute("SELECT case_id FROM citeview.next_cases(%s, %s, %s)",
                                    (project, reviewer, ahead)).fetchall()
            return [str(r[0]) for r in rows]
        except (pgerrors.DeadlockDetected, pgerrors.SerializationFailure):
            if attempt == _RETRIES - 1:
                raise SessionError(f"{where}: the server is too busy to hand out a case; "
                                   "try again") from None
        except psycopg.Error as err:
            raise server_error(where, err) from None
    return []


def renew_leases(conn: psycopg.Connection[Any], where: str, project: str,
                 reviewer: str) -> int:
    """Extend ``reviewer``'s live leases; how many (an expired one is not revived)."""
    try:
        with conn.transaction():
            row = conn.execute("SELECT citeview.renew_leases(%s, %s)",
                               (project, reviewer)).fetchone()
    except psycopg.Error as err:
        raise server_error(where, err) from None
    return int(row[0]) if row else 0


def expire_leases(conn: psycopg.Connection[Any], where: str, project: str) -> int:
    """Return the cases of leases past their time to the queue now; how many."""
    try:
        with conn.transaction():
            row = conn.execute("SELECT citeview.expire_leases(%s)", (project,)).fetchone()
    except psycopg.Error as err:
        raise server_error(where, err) from None
    return int(row[0]) if row else 0


__all__ = ["expire_leases", "next_cases", "renew_leases"]
