"""Connecting to the server and saying what went wrong in one line: refused (privileges,
row-level security), unreachable (:class:`~citeview.session.errors.ServerUnreachable`, the
one class the outbox waits on: nothing of the write was kept unless its op id is found
applied), or another failure."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pgerrors

from citeview.session.errors import ServerUnreachable, SessionError
from citeview.session.pg.address import Address

Conn = psycopg.Connection[Any]


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def server_error(where: str, err: psycopg.Error) -> SessionError:
    """``err`` as one line: refused (privileges, policies), unreachable, or another failure."""
    if isinstance(err, pgerrors.InsufficientPrivilege):
        return SessionError(f"{where}: refused by the server: {_one_line(err)}")
    if isinstance(err, psycopg.OperationalError):
        return ServerUnreachable(f"{where}: the server cannot be reached: {_one_line(err)}")
    return SessionError(f"{where}: {_one_line(err)}")


def connect(address: Address, *, readonly: bool = False) -> Conn:
    """A connection for ``address`` (autocommit; writes are explicit transactions)."""
    try:
        conn = psycopg.connect(address.conninfo, autocommit=True,
                               application_name="citeview")
    except psycopg.Error as err:
        raise server_error(address.text, err) from None
    conn.read_only = readonly
    return conn


@contextmanager
def guard(where: str) -> Iterator[None]:
    try:
        yield
    except psycopg.Error as err:
        raise server_error(where, err) from None


__all__ = ["Conn", "ServerUnreachable", "connect", "guard", "server_error"]
