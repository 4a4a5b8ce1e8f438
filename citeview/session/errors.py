"""What goes wrong with a session, as one-line :class:`SessionError` messages.

Reads of a session (:func:`reading`) never let a raw ``sqlite3`` error or a ``ValueError`` from
a bad column out: an unreadable file or row is a :class:`DamagedSession`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar, cast

from citeview.core.errors import InputError


class SessionError(InputError):
    """A session that cannot be opened or written, with a one-line message."""


class SessionInUse(SessionError):
    """Another live process has the session open for writing."""


class ReadOnlySession(SessionError):
    """A write to a session opened read-only."""


class DamagedSession(SessionError):
    """A session whose file or rows cannot be read as a citeview session."""


class SessionWriteError(SessionError):
    """A change that could not be written (disk full, I/O error): nothing of it was kept,
    every earlier change is."""


class DuplicateCaseIds(SessionError):
    """Two cases of a new session's input have one id."""


class ServerUnreachable(SessionError):
    """The server holding a team project cannot be reached now (refused, dropped, timed out):
    a change can wait in the outbox (:mod:`citeview.session.outbox`) and be sent later."""


def damaged(path: str, what: str) -> DamagedSession:
    return DamagedSession(
        f"{path}: damaged session ({what}); open it read-only to look at it, or keep a copy "
        "and export what can be read")


def surrogate(path: str, err: UnicodeEncodeError, doing: str) -> SessionError:
    """A text holding a lone surrogate (not Unicode text: SQLite stores UTF-8) as a one-line
    :class:`SessionError`, not the library's ``UnicodeEncodeError``."""
    bad = err.object[err.start:err.start + 1] if isinstance(err.object, str) else ""
    code = f"U+{ord(bad):04X}" if bad else "a surrogate"
    return SessionError(f"{path}: cannot {doing}: a text (a note, an annotator's name) holds a "
                        f"lone surrogate ({code}), which is not Unicode text; nothing was changed")


def one_line(err: BaseException) -> str:
    """``err`` as at most 200 characters on one line (its type's name when it says nothing)."""
    text = str(err) or type(err).__name__
    return " ".join(text.split())[:200]


@contextlib.contextmanager
def read_errors(path: str, *, keyed: bool = False) -> Iterator[None]:
    """Around a read of the session at ``path``: what the file or a row's columns raise becomes
    a :class:`DamagedSession`. With ``keyed`` a ``KeyError`` passes (an unknown case id: the
    caller's question, not damage)."""
    try:
        yield
    except _READ_ERRORS as err:
        raise _as_damaged(err, path, keyed) from None


# What reading a file or a row's columns raises when the session is damaged.
_READ_ERRORS = (sqlite3.DatabaseError, ValueError, TypeError, KeyError, RecursionError)


def _as_damaged(err: Exception, path: str, keyed: bool) -> Exception:
    """The error a read raising ``err`` gives its caller (see :func:`read_errors`)."""
    if isinstance(err, SessionError) or (keyed and isinstance(err, KeyError)):
        return err
    if isinstance(err, UnicodeEncodeError):  # what was asked for, not what the file holds
        return surrogate(path, err, "look it up")
    return damaged(path, one_line(err))


class _HasPath(Protocol):
    path: str


_T = TypeVar("_T")


def _reader(method: Callable[..., _T], keyed: bool) -> Callable[..., _T]:
    if inspect.isgeneratorfunction(method):
        # A generator runs when it is iterated, not when it is called: map what it raises then
        # (a live cursor's rows are read, and may turn out damaged, one at a time).
        @functools.wraps(method)
        def generator(self: _HasPath, *args: Any, **kwargs: Any) -> Iterator[Any]:
            with read_errors(self.path, keyed=keyed):
                yield from method(self, *args, **kwargs)
        return cast("Callable[..., _T]", generator)

    @functools.wraps(method)
    def wrapper(self: _HasPath, *args: Any, **kwargs: Any) -> _T:
        # (read_errors' mapping without a context manager: several reads a case switch)
        try:
            return method(self, *args, **kwargs)
        except _READ_ERRORS as err:
            raise _as_damaged(err, self.path, keyed) from None
    return wrapper


def reading(method: Callable[..., _T]) -> Callable[..., _T]:
    """A method that reads the session at ``self.path`` (a generator too) under
    :func:`read_errors`."""
    return _reader(method, keyed=False)


def reading_by_id(method: Callable[..., _T]) -> Callable[..., _T]:
    """:func:`reading` for a look-up by case id: an unknown id stays a ``KeyError``."""
    return _reader(method, keyed=True)


__all__ = [
    "DamagedSession", "ReadOnlySession", "ServerUnreachable", "SessionError", "SessionInUse",
    "SessionWriteError",
    "damaged", "one_line", "read_errors", "reading", "reading_by_id", "surrogate",
]
