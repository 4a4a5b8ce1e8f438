"""A project's address: where the server is (libpq) and which project.

Two spellings::

    postgresql://[user@]host[:port]/dbname?sslmode=verify-full&project=NAME
    pg:SERVICE/NAME          (a libpq service of ~/.pg_service.conf or PGSERVICEFILE)

Anything libpq takes in a URI passes through (``sslmode``, ``sslrootcert``, ``host=/socket/dir``
...); ``project`` is citeview's. A password in the address is refused: it would sit in shell
history and in files citeview writes (recent files, settings); libpq reads it from
``PGPASSWORD``, ``~/.pgpass`` (``PGPASSFILE``) or the service file instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from citeview.session.errors import SessionError

_PROJECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
_SCHEMES = ("postgresql://", "postgres://")


@dataclass(slots=True, frozen=True)
class Address:
    """``conninfo`` for libpq (no password), ``project`` the project's name."""

    conninfo: str
    project: str
    text: str  # as the user wrote it (shown, remembered)


def is_address(text: str) -> bool:
    """Whether ``text`` names a project on a server (not a file)."""
    return text.startswith(_SCHEMES) or text.startswith("pg:")


def parse_address(text: str) -> Address:
    """The :class:`Address` of ``text``; :class:`SessionError` (one line) when it is not one."""
    if text.startswith("pg:"):
        service, slash, project = text[3:].partition("/")
        if not service or not slash:
            raise SessionError(f"{text}: a project address is pg:SERVICE/PROJECT")
        return Address(f"service={_quoted(service)}", _project(text, project), text)
    if not text.startswith(_SCHEMES):
        raise SessionError(f"{text}: not a project address (postgresql://...?project=NAME or "
                           "pg:SERVICE/PROJECT)")
    parts = urlsplit(text)
    if parts.password is not None:
        raise _password(text)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(k == "password" for k, _v in query):
        raise _password(text)
    projects = [v for k, v in query if k == "project"]
    if len(projects) != 1:
        raise SessionError(f"{text}: name one project (?project=NAME)")
    rest = urlencode([(k, v) for k, v in query if k != "project"])
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, ""))
    return Address(conninfo, _project(text, projects[0]), text)


def _project(text: str, name: str) -> str:
    if not _PROJECT.fullmatch(name):
        raise SessionError(f"{text}: project name {name!r}: letters, digits, '_', '.', '-' "
                           "(up to 63)")
    return name


def _quoted(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _password(text: str) -> SessionError:
    shown = re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", text)
    shown = re.sub(r"(password=)[^&]*", r"\1***", shown)
    return SessionError(f"{shown}: a password does not go in the address (it would be kept in "
                        "history and settings): use PGPASSWORD, ~/.pgpass or a service file")


def with_project(address: Address, project: str) -> str:
    """The address text of another project on the same server."""
    if address.text.startswith("pg:"):
        service = address.text[3:].partition("/")[0]
        return f"pg:{service}/{project}"
    parts = urlsplit(address.text)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "project"]
    return urlunsplit((parts.scheme, parts.netloc, parts.path,
                       urlencode([*query, ("project", project)]), ""))


__all__ = ["Address", "is_address", "parse_address", "with_project"]
