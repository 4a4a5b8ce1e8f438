"""A session file is data, never code: before any statement of citeview's runs against a
session, its schema (``sqlite_master``) must be exactly one citeview made.

A crafted ``.citeview`` could otherwise carry a trigger that deletes or flips a verdict as it is
written, a view whose recursive query hangs every reader, a virtual table, or an extra index or
table SQLite keeps up to date on citeview's own writes. The schema a version of citeview makes is
not written down twice: it is built from :data:`~citeview.session.migrations.MIGRATIONS` in an
in-memory database, so a new migration is covered as soon as it is added.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3

from citeview.session.errors import DamagedSession, SessionError, damaged
from citeview.session.migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

# (type, name, table, SQL with each line's spacing normalised); SQL is None for the indexes
# SQLite makes itself (PRIMARY KEY and UNIQUE constraints).
SchemaRow = tuple[str, str, str, str | None]


class ForeignSchema(DamagedSession):
    """A session whose schema holds something citeview did not create."""


def harden(conn: sqlite3.Connection) -> None:
    """SQL in the file's schema may call only harmless functions (``trusted_schema`` off), and
    the file cannot be corrupted on purpose through SQL (the defensive flag, Python 3.12+)."""
    conn.execute("PRAGMA trusted_schema = OFF")
    flag = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
    setconfig = getattr(conn, "setconfig", None)
    if flag is not None and setconfig is not None:
        setconfig(flag, True)


def _normalised(sql: str | None) -> str | None:
    """SQL compared line by line with runs of spaces made one (a ``--`` comment still ends at
    its line's end); spacing is all a reformatted migration may change."""
    if sql is None:
        return None
    return "\n".join(" ".join(line.split()) for line in sql.splitlines() if line.strip())


def schema_of(conn: sqlite3.Connection) -> set[SchemaRow]:
    """The objects in ``conn``'s main database (reading ``sqlite_master`` runs none of them)."""
    return {(str(t), str(n), str(tbl), _normalised(sql)) for t, n, tbl, sql in conn.execute(
        "SELECT type, name, tbl_name, sql FROM main.sqlite_master")}


@functools.cache
def expected_schema(version: int) -> frozenset[SchemaRow]:
    """The schema citeview's migrations make at ``version`` (0 to :data:`SCHEMA_VERSION`)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for migration in MIGRATIONS[:version]:
            migration(conn)
        return frozenset(schema_of(conn))
    finally:
        conn.close()


def _describe(row: SchemaRow) -> str:
    kind, name, table, sql = row
    if kind == "table" and (sql or "").upper().startswith("CREATE VIRTUAL"):
        kind = "virtual table"
    return f"{kind} {name!r}" + (f" on {table!r}" if kind in ("index", "trigger") else "")


def check_schema(conn: sqlite3.Connection, path: str, version: int) -> None:
    """:class:`ForeignSchema` unless ``conn``'s schema is the one citeview makes at
    ``version`` (:class:`DamagedSession` when one of its own tables or indexes is missing or
    defined otherwise). A session from a newer citeview (``version`` past
    :data:`SCHEMA_VERSION`, opened read-only) may hold plain tables and indexes this citeview
    does not know, never a trigger, a view or a virtual table."""
    found = schema_of(conn)
    if version <= SCHEMA_VERSION:
        known = expected_schema(max(version, 0))
        extra = sorted(found - known, key=lambda r: (r[0], r[1]))
        kinds = {(r[0], r[1]) for r in known}
        foreign = [r for r in extra if (r[0], r[1]) not in kinds
                   or (r[3] or "").upper().startswith("CREATE VIRTUAL")]
        if foreign:
            raise _foreign(path, _describe(foreign[0]), len(foreign))
        if extra:  # one of citeview's own tables or indexes, defined otherwise
            raise damaged(path, f"its {_describe(extra[0])} is not as citeview made it")
        missing = sorted(known - found, key=lambda r: (r[0], r[1]))
        if missing:
            raise damaged(path, f"its schema lacks {_describe(missing[0])}")
        return
    odd = sorted((r for r in found if r[0] not in ("table", "index")
                  or (r[3] or "").upper().startswith("CREATE VIRTUAL")),
                 key=lambda r: (r[0], r[1]))
    if odd:
        raise _foreign(path, _describe(odd[0]), len(odd))


def _foreign(path: str, what: str, count: int) -> ForeignSchema:
    more = f" and {count - 1} more" if count > 1 else ""
    return ForeignSchema(
        f"{path}: refused: its schema holds {what}{more} that citeview did not create (a "
        "session file is data, never code); nothing in it was run")


def checked(conn: sqlite3.Connection, path: str) -> None:
    """Harden ``conn``; :class:`SessionError` unless it is a citeview session (application id)
    whose schema is the one of the version its header gives. On refusal ``conn`` is closed."""
    try:
        harden(conn)
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
            raise SessionError(f"{path}: an SQLite database, but not a citeview session")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version < 0:  # the header's version field is damaged
            raise damaged(path, f"session version {version}")
        check_schema(conn, path, version)
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
        raise


__all__ = ["ForeignSchema", "check_schema", "checked", "expected_schema", "harden", "schema_of"]
