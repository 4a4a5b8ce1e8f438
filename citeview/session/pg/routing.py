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


def overlap(conn: psycopg.Connection[Any], where: str, project: str) -> int | None:
    """The project's routing: reviewers per case (None: every reviewer every case)."""
    try:
        row = conn.execute("SELECT overlap FROM citeview.projects WHERE name = %s",
                           (project,)).fetchone()
    except psycopg.Error as err:
        raise server_error(where, err) from None
    return None if row is None or row[0] is None else int(row[0])


def own_cases(conn: psycopg.Connection[Any], where: str, project: str,
              reviewer: str) -> list[str]:
    """The cases handed to ``reviewer`` (held or done) and those they reviewed, in input order:
    what a routed reviewer's window lists. A case whose lease expired (a window closed too
    long; the case went back to the queue) is not theirs any more unless they had finished it:
    more verdicts there would only be kept flagged late."""
    try:
        rows = conn.execute(
            "SELECT c.id FROM citeview.cases c JOIN ("
            "  SELECT a.case_id FROM citeview.assignments a WHERE a.project = %(p)s"
            "    AND a.reviewer = %(r)s AND a.state IN ('leased', 'done')"
            "  UNION SELECT r.case_id FROM citeview.reviews r WHERE r.project = %(p)s"
            "    AND r.annotator = %(r)s AND (r.state = 'done' OR NOT EXISTS ("
            "      SELECT 1 FROM citeview.assignments x WHERE x.project = %(p)s"
            "        AND x.case_id = r.case_id AND x.reviewer = %(r)s"
            "        AND x.state = 'expired'))"
            ") m ON c.id = m.case_id"
            " WHERE c.project = %(p)s ORDER BY c.pos",
            {"p": project, "r": reviewer}).fetchall()
    except psycopg.Error as err:
        raise server_error(where, err) from None
    return [str(r[0]) for r in rows]


def reviewer_counts(conn: psycopg.Connection[Any], where: str, project: str) -> dict[str, int]:
    """Per case, how many reviewers hold it or are done with it (the routing's count; a lead
    reads everyone's hand-outs, an annotator only their own)."""
    try:
        rows = conn.execute(
            "SELECT case_id, count(*) FROM citeview.assignments WHERE project = %s "
            "AND state IN ('leased', 'done') GROUP BY case_id", (project,)).fetchall()
    except psycopg.Error as err:
        raise server_error(where, err) from None
    return {str(cid): int(n) for cid, n in rows}


__all__ = ["expire_leases", "next_cases", "overlap", "own_cases", "renew_leases",
           "reviewer_counts"]
