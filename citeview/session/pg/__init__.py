"""Team review on a PostgreSQL server (issue 29): a project on a server is a third
implementation of :class:`~citeview.session.protocol.ReviewStore` (psycopg 3, the ``team``
extra). Nothing here imports Qt.

Modules, one concept each: :mod:`.address` (naming a project), :mod:`.schema` (tables, roles,
row-level security, versioned migrations), :mod:`.connection` (connecting, errors in one line),
:mod:`.projects` (:class:`PgBackend`: making projects, copying a session in), :mod:`.store`
(:class:`PgSession`, the open project), :mod:`.routing` (leases: who reviews which case),
:mod:`.team` (what a lead does: members, status).

API for a client that replays writes (an outbox)::

    session = PgBackend().open("postgresql://host/db?project=qa", annotator="")
    op = str(uuid.uuid4())                       # made once, kept with the edit
    session.put_annotation(annotation, op_id=op)  # stored once, however often sent
    session.put_review(review, op_id=op2)
    session.put_evidence(evidence, op_id=op4)      # evidence and corrections likewise
    session.send([RowChange(..., op_id=op3), ...])  # True: stored now; False: stored before
    session.apply(changes, op_id=op3)            # the protocol's name (returns None)
    session.applied(op)                          # is the write of ``op`` on the server?
    session.next_cases(ahead=3)                  # the reviewer's leased case ids (resume first)
    session.renew_leases()                       # while the window is open
    session.poll(timeout=0)                      # others' committed changes, as events

A write is one transaction recorded with its op id in ``citeview.ops`` (and on the rows it
wrote): a write sent again with the same op id stores nothing (``send`` returns False). Connection
failures raise :class:`ServerUnreachable` (a :class:`~citeview.session.errors.SessionError`):
nothing of that write was committed unless :meth:`PgSession.applied` says so. An annotator
connected as their own role may write only rows (verdicts, reviews, evidence, corrections)
whose annotator is that role (the server refuses others: a one-line
:class:`~citeview.session.errors.SessionError`), and in a blind project reads only those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citeview.session.pg.address import Address, is_address, parse_address

if TYPE_CHECKING:
    from citeview.session.pg.store import PgBackend, PgSession, ServerUnreachable


def __getattr__(name: str) -> Any:
    """The store's names load psycopg only when asked for: an address is told apart from a
    file without the ``team`` extra installed."""
    if name in ("PgBackend", "PgSession", "ServerUnreachable"):
        from citeview.session.pg import store

        return getattr(store, name)
    raise AttributeError(name)


__all__ = ["Address", "PgBackend", "PgSession", "ServerUnreachable", "is_address",
           "parse_address"]
